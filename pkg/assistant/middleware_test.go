package assistant_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/cadrehq/cadre/pkg/assistant"
	"github.com/cadrehq/cadre/pkg/llmtest"
	"github.com/cadrehq/cadre/pkg/model"
	"github.com/cadrehq/cadre/pkg/tool"
	"github.com/cadrehq/cadre/pkg/usage"
)

func TestToolCallMiddlewareRefusesACall(t *testing.T) {
	t.Parallel()
	var deletes, reads atomic.Int64
	m := llmtest.NewScripted(
		llmtest.Calls(llmtest.Call("delete_city", `{"q":"Oslo"}`), llmtest.Call("read_city", `{"q":"Oslo"}`)),
		llmtest.Text(`{"name":"Oslo","population":700000}`),
	)
	var seen []assistant.ToolCall
	var mu sync.Mutex
	guard := assistant.Middleware{ToolCall: func(ctx context.Context, call assistant.ToolCall, next assistant.ToolCallNext) (string, error) {
		mu.Lock()
		seen = append(seen, call)
		mu.Unlock()
		if strings.HasPrefix(call.Tool, "delete_") {
			return "", errors.New("refused by policy: nothing is deleted here")
		}
		return next(ctx, call)
	}}
	a := assistant.New[city]("geo", assistant.WithModel(m), assistant.WithMiddleware(guard),
		assistant.WithTools(countingTool("delete_city", &deletes), countingTool("read_city", &reads)))
	res, err := a.Run(testContext(t), assistant.Input{Prompt: "Oslo?"})
	if err != nil {
		t.Fatal(err)
	}
	if deletes.Load() != 0 || reads.Load() != 1 {
		t.Errorf("delete ran %d times, read %d; want the refused call never run and the other run once", deletes.Load(), reads.Load())
	}
	got := toolResultsIn(res.Messages)
	if len(got) != 2 || got[0].Content != "error: refused by policy: nothing is deleted here" || got[1].Content != "found" {
		t.Errorf("tool results = %+v; want the refusal as the first call's error and the second's result", got)
	}
	if len(seen) != 2 || seen[0].Assistant != "geo" || seen[0].Arguments != `{"q":"Oslo"}` || seen[0].ID == "" || seen[0].RunID == "" {
		t.Errorf("the middleware saw %+v; want both calls with their assistant, run, id and arguments", seen)
	}
	if res.Usage.Total.ToolCalls != 2 {
		t.Errorf("ToolCalls = %d, want 2: a refused call was made by the model", res.Usage.Total.ToolCalls)
	}
}

func TestRequestMiddlewareAnswersFromACache(t *testing.T) {
	t.Parallel()
	m := llmtest.NewScripted(llmtest.Reply{Text: `{"name":"Oslo","population":700000}`, Usage: usage.Usage{InputTokens: 10, OutputTokens: 5}})
	var mu sync.Mutex
	cache := map[string]model.Reply{}
	var hits int
	mw := assistant.Middleware{Request: func(ctx context.Context, req *assistant.ModelRequest, next assistant.RequestNext) (model.Reply, error) {
		key := req.Model.Name + "|" + textOf(req.Messages[len(req.Messages)-1])
		mu.Lock()
		reply, ok := cache[key]
		mu.Unlock()
		if ok {
			hits++
			return model.Reply{Text: reply.Text}, nil // a cached answer costs nothing
		}
		reply, err := next(ctx, req)
		if err == nil {
			mu.Lock()
			cache[key] = reply
			mu.Unlock()
		}
		return reply, err
	}}
	a := assistant.New[city]("geo", assistant.WithModel(m), assistant.WithMiddleware(mw))
	for i := range 3 {
		res, err := a.Run(testContext(t), assistant.Input{Prompt: "Oslo?"})
		if err != nil {
			t.Fatalf("run %d: %v", i, err)
		}
		if res.Output.Name != "Oslo" {
			t.Errorf("run %d: Output = %+v", i, res.Output)
		}
		wantTokens := 0
		if i == 0 {
			wantTokens = 15
		}
		if got := res.Usage.Total; got.Requests != 1 || got.TotalTokens() != wantTokens {
			t.Errorf("run %d: usage = %+v; want 1 request and %d tokens", i, got, wantTokens)
		}
	}
	if n := len(m.Requests()); n != 1 || hits != 2 {
		t.Errorf("the model got %d requests and the cache answered %d; want 1 and 2", n, hits)
	}
}

