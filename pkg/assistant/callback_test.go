package assistant_test

import (
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cadrehq/cadre/pkg/assistant"
	"github.com/cadrehq/cadre/pkg/callback"
	"github.com/cadrehq/cadre/pkg/callback/callbacktest"
	"github.com/cadrehq/cadre/pkg/llmtest"
	"github.com/cadrehq/cadre/pkg/usage"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/tmc/langchaingo/llms"
)

// TestCallbackEventsOfARun: a run with a tool turn emits, in order, RunStart, a request and
// its response, the tool's start and end, the second request and response, and RunEnd, all
// with the run's one RunID; each ModelResponse carries that response's usage.
func TestCallbackEventsOfARun(t *testing.T) {
	t.Parallel()
	var runs atomic.Int64
	u1 := usage.Usage{InputTokens: 50, OutputTokens: 7}
	u2 := usage.Usage{InputTokens: 80, OutputTokens: 12, CacheReadTokens: 40}
	m := llmtest.NewScripted(
		llmtest.Reply{ToolCalls: []llms.ToolCall{{ID: "call_x", Type: "function", FunctionCall: &llms.FunctionCall{Name: "lookup", Arguments: `{"q":"Paris"}`}}}, Usage: u1},
		llmtest.Reply{Text: "Paris is big.", Usage: u2},
	)
	rec := callbacktest.NewRecorder()
	a := assistant.New[string]("observed", assistant.WithModel(m), assistant.WithTools(countingTool("lookup", &runs)),
		assistant.WithCallback(rec))

	began := time.Now()
	if _, err := a.Run(testContext(t), assistant.Input{Prompt: "Paris?"}); err != nil {
		t.Fatalf("Run: %v", err)
	}
	took := time.Since(began)

	events := rec.Events()
	if len(events) == 0 {
		t.Fatal("no events")
	}
	runID := events[0].RunID
	if runID == "" {
		t.Fatal("RunStart has no RunID")
	}
	withUsage := func(u usage.Usage) usage.Usage { u.Requests = 1; return u }
	total := u1.Add(u2)
	total.Requests, total.ToolCalls = 2, 1
	run := func(e callback.Event) callback.Event {
		e.RunID, e.Assistant = runID, "observed"
		return e
	}
	want := []callback.Event{
		run(callback.Event{Kind: callback.RunStart}),
		run(callback.Event{Kind: callback.ModelRequest, Model: "scripted", Attempt: 1}),
		run(callback.Event{Kind: callback.ModelResponse, Model: "scripted", Usage: withUsage(u1)}),
		run(callback.Event{Kind: callback.ToolStart, Tool: "lookup", CallID: "call_x", Args: `{"q":"Paris"}`}),
		run(callback.Event{Kind: callback.ToolEnd, Tool: "lookup", CallID: "call_x", Result: "found"}),
		run(callback.Event{Kind: callback.ModelRequest, Model: "scripted", Attempt: 2}),
		run(callback.Event{Kind: callback.ModelResponse, Model: "scripted", Usage: withUsage(u2)}),
		run(callback.Event{Kind: callback.RunEnd, Model: "scripted", Result: "Paris is big.", Usage: total}),
	}
	ignore := cmpopts.IgnoreFields(callback.Event{}, "Time", "Duration")
	if diff := cmp.Diff(want, events, ignore); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	for _, e := range events {
		if e.Time.IsZero() {
			t.Errorf("%s event has no Time", e.Kind)
		}
		if e.Duration < 0 || e.Duration > took {
			t.Errorf("%s event's Duration is %v; the whole run took %v", e.Kind, e.Duration, took)
		}
	}
}

// TestCallbackRunIDsDifferBetweenRuns: each run has its own RunID.
func TestCallbackRunIDsDifferBetweenRuns(t *testing.T) {
	t.Parallel()
	rec := callbacktest.NewRecorder()
	a := assistant.New[string]("twice", assistant.WithModel(llmtest.NewScripted(llmtest.Text("ok")).Cycle()), assistant.WithCallback(rec))
	for range 2 {
		if _, err := a.Run(testContext(t), assistant.Input{Prompt: "hi"}); err != nil {
			t.Fatalf("Run: %v", err)
		}
	}
	starts := rec.Of(callback.RunStart)
	if len(starts) != 2 || starts[0].RunID == starts[1].RunID {
		t.Errorf("RunStart events %+v; want two with different RunIDs", starts)
	}
}

// TestCallbackRunErrorEndsAFailedRun: a failed run ends with RunError carrying the error and the
// usage so far, and emits no RunEnd.
func TestCallbackRunErrorEndsAFailedRun(t *testing.T) {
	t.Parallel()
	rec := callbacktest.NewRecorder()
	m := llmtest.NewScripted(llmtest.Reply{Text: "ok", Usage: usage.Usage{InputTokens: 5}}, llmtest.Fail(errBoom))
	a := assistant.New[city]("failing", assistant.WithModel(m), assistant.WithCallback(rec))

	_, err := a.Run(testContext(t), assistant.Input{Prompt: "hi"})
	if !errors.Is(err, errBoom) {
		t.Fatalf("Run error = %v; want the model's error", err)
	}

	kinds := rec.Kinds()
	if len(kinds) == 0 || kinds[0] != callback.RunStart || kinds[len(kinds)-1] != callback.RunError {
		t.Fatalf("event kinds %v; want RunStart first and RunError last", kinds)
	}
	if len(rec.Of(callback.RunEnd)) != 0 {
		t.Errorf("a failed run emitted RunEnd")
	}
	last := rec.Of(callback.RunError)[0]
	if !errors.Is(last.Err, errBoom) {
		t.Errorf("RunError.Err = %v; want the model's error", last.Err)
	}
	if last.Usage.Requests != 1 || last.Usage.InputTokens != 5 {
		t.Errorf("RunError.Usage = %+v; want the first request's usage", last.Usage)
	}
	if got := len(rec.Of(callback.ModelError)); got != 1 {
		t.Errorf("%d ModelError events; want 1", got)
	}
	if got := len(rec.Of(callback.OutputCorrection)); got != 1 {
		t.Errorf("%d OutputCorrection events; want 1 for the unusable first answer", got)
	}
}

// TestCallbackPerRun: a callback given for one run gets that run's events, besides the
// assistant's own callback, and not the next run's.
func TestCallbackPerRun(t *testing.T) {
	t.Parallel()
	own, perRun := callbacktest.NewRecorder(), callbacktest.NewRecorder()
	a := assistant.New[string]("callbacks", assistant.WithModel(llmtest.NewScripted(llmtest.Text("ok")).Cycle()), assistant.WithCallback(own))
	ctx := testContext(t)

	if _, err := a.Run(ctx, assistant.Input{Prompt: "with", Options: []assistant.Option{assistant.WithCallback(perRun)}}); err != nil {
		t.Fatalf("Run: %v", err)
	}
	if _, err := a.Run(ctx, assistant.Input{Prompt: "without"}); err != nil {
		t.Fatalf("Run: %v", err)
	}

	wantKinds := []callback.Kind{callback.RunStart, callback.ModelRequest, callback.ModelResponse, callback.RunEnd}
	if diff := cmp.Diff(wantKinds, perRun.Kinds()); diff != "" {
		t.Errorf("per-run callback's events (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(append(wantKinds, wantKinds...), own.Kinds()); diff != "" {
		t.Errorf("assistant callback's events (-want +got):\n%s", diff)
	}
}
