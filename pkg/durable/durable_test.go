package durable_test

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cadrehq/cadre/pkg/assistant"
	"github.com/cadrehq/cadre/pkg/durable"
	"github.com/cadrehq/cadre/pkg/llmtest"
	"github.com/cadrehq/cadre/pkg/tool"
	"github.com/cadrehq/cadre/pkg/usage"
	"github.com/dbos-inc/dbos-transact-golang/dbos"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/tmc/langchaingo/llms"
)

const question1 = "The weather in Oslo and Paris, and what about fjords?"

// wantSteps are the steps of a run of the world's supervisor, in order: the first request
// fails on deep and falls back to fast; the turn's two weather calls start as steps, then the
// researcher's run, delegated, makes its own steps; the supervisor's second request answers.
var wantSteps = []string{
	"supervisor/req1/deep",
	"supervisor/req1/fast",
	"supervisor/tool/w1:weather",
	"supervisor/tool/w2:weather",
	"supervisor/r1:researcher/req1/clerk",
	"supervisor/r1:researcher/tool/l1:lookup",
	"supervisor/r1:researcher/req2/clerk",
	"supervisor/req2/deep",
}

// started returns a world whose supervisor is registered with an engine of opts on a dbos.Context
// of the test's own, not launched yet.
func started(t *testing.T, opts ...durable.Option) (*world, dbos.Context) {
	t.Helper()
	dctx := newDBOS(t, dbos.Config{})
	eng, err := durable.New(dctx, opts...)
	if err != nil {
		t.Fatal(err)
	}
	w := &world{eng: eng}
	// The engine's middleware given in New too, as the package documentation asks of an
	// assistant with middleware of its own: each run must still be taken once.
	durable.Register(eng, w.supervisor(assistant.WithMiddleware(eng.Middleware())))
	return w, dctx
}

// stepNames returns the names of the steps of the workflow id, in order.
func stepNames(t *testing.T, dctx dbos.Context, id string) []string {
	t.Helper()
	steps, err := dbos.GetWorkflowSteps(dctx, id)
	if err != nil {
		t.Fatalf("GetWorkflowSteps(%s): %v", id, err)
	}
	names := make([]string, len(steps))
	for i, s := range steps {
		if s.StepID != i {
			t.Fatalf("step %d of %s has the number %d", i, id, s.StepID)
		}
		names[i] = s.StepName
	}
	return names
}

// sameResponse reports how got differs from want.
func sameResponse(want, got assistant.Response) string {
	return cmp.Diff(want, got, cmpopts.EquateEmpty())
}

func TestADurableRunAnswersAsARunWithoutTheEngine(t *testing.T) {
	t.Parallel()
	ctx := testContext(t, time.Minute)
	plain := &world{}
	want, err := plain.supervisor().Run(ctx, assistant.Input{Prompt: question1})
	if err != nil {
		t.Fatal(err)
	}
	if want.Text != "report: Oslo: sunny; fjords are deep (found fjords); Paris: sunny" {
		t.Fatalf("the run without the engine answered %q", want.Text)
	}

	w, dctx := started(t)
	launch(t, dctx)
	got, err := w.eng.Run(ctx, "supervisor", durable.Input{Prompt: question1})
	if err != nil {
		t.Fatal(err)
	}
	if d := sameResponse(want.Response, got.Response); d != "" {
		t.Errorf("the durable run's Response differs from the run's without the engine (-without +durable):\n%s", d)
	}
	if out, err := durable.Output[string](got); err != nil || out != want.Output {
		t.Errorf("Output = %q, %v; want %q", out, err, want.Output)
	}
	if d := cmp.Diff(wantSteps, stepNames(t, dctx, got.ID)); d != "" {
		t.Errorf("steps (-want +got):\n%s", d)
	}
	for step, ran := range w.ran.of(got.ID) {
		if len(ran) != 1 {
			t.Errorf("step %d ran %q; want one execution", step, ran)
		}
	}
}

