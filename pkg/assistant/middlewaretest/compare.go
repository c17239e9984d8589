package middlewaretest

import (
	"context"
	"errors"
	"reflect"
	"slices"
	"strings"

	"github.com/cadrehq/cadre/pkg/assistant"
	"github.com/cadrehq/cadre/pkg/model"
	"github.com/cadrehq/cadre/pkg/usage"
	"github.com/tmc/langchaingo/llms"
)

// requestCopy is a ModelRequest as the chain gave it to the middleware, deep enough that a
// change made through the request — to a field, a message, a part, a tool call's arguments —
// shows.
type requestCopy struct {
	req  assistant.ModelRequest
	msgs []llms.MessageContent
	opts []llms.CallOption
}

func copyRequest(req *assistant.ModelRequest) requestCopy {
	return requestCopy{req: *req, msgs: copyMessages(req.Messages), opts: slices.Clone(req.Options)}
}

// changed names the first part of req that differs from the copy; "" when none does.
func (c requestCopy) changed(req *assistant.ModelRequest) string {
	switch {
	case !reflect.DeepEqual(c.msgs, req.Messages):
		return "its Messages"
	case !sameFuncs(c.opts, req.Options):
		return "its Options"
	case !sameModel(c.req.Model, req.Model):
		return "its Model"
	case c.req.Assistant != req.Assistant || c.req.RunID != req.RunID || c.req.Attempt != req.Attempt:
		return "its Assistant, RunID or Attempt"
	case !sameValue(c.req.Fallback, req.Fallback) || !sameValue(c.req.Correction, req.Correction):
		return "its Fallback or Correction"
	}
	return ""
}

// copyMessages copies msgs down to the parts' own slices and pointers.
func copyMessages(msgs []llms.MessageContent) []llms.MessageContent {
	if msgs == nil {
		return nil
	}
	out := make([]llms.MessageContent, len(msgs))
	for i, m := range msgs {
		out[i] = llms.MessageContent{Role: m.Role, Parts: slices.Clone(m.Parts)}
		for j, p := range out[i].Parts {
			out[i].Parts[j] = copyPart(p)
		}
	}
	return out
}

func copyPart(p llms.ContentPart) llms.ContentPart {
	switch p := p.(type) {
	case llms.ToolCall:
		if p.FunctionCall != nil {
			f := *p.FunctionCall
			p.FunctionCall = &f
		}
		return p
	case llms.BinaryContent:
		p.Data = slices.Clone(p.Data)
		return p
	}
	return p
}

// sameModel reports whether a and b are the same model, with the same options.
func sameModel(a, b model.Model) bool {
	la, lb, oa, ob := a.LLM, b.LLM, a.Options, b.Options
	a.LLM, b.LLM, a.Options, b.Options = nil, nil, nil, nil
	return reflect.DeepEqual(a, b) && sameValue(la, lb) && sameFuncs(oa, ob)
}

// sameFuncs reports whether a and b hold the same functions, in the same order, as far as
// their code pointers tell.
func sameFuncs(a, b []llms.CallOption) bool {
	return slices.EqualFunc(a, b, func(f, g llms.CallOption) bool {
		return reflect.ValueOf(f).Pointer() == reflect.ValueOf(g).Pointer()
	})
}

// sameValue compares two interface values without panicking on a type that == cannot compare.
func sameValue(a, b any) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	if reflect.TypeOf(a) != reflect.TypeOf(b) {
		return false
	}
	if reflect.TypeOf(a).Comparable() {
		return a == b
	}
	return reflect.DeepEqual(a, b)
}

// sentinels are the errors the run loop and its callers branch on with errors.Is.
var sentinels = []error{
	context.Canceled, context.DeadlineExceeded, model.ErrEmptyResponse,
	assistant.ErrTokenLimit, assistant.ErrRefusal, assistant.ErrNoModel, assistant.ErrDepthLimit,
}

// givesBack reports whether got, returned by a middleware whose next failed with want, gives
// want back: want itself or an error wrapping it (errors.Is), or, when copies count (a request
// error, which a durable engine records and gives back), a copy of it: its text, and the same
// answers from errors.Is for the sentinels, from errors.As for cadre's error types, and from
// model.CanFallback.
func givesBack(got, want error, copies bool) bool {
	if errors.Is(got, want) {
		return true
	}
	if !copies || got == nil || !strings.Contains(got.Error(), want.Error()) || model.CanFallback(got) != model.CanFallback(want) {
		return false
	}
	for _, s := range sentinels {
		if errors.Is(got, s) != errors.Is(want, s) {
			return false
		}
	}
	return sameAs[*model.ProviderError](got, want) && sameAs[*usage.LimitError](got, want) &&
		sameAs[*assistant.ModelStopError](got, want) && sameAs[*assistant.OutputError](got, want)
}

// sameAs reports whether errors.As finds an E in both got and want, with the same text, or
// in neither.
func sameAs[E error](got, want error) bool {
	g, okg := errors.AsType[E](got)
	w, okw := errors.AsType[E](want)
	return okg == okw && (!okg || g.Error() == w.Error())
}
