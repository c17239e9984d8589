package durable_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cadrehq/cadre/internal/rungen"
	"github.com/cadrehq/cadre/pkg/assistant"
	"github.com/cadrehq/cadre/pkg/chat"
	"github.com/cadrehq/cadre/pkg/durable"
	"github.com/dbos-inc/dbos-transact-golang/dbos"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"pgregory.net/rapid"
)

// The sizes of TestAReplayOfAGeneratedRunEqualsTheRun, which scripts/reliability sets.
const (
	envReplayScenarios = "CADRE_REPLAY_SCENARIOS" // how many scenarios (default 25)
	envReplayAllSteps  = "CADRE_REPLAY_ALL_STEPS" // 1: fork from every step, not from 3 sampled
	envReplaySeed      = "CADRE_REPLAY_SEED"      // the first scenario's seed (default: a random one)
)

// TestAReplayOfAGeneratedRunEqualsTheRun plays generated scenarios (internal/rungen: tools,
// skills, approvals, delegation, fallback, reasoning, limits, runs in a chat, the supervisor
// behind a fake provider API at times, models asked for the output natively, schemas refused,
// refusals apart from the text; no cancellation) as durable runs, resumes the runs that
// pause, and forks each run and continuation with dbos.ForkWorkflow from sampled steps (every
// step with CADRE_REPLAY_ALL_STEPS=1) and from after its last. Every fork must end as the run
// did — its Response (answer, messages, usage report, stop, model, paused state) and its error
// equal to the run's — with the same steps, having run again only the steps from its start on,
// each as the run did. This is what a recovery relies on, whatever a run does: a model that
// answers by the request and tools that keep no state the run reads back give the same run
// again from any step.
// A run whose supervisor's last reply was a refusal must end with the model's refusal, quoted,
// as the run loop's property test asks of a run that is not durable: a record that loses the
// refusal would make the run and its forks end alike, otherwise.
//
// A fork of a run in a chat starts after the run loaded the chat, and a fork of a continuation
// after it took the paused state from the chat: a fork from before reads the chat as it is
// now, with the run's own messages in it, or finds the state taken — another run, by design.
func TestAReplayOfAGeneratedRunEqualsTheRun(t *testing.T) {
	t.Parallel()
	serverURL(t) // skipped without PostgreSQL when CADRE_NO_POSTGRES=1 says so, as a whole
	n := envInt(t, envReplayScenarios, 25)
	every := os.Getenv(envReplayAllSteps) == "1"
	seed := envInt(t, envReplaySeed, rand.IntN(1<<30))
	// Drawn seed by seed rather than by rapid.Check: the scenarios run in parallel (-parallel),
	// to a size of their own, and a failing one is printed whole, not shrunk — each attempt at
	// shrinking would cost an engine and its forks.
	gen := rapid.Custom(func(t *rapid.T) rungen.Scenario {
		return rungen.Draw(t, rungen.Features{Wire: true, Chat: true, Deep: true, Native: true})
	})
	var fig replayFigures
	start := time.Now()
	t.Run("scenarios", func(t *testing.T) {
		for i := range n {
			t.Run(strconv.Itoa(i), func(t *testing.T) {
				t.Parallel()
				s := gen.Example(seed + i)
				defer func() {
					if t.Failed() {
						t.Logf("the scenario (%s=%d, scenario %d): %+v", envReplaySeed, seed, i, s)
					}
				}()
				replayScenario(t, s, rand.New(rand.NewPCG(uint64(seed), uint64(i))), every, &fig)
			})
		}
	})
	from := "from 3 sampled steps and the end"
	if every {
		from = "from every step"
	}
	t.Logf("figures: durable replays: %d scenarios, %d runs and continuations of %d steps, %d forks (%s), in %v",
		n, fig.workflows.Load(), fig.steps.Load(), fig.forks.Load(), from, time.Since(start).Round(time.Second))
}

// replayFigures are what TestAReplayOfAGeneratedRunEqualsTheRun checked.
type replayFigures struct {
	workflows, steps, forks atomic.Int64
}

// envInt is the environment variable name as an int, or def when it is not set.
func envInt(t *testing.T, name string, def int) int {
	t.Helper()
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		t.Fatalf("%s=%q: not a number", name, v)
	}
	return n
}

// played is a workflow of a scenario, a run or a continuation, as it ended.
type played struct {
	id  string
	res *durable.Result
	err error
}

