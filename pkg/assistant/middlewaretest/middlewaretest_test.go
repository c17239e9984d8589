package middlewaretest_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/cadrehq/cadre/pkg/assistant"
	"github.com/cadrehq/cadre/pkg/assistant/middlewaretest"
	"github.com/cadrehq/cadre/pkg/model"
	"github.com/tmc/langchaingo/llms"
)

type valueKey struct{}

// keeping is a middleware that keeps the contract at every step, the way real ones do: it adds
// a value to each step's context, sends a request of its own as a copy, and runs a turn's calls
// itself, from goroutines of its own, last call first.
var keeping = assistant.Middleware{
	Run: func(ctx context.Context, info assistant.RunInfo, next assistant.RunNext) (*assistant.Response, error) {
		res, err := next(context.WithValue(ctx, valueKey{}, "run"))
		if err != nil {
			return res, errors.Join(errors.New("wrapped"), err)
		}
		return res, nil
	},
	Request: func(ctx context.Context, req *assistant.ModelRequest, next assistant.RequestNext) (model.Reply, error) {
		sent := *req
		sent.Messages = append(slices.Clip(req.Messages), llms.TextParts(llms.ChatMessageTypeSystem, "be brief"))
		return next(context.WithValue(ctx, valueKey{}, "request"), &sent)
	},
	ToolTurn: func(ctx context.Context, turn *assistant.ToolTurn, _ assistant.ToolTurnNext) ([]string, error) {
		results := make([]string, len(turn.Calls))
		var wg sync.WaitGroup
		for i := len(turn.Calls) - 1; i >= 0; i-- {
			wg.Go(func() { results[i] = turn.Call(context.WithValue(ctx, valueKey{}, "turn"), i) })
		}
		wg.Wait()
		return results, nil
	},
	ToolCall: func(ctx context.Context, call assistant.ToolCall, next assistant.ToolCallNext) (string, error) {
		return next(context.WithValue(ctx, valueKey{}, "call"), call)
	},
}

// copied is an error made again from what was kept of another.
type copied struct {
	msg   string
	cause error
}

func (e *copied) Error() string { return e.msg }
func (e *copied) Unwrap() error { return e.cause }

func TestAMiddlewareThatKeepsTheContractPasses(t *testing.T) {
	t.Parallel()
	for name, mw := range map[string]assistant.Middleware{
		"none":    {},
		"keeping": keeping,
		// A durable engine gives back a copy of a request's error, made from its record.
		"a request's error copied": {Request: func(ctx context.Context, req *assistant.ModelRequest, next assistant.RequestNext) (model.Reply, error) {
			reply, err := next(ctx, req)
			if pe, ok := errors.AsType[*model.ProviderError](err); ok {
				c := *pe
				return reply, &copied{msg: err.Error(), cause: &c}
			}
			return reply, err
		}},
		"next of each turn": {ToolTurn: func(ctx context.Context, turn *assistant.ToolTurn, next assistant.ToolTurnNext) ([]string, error) {
			return next(ctx, turn)
		}},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if err := middlewaretest.Test(mw); err != nil {
				t.Errorf("Test: %v", err)
			}
			middlewaretest.Run(t, mw)
		})
	}
}