func TestRequestMiddlewareSeesEachModelOfAFallback(t *testing.T) {
	t.Parallel()
	down := &model.ProviderError{Provider: "openai", Model: "deep", Status: 503, Message: "overloaded"}
	first := model.Describe("deep", llmtest.NewScripted(llmtest.Fail(down)))
	first.ID = "gpt-deep-2026"
	second := model.Describe("fast", llmtest.NewScripted(llmtest.Text(`{"name":"Oslo","population":700000}`)))
	var seen []string
	var errs, fallbacks []error
	mw := assistant.Middleware{Request: func(ctx context.Context, req *assistant.ModelRequest, next assistant.RequestNext) (model.Reply, error) {
		seen = append(seen, req.Model.Name+"="+req.Model.ID)
		fallbacks = append(fallbacks, req.Fallback)
		reply, err := next(ctx, req)
		errs = append(errs, err)
		return reply, err
	}}
	a := assistant.New[city]("geo", assistant.WithModels(model.Fixed(first, second)), assistant.WithMiddleware(mw))
	if _, err := a.Run(testContext(t), assistant.Input{Prompt: "Oslo?"}); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(seen, []string{"deep=gpt-deep-2026", "fast="}) {
		t.Errorf("requests seen = %q; want one per model tried, with the provider's model id", seen)
	}
	if len(errs) != 2 || !errors.Is(errs[0], down) || errs[1] != nil {
		t.Errorf("errors seen = %v; want the first model's, then none", errs)
	}
	if len(fallbacks) != 2 || fallbacks[0] != nil || !errors.Is(fallbacks[1], down) {
		t.Errorf("Fallback seen = %v; want none, then the first model's error", fallbacks)
	}
}

// A request that asks again for an answer says why the last one could not be used; the
// requests before and after it do not.
func TestRequestMiddlewareSeesACorrection(t *testing.T) {
	t.Parallel()
	m := llmtest.NewScripted(llmtest.Calls(llmtest.Call("lookup", `{}`)), llmtest.Text("not JSON"), llmtest.Text(`{"name":"Oslo","population":700000}`))
	var corrections []error
	mw := assistant.Middleware{Request: func(ctx context.Context, req *assistant.ModelRequest, next assistant.RequestNext) (model.Reply, error) {
		corrections = append(corrections, req.Correction)
		return next(ctx, req)
	}}
	var n atomic.Int64
	a := assistant.New[city]("geo", assistant.WithModel(m), assistant.WithTools(countingTool("lookup", &n)),
		assistant.WithOutputMode(assistant.OutputPrompted), assistant.WithMiddleware(mw))
	if _, err := a.Run(testContext(t), assistant.Input{Prompt: "Oslo?"}); err != nil {
		t.Fatal(err)
	}
	if len(corrections) != 3 || corrections[0] != nil || corrections[1] != nil || corrections[2] == nil {
		t.Errorf("Correction seen = %v; want nil, nil, then why the answer could not be used", corrections)
	}
}

type tenantKey struct{}