// replayScenario plays s with an engine of its own, then forks what it played and compares.
func replayScenario(t *testing.T, s rungen.Scenario, r *rand.Rand, every bool, fig *replayFigures) {
	ctx := testContext(t, 5*time.Minute)
	dctx := newDBOS(t, dbos.Config{})
	eng, err := durable.New(dctx, durable.WithPollInterval(10*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	ran := &executions{}
	var opts []rungen.Option
	opts = append(opts, rungen.WithNote(func(ctx context.Context, what string) {
		key := "-"
		if k, ok := eng.IdempotencyKey(ctx); ok {
			key = k
		}
		ran.note(key, what)
	}))
	if r.IntN(2) == 0 { // the approver's decisions recorded as steps, or not
		opts = append(opts, rungen.WithApprover(eng.Approver))
	}
	w, err := rungen.New(s, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Close)
	var store []assistant.Option
	if s.Chat {
		store = append(store, assistant.WithStore(eng.Store(chat.NewMemory())))
	}
	durable.Register(eng, w.Supervisor(store...))
	q := replayQueue(t, dctx)
	launch(t, dctx)

	var all []played
	for i := range s.Top {
		in := durable.Input{Prompt: s.Prompt(i)}
		if s.Chat {
			in.Chat = chat.ID{Tenant: "acme", User: "ana", Chat: "trip"}
		}
		from := len(w.Seen().Asks)
		id, err := eng.Start(ctx, "supervisor", in)
		if err != nil {
			t.Fatal(err)
		}
		p := played{id: id}
		p.res, p.err = eng.Await(ctx, id)
		checkRefusal(t, s, w.Seen().Asks[from:], p)
		all = append(all, p)
		for round := 0; p.err == nil && p.res.Stop == assistant.StopPending && round < 4; round++ {
			from := len(w.Seen().Asks)
			next, err := eng.Resume(ctx, p.id, s.Decisions(round, p.res.Paused.Waiting()))
			if err != nil {
				t.Fatalf("Resume(%s): %v", p.id, err)
			}
			p = played{id: next}
			p.res, p.err = eng.Await(ctx, next)
			checkRefusal(t, s, w.Seen().Asks[from:], p)
			all = append(all, p)
		}
	}
	for _, p := range all {
		forkAndCompare(ctx, t, dctx, eng, q, ran, p, r, every, fig)
	}
}

// checkRefusal checks that the workflow p, whose requests were asks, ended with the model's
// refusal, quoted, when the supervisor's last reply was one (see rungen.Scenario.Refused), and
// only then: a fork that ends as p did ends so too.
func checkRefusal(t *testing.T, s rungen.Scenario, asks []rungen.Ask, p played) {
	t.Helper()
	var stop *assistant.ModelStopError
	refused := errors.As(p.err, &stop) && errors.Is(p.err, assistant.ErrRefusal)
	if want := s.Refused(asks); refused != want {
		t.Errorf("run %s: the supervisor's last reply was a refusal: %v; the run ended with %v", p.id, want, p.err)
	}
	if refused && stop.Refusal != rungen.Refusal {
		t.Errorf("run %s: a refusal quoted as %q; the model said %q", p.id, stop.Refusal, rungen.Refusal)
	}
}

// forkAndCompare forks the workflow p from the steps chosen and checks that each fork ends as
// p did, with p's steps, having run again the steps from its start on only, as p ran them.
func forkAndCompare(ctx context.Context, t *testing.T, dctx dbos.Context, eng *durable.Engine, q dbos.Queue, ran *executions, p played, r *rand.Rand, every bool, fig *replayFigures) {
	t.Helper()
	names := stepNames(t, dctx, p.id)
	original := ran.of(p.id)
	fig.workflows.Add(1)
	fig.steps.Add(int64(len(names)))
	from := forkSteps(names, r, every)
	forks := make([]string, len(from))
	for i, k := range from {
		h, err := dbos.ForkWorkflow[any](dctx, dbos.ForkWorkflowInput{OriginalWorkflowID: p.id, StartStep: uint(k), QueueName: q.GetName()})
		if err != nil {
			t.Fatalf("ForkWorkflow(%s) from step %d: %v", p.id, k, err)
		}
		forks[i] = h.GetWorkflowID()
	}
	fig.forks.Add(int64(len(forks)))
	for i, fork := range forks {
		k := from[i]
		res, err := eng.Await(ctx, fork)
		if d := sameEnd(p, res, err); d != "" {
			t.Errorf("run %s forked from step %d (of %q) ended otherwise:\n%s", p.id, k, names, d)
		}
		if d := cmp.Diff(names, stepNames(t, dctx, fork)); d != "" {
			t.Errorf("run %s forked from step %d has other steps (-run +fork):\n%s", p.id, k, d)
		}
		again := ran.of(fork)
		for step := range names {
			switch {
			case step < k && len(again[step]) > 0:
				t.Errorf("run %s forked from step %d ran step %d (%s) again: %q", p.id, k, step, names[step], again[step])
			case step >= k && !slices.Equal(again[step], original[step]):
				t.Errorf("run %s forked from step %d ran step %d (%s) as %q; the run ran %q", p.id, k, step, names[step], again[step], original[step])
			}
		}
	}
}

// forkSteps are the steps to fork a workflow of steps names from: after the last, and every
// step, or three of them drawn by r, from the first a fork may start from — after the steps
// of the chat at the start of a run in a chat (its load, its state) or of a continuation (the
// paused state's read and removal).
func forkSteps(names []string, r *rand.Rand, every bool) []int {
	first := 0
	for first < len(names) && strings.HasPrefix(names[first], "chat/") {
		first++
	}
	steps := make([]int, 0, len(names)-first+1)
	for k := first; k < len(names); k++ {
		steps = append(steps, k)
	}
	if !every && len(steps) > 3 {
		r.Shuffle(len(steps), func(i, j int) { steps[i], steps[j] = steps[j], steps[i] })
		steps = steps[:3]
		slices.Sort(steps)
	}
	return append(steps, len(names))
}

// sameEnd reports how a fork's end, res and err, differs from the run's, p. The Result's ID is
// the fork's own, a workflow ID of DBOS's making, and is not compared.
func sameEnd(p played, res *durable.Result, err error) string {
	var d strings.Builder
	if (err == nil) != (p.err == nil) || err != nil && err.Error() != p.err.Error() {
		fmt.Fprintf(&d, "error %v; the run's %v\n", err, p.err)
	}
	if (res == nil) != (p.res == nil) {
		fmt.Fprintf(&d, "Result %v; the run's %v\n", res, p.res)
		return d.String()
	}
	if res != nil {
		if diff := cmp.Diff(p.res.Response, res.Response, cmpopts.EquateEmpty()); diff != "" {
			fmt.Fprintf(&d, "Response (-run +fork):\n%s", diff)
		}
	}
	return d.String()
}
