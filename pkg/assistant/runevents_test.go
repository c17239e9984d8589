package assistant_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/cadrehq/cadre/pkg/assistant"
	"github.com/cadrehq/cadre/pkg/callback"
	"github.com/cadrehq/cadre/pkg/callback/callbacktest"
	"github.com/cadrehq/cadre/pkg/llmtest"
	"github.com/cadrehq/cadre/pkg/model"
	"github.com/cadrehq/cadre/pkg/usage"
	"github.com/google/go-cmp/cmp"
)

// TestEveryRunStartIsClosed: whatever a run middleware does — fail without running the run,
// answer it, return nothing, or turn the run's answer into an error — the run's RunStart is
// followed by exactly one RunEnd or RunError, last, which says what the run returned.
func TestEveryRunStartIsClosed(t *testing.T) {
	t.Parallel()
	errRefused := errors.New("refused by policy")
	answer := `{"name":"Oslo","population":700000}`
	for _, tc := range []struct {
		name string
		run  func(ctx context.Context, info assistant.RunInfo, next assistant.RunNext) (*assistant.Response, error)
		want callback.Kind
	}{
		{"fails without next", func(context.Context, assistant.RunInfo, assistant.RunNext) (*assistant.Response, error) {
			return nil, errRefused
		}, callback.RunError},
		{"answers without next", func(context.Context, assistant.RunInfo, assistant.RunNext) (*assistant.Response, error) {
			return &assistant.Response{Text: answer}, nil
		}, callback.RunEnd},
		{"returns nothing", func(context.Context, assistant.RunInfo, assistant.RunNext) (*assistant.Response, error) {
			return nil, nil
		}, callback.RunError},
		{"answers with a Stop it does not bear out", func(context.Context, assistant.RunInfo, assistant.RunNext) (*assistant.Response, error) {
			return &assistant.Response{Stop: assistant.StopPending}, nil
		}, callback.RunError},
		{"fails after next answered", func(ctx context.Context, _ assistant.RunInfo, next assistant.RunNext) (*assistant.Response, error) {
			res, _ := next(ctx)
			return res, errRefused
		}, callback.RunError},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rec := callbacktest.NewRecorder()
			m := llmtest.NewScripted(llmtest.Text(answer))
			a := assistant.New[city]("geo", assistant.WithModel(m), assistant.WithCallback(rec),
				assistant.WithMiddleware(assistant.Middleware{Run: tc.run}))
			res, err := a.Run(testContext(t), assistant.Input{Prompt: "Oslo?"})
			kinds := rec.Kinds()
			if len(kinds) < 2 || kinds[0] != callback.RunStart || kinds[len(kinds)-1] != tc.want {
				t.Fatalf("events %v; want RunStart first and %s last", kinds, tc.want)
			}
			ends := len(rec.Of(callback.RunEnd)) + len(rec.Of(callback.RunError))
			if ends != 1 {
				t.Errorf("events %v; want exactly one RunEnd or RunError", kinds)
			}
			last := rec.Events()[len(kinds)-1]
			switch {
			case tc.want == callback.RunError && (err == nil || last.Err == nil || last.Err.Error() != err.Error()):
				t.Errorf("RunError.Err = %v; Run returned %v: want the error the run returned", last.Err, err)
			case tc.want == callback.RunEnd && (err != nil || last.Result != res.Text):
				t.Errorf("RunEnd.Result = %q, Run returned %v, %v; want the answer the run returned", last.Result, res, err)
			}
			if first := rec.Events()[0]; last.RunID != first.RunID {
				t.Errorf("the closing event's RunID %q is not RunStart's %q", last.RunID, first.RunID)
			}
		})
	}
}