func TestRunMiddlewareContextReachesADelegatedRunsTools(t *testing.T) {
	t.Parallel()
	var got []string
	var mu sync.Mutex
	lookup := tool.Func("lookup", "Looks a city up.", func(ctx context.Context, in cityArgs) (string, error) {
		mu.Lock()
		defer mu.Unlock()
		tenant, _ := ctx.Value(tenantKey{}).(string)
		got = append(got, tenant)
		return "700000", nil
	})
	specialist := assistant.New[city]("specialist", assistant.WithTools(lookup), assistant.WithModel(llmtest.NewScripted(
		llmtest.Calls(llmtest.Call("lookup", `{"city":"Oslo"}`)),
		llmtest.Text(`{"name":"Oslo","population":700000}`),
	)))
	var runs []assistant.RunInfo
	mw := assistant.Middleware{Run: func(ctx context.Context, run assistant.RunInfo, next assistant.RunNext) (*assistant.Response, error) {
		mu.Lock()
		runs = append(runs, run)
		mu.Unlock()
		if run.Depth == 0 {
			ctx = context.WithValue(ctx, tenantKey{}, "acme")
		}
		return next(ctx)
	}}
	supervisor := assistant.New[string]("supervisor", assistant.WithMiddleware(mw),
		assistant.WithTools(assistant.AsTool[cityArgs](specialist)),
		assistant.WithModel(llmtest.NewScripted(
			llmtest.Calls(llmtest.Call("specialist", `{"city":"Oslo"}`)),
			llmtest.Text("Oslo has 700000 people."),
		)))
	if _, err := supervisor.Run(testContext(t), assistant.Input{Prompt: "Oslo?"}); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, []string{"acme"}) {
		t.Errorf("the delegated run's tool saw tenants %q; want the value the top run's middleware set", got)
	}
	if len(runs) != 2 || runs[0].Assistant != "supervisor" || runs[0].Depth != 0 || runs[0].Prompt != "Oslo?" ||
		runs[1].Assistant != "specialist" || runs[1].Depth != 1 || runs[1].ParentRunID != runs[0].RunID || runs[0].RunID == "" {
		t.Errorf("runs seen = %+v; want the supervisor's, then the specialist's as its child", runs)
	}
}

func TestToolTurnMiddlewareRunsTheCallsItselfInOrder(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var ran []string
	var inFlight, most atomic.Int64
	step := tool.Func("step", "Does one step.", func(ctx context.Context, in cityArgs) (string, error) {
		if n := inFlight.Add(1); n > most.Load() {
			most.Store(n)
		}
		defer inFlight.Add(-1)
		mu.Lock()
		ran = append(ran, in.City)
		mu.Unlock()
		return "done " + in.City, nil
	})
	m := llmtest.NewScripted(
		llmtest.Calls(llmtest.Call("step", `{"city":"a"}`), llmtest.Call("step", `{"city":"b"}`), llmtest.Call("step", `{"city":"c"}`)),
		llmtest.Text(`{"name":"Oslo","population":700000}`),
	)
	var calls []string
	var recorded []string
	inOrder := assistant.Middleware{ToolTurn: func(ctx context.Context, turn *assistant.ToolTurn, next assistant.ToolTurnNext) ([]string, error) {
		results := make([]string, len(turn.Calls))
		for i, c := range turn.Calls {
			calls = append(calls, c.Arguments)
			results[i] = turn.Call(ctx, i) // one at a time, from this goroutine
			recorded = append(recorded, results[i])
		}
		return results, nil
	}}
	var callMW atomic.Int64
	counted := assistant.Middleware{ToolCall: func(ctx context.Context, call assistant.ToolCall, next assistant.ToolCallNext) (string, error) {
		callMW.Add(1)
		return next(ctx, call)
	}}
	a := assistant.New[city]("geo", assistant.WithModel(m), assistant.WithTools(step), assistant.WithMiddleware(inOrder, counted))
	res, err := a.Run(testContext(t), assistant.Input{Prompt: "Go."})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(ran, []string{"a", "b", "c"}) || most.Load() != 1 {
		t.Errorf("ran %q with at most %d at once; want a, b, c one at a time", ran, most.Load())
	}
	if !slices.Equal(calls, []string{`{"city":"a"}`, `{"city":"b"}`, `{"city":"c"}`}) {
		t.Errorf("the turn held %q; want the model's calls in its order", calls)
	}
	if !slices.Equal(recorded, []string{"done a", "done b", "done c"}) || callMW.Load() != 3 {
		t.Errorf("results %q through %d tool-call middleware calls; want each call's result, each through it", recorded, callMW.Load())
	}
	results := toolResultsIn(res.Messages)
	if len(results) != 3 || results[2].Content != "done c" {
		t.Errorf("the model was sent %+v", results)
	}
}

