package assistant

import (
	"context"

	"github.com/cadrehq/cadre/pkg/model"
	"github.com/tmc/langchaingo/llms"
)

// Middleware wraps the steps of runs, in the style of http.RoundTripper and gRPC interceptors.
// Each field, when set, is called around every step of its kind with the step's context, what
// the step is, and next: the rest of the chain, ending in the step itself. A middleware may
// pass next another context (one holding a span, a durable step, a value for the tools), may
// answer without calling next (a guard refusing a tool call, a cache answering a request), and
// sees what next returned, error included. Tracing, durable runs and rate limits are built on
// it, outside the run loop.
//
// The steps:
//
//   - Run: a run, top or delegated, or a resume, once its account is open and before its first
//     request; next returns the run's Response. A Response returned without calling next is
//     the run's answer: its Text is decoded into the output type (a string O takes it as it
//     is); without a Stop, it is a StopAnswer. A StopPending Response must carry its Paused
//     state, and a StopError one comes with its error: the run fails otherwise, with an
//     error saying why.
//   - Request: one request to one model of the chain; a fallback tries the next model in a
//     request of its own. HTTP retries are below it, in the model's transport. A reply counts
//     in the run's usage as one request, with the tokens its Usage reports: a cached reply
//     with no tokens costs none.
//   - ToolTurn: the calls of one model turn that are about to run — approved, and reserved
//     against the limits — in the model's order. next runs them in parallel; a middleware
//     may instead run each itself, once, with ToolTurn.Call (a durable engine starts them from
//     its own goroutine, in order). It returns one result per call, in the same order: what
//     the model is sent. An error ends the run.
//   - ToolCall: one call of a tool, from looking the tool up to its result; an error goes
//     back to the model as the call's result ("error: " and its text), and the run goes on.
//
// Middleware is given with WithMiddleware. A run's middleware wraps the runs it delegates to
// as well, as its callbacks receive their events: a delegated run's steps pass through its
// callers' middleware first, outermost the top run's, then through its own. Middleware is
// called concurrently by concurrent runs and by the parallel calls of a turn.
//
// # The contract
//
// Whatever else it does, a middleware keeps these rules, which the runs, the middleware around
// it and the callers rely on, and which middlewaretest checks
// ([github.com/cadrehq/cadre/pkg/assistant/middlewaretest]):
//
//   - Next at most once. A middleware calls next at most once per step, or not at all when
//     it answers the step itself. One that runs a turn's calls itself calls ToolTurn.Call at
//     most once for each call, and then not next: each call of a turn runs at most once.
//   - One result per call, in order. A ToolTurn middleware returns as many results as the
//     turn has calls, result i answering call i: the model matches them to its calls by
//     place.
//   - The request as it was. A Request middleware does not modify the ModelRequest it is
//     given, nor its messages, nor their parts: the run keeps them. One that sends something
//     else passes next a copy.
//   - The context passed on. The context a middleware passes to next — and to ToolTurn.Call —
//     is the one it was given, or derived from it, so that the step's values (a span, a
//     caller) and its cancellation reach the rest of the chain. A middleware may add values;
//     it does not start from context.Background() or from a context of its own.
//   - Errors as documented. When next fails, a Run or Request middleware returns next's
//     error, as it is or wrapped so that errors.Is finds it: the run falls back to the
//     chain's next model on some request errors, and the run's caller branches on them. A
//     middleware that records outcomes to give them back later, as a durable engine does, may
//     return a copy of a request's error instead: the same text, answering errors.As,
//     errors.Is and model.CanFallback as next's error did for cadre's errors
//     (model.ProviderError, usage.LimitError, ...) and the context's. A ToolCall middleware
//     returns next's error, as it is or wrapped: the run sends it to the model as the call's
//     result, and goes on. A ToolTurn middleware returns next's error, as it is or wrapped:
//     the run ends with it. A middleware that answers a step itself may return an error of
//     its own (a refusal, a limit), with the same effect.
type Middleware struct {
	Run      func(ctx context.Context, run RunInfo, next RunNext) (*Response, error)
	Request  func(ctx context.Context, req *ModelRequest, next RequestNext) (model.Reply, error)
	ToolTurn func(ctx context.Context, turn *ToolTurn, next ToolTurnNext) ([]string, error)
	ToolCall func(ctx context.Context, call ToolCall, next ToolCallNext) (string, error)
}

// RunNext is the rest of a run's middleware chain, ending in the run itself.
type RunNext func(ctx context.Context) (*Response, error)

// RequestNext is the rest of a model request's middleware chain, ending in the request.
type RequestNext func(ctx context.Context, req *ModelRequest) (model.Reply, error)

// ToolTurnNext is the rest of a tool turn's middleware chain, ending in running the turn's
// calls in parallel.
type ToolTurnNext func(ctx context.Context, turn *ToolTurn) ([]string, error)

