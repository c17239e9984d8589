package assistant_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"

	"github.com/cadrehq/cadre/pkg/assistant"
	"github.com/cadrehq/cadre/pkg/llmtest"
	"github.com/cadrehq/cadre/pkg/tool"
	"github.com/cadrehq/cadre/pkg/usage"
	"github.com/google/go-cmp/cmp"
	"github.com/tmc/langchaingo/llms"
)

// TestLimitsStopAModelThatNeverStops drives a model that asks for a tool on every request
// into each request and tool call limit: the run ends with *usage.LimitError after exactly the
// requests the limit allows, and returns what it used.
func TestLimitsStopAModelThatNeverStops(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name         string
		limits       *usage.Limits // nil: no WithLimits, the defaults apply
		callsPerTurn int
		wantErr      usage.LimitError
		wantRequests int
		wantToolRuns int64
	}{
		{
			name:         "default 50 requests",
			callsPerTurn: 1,
			wantErr:      usage.LimitError{Limit: usage.LimitRequests, Max: 50, Used: 50, Agent: "looper"},
			wantRequests: 50,
			wantToolRuns: 50,
		},
		{
			// Five calls a turn: the 41st turn's batch does not fit in the default 200 calls,
			// before the default 50 requests are used.
			name:         "default 200 tool calls",
			callsPerTurn: 5,
			wantErr:      usage.LimitError{Limit: usage.LimitToolCalls, Max: 200, Used: 200, Agent: "looper"},
			wantRequests: 41,
			wantToolRuns: 200,
		},
		{
			name:         "MaxRequests",
			limits:       &usage.Limits{MaxRequests: 3},
			callsPerTurn: 1,
			wantErr:      usage.LimitError{Limit: usage.LimitRequests, Max: 3, Used: 3, Agent: "looper"},
			wantRequests: 3,
			wantToolRuns: 3,
		},
		{
			// Two calls a turn against a limit of 5: the third turn's batch does not fit and is
			// refused whole, so 4 calls ran.
			name:         "MaxToolCalls, a batch reserved whole or not at all",
			limits:       &usage.Limits{MaxToolCalls: 5},
			callsPerTurn: 2,
			wantErr:      usage.LimitError{Limit: usage.LimitToolCalls, Max: 5, Used: 4, Agent: "looper"},
			wantRequests: 3,
			wantToolRuns: 4,
		},
		{
			name:         "MaxToolCalls, one call a turn",
			limits:       &usage.Limits{MaxToolCalls: 2},
			callsPerTurn: 1,
			wantErr:      usage.LimitError{Limit: usage.LimitToolCalls, Max: 2, Used: 2, Agent: "looper"},
			wantRequests: 3,
			wantToolRuns: 2,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var runs atomic.Int64
			m := endlessModel("lookup", tt.callsPerTurn)
			opts := []assistant.Option{assistant.WithModel(m), assistant.WithTools(countingTool("lookup", &runs))}
			if tt.limits != nil {
				opts = append(opts, assistant.WithLimits(*tt.limits))
			}
			a := assistant.New[string]("looper", opts...)

			res, err := a.Run(testContext(t), assistant.Input{Prompt: "go on forever"})

			var lerr *usage.LimitError
			if !errors.As(err, &lerr) {
				t.Fatalf("Run error = %v; want a *usage.LimitError", err)
			}
			if diff := cmp.Diff(tt.wantErr, *lerr); diff != "" {
				t.Errorf("LimitError (-want +got):\n%s", diff)
			}
			if got := len(m.Requests()); got != tt.wantRequests {
				t.Errorf("the model got %d requests; want exactly %d", got, tt.wantRequests)
			}
			if got := runs.Load(); got != tt.wantToolRuns {
				t.Errorf("the tool ran %d times; want %d", got, tt.wantToolRuns)
			}
			if res == nil {
				t.Fatal("no Result with the limit error: what was used is lost")
			}
			if res.Stop != assistant.StopError {
				t.Errorf("Stop = %q; want %q", res.Stop, assistant.StopError)
			}
			if res.Usage.Total.Requests != tt.wantRequests || res.Usage.Total.ToolCalls != int(tt.wantToolRuns) {
				t.Errorf("Usage.Total = %+v; want %d requests and %d tool calls", res.Usage.Total, tt.wantRequests, tt.wantToolRuns)
			}
			if tt.wantErr.Limit == usage.LimitToolCalls {
				// The refused batch is in Messages, each call answered, none of them run.
				wantNotRun(t, lastToolResults(res.Messages))
			}
		})
	}
}

