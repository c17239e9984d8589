package assistant_test

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tmc/langchaingo/llms"
	"pgregory.net/rapid"

	"github.com/cadrehq/cadre/internal/rungen"
	"github.com/cadrehq/cadre/pkg/assistant"
	"github.com/cadrehq/cadre/pkg/callback"
	"github.com/cadrehq/cadre/pkg/chat"
	"github.com/cadrehq/cadre/pkg/llmtest"
	"github.com/cadrehq/cadre/pkg/model"
	"github.com/cadrehq/cadre/pkg/tool"
	"github.com/cadrehq/cadre/pkg/usage"
)

// The property test of the run loop: rapid generates scenarios (internal/rungen) — what each
// model answers turn by turn, the provider it sits behind, the limits, approvals with pause →
// JSON → resume in a fresh assistant value, a cancellation at the n-th model request, a
// specialist the supervisor delegates to (in parallel, too), skills, reasoning, runs one after
// the other in a chat, models asked for the output natively, some of which refuse the schema,
// refusals apart from the text — and checks, whatever the ending, the promises users rely on:
// every tool call answered once, in order, in a conversation the providers accept; no call run
// twice; usage that adds up to what the models reported; limits never overshot; errors with
// their Result; each model asked in its own form, natively until it refuses the schema and
// then with a tool for the rest of the run, the refused request sent again at once and said
// once in the events; a refusal ending the run, quoted; no goroutine left. `make test` runs
// three hundred scenarios, `make reliability` ten thousand (-rapid.checks); a failure prints
// the shrunk scenario.

func TestRunLoopProperties(t *testing.T) {
	base := runtime.NumGoroutine()
	rounds := 1
	if f := flag.Lookup("rapid.checks"); f != nil && f.Value.String() == f.DefValue {
		rounds = 3 // a few hundred scenarios in make test; -rapid.checks for more
	}
	for range rounds {
		if rapid.Check(t, runLoopProperty(base)); t.Failed() {
			break // one shrunk failure is enough
		}
	}
	if f := flag.Lookup("rapid.checks"); f != nil {
		t.Logf("figures: run loop properties: %d rounds of %s scenarios", rounds, f.Value.String())
	}
}

// runLoopProperty is one scenario of TestRunLoopProperties.
func runLoopProperty(base int) func(*rapid.T) {
	return func(t *rapid.T) {
		s := rungen.Draw(t, rungen.Features{Wire: true, Chat: true, Cancel: true, Native: true})
		w, err := rungen.New(s)
		if err != nil {
			t.Fatal(err)
		}
		var opts []assistant.Option
		if s.Chat {
			opts = append(opts, assistant.WithStore(chat.NewMemory()))
		}
		for i := range s.Top {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			if s.Chat {
				ctx = chat.WithID(ctx, chat.ID{Tenant: "acme", User: "ana", Chat: "trip"})
			}
			w.Begin(cancel)
			playRun(ctx, t, w, s, s.Prompt(i), opts)
			cancel()
		}
		w.Close()
		checkGoroutines(t, base)
	}
}

// playRun runs the supervisor on prompt, then resumes it while it pauses, a few times at most,
// each time in a fresh assistant value, from its paused state through JSON, and checks the
// promises after each.
func playRun(ctx context.Context, t *rapid.T, w *rungen.World, s rungen.Scenario, prompt string, opts []assistant.Option) {
	from, ev := len(w.Seen().Asks), &events{}
	res, err := w.Supervisor(append(opts, assistant.WithCallback(ev))...).Run(ctx, assistant.Input{Prompt: prompt})
	check(t, w, s, res, err)
	fell := map[formKey]bool{} // the models that refused the schema, by run
	checkForms(t, s, w.Seen().Asks[from:], ev.all(), err, fell)
	checkRefusal(t, s, w.Seen().Asks[from:], err)
	decided := map[string]bool{} // approved calls, by id
	for round := 0; err == nil && res.Stop == assistant.StopPending && round < 4; round++ {
		b, merr := json.Marshal(res.Paused)
		if merr != nil {
			t.Fatalf("a paused state does not marshal: %v", merr)
		}
		var paused assistant.Paused
		if uerr := json.Unmarshal(b, &paused); uerr != nil {
			t.Fatalf("a paused state does not unmarshal: %v", uerr)
		}
		decisions := s.Decisions(round, paused.Waiting())
		for id, d := range decisions {
			decided[id] = d.Verdict == assistant.VerdictApprove
		}
		from, ev = len(w.Seen().Asks), &events{}
		res, err = w.Supervisor(append(opts, assistant.WithCallback(ev))...).Resume(ctx, &paused, decisions)
		check(t, w, s, res, err)
		checkForms(t, s, w.Seen().Asks[from:], ev.all(), err, fell)
		checkRefusal(t, s, w.Seen().Asks[from:], err)
	}
	checkApproved(t, w, res, decided)
}