func TestToolTurnMiddlewareMustAnswerEveryCall(t *testing.T) {
	t.Parallel()
	var n atomic.Int64
	m := llmtest.NewScripted(llmtest.Calls(llmtest.Call("lookup", `{}`), llmtest.Call("lookup", `{}`)))
	short := assistant.Middleware{ToolTurn: func(ctx context.Context, turn *assistant.ToolTurn, next assistant.ToolTurnNext) ([]string, error) {
		return []string{"one"}, nil
	}}
	a := assistant.New[city]("geo", assistant.WithModel(m), assistant.WithTools(countingTool("lookup", &n)), assistant.WithMiddleware(short))
	res, err := a.Run(testContext(t), assistant.Input{Prompt: "Oslo?"})
	if err == nil || !strings.Contains(err.Error(), "returned 1 results for 2 calls") {
		t.Fatalf("err = %v; want one that says the middleware answered 1 of 2 calls", err)
	}
	if res == nil || replayError(res.Messages) != nil {
		t.Errorf("the Result's messages must stay a conversation providers accept: %v", replayError(res.Messages))
	}
}

func TestRunMiddlewareAnswersWithoutRunning(t *testing.T) {
	t.Parallel()
	m := llmtest.NewScripted()
	for _, stop := range []assistant.Stop{assistant.StopAnswer, assistant.StopLimitAnswer} {
		canned := assistant.Middleware{Run: func(ctx context.Context, run assistant.RunInfo, next assistant.RunNext) (*assistant.Response, error) {
			return &assistant.Response{Text: `{"name":"Oslo","population":700000}`, Stop: stop}, nil
		}}
		a := assistant.New[city]("geo", assistant.WithModel(m))
		res, err := a.Run(testContext(t), assistant.Input{Prompt: "Oslo?", Options: []assistant.Option{assistant.WithMiddleware(canned)}})
		if err != nil {
			t.Fatal(err)
		}
		if res.Output != (city{Name: "Oslo", Population: 700000}) || res.Stop != stop || len(m.Requests()) != 0 {
			t.Errorf("Output = %+v, Stop = %q after %d requests; want the middleware's answer, decoded, its Stop, and no request", res.Output, res.Stop, len(m.Requests()))
		}
	}
}

// TestARunMiddlewaresAnswerIsNeverLost: a Response a run middleware gives without a Stop is
// an answer, its Text decoded; one whose Stop says something it does not carry — a pause
// without its state, an error without an error, a Stop cadre does not know — is refused with
// an error that says so, never returned as a zero output with no error.
func TestARunMiddlewaresAnswerIsNeverLost(t *testing.T) {
	t.Parallel()
	paused := &assistant.Paused{Assistant: "geo"}
	for _, tc := range []struct {
		name    string
		resp    assistant.Response
		want    city
		stop    assistant.Stop
		wantErr string // "" for none
	}{
		{"no Stop", assistant.Response{Text: `{"name":"Oslo","population":700000}`}, city{Name: "Oslo", Population: 700000}, assistant.StopAnswer, ""},
		{"no Stop, text that does not decode", assistant.Response{Text: "Oslo"}, city{}, assistant.StopAnswer, "does not decode into the output type"},
		{"a pause with its state", assistant.Response{Stop: assistant.StopPending, Paused: paused}, city{}, assistant.StopPending, ""},
		{"a pause without its state", assistant.Response{Stop: assistant.StopPending}, city{}, assistant.StopPending, `answered with Stop "pending" and no Paused state`},
		{"an error without an error", assistant.Response{Stop: assistant.StopError}, city{}, assistant.StopError, `answered with Stop "error" and no error`},
		{"an unknown Stop", assistant.Response{Text: "{}", Stop: "done"}, city{}, "done", `answered with Stop "done", which is none of`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			m := llmtest.NewScripted()
			canned := assistant.Middleware{Run: func(ctx context.Context, run assistant.RunInfo, next assistant.RunNext) (*assistant.Response, error) {
				resp := tc.resp
				return &resp, nil
			}}
			a := assistant.New[city]("geo", assistant.WithModel(m), assistant.WithMiddleware(canned))
			res, err := a.Run(testContext(t), assistant.Input{Prompt: "Oslo?"})
			switch {
			case tc.wantErr == "" && err != nil:
				t.Fatalf("Run: %v", err)
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
				t.Fatalf("Run: %v; want an error saying %q", err, tc.wantErr)
			case tc.wantErr != "" && !strings.HasPrefix(err.Error(), `assistant "geo": a run middleware `):
				t.Errorf("Run: %v; want it to say which assistant and that a run middleware answered", err)
			}
			if res == nil || res.Output != tc.want || res.Stop != tc.stop || res.Paused != tc.resp.Paused {
				t.Errorf("Result = %+v; want Output %+v, Stop %q, the middleware's Paused", res, tc.want, tc.stop)
			}
		})
	}
}