// TestAReplayFromAnyStepGivesTheSameRun forks a finished run from each of its steps: DBOS
// copies the records of the steps before it and runs the workflow again, from its input decoded
// from the database, as a recovery does. Every fork must answer as the run did, with the same
// usage, and run again the steps from its start on only. This is what finds a record that does
// not give back what the step returned (reasoning without its signature, an error without its
// type, which would not fall back again): the first execution never reads a record.
func TestAReplayFromAnyStepGivesTheSameRun(t *testing.T) {
	t.Parallel()
	ctx := testContext(t, 2*time.Minute)
	w, dctx := started(t)
	q := replayQueue(t, dctx)
	launch(t, dctx)
	id, err := w.eng.Start(ctx, "supervisor", durable.Input{Prompt: question1})
	if err != nil {
		t.Fatal(err)
	}
	if names := replayFromEveryStep(ctx, t, w, dctx, q, id); !slices.Equal(names, wantSteps) {
		t.Errorf("steps %q; want %q", names, wantSteps)
	}
}

// TestAReplayEndsACallsRunningAsTheRunDid: a turn of a tool call and a delegated run that
// reaches a limit — which ends the whole tree, cancelling what still runs. The run's tool call
// took a while and answered; so must a replay's, although the replay gets the delegated run's
// requests back from their records at once: a limit reached in a delegated run must not race
// with the tool calls of its caller's turn.
func TestAReplayEndsACallsRunningAsTheRunDid(t *testing.T) {
	t.Parallel()
	ctx := testContext(t, time.Minute)
	dctx := newDBOS(t, dbos.Config{})
	eng, err := durable.New(dctx)
	if err != nil {
		t.Fatal(err)
	}
	waited := make(chan struct{})
	var once sync.Once
	wait := tool.Func("wait", "Takes a while.", func(ctx context.Context, _ struct{}) (string, error) {
		select {
		case <-ctx.Done():
			return "", ctx.Err()
		case <-time.After(time.Second):
		}
		once.Do(func() { close(waited) })
		return "waited", nil
	})
	lookup := tool.Func("lookup", "Looks a topic up.", func(_ context.Context, in query) (string, error) {
		return "found " + in.Q, nil
	})
	researcher := assistant.New[string]("researcher", assistant.WithTools(lookup),
		assistant.WithModel(llmtest.NewFunc(func(ctx context.Context, req llmtest.Request) llmtest.Reply {
			// Asked in the run only, not in a replay: the run's call has answered first.
			select {
			case <-waited:
			case <-ctx.Done():
				return llmtest.Fail(ctx.Err())
			}
			return llmtest.Calls(call("l1", "lookup", `{"q":"fjords"}`))
		})))
	durable.Register(eng, assistant.New[string]("supervisor",
		assistant.WithTools(wait, assistant.AsTool[question](researcher)),
		assistant.WithLimits(usage.Limits{MaxRequests: 2}), // the researcher's second request is one too many
		assistant.WithModel(llmtest.NewFunc(func(context.Context, llmtest.Request) llmtest.Reply {
			return llmtest.Calls(call("r1", "researcher", `{"topic":"fjords"}`), call("w1", "wait", "{}"))
		}))))
	launch(t, dctx)
	id, err := eng.Start(ctx, "supervisor", durable.Input{Prompt: "Fjords?"})
	if err != nil {
		t.Fatal(err)
	}
	want, wantErr := eng.Await(ctx, id)
	var limit *usage.LimitError
	if !errors.As(wantErr, &limit) || want == nil {
		t.Fatalf("the run: %v; want the researcher's limit, with the Result", wantErr)
	}
	names := stepNames(t, dctx, id)
	step := slices.Index(names, "supervisor/tool/w1:wait")
	if step < 0 {
		t.Fatalf("steps %q; want the call w1 among them", names)
	}
	h, err := dbos.ForkWorkflow[any](dctx, dbos.ForkWorkflowInput{OriginalWorkflowID: id, StartStep: uint(step)})
	if err != nil {
		t.Fatal(err)
	}
	got, err := eng.Await(ctx, h.GetWorkflowID())
	if err == nil || err.Error() != wantErr.Error() || got == nil {
		t.Fatalf("the replay: %v; want the run's error, %v, with the Result", err, wantErr)
	}
	if d := sameResponse(want.Response, got.Response); d != "" {
		t.Errorf("the replay from the call's step answered otherwise (-run +replay):\n%s", d)
	}
}