// events records the events of a run and of the runs it delegates to.
type events struct {
	mu   sync.Mutex
	list []callback.Event
}

func (e *events) Handle(_ context.Context, ev callback.Event) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.list = append(e.list, ev)
}

func (e *events) all() []callback.Event {
	e.mu.Lock()
	defer e.mu.Unlock()
	return slices.Clone(e.list)
}

// formKey is a model of a World, in a run: an Ask's Model and Run.
type formKey struct{ model, run string }

// checkForms asserts, of the requests of one run or resume (asks, as the models took them, in
// order) and its events, that each model was asked in its own form: with the output schema
// where it takes one natively, until it refused the schema — then at once the same request
// again without it, and without it for the rest of its run — and that each refusal of the
// schema that was asked again was said once in the events (callback.OutputFallback, wrapping
// model.ErrOutputSchema), at most once per model and run. A refused request is left unasked
// only by a run that ended in an error (a cancellation, a limit met in a parallel run). fell
// holds the models that refused the schema before, in the run this one resumes, and gets
// those that refuse it now: a resumed run asks them without the schema, as its paused state
// says (Paused.SchemaRefused).
func checkForms(t *rapid.T, s rungen.Scenario, asks []rungen.Ask, evs []callback.Event, err error, fell map[formKey]bool) {
	refused := map[formKey]int{} // the index in asks of the model's refused request in this run
	asked := 0                   // refused requests asked again
	for i, a := range asks {
		k := formKey{a.Model, a.Run}
		j, now := refused[k]
		if now && j >= 0 {
			if r := asks[j]; a.Turn != r.Turn || a.Schema {
				t.Fatalf("request %d (%+v) after %s refused the schema at turn %d of %s: want the same request without the schema", i+1, a, a.Model, r.Turn, a.Run)
			}
			refused[k], asked = -1, asked+1
		}
		if want := s.NativeModel(a.Model) && !now && !fell[k]; a.Schema != want {
			t.Fatalf("request %d (%+v): the schema sent: %v; want %v (native %v, refused the schema in this run: %v, before it paused: %v)",
				i+1, a, a.Schema, want, s.NativeModel(a.Model), now, fell[k])
		}
		if a.SchemaRefused {
			refused[k], fell[k] = i, true
		}
	}
	for k, j := range refused {
		if j >= 0 && err == nil {
			t.Fatalf("%s refused the schema in %s (request %d), and was not asked again, in a run that ended without an error", k.model, k.run, j+1)
		}
	}
	type runModel struct{ run, model string }
	fallbacks := map[runModel]int{}
	for _, e := range evs {
		if e.Kind != callback.OutputFallback {
			continue
		}
		if !errors.Is(e.Err, model.ErrOutputSchema) {
			t.Fatalf("an OutputFallback event of %s in run %s for %v: want model.ErrOutputSchema", e.Model, e.RunID, e.Err)
		}
		if fallbacks[runModel{e.RunID, e.Model}]++; fallbacks[runModel{e.RunID, e.Model}] > 1 {
			t.Fatalf("two OutputFallback events of %s in run %s", e.Model, e.RunID)
		}
	}
	if n := len(slices.DeleteFunc(evs, func(e callback.Event) bool { return e.Kind != callback.OutputFallback })); n != asked {
		t.Fatalf("%d OutputFallback events; %d refused schemas were asked again", n, asked)
	}
}

// propArgs are the arguments of the tools of the property tests.
type propArgs struct {
	Q string `json:"q"`
}