// TestLimitsOfALedgerInTheContext: a run under a ledger the caller made is bound by that
// ledger's limits, not by the defaults.
func TestLimitsOfALedgerInTheContext(t *testing.T) {
	t.Parallel()
	var runs atomic.Int64
	m := endlessModel("lookup", 1)
	a := assistant.New[string]("looper", assistant.WithModel(m), assistant.WithTools(countingTool("lookup", &runs)))
	ledger := usage.NewLedger(usage.Limits{MaxRequests: 2})

	_, err := a.Run(usage.WithLedger(testContext(t), ledger), assistant.Input{Prompt: "go"})

	var lerr *usage.LimitError
	if !errors.As(err, &lerr) || lerr.Limit != usage.LimitRequests || lerr.Max != 2 {
		t.Fatalf("Run error = %v; want a *usage.LimitError for 2 requests", err)
	}
	if got := len(m.Requests()); got != 2 {
		t.Errorf("the model got %d requests; want 2", got)
	}
	if got := ledger.Report().Total.Requests; got != 2 {
		t.Errorf("the ledger recorded %d requests; want 2", got)
	}
}

// TestLimitsOnTokens: a token limit is checked before each request; the response that crosses
// it is kept, and the next request is refused with Used above Max.
func TestLimitsOnTokens(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		limits  usage.Limits
		wantErr usage.LimitError
	}{
		{"output", usage.Limits{MaxOutputTokens: 10}, usage.LimitError{Limit: usage.LimitOutputTokens, Max: 10, Used: 12, Agent: "tokens"}},
		{"input", usage.Limits{MaxInputTokens: 25}, usage.LimitError{Limit: usage.LimitInputTokens, Max: 25, Used: 40, Agent: "tokens"}},
		{"total", usage.Limits{MaxTotalTokens: 30}, usage.LimitError{Limit: usage.LimitTotalTokens, Max: 30, Used: 52, Agent: "tokens"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var runs atomic.Int64
			// Every turn costs 20 input and 6 output tokens: two turns cross each limit.
			m := llmtest.NewScripted(llmtest.Reply{
				ToolCalls: []llms.ToolCall{llmtest.Call("lookup", `{}`)},
				Usage:     usage.Usage{InputTokens: 20, OutputTokens: 6},
			}).Cycle()
			a := assistant.New[string]("tokens", assistant.WithModel(m), assistant.WithTools(countingTool("lookup", &runs)),
				assistant.WithLimits(tt.limits))

			res, err := a.Run(testContext(t), assistant.Input{Prompt: "go"})

			var lerr *usage.LimitError
			if !errors.As(err, &lerr) {
				t.Fatalf("Run error = %v; want a *usage.LimitError", err)
			}
			if diff := cmp.Diff(tt.wantErr, *lerr); diff != "" {
				t.Errorf("LimitError (-want +got):\n%s", diff)
			}
			if got := len(m.Requests()); got != 2 {
				t.Errorf("the model got %d requests; want 2", got)
			}
			if res == nil || res.Usage.Total.TotalTokens() != 52 {
				t.Errorf("Result %+v; want one with the 52 tokens used", res)
			}
		})
	}
}