// TestARunMiddlewareThatGivesNothingFailsTheRun: a run middleware that returns neither a
// Response nor an error fails the run with an error saying so, instead of a nil Result with no
// error.
func TestARunMiddlewareThatGivesNothingFailsTheRun(t *testing.T) {
	t.Parallel()
	nothing := assistant.Middleware{Run: func(ctx context.Context, run assistant.RunInfo, next assistant.RunNext) (*assistant.Response, error) {
		return nil, nil
	}}
	a := assistant.New[string]("geo", assistant.WithModel(llmtest.NewScripted()), assistant.WithMiddleware(nothing))
	res, err := a.Run(testContext(t), assistant.Input{Prompt: "Oslo?"})
	if want := `assistant "geo": a run middleware returned no Response and no error`; err == nil || !strings.HasPrefix(err.Error(), want) || res != nil {
		t.Errorf("Run = %v, %v; want no Result and an error starting %q", res, err, want)
	}
}

func TestMiddlewareOrderAcrossDelegation(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var order []string
	named := func(name string) assistant.Middleware {
		return assistant.Middleware{Request: func(ctx context.Context, req *assistant.ModelRequest, next assistant.RequestNext) (model.Reply, error) {
			mu.Lock()
			order = append(order, name+">"+req.Assistant)
			mu.Unlock()
			return next(ctx, req)
		}}
	}
	specialist := assistant.New[string]("specialist", assistant.WithMiddleware(named("own")),
		assistant.WithModel(llmtest.NewScripted(llmtest.Text("700000"))))
	supervisor := assistant.New[string]("supervisor", assistant.WithMiddleware(named("top")),
		assistant.WithTools(assistant.AsTool[string](specialist)),
		assistant.WithModel(llmtest.NewScripted(llmtest.Calls(llmtest.Call("specialist", `{"input":"Oslo"}`)), llmtest.Text("700000 people."))))
	if _, err := supervisor.Run(testContext(t), assistant.Input{Prompt: "Oslo?", Options: []assistant.Option{assistant.WithMiddleware(named("run"))}}); err != nil {
		t.Fatal(err)
	}
	want := []string{"top>supervisor", "run>supervisor", "top>specialist", "run>specialist", "own>specialist", "top>supervisor", "run>supervisor"}
	if !slices.Equal(order, want) {
		t.Errorf("middleware called in order %q, want %q: the caller's first, the assistant's before the run's", order, want)
	}
}

func TestMiddlewareWrapsAResume(t *testing.T) {
	t.Parallel()
	var sent atomic.Int64
	var mu sync.Mutex
	var runs []assistant.RunInfo
	var calls []string
	mw := assistant.Middleware{
		Run: func(ctx context.Context, run assistant.RunInfo, next assistant.RunNext) (*assistant.Response, error) {
			mu.Lock()
			runs = append(runs, run)
			mu.Unlock()
			return next(ctx)
		},
		ToolCall: func(ctx context.Context, call assistant.ToolCall, next assistant.ToolCallNext) (string, error) {
			mu.Lock()
			calls = append(calls, call.Tool)
			mu.Unlock()
			return next(ctx, call)
		},
	}
	opts := []assistant.Option{assistant.WithApproval(fixed(assistant.Pending()), "send_mail"), assistant.WithMiddleware(mw)}
	res, err := mailer(&sent, opts...).Run(testContext(t), assistant.Input{Prompt: "mail ana"})
	if err != nil || res.Stop != assistant.StopPending {
		t.Fatalf("err %v, Stop %q; want a pause", err, res.Stop)
	}
	if len(calls) != 0 {
		t.Fatalf("calls ran through the middleware before the decision: %q", calls)
	}
	_, err = mailer(&sent, opts...).Resume(testContext(t), res.Paused, map[string]assistant.Decision{"call_mail": assistant.Approved()})
	if err != nil || sent.Load() != 1 {
		t.Fatalf("resume: err %v, %d sent", err, sent.Load())
	}
	slices.Sort(calls)
	if len(runs) != 2 || runs[0].Resumed || !runs[1].Resumed || runs[1].Prompt != "" || !slices.Equal(calls, []string{"lookup", "send_mail"}) {
		t.Errorf("runs %+v, calls %q; want the run, then its resume, and each call through the middleware once", runs, calls)
	}
}