// check asserts the promises that hold after any run or resume, whatever its ending.
func check(t *rapid.T, w *rungen.World, s rungen.Scenario, res *assistant.Result[rungen.City], err error) {
	seen := w.Seen()
	for i, conv := range seen.Convs {
		if rerr := replayError(conv); rerr != nil {
			t.Fatalf("request %d is a conversation providers reject: %v", i+1, rerr)
		}
	}
	for q, n := range seen.Runs {
		if n > 1 {
			t.Fatalf("call %s ran %d times", q, n)
		}
	}
	if err != nil && strings.Contains(err.Error(), "providertest") && !strings.Contains(err.Error(), "the model failed") {
		t.Fatalf("a fake provider API refused a request: %v", err)
	}
	var pe *model.ProviderError
	if s.Wire != "" && errors.As(err, &pe) && pe.Provider != "test" && pe.Status >= 400 && pe.Status < 500 {
		t.Fatalf("a fake provider API refused a request: %v", err)
	}
	if err != nil && seen.CalledAny && res == nil && !errors.Is(err, assistant.ErrNotPaused) {
		t.Fatalf("an error after a request came without its Result: %v", err)
	}
	var oerr *assistant.OutputError
	if errors.As(err, &oerr) {
		if n := len(oerr.Attempts); n != 2 && !(s.FinalOnLimit && n == 1) {
			t.Fatalf("an *OutputError after %d unusable answers: %v", n, err)
		}
	}
	if res == nil {
		return
	}
	u := res.Usage
	if !u.AddsUp() {
		t.Fatalf("the usage does not add up: %+v", u)
	}
	if u.Total.Requests != seen.Replies || u.Total.InputTokens != seen.In || u.Total.OutputTokens != seen.Out {
		t.Fatalf("usage %+v; the models replied %d times with %d input and %d output tokens (the run's error: %v)", u.Total, seen.Replies, seen.In, seen.Out, err)
	}
	if max := s.Limits.MaxRequests; max > 0 && u.Total.Requests > max {
		t.Fatalf("%d requests under MaxRequests %d", u.Total.Requests, max)
	}
	if max := s.Limits.MaxToolCalls; max > 0 && u.Total.ToolCalls > max {
		t.Fatalf("%d tool calls under MaxToolCalls %d", u.Total.ToolCalls, max)
	}
	runs := 0
	for _, n := range seen.Runs {
		runs += n
	}
	if max := s.Limits.MaxToolCalls; max > 0 && runs > max {
		t.Fatalf("%d tool executions under MaxToolCalls %d", runs, max)
	}
	if rerr := replayError(res.Messages); rerr != nil && res.Stop != assistant.StopPending {
		t.Fatalf("the Result's messages are a conversation providers reject: %v", rerr)
	}
	checkCallOrder(t, res.Messages)
}

// checkRefusal asserts that a run or resume, whose requests were asks, ended with the model's
// refusal, quoted, when the supervisor's last reply was one (see rungen.Scenario.Refused),
// and only then.
func checkRefusal(t *rapid.T, s rungen.Scenario, asks []rungen.Ask, err error) {
	var stop *assistant.ModelStopError
	refused := errors.As(err, &stop) && errors.Is(err, assistant.ErrRefusal)
	if want := s.Refused(asks); refused != want {
		t.Fatalf("the supervisor's last reply was a refusal: %v; the run ended with %v", want, err)
	}
	if refused && stop.Refusal != rungen.Refusal {
		t.Fatalf("a refusal quoted as %q; the model said %q: %v", stop.Refusal, rungen.Refusal, err)
	}
}

// checkCallOrder asserts that the results of each turn of calls follow it in the calls' order.
func checkCallOrder(t *rapid.T, msgs []llms.MessageContent) {
	for i, m := range msgs {
		calls := 0
		for _, part := range m.Parts {
			c, ok := part.(llms.ToolCall)
			if !ok {
				continue
			}
			j := i + 1 + calls
			calls++
			if j >= len(msgs) {
				return // a paused turn: its results come at resume
			}
			r, ok := msgs[j].Parts[0].(llms.ToolCallResponse)
			if !ok || r.ToolCallID != c.ID {
				t.Fatalf("message %d: the result of call %s is not where the model's order puts it", j, c.ID)
			}
		}
	}
}