// TestABrokenMiddlewareIsReported: a middleware that breaks one rule of the contract is
// reported under that rule, whichever step it breaks it at.
func TestABrokenMiddlewareIsReported(t *testing.T) {
	t.Parallel()
	errOwn := errors.New("a middleware's own error")
	for _, tc := range []struct {
		name string
		mw   assistant.Middleware
		rule string
		says string // in the violation's text
	}{
		{"a request sent twice", assistant.Middleware{Request: func(ctx context.Context, req *assistant.ModelRequest, next assistant.RequestNext) (model.Reply, error) {
			if _, err := next(ctx, req); err != nil {
				return model.Reply{}, err
			}
			return next(ctx, req)
		}}, "NextAtMostOnce", "next was called 2 times"},
		{"a tool called twice", assistant.Middleware{ToolCall: func(ctx context.Context, call assistant.ToolCall, next assistant.ToolCallNext) (string, error) {
			_, _ = next(ctx, call)
			return next(ctx, call)
		}}, "NextAtMostOnce", "next was called 2 times"},
		{"a turn run by next and by Call", assistant.Middleware{ToolTurn: func(ctx context.Context, turn *assistant.ToolTurn, next assistant.ToolTurnNext) ([]string, error) {
			results, err := next(ctx, turn)
			if err == nil {
				turn.Call(ctx, 0)
			}
			return results, err
		}}, "NextAtMostOnce", "ran twice in its turn"},
		{"a run run twice", assistant.Middleware{Run: func(ctx context.Context, info assistant.RunInfo, next assistant.RunNext) (*assistant.Response, error) {
			if info.Depth > 0 {
				return next(ctx)
			}
			_, _ = next(ctx)
			return next(ctx)
		}}, "NextAtMostOnce", "next was called 2 times"},
		{"a turn's result dropped", assistant.Middleware{ToolTurn: func(ctx context.Context, turn *assistant.ToolTurn, next assistant.ToolTurnNext) ([]string, error) {
			results, err := next(ctx, turn)
			if err != nil {
				return nil, err
			}
			return results[:len(results)-1], nil
		}}, "OneResultPerCallInOrder", "returned 3 results"},
		{"a turn's results reordered", assistant.Middleware{ToolTurn: func(ctx context.Context, turn *assistant.ToolTurn, next assistant.ToolTurnNext) ([]string, error) {
			results, err := next(ctx, turn)
			slices.Reverse(results)
			return results, err
		}}, "OneResultPerCallInOrder", "result 0 is the result of call 3 (t4)"},
		{"a turn's calls answered by Call out of order", assistant.Middleware{ToolTurn: func(ctx context.Context, turn *assistant.ToolTurn, _ assistant.ToolTurnNext) ([]string, error) {
			results := make([]string, len(turn.Calls))
			for i := range results {
				results[len(results)-1-i] = turn.Call(ctx, i)
			}
			return results, nil
		}}, "OneResultPerCallInOrder", "return the results in the turn's order"},
		{"a message appended to the request", assistant.Middleware{Request: func(ctx context.Context, req *assistant.ModelRequest, next assistant.RequestNext) (model.Reply, error) {
			req.Messages = append(req.Messages, llms.TextParts(llms.ChatMessageTypeSystem, "be brief"))
			return next(ctx, req)
		}}, "RequestAsItWas", "changed its Messages, then passed the request on"},
		{"a part changed in a copy", assistant.Middleware{Request: func(ctx context.Context, req *assistant.ModelRequest, next assistant.RequestNext) (model.Reply, error) {
			sent := *req
			sent.Messages[len(sent.Messages)-1].Parts[0] = llms.TextContent{Text: "something else"}
			return next(ctx, &sent)
		}}, "RequestAsItWas", "changed its Messages of the request it was given"},
		{"a tool call's arguments changed", assistant.Middleware{Request: func(ctx context.Context, req *assistant.ModelRequest, next assistant.RequestNext) (model.Reply, error) {
			for _, m := range req.Messages {
				for _, p := range m.Parts {
					if c, ok := p.(llms.ToolCall); ok {
						c.FunctionCall.Arguments = "{}"
					}
				}
			}
			return next(ctx, req)
		}}, "RequestAsItWas", "changed its Messages"},
		{"the model changed", assistant.Middleware{Request: func(ctx context.Context, req *assistant.ModelRequest, next assistant.RequestNext) (model.Reply, error) {
			req.Model.Name = "renamed"
			return next(ctx, req)
		}}, "RequestAsItWas", "changed its Model"},
		{"a request's correction dropped", assistant.Middleware{Request: func(ctx context.Context, req *assistant.ModelRequest, next assistant.RequestNext) (model.Reply, error) {
			req.Correction = nil
			return next(ctx, req)
		}}, "RequestAsItWas", `"correction": the Request step of "kit"'s request 2 to model "kit-model": the middleware changed its Fallback or Correction`},
		{"a request's fallback dropped", assistant.Middleware{Request: func(ctx context.Context, req *assistant.ModelRequest, next assistant.RequestNext) (model.Reply, error) {
			req.Fallback = nil
			return next(ctx, req)
		}}, "RequestAsItWas", `"fallback": the Request step of "kit"'s request 1 to model "kit-up": the middleware changed its Fallback or Correction`},
		{"a request's context replaced", assistant.Middleware{Request: func(_ context.Context, req *assistant.ModelRequest, next assistant.RequestNext) (model.Reply, error) {
			return next(context.Background(), req)
		}}, "ContextPassedOn", "the Request step"},
		{"a request's cancellation cut off", assistant.Middleware{Request: func(ctx context.Context, req *assistant.ModelRequest, next assistant.RequestNext) (model.Reply, error) {
			return next(context.WithoutCancel(ctx), req)
		}}, "ContextPassedOn", "that the step's cancellation does not reach"},
		{"a turn's cancellation cut off for Call", assistant.Middleware{ToolTurn: func(ctx context.Context, turn *assistant.ToolTurn, _ assistant.ToolTurnNext) ([]string, error) {
			results := make([]string, len(turn.Calls))
			for i := range results {
				results[i] = turn.Call(context.WithoutCancel(ctx), i)
			}
			return results, nil
		}}, "ContextPassedOn", "its calls ran with a context that the step's cancellation does not reach"},
		{"a run's context replaced", assistant.Middleware{Run: func(_ context.Context, _ assistant.RunInfo, next assistant.RunNext) (*assistant.Response, error) {
			return next(context.Background())
		}}, "ContextPassedOn", "the Run step"},
		{"a turn's context replaced", assistant.Middleware{ToolTurn: func(_ context.Context, turn *assistant.ToolTurn, next assistant.ToolTurnNext) ([]string, error) {
			return next(context.Background(), turn)
		}}, "ContextPassedOn", "the ToolTurn step"},
		{"a context replaced for Call", assistant.Middleware{ToolTurn: func(_ context.Context, turn *assistant.ToolTurn, _ assistant.ToolTurnNext) ([]string, error) {
			results := make([]string, len(turn.Calls))
			for i := range results {
				results[i] = turn.Call(context.Background(), i)
			}
			return results, nil
		}}, "ContextPassedOn", "its calls ran with a context that is not the step's"},
		{"a call's context replaced", assistant.Middleware{ToolCall: func(_ context.Context, call assistant.ToolCall, next assistant.ToolCallNext) (string, error) {
			return next(context.TODO(), call)
		}}, "ContextPassedOn", "the ToolCall step"},
		{"a request's error swallowed", assistant.Middleware{Request: func(ctx context.Context, req *assistant.ModelRequest, next assistant.RequestNext) (model.Reply, error) {
			reply, err := next(ctx, req)
			if err != nil {
				return model.Reply{Text: "all is well"}, nil
			}
			return reply, nil
		}}, "ErrorsAsDocumented", "the middleware returned no error"},
		{"a request's error replaced", assistant.Middleware{Request: func(ctx context.Context, req *assistant.ModelRequest, next assistant.RequestNext) (model.Reply, error) {
			reply, err := next(ctx, req)
			if err != nil {
				return reply, errOwn
			}
			return reply, nil
		}}, "ErrorsAsDocumented", "which does not wrap it"},
		{"a request's error copied without its type", assistant.Middleware{Request: func(ctx context.Context, req *assistant.ModelRequest, next assistant.RequestNext) (model.Reply, error) {
			reply, err := next(ctx, req)
			if err != nil {
				return reply, errors.New(err.Error())
			}
			return reply, nil
		}}, "ErrorsAsDocumented", "which does not wrap it"},
		{"a run's error swallowed", assistant.Middleware{Run: func(ctx context.Context, _ assistant.RunInfo, next assistant.RunNext) (*assistant.Response, error) {
			if res, err := next(ctx); err == nil {
				return res, nil
			}
			return &assistant.Response{Text: "all is well"}, nil
		}}, "ErrorsAsDocumented", "the Run step"},
		{"a run's error replaced", assistant.Middleware{Run: func(ctx context.Context, _ assistant.RunInfo, next assistant.RunNext) (*assistant.Response, error) {
			res, err := next(ctx)
			if err != nil {
				return res, errOwn
			}
			return res, nil
		}}, "ErrorsAsDocumented", "the Run step"},
		{"a tool's error swallowed", assistant.Middleware{ToolCall: func(ctx context.Context, call assistant.ToolCall, next assistant.ToolCallNext) (string, error) {
			out, err := next(ctx, call)
			if err != nil {
				return "error: " + err.Error(), nil
			}
			return out, nil
		}}, "ErrorsAsDocumented", "the ToolCall step of call e2"},
		{"a tool's error replaced", assistant.Middleware{ToolCall: func(ctx context.Context, call assistant.ToolCall, next assistant.ToolCallNext) (string, error) {
			out, err := next(ctx, call)
			if err != nil {
				return out, errOwn
			}
			return out, nil
		}}, "ErrorsAsDocumented", "the ToolCall step of call e2"},
		{"a turn's error swallowed", assistant.Middleware{ToolTurn: func(ctx context.Context, turn *assistant.ToolTurn, next assistant.ToolTurnNext) ([]string, error) {
			results, err := next(ctx, turn)
			if err != nil {
				return make([]string, len(turn.Calls)), nil
			}
			return results, nil
		}}, "ErrorsAsDocumented", "the ToolTurn step"},
		{"a turn's error replaced", assistant.Middleware{ToolTurn: func(ctx context.Context, turn *assistant.ToolTurn, next assistant.ToolTurnNext) ([]string, error) {
			results, err := next(ctx, turn)
			if err != nil {
				return nil, errOwn
			}
			return results, nil
		}}, "ErrorsAsDocumented", "the ToolTurn step"},
		{"a run answered", assistant.Middleware{Run: func(context.Context, assistant.RunInfo, assistant.RunNext) (*assistant.Response, error) {
			return &assistant.Response{Text: "cached"}, nil
		}}, "RunsGoThrough", `the run answered "cached"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			err := middlewaretest.Test(tc.mw)
			if err == nil {
				t.Fatalf("Test: no error; want a violation of %s", tc.rule)
			}
			for line := range strings.SplitSeq(err.Error(), "\n") {
				if strings.HasPrefix(line, "middlewaretest: "+tc.rule+", ") && strings.Contains(line, tc.says) {
					return
				}
			}
			t.Errorf("Test: %v\nwant a violation of %s that says %q", err, tc.rule, tc.says)
		})
	}
}