func TestToolTurnMiddlewareThatCallsNext(t *testing.T) {
	t.Parallel()
	var n atomic.Int64
	m := llmtest.NewScripted(
		llmtest.Calls(llmtest.Call("lookup", `{}`), llmtest.Call("lookup", `{}`)),
		llmtest.Text(`{"name":"Oslo","population":700000}`),
	)
	var seen [][]string
	observe := assistant.Middleware{ToolTurn: func(ctx context.Context, turn *assistant.ToolTurn, next assistant.ToolTurnNext) ([]string, error) {
		results, err := next(ctx, turn)
		seen = append(seen, results)
		return results, err
	}}
	other := assistant.Middleware{Request: func(ctx context.Context, req *assistant.ModelRequest, next assistant.RequestNext) (model.Reply, error) {
		return next(ctx, req)
	}}
	// Middleware without a ToolTurn is skipped on the way, before and between.
	a := assistant.New[city]("geo", assistant.WithModel(m), assistant.WithTools(countingTool("lookup", &n)), assistant.WithMiddleware(other, observe, other, observe))
	if _, err := a.Run(testContext(t), assistant.Input{Prompt: "Oslo?"}); err != nil {
		t.Fatal(err)
	}
	if n.Load() != 2 || len(seen) != 2 || !slices.Equal(seen[0], []string{"found", "found"}) {
		t.Errorf("%d calls ran; the middleware saw %q; want both calls run once, seen by each of the two middlewares", n.Load(), seen)
	}
}

// TestToolTurnCallOutOfRangeIsAnError: ToolTurn.Call with an index outside the turn answers
// with an error result instead of panicking.
func TestToolTurnCallOutOfRangeIsAnError(t *testing.T) {
	t.Parallel()
	var n atomic.Int64
	m := llmtest.NewScripted(llmtest.Calls(llmtest.Call("lookup", `{}`), llmtest.Call("lookup", `{}`)), llmtest.Text("done"))
	var outside []string
	mw := assistant.Middleware{ToolTurn: func(ctx context.Context, turn *assistant.ToolTurn, next assistant.ToolTurnNext) ([]string, error) {
		outside = []string{turn.Call(ctx, -1), turn.Call(ctx, len(turn.Calls))}
		return next(ctx, turn)
	}}
	a := assistant.New[string]("geo", assistant.WithModel(m), assistant.WithTools(countingTool("lookup", &n)), assistant.WithMiddleware(mw))
	if _, err := a.Run(testContext(t), assistant.Input{Prompt: "Go."}); err != nil {
		t.Fatal(err)
	}
	want := []string{"error: no call -1 in a turn of 2", "error: no call 2 in a turn of 2"}
	if !slices.Equal(outside, want) || n.Load() != 2 {
		t.Errorf("calls outside the turn gave %q, and %d calls ran; want %q and the turn's 2 calls run once", outside, n.Load(), want)
	}
}