// checkApproved asserts that every approved call that ended its run ran exactly once, or was
// answered as not run (a limit, a cancellation).
func checkApproved(t *rapid.T, w *rungen.World, res *assistant.Result[rungen.City], decided map[string]bool) {
	if res == nil || res.Stop == assistant.StopPending {
		return
	}
	results := map[string]string{}
	for _, r := range toolResultsIn(res.Messages) {
		results[r.ToolCallID] = r.Content
	}
	nonce := map[string]string{} // the q of each call: a fake API may give calls ids of its own
	for _, c := range toolCallsIn(res.Messages) {
		var a propArgs
		if json.Unmarshal([]byte(c.FunctionCall.Arguments), &a) == nil {
			nonce[c.ID] = a.Q
		}
	}
	runs := w.Seen().Runs
	for id, approved := range decided {
		got, ok := results[id]
		if !ok {
			continue // a delegated run's call: its messages are not the supervisor's
		}
		switch ran := runs[nonce[id]]; {
		case approved && ran == 1 && got == "sent "+nonce[id]:
		case approved && ran == 0 && strings.HasPrefix(got, "not run"):
		case approved && ran == 0 && strings.HasPrefix(got, "error: ") && strings.Contains(got, "context canceled"):
		case !approved && ran == 0 && (strings.HasPrefix(got, "denied") || got == rungen.AnsweredElsewhere):
		default:
			t.Fatalf("call %s (approved: %v) ran %d times and was answered %q", id, approved, ran, got)
		}
	}
}

// checkGoroutines asserts that the scenario left no goroutine behind.
func checkGoroutines(t *rapid.T, base int) {
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > base {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<16)
			t.Fatalf("%d goroutines left (base %d):\n%s", runtime.NumGoroutine(), base, buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(time.Millisecond)
	}
}

// TestCancellationWhileToolsRunStress cancels runs at random instants while their tools and
// delegated runs are running, in parallel: a race that depends on timing, outside the
// shrinking property. Whatever the instant, the Result's conversation stays one providers
// accept, its usage adds up, and no goroutine is left.
func TestCancellationWhileToolsRunStress(t *testing.T) {
	base := runtime.NumGoroutine()
	slow := tool.Func("slow", "Takes a while.", func(ctx context.Context, in propArgs) (string, error) {
		select {
		case <-time.After(time.Duration(len(in.Q)%3) * time.Millisecond):
			return "done", nil
		case <-ctx.Done():
			return "", ctx.Err()
		}
	})
	turn := func(name string, n int) llmtest.Reply {
		calls := make([]llms.ToolCall, n)
		for i := range calls {
			calls[i] = llmtest.Call(name, fmt.Sprintf(`{"q":"%s","city":"%s"}`, strings.Repeat("x", i), strings.Repeat("y", i)))
		}
		return llmtest.Reply{ToolCalls: calls, Usage: usage.Usage{InputTokens: 3, OutputTokens: 1}}
	}
	specialist := assistant.New[string]("specialist", assistant.WithTools(slow), assistant.WithModel(
		llmtest.NewScripted(turn("slow", 3), llmtest.Text("found")).Cycle().NoRecord()))
	supervisor := assistant.New[string]("supervisor", assistant.WithTools(slow, assistant.AsTool[cityArgs](specialist)),
		assistant.WithModel(llmtest.NewScripted(turn("slow", 4), turn("specialist", 3), llmtest.Text("done")).Cycle().NoRecord()))
	var wg sync.WaitGroup
	for i := range 200 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			time.AfterFunc(time.Duration(i%7)*time.Millisecond/2, cancel)
			res, err := supervisor.Run(ctx, assistant.Input{Prompt: "go"})
			if res == nil {
				return
			}
			if rerr := replayError(res.Messages); rerr != nil {
				t.Errorf("run %d (err %v): a conversation providers reject: %v", i, err, rerr)
			}
			if !res.Usage.AddsUp() {
				t.Errorf("run %d: usage does not add up: %+v", i, res.Usage)
			}
		}()
	}
	wg.Wait()
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > base && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > base {
		t.Errorf("%d goroutines left, %d before", n, base)
	}
}
