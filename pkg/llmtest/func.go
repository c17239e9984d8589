package llmtest

import (
	"context"

	"github.com/tmc/langchaingo/llms"
)

// FuncModel is a model that answers each request with the reply its function makes of it.
//
// Configure a FuncModel (WithoutTools, NoRecord) right after NewFunc, before its first use;
// after that it is safe for concurrent use when its function is.
type FuncModel struct {
	model
	f func(ctx context.Context, req Request) Reply
}

var _ llms.Model = (*FuncModel)(nil)

// NewFunc returns a model that answers each request with f's reply. f is called with the
// request's context and the request, on the caller's goroutine, possibly concurrently; the
// reply's Latency counts from when f returns. NewFunc panics if f is nil.
func NewFunc(f func(ctx context.Context, req Request) Reply) *FuncModel {
	if f == nil {
		panic("llmtest.NewFunc: nil function")
	}
	return &FuncModel{f: f}
}

// ModelName names the model by its kind, "func": an assistant given it with WithModel reports
// its usage under that name (see model.Namer).
func (m *FuncModel) ModelName() string { return "func" }

// WithoutTools makes m a model that cannot take tools: its SupportsTools reports false. It
// returns m.
func (m *FuncModel) WithoutTools() *FuncModel {
	m.noTools = true
	return m
}

// NoRecord makes m keep no record of requests; Requests returns nil. It returns m.
func (m *FuncModel) NoRecord() *FuncModel {
	m.noRecord = true
	return m
}

// GenerateContent answers with the reply f makes of the request (see [Reply]).
func (m *FuncModel) GenerateContent(ctx context.Context, msgs []llms.MessageContent, opts ...llms.CallOption) (*llms.ContentResponse, error) {
	req := newRequest(msgs, opts)
	m.arrive(&req)
	r := m.f(ctx, req)
	info := newUsageInfo(r.Usage)
	return m.respond(ctx, &r, &info)
}

// Call sends prompt as one user message and returns the text of the answer.
func (m *FuncModel) Call(ctx context.Context, prompt string, opts ...llms.CallOption) (string, error) {
	return llms.GenerateFromSinglePrompt(ctx, m, prompt, opts...)
}