// replayQueue registers a queue for forks that is polled often, so that forks start at once.
func replayQueue(t *testing.T, dctx dbos.Context) dbos.Queue {
	t.Helper()
	q, err := dbos.RegisterQueue(dctx, appName(), dbos.WithQueueBasePollingInterval(20*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	return q
}

// replayFromEveryStep waits for the run id, forks it from each of its steps onto q, and checks
// that each fork gives the run's Result and steps, having run again only the steps from its
// start on, each as the run did. It returns the run's steps.
func replayFromEveryStep(ctx context.Context, t *testing.T, w *world, dctx dbos.Context, q dbos.Queue, id string) []string {
	t.Helper()
	want, err := w.eng.Await(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	names := stepNames(t, dctx, id)
	original := w.ran.of(id)
	for step, what := range original {
		if len(what) != 1 {
			t.Errorf("run %s: step %d ran %q; want once", id, step, what)
		}
	}
	forks := make([]string, len(names)+1) // from every step, and from after the last
	for k := range forks {
		h, err := dbos.ForkWorkflow[any](dctx, dbos.ForkWorkflowInput{OriginalWorkflowID: id, StartStep: uint(k), QueueName: q.GetName()})
		if err != nil {
			t.Fatalf("ForkWorkflow from step %d: %v", k, err)
		}
		forks[k] = h.GetWorkflowID()
	}
	for k, fork := range forks {
		got, err := w.eng.Await(ctx, fork)
		if err != nil {
			t.Errorf("the fork from step %d failed: %v", k, err)
			continue
		}
		if d := sameResponse(want.Response, got.Response); d != "" {
			t.Errorf("the fork from step %d answered otherwise (-run +fork):\n%s", k, d)
		}
		if d := cmp.Diff(names, stepNames(t, dctx, fork)); d != "" {
			t.Errorf("the fork from step %d has other steps (-run +fork):\n%s", k, d)
		}
		ran := w.ran.of(fork)
		for step := range names {
			switch {
			case step < k && len(ran[step]) > 0:
				t.Errorf("the fork from step %d ran step %d (%s) again: %q", k, step, names[step], ran[step])
			case step >= k && !slices.Equal(ran[step], original[step]):
				t.Errorf("the fork from step %d ran step %d (%s) as %q; the run ran %q", k, step, names[step], ran[step], original[step])
			}
		}
	}
	return names
}

func TestARunStartedTwiceWithOneIDRunsOnce(t *testing.T) {
	t.Parallel()
	ctx := testContext(t, time.Minute)
	w, dctx := started(t)
	launch(t, dctx)
	id := "order-" + rand.Text()
	first, err := w.eng.Start(ctx, "supervisor", durable.Input{Prompt: question1}, durable.WithID(id))
	if err != nil {
		t.Fatal(err)
	}
	second, err := w.eng.Start(ctx, "supervisor", durable.Input{Prompt: "Something else entirely"}, durable.WithID(id))
	if err != nil {
		t.Fatal(err)
	}
	if first != id || second != id {
		t.Fatalf("Start returned %q and %q; want the ID given, %q", first, second, id)
	}
	a, err := w.eng.Await(ctx, first)
	if err != nil {
		t.Fatal(err)
	}
	b, err := w.eng.Await(ctx, second)
	if err != nil {
		t.Fatal(err)
	}
	if d := sameResponse(a.Response, b.Response); d != "" {
		t.Errorf("the second Await differs (-first +second):\n%s", d)
	}
	ran := w.ran.of(id)
	if len(ran) != len(wantSteps) {
		t.Errorf("%d steps ran; want %d", len(ran), len(wantSteps))
	}
	for step, what := range ran {
		if len(what) != 1 {
			t.Errorf("step %d ran %q; want once", step, what)
		}
	}
}

// TestToolCallsOfATurnRunInParallelWithinTheBound: the calls of a turn run at once, as many as
// the engine's bound allows and no more.
func TestToolCallsOfATurnRunInParallelWithinTheBound(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		opts  []durable.Option
		calls int
		want  int
		hold  time.Duration
	}{
		{"by default", nil, 4, 4, 3 * time.Second},
		// Each call waits for all four to run at once, which the bound never lets happen: a
		// while, then it returns and the next starts.
		{"bounded", []durable.Option{durable.WithMaxParallelTools(2)}, 4, 2, 300 * time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx := testContext(t, time.Minute)
			dctx := newDBOS(t, dbos.Config{})
			eng, err := durable.New(dctx, tc.opts...)
			if err != nil {
				t.Fatal(err)
			}
			g := &gauge{want: tc.calls, hold: tc.hold}
			calls := make([]llms.ToolCall, tc.calls)
			for i := range calls {
				calls[i] = call(fmt.Sprintf("c%d", i), "slow", "{}")
			}
			crew := assistant.New[string]("crew", assistant.WithModel(llmtest.NewFunc(func(_ context.Context, req llmtest.Request) llmtest.Reply {
				if turns(req.Messages) == 0 {
					return llmtest.Calls(calls...)
				}
				return llmtest.Text(strings.Join(results(req.Messages), ","))
			})), assistant.WithTools(tool.Func("slow", "Takes its time.", func(ctx context.Context, _ struct{}) (string, error) {
				return g.enter(ctx), nil
			})))
			durable.Register(eng, crew)
			launch(t, dctx)
			res, err := eng.Run(ctx, "crew", durable.Input{Prompt: "go"})
			if err != nil {
				t.Fatal(err)
			}
			if g.most != tc.want {
				t.Errorf("at most %d calls ran at once; want %d (results %s)", g.most, tc.want, res.Text)
			}
		})
	}
}

// gauge is a tool that waits, for hold at most, until want calls run at once, and notes the
// most that did.
type gauge struct {
	mu        sync.Mutex
	now, most int
	want      int
	hold      time.Duration
	wait      chan struct{}
}

func (g *gauge) enter(ctx context.Context) string {
	g.mu.Lock()
	if g.wait == nil {
		g.wait = make(chan struct{})
	}
	g.now++
	g.most = max(g.most, g.now)
	if g.now == g.want {
		close(g.wait)
		g.wait = nil
	}
	wait := g.wait
	g.mu.Unlock()
	if wait != nil {
		select {
		case <-wait:
		case <-time.After(g.hold):
		case <-ctx.Done():
		}
	}
	g.mu.Lock()
	g.now--
	g.mu.Unlock()
	return "ok"
}

// TestAFailedRunsErrorComesBack: the error of a durable run that failed is the run's, rebuilt
// from the record: errors.As finds the limit that stopped it, and the Result so far comes with
// it, as from a run without the engine.
func TestAFailedRunsErrorComesBack(t *testing.T) {
	t.Parallel()
	ctx := testContext(t, time.Minute)
	limits := usage.Limits{MaxToolCalls: 2}
	want, wantErr := (&world{}).supervisor().Run(ctx, assistant.Input{Prompt: question1, Options: []assistant.Option{assistant.WithLimits(limits)}})
	var wantLimit *usage.LimitError
	if !errors.As(wantErr, &wantLimit) || want == nil {
		t.Fatalf("the run without the engine: %v; want a limit error and a Result", wantErr)
	}
	w, dctx := started(t)
	launch(t, dctx)
	got, err := w.eng.Run(ctx, "supervisor", durable.Input{Prompt: question1, Limits: &limits})
	var limit *usage.LimitError
	if !errors.As(err, &limit) || *limit != *wantLimit || err.Error() != wantErr.Error() {
		t.Fatalf("err = %v (%#v); want %v (%#v)", err, limit, wantErr, wantLimit)
	}
	if got == nil {
		t.Fatal("no Result with the error")
	}
	if d := sameResponse(want.Response, got.Response); d != "" {
		t.Errorf("the Result so far differs (-without +durable):\n%s", d)
	}
	if _, err := durable.Output[string](got); err == nil {
		t.Error("Output of a failed run: no error")
	}
}

// TestOutsideAWorkflowTheMiddlewarePasses: an assistant given the engine's middleware and run
// outside a workflow runs as without it, with no step.
func TestOutsideAWorkflowTheMiddlewarePasses(t *testing.T) {
	t.Parallel()
	ctx := testContext(t, time.Minute)
	want, err := (&world{}).supervisor().Run(ctx, assistant.Input{Prompt: question1})
	if err != nil {
		t.Fatal(err)
	}
	eng, err := durable.New(newDBOS(t, dbos.Config{}))
	if err != nil {
		t.Fatal(err)
	}
	w := &world{eng: eng}
	got, err := w.supervisor(assistant.WithMiddleware(eng.Middleware())).Run(ctx, assistant.Input{Prompt: question1})
	if err != nil {
		t.Fatal(err)
	}
	if d := sameResponse(want.Response, got.Response); d != "" {
		t.Errorf("(-without +with the middleware):\n%s", d)
	}
	if n := len(w.ran.ran["-"]); n != 8 || len(w.ran.ran) != 1 {
		t.Errorf("executions %v; want 8, none in a step", w.ran.ran)
	}
}

func TestNewRefusesASecondEngineOfOneName(t *testing.T) {
	t.Parallel()
	dctx := newDBOS(t, dbos.Config{})
	if _, err := durable.New(dctx); err != nil {
		t.Fatal(err)
	}
	if _, err := durable.New(dctx); err == nil {
		t.Error("a second engine named cadre: no error")
	}
	if _, err := durable.New(dctx, durable.WithName("other")); err != nil {
		t.Errorf("a second engine of another name: %v", err)
	}
}

func TestStartRefusesAnAssistantNotRegistered(t *testing.T) {
	t.Parallel()
	eng, err := durable.New(newDBOS(t, dbos.Config{}))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := eng.Start(context.Background(), "nobody", durable.Input{Prompt: "hi"}); err == nil || !strings.Contains(err.Error(), "Register") {
		t.Errorf("err = %v; want one that says to Register the assistant", err)
	}
}

// TestATimeoutCancelsTheRun: a run bounded by WithTimeout that runs out of time is cancelled by
// DBOS, and Await says so.
func TestATimeoutCancelsTheRun(t *testing.T) {
	t.Parallel()
	ctx := testContext(t, time.Minute)
	dctx := newDBOS(t, dbos.Config{})
	eng, err := durable.New(dctx)
	if err != nil {
		t.Fatal(err)
	}
	w := &world{eng: eng, block: "Paris", blocked: t.TempDir() + "/blocked"}
	durable.Register(eng, w.supervisor())
	launch(t, dctx)
	start := time.Now()
	_, err = eng.Run(ctx, "supervisor", durable.Input{Prompt: question1}, durable.WithTimeout(time.Second))
	if !errors.Is(err, dbos.ErrAwaitedWorkflowCancelled) {
		t.Fatalf("err = %v; want the run cancelled", err)
	}
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("the run took %v to be cancelled", d)
	}
}