// TestOutputCorrectionOnlyBeforeItsRequest: OutputCorrection says that one corrective request
// follows, so it is not sent when a limit stops that request; when the request goes, the event
// comes just before it, and speaks of the answer that could not be used.
func TestOutputCorrectionOnlyBeforeItsRequest(t *testing.T) {
	t.Parallel()
	t.Run("a limit stops the corrective request", func(t *testing.T) {
		t.Parallel()
		rec := callbacktest.NewRecorder()
		m := llmtest.NewScripted(llmtest.Text("Oslo, I think."), llmtest.Text(`{"name":"Oslo","population":700000}`))
		a := assistant.New[city]("geo", assistant.WithModel(m), assistant.WithCallback(rec),
			assistant.WithOutputMode(assistant.OutputPrompted), assistant.WithLimits(usage.Limits{MaxRequests: 1}))
		_, err := a.Run(testContext(t), assistant.Input{Prompt: "Oslo?"})
		if le := (*usage.LimitError)(nil); !errors.As(err, &le) {
			t.Fatalf("Run: %v; want the request limit", err)
		}
		want := []callback.Kind{callback.RunStart, callback.ModelRequest, callback.ModelResponse, callback.RunError}
		if diff := cmp.Diff(want, rec.Kinds()); diff != "" {
			t.Errorf("events (-want +got):\n%s", diff)
		}
	})
	t.Run("the corrective request goes", func(t *testing.T) {
		t.Parallel()
		rec := callbacktest.NewRecorder()
		m := llmtest.NewScripted(llmtest.Text("Oslo, I think."), llmtest.Text(`{"name":"Oslo","population":700000}`))
		a := assistant.New[city]("geo", assistant.WithModel(m), assistant.WithCallback(rec),
			assistant.WithOutputMode(assistant.OutputPrompted))
		if _, err := a.Run(testContext(t), assistant.Input{Prompt: "Oslo?"}); err != nil {
			t.Fatal(err)
		}
		want := []callback.Kind{callback.RunStart, callback.ModelRequest, callback.ModelResponse,
			callback.OutputCorrection, callback.ModelRequest, callback.ModelResponse, callback.RunEnd}
		if diff := cmp.Diff(want, rec.Kinds()); diff != "" {
			t.Errorf("events (-want +got):\n%s", diff)
		}
		c := rec.Of(callback.OutputCorrection)
		if len(c) != 1 || c[0].Result != "Oslo, I think." || c[0].Model != "scripted" || c[0].Err == nil {
			t.Errorf("OutputCorrection = %+v; want the unusable answer, its model and why", c)
		}
	})
}

// TestEventsAreTheOutermostLink: the events of a step are sent around the whole middleware
// chain, so a step a middleware answers itself still has them: a cached reply its request's,
// a refused call its start and error.
func TestEventsAreTheOutermostLink(t *testing.T) {
	t.Parallel()
	rec := callbacktest.NewRecorder()
	var n atomic.Int64
	m := llmtest.NewScripted(llmtest.Calls(llmtest.Call("delete_city", `{}`)))
	mw := assistant.Middleware{
		Request: func(ctx context.Context, req *assistant.ModelRequest, next assistant.RequestNext) (model.Reply, error) {
			if req.Attempt == 2 {
				return model.Reply{Text: `{"name":"Oslo","population":700000}`}, nil // a cached reply
			}
			return next(ctx, req)
		},
		ToolCall: func(ctx context.Context, call assistant.ToolCall, next assistant.ToolCallNext) (string, error) {
			return "", errors.New("refused by policy")
		},
	}
	a := assistant.New[city]("geo", assistant.WithModel(m), assistant.WithCallback(rec), assistant.WithMiddleware(mw),
		assistant.WithTools(countingTool("delete_city", &n)))
	if _, err := a.Run(testContext(t), assistant.Input{Prompt: "Oslo?"}); err != nil {
		t.Fatal(err)
	}
	want := []callback.Kind{callback.RunStart, callback.ModelRequest, callback.ModelResponse, callback.ToolStart, callback.ToolError,
		callback.ModelRequest, callback.ModelResponse, callback.RunEnd}
	if diff := cmp.Diff(want, rec.Kinds()); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	if e := rec.Of(callback.ToolError); len(e) != 1 || !strings.Contains(e[0].Result, "refused by policy") || n.Load() != 0 {
		t.Errorf("ToolError %+v, %d calls run; want the refusal and no call", e, n.Load())
	}
	if slices.ContainsFunc(rec.Events(), func(e callback.Event) bool { return e.RunID == "" }) {
		t.Error("an event has no RunID")
	}
}