// ToolCallNext is the rest of a tool call's middleware chain, ending in the call.
type ToolCallNext func(ctx context.Context, call ToolCall) (string, error)

// RunInfo is what a run middleware knows of the run it wraps.
type RunInfo struct {
	Assistant   string
	RunID       string // the run's id, as its events and stream chunks carry it
	ParentRunID string // the run that delegated to it; "" for a top run
	Depth       int    // 0 for a top run, 1 for a run it delegates to, ...
	Prompt      string // the user's turn; "" when the run resumes (Resumed)
	Resumed     bool   // the run continues a paused run (Resume)
	// Provider is the provider of the first model of the run's chain (its model.Model's
	// Provider; "" when unknown): where its requests go unless that model fails. A request's
	// own model is in its ModelRequest.
	Provider string
}

// ModelRequest is one request to one model: a middleware must not modify it, nor its
// messages; one that sends something else passes next a copy. The run reuses it for its next
// request: a middleware that keeps it after its request has returned keeps a copy.
type ModelRequest struct {
	Assistant string
	RunID     string
	// Model is the model the request goes to: its Name in llm.yaml, its Provider, and the
	// provider's own model id where known.
	Model    model.Model
	Messages []llms.MessageContent // the conversation, system prompt first, in cadre's shape
	Options  []llms.CallOption     // after the model's own defaults (Model.Options)
	Attempt  int                   // 1 for the run's first request, 2 for its next, ...
	// Fallback is the error of the request tried before this one in the same attempt: of the
	// model of the chain that failed before this one (the model falls back, as
	// callback.ModelFallback reports), or of this model refusing the output schema in its native
	// form (callback.OutputFallback); nil for the first request tried.
	Fallback error
	// Correction is set on a request that asks again for an answer the last one could not give
	// (as callback.OutputCorrection reports): why that answer could not be used.
	Correction error
	// Output is the output's schema, for the provider to constrain the answer to, on a request
	// that asks for the output in native form (OutputNative); nil otherwise. The request carries
	// it to the model's client in its context (model.WithOutputSchema): a middleware that sends
	// a copy without it asks for an answer the schema does not constrain.
	Output *model.OutputSchema
}

// ToolTurn is the calls of a model turn that are about to run, in the model's order.
type ToolTurn struct {
	Assistant string
	RunID     string
	Calls     []ToolCall
	t         *turn // the run's turn whose calls these are
}

// Call runs the turn's call i — through the tool-call middleware, like the calls next runs —
// and returns its result, as the model is to be sent it. A middleware that runs a turn's calls
// itself calls it once for each call, from any goroutine, and returns the results in order.
func (t *ToolTurn) Call(ctx context.Context, i int) string { return t.t.callOf(ctx, i) }

// WithMiddleware adds middleware around the assistant's runs, their model requests, tool turns
// and tool calls, and those of the runs they delegate to (see Middleware). Middleware given
// in New wraps middleware given for one run.
func WithMiddleware(mw ...Middleware) Option {
	return func(c *config) {
		c.middleware = append(c.middleware[:len(c.middleware):len(c.middleware)], mw...)
	}
}

// chain is the middleware of a run: its callers', outermost first, then its own.
type chain []Middleware

func joinChains(up, own chain) chain {
	switch {
	case len(up) == 0:
		return own
	case len(own) == 0:
		return up
	}
	return append(up[:len(up):len(up)], own...)
}

// runBody is the innermost link of a run's chain: the run itself.
type runBody interface {
	body(ctx context.Context) (*Response, error)
}

// run calls the run middleware from i on, then the run's body.
func (c chain) run(ctx context.Context, i int, info RunInfo, last runBody) (*Response, error) {
	for ; i < len(c); i++ {
		if f := c[i].Run; f != nil {
			rest := i + 1 // declared here, so that a run without run middleware allocates nothing
			return f(ctx, info, func(ctx context.Context) (*Response, error) { return c.run(ctx, rest, info, last) })
		}
	}
	return last.body(ctx)
}

// requests returns the chain's request middleware, outermost first, ending in sending the
// request: made once per run.
func (c chain) requests() RequestNext {
	next := RequestNext(send)
	for i := len(c) - 1; i >= 0; i-- {
		if f := c[i].Request; f != nil {
			inner := next
			next = func(ctx context.Context, req *ModelRequest) (model.Reply, error) { return f(ctx, req, inner) }
		}
	}
	return next
}

// send sends req to its model.
func send(ctx context.Context, req *ModelRequest) (model.Reply, error) {
	if req.Output != nil {
		ctx = model.WithOutputSchema(ctx, req.Output)
	}
	return req.Model.Generate(ctx, req.Messages, req.Options...)
}