// TestInAWorkflowOfTheProgramsOwn: an assistant given the engine's middleware and run by a
// workflow of the program's own is durable there too, its steps the workflow's; run inside a
// step of such a workflow, it is part of that step.
func TestInAWorkflowOfTheProgramsOwn(t *testing.T) {
	t.Parallel()
	ctx := testContext(t, time.Minute)
	want, err := (&world{}).supervisor().Run(ctx, assistant.Input{Prompt: question1})
	if err != nil {
		t.Fatal(err)
	}
	dctx := newDBOS(t, dbos.Config{})
	eng, err := durable.New(dctx)
	if err != nil {
		t.Fatal(err)
	}
	w := &world{eng: eng}
	sup := w.supervisor(assistant.WithMiddleware(eng.Middleware()))
	report := func(ctx dbos.Context, inStep bool) (string, error) {
		if !inStep {
			res, err := sup.Run(ctx, assistant.Input{Prompt: question1})
			if err != nil {
				return "", err
			}
			return res.Text, nil
		}
		return dbos.RunAsStep(ctx, func(ctx context.Context) (string, error) {
			res, err := sup.Run(ctx, assistant.Input{Prompt: question1})
			if err != nil {
				return "", err
			}
			return res.Text, nil
		}, dbos.WithStepName("report"))
	}
	dbos.RegisterWorkflow(dctx, report, dbos.WithWorkflowName("report"))
	launch(t, dctx)
	for _, tc := range []struct {
		inStep bool
		steps  []string
	}{
		{false, wantSteps},
		{true, []string{"report"}},
	} {
		h, err := dbos.RunWorkflow(dctx, report, tc.inStep)
		if err != nil {
			t.Fatal(err)
		}
		got, err := h.GetResult()
		if err != nil || got != want.Text {
			t.Errorf("in a step %v: %q, %v; want %q", tc.inStep, got, err, want.Text)
		}
		if d := cmp.Diff(tc.steps, stepNames(t, dctx, h.GetWorkflowID())); d != "" {
			t.Errorf("in a step %v: steps (-want +got):\n%s", tc.inStep, d)
		}
	}
}