// TestLimitsNegativeMeansNoLimit: a negative MaxRequests lifts the default of 50.
func TestLimitsNegativeMeansNoLimit(t *testing.T) {
	t.Parallel()
	const turns = 60
	var runs atomic.Int64
	m := llmtest.NewFunc(func(_ context.Context, req llmtest.Request) llmtest.Reply {
		if len(toolResultsIn(req.Messages)) < turns {
			return llmtest.Calls(llmtest.Call("lookup", `{}`))
		}
		return llmtest.Text("done")
	})
	a := assistant.New[string]("unbounded", assistant.WithModel(m), assistant.WithTools(countingTool("lookup", &runs)),
		assistant.WithLimits(usage.Limits{MaxRequests: -1}))

	res, err := a.Run(testContext(t), assistant.Input{Prompt: "go"})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if res.Output != "done" || len(m.Requests()) != turns+1 {
		t.Errorf("Output %q after %d requests; want %q after %d", res.Output, len(m.Requests()), "done", turns+1)
	}
}

// TestLimitsHoldAcrossConcurrentRuns: runs in parallel under one ledger cannot overshoot its
// request limit together: exactly MaxRequests of them get their request.
func TestLimitsHoldAcrossConcurrentRuns(t *testing.T) {
	t.Parallel()
	const runs, allowed = 20, 5
	m := llmtest.NewScripted(llmtest.Text("ok")).Cycle()
	a := assistant.New[string]("crowd", assistant.WithModel(m))
	ctx := usage.WithLedger(testContext(t), usage.NewLedger(usage.Limits{MaxRequests: allowed}))

	errs := make(chan error, runs)
	for range runs {
		go func() {
			_, err := a.Run(ctx, assistant.Input{Prompt: "go"})
			errs <- err
		}()
	}
	var ok, limited int
	for range runs {
		var lerr *usage.LimitError
		switch err := <-errs; {
		case err == nil:
			ok++
		case errors.As(err, &lerr):
			limited++
		default:
			t.Errorf("Run: %v", err)
		}
	}
	if ok != allowed || limited != runs-allowed || len(m.Requests()) != allowed {
		t.Errorf("%d runs answered, %d were limited, %d requests; want %d, %d, %d", ok, limited, len(m.Requests()), allowed, runs-allowed, allowed)
	}
}

// Calls that do not run are counted only where MaxToolCalls has room for them: a report never
// shows more tool calls than the limit allowed.
func TestReportNeverShowsMoreToolCallsThanTheLimit(t *testing.T) {
	t.Parallel()
	lookup := tool.Func("lookup", "Looks a city up.", func(_ context.Context, in cityArgs) (string, error) { return "big", nil })
	call := func(id string) llms.ToolCall {
		c := llmtest.Call("lookup", `{"city":"Oslo"}`)
		c.ID = id
		return c
	}
	final := llmtest.Call("final_result", `{"name":"Oslo","population":700000}`)
	for _, tc := range []struct {
		name    string
		replies []llmtest.Reply
		opts    []assistant.Option
	}{
		{
			// Two calls run; the third is refused and the last request answers beside two more
			// calls, which do not run.
			name: "the last request at a limit",
			replies: []llmtest.Reply{
				llmtest.Calls(call("a"), call("b")),
				llmtest.Calls(call("c")),
				llmtest.Calls(call("d"), call("e"), final),
			},
			opts: []assistant.Option{assistant.WithFinalAnswerOnLimit()},
		},
		{
			// Two calls run; the answer comes beside a call that is skipped.
			name: "a call skipped beside the answer",
			replies: []llmtest.Reply{
				llmtest.Calls(call("a"), call("b")),
				llmtest.Calls(final, call("c")),
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			opts := append([]assistant.Option{assistant.WithModel(llmtest.NewScripted(tc.replies...)),
				assistant.WithTools(lookup), assistant.WithLimits(usage.Limits{MaxToolCalls: 2})}, tc.opts...)
			res, err := assistant.New[city]("geo", opts...).Run(testContext(t), assistant.Input{Prompt: "Oslo?"})
			if err != nil {
				t.Fatal(err)
			}
			if got := res.Usage.Total.ToolCalls; got != 2 {
				t.Errorf("ToolCalls = %d, want the 2 that ran: the limit is 2", got)
			}
			if got := res.Usage.ByAgent["geo"].ToolCalls; got != 2 {
				t.Errorf("ByAgent ToolCalls = %d, want 2", got)
			}
		})
	}
}
