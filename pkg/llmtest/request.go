package llmtest

import (
	"slices"

	"github.com/tmc/langchaingo/llms"
)

// Request is what a model received.
type Request struct {
	// Messages is a copy of the slice of messages sent; the messages themselves are shared
	// with the caller, and the model never modifies them.
	Messages []llms.MessageContent

	// Options are the call options of the request, applied in order: the tools offered, the
	// tool choice, the maximum tokens, the temperature...
	Options llms.CallOptions
}

func newRequest(msgs []llms.MessageContent, opts []llms.CallOption) Request {
	r := Request{Messages: slices.Clone(msgs)}
	for _, o := range opts {
		o(&r.Options)
	}
	return r
}