// TestNoToolTurnWhenEveryCallIsDenied: a turn whose calls were all denied runs nothing, so
// tool-turn middleware does not see it; the model gets the denials.
func TestNoToolTurnWhenEveryCallIsDenied(t *testing.T) {
	t.Parallel()
	var sent atomic.Int64
	var turns atomic.Int64
	mw := assistant.Middleware{ToolTurn: func(ctx context.Context, turn *assistant.ToolTurn, next assistant.ToolTurnNext) ([]string, error) {
		turns.Add(1)
		return next(ctx, turn)
	}}
	res, err := mailer(&sent, assistant.WithApproval(fixed(assistant.Denied("not today")), "send_mail", "lookup"),
		assistant.WithMiddleware(mw)).Run(testContext(t), assistant.Input{Prompt: "mail ana"})
	if err != nil {
		t.Fatal(err)
	}
	if turns.Load() != 0 || sent.Load() != 0 {
		t.Errorf("tool-turn middleware called %d times, %d mails sent; want neither for a turn of denied calls", turns.Load(), sent.Load())
	}
	if !strings.Contains(res.Output, "not today") {
		t.Errorf("Output = %q; want the model told of the denials", res.Output)
	}
}

// TestRunIDsWithoutACallback: a run has an ID for its middleware and its stream even when no
// callback handler is set.
func TestRunIDsWithoutACallback(t *testing.T) {
	t.Parallel()
	t.Run("middleware", func(t *testing.T) {
		t.Parallel()
		var runID, reqID string
		mw := assistant.Middleware{
			Run: func(ctx context.Context, info assistant.RunInfo, next assistant.RunNext) (*assistant.Response, error) {
				runID = info.RunID
				return next(ctx)
			},
			Request: func(ctx context.Context, req *assistant.ModelRequest, next assistant.RequestNext) (model.Reply, error) {
				reqID = req.RunID
				return next(ctx, req)
			},
		}
		a := assistant.New[string]("a", assistant.WithModel(llmtest.NewScripted(llmtest.Text("hi"))), assistant.WithMiddleware(mw))
		if _, err := a.Run(testContext(t), assistant.Input{Prompt: "go"}); err != nil {
			t.Fatal(err)
		}
		if runID == "" || reqID != runID {
			t.Errorf("RunInfo.RunID = %q, ModelRequest.RunID = %q; want one ID, not empty", runID, reqID)
		}
	})
	t.Run("stream", func(t *testing.T) {
		t.Parallel()
		var ids []string
		a := assistant.New[string]("a", assistant.WithModel(llmtest.NewScripted(llmtest.Text("hi"))),
			assistant.WithStream(func(_ context.Context, c assistant.Chunk) error {
				ids = append(ids, c.RunID)
				return nil
			}))
		if _, err := a.Run(testContext(t), assistant.Input{Prompt: "go"}); err != nil {
			t.Fatal(err)
		}
		if len(ids) != 1 || ids[0] == "" {
			t.Errorf("chunks carried run IDs %q; want one chunk with the run's ID", ids)
		}
	})
}

// A call of a tool AsTool made says it delegates; a plain tool's does not.
func TestToolCallSaysItDelegates(t *testing.T) {
	t.Parallel()
	specialist := assistant.New[string]("specialist", assistant.WithModel(llmtest.NewScripted(llmtest.Text("700000"))))
	var n atomic.Int64
	m := llmtest.NewScripted(llmtest.Calls(llmtest.Call("specialist", `{"input":"Oslo"}`), llmtest.Call("lookup", `{}`)), llmtest.Text("done"))
	var mu sync.Mutex
	seen := map[string]bool{}
	mw := assistant.Middleware{ToolTurn: func(ctx context.Context, turn *assistant.ToolTurn, next assistant.ToolTurnNext) ([]string, error) {
		mu.Lock()
		for _, c := range turn.Calls {
			seen[c.Tool] = c.Delegated
		}
		mu.Unlock()
		return next(ctx, turn)
	}}
	a := assistant.New[string]("supervisor", assistant.WithModel(m), assistant.WithMiddleware(mw),
		assistant.WithTools(assistant.AsTool[string](specialist), countingTool("lookup", &n)))
	if _, err := a.Run(testContext(t), assistant.Input{Prompt: "Oslo?"}); err != nil {
		t.Fatal(err)
	}
	if !seen["specialist"] || seen["lookup"] || len(seen) != 2 {
		t.Errorf("Delegated seen = %v; want specialist true, lookup false", seen)
	}
}