// TestARunsVarsAndHistoryReachItsModel: what a durable run is given besides its prompt — the
// template's values and the earlier turns — is kept with the run and reaches the model, in
// the run and in a replay of it.
func TestARunsVarsAndHistoryReachItsModel(t *testing.T) {
	t.Parallel()
	ctx := testContext(t, time.Minute)
	dctx := newDBOS(t, dbos.Config{})
	eng, err := durable.New(dctx)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var seen [][]llms.MessageContent
	guide := assistant.New[string]("guide", assistant.WithInstructions("Plan a trip to {{.city}}."),
		assistant.WithModel(llmtest.NewFunc(func(_ context.Context, req llmtest.Request) llmtest.Reply {
			mu.Lock()
			seen = append(seen, req.Messages)
			mu.Unlock()
			return llmtest.Text("pack boots")
		})))
	durable.Register(eng, guide)
	q := replayQueue(t, dctx)
	launch(t, dctx)
	history := []llms.MessageContent{
		llms.TextParts(llms.ChatMessageTypeHuman, "I like hiking."),
		llms.TextParts(llms.ChatMessageTypeAI, "Noted."),
	}
	res, err := eng.Run(ctx, "guide", durable.Input{Prompt: "What to pack?", Vars: map[string]any{"city": "Bergen"}, History: history})
	if err != nil {
		t.Fatal(err)
	}
	h, err := dbos.ForkWorkflow[any](dctx, dbos.ForkWorkflowInput{OriginalWorkflowID: res.ID, QueueName: q.GetName()})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := eng.Await(ctx, h.GetWorkflowID()); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(seen) != 2 {
		t.Fatalf("the model was asked %d times; want once by the run and once by its replay from the start", len(seen))
	}
	for i, msgs := range seen {
		var texts []string
		for _, m := range msgs {
			for _, p := range m.Parts {
				if tp, ok := p.(llms.TextContent); ok {
					texts = append(texts, tp.Text)
				}
			}
		}
		want := []string{"Plan a trip to Bergen.", "I like hiking.", "Noted.", "What to pack?"}
		if d := cmp.Diff(want, texts); d != "" {
			t.Errorf("request %d (-want +got):\n%s", i, d)
		}
	}
}
