package durable_test

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/cadrehq/cadre/pkg/assistant"
	"github.com/cadrehq/cadre/pkg/durable"
	"github.com/cadrehq/cadre/pkg/usage"
	"github.com/dbos-inc/dbos-transact-golang/dbos"
)

// startedDesk returns a world whose cashier and desk are registered with an engine that
// restores the tenant, on a dbos.Context of the test's own, launched, and a queue for forks.
func startedDesk(t *testing.T) (*world, dbos.Context, dbos.Queue) {
	t.Helper()
	dctx := newDBOS(t, dbos.Config{})
	eng, err := durable.New(dctx, durable.WithRestore(restoreTenant))
	if err != nil {
		t.Fatal(err)
	}
	w := &world{eng: eng}
	cashier := w.cashier(eng.Approver(w.approver()))
	durable.Register(eng, cashier)
	durable.Register(eng, w.desk(cashier))
	q := replayQueue(t, dctx)
	launch(t, dctx)
	return w, dctx, q
}

// count returns how many times what ran, in the workflows ids.
func (x *executions) count(what string, ids ...string) int {
	n := 0
	for _, id := range ids {
		for _, ran := range x.of(id) {
			for _, r := range ran {
				if r == what {
					n++
				}
			}
		}
	}
	return n
}

// TestAPausedRunIsResumedOnce: a run that waits for a person ends its workflow paused; of two
// Resumes at once, one starts the continuation and the other is told the run is not paused any
// more; the approved call runs once; the continuation takes on the run's Meta.
func TestAPausedRunIsResumedOnce(t *testing.T) {
	t.Parallel()
	ctx := testContext(t, 2*time.Minute)
	w, dctx, q := startedDesk(t)
	id, err := w.eng.Start(ctx, "cashier", durable.Input{Prompt: "Refund me", Meta: map[string]string{"tenant": "acme"}})
	if err != nil {
		t.Fatal(err)
	}
	paused, err := w.eng.Await(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if paused.Stop != assistant.StopPending || paused.Paused == nil {
		t.Fatalf("Stop = %q, Paused = %v; want a paused run", paused.Stop, paused.Paused)
	}
	if waiting := paused.Paused.Waiting(); len(waiting) != 1 || waiting[0].ID != "p1" {
		t.Fatalf("waiting %+v; want the refund p1", waiting)
	}
	if st := status(t, dctx, id); st != dbos.WorkflowStatusSuccess {
		t.Errorf("the paused run's workflow is %s; want it ended (SUCCESS)", st)
	}

	if _, err := w.eng.Resume(ctx, id, map[string]assistant.Decision{"p2": assistant.Approved()}); err == nil {
		t.Fatal("Resume with a decision for a call that does not wait: no error")
	}
	var (
		wg   sync.WaitGroup
		ids  [2]string
		errs [2]error
	)
	for i := range 2 {
		wg.Go(func() {
			ids[i], errs[i] = w.eng.Resume(ctx, id, map[string]assistant.Decision{"p1": assistant.Approved()})
		})
	}
	wg.Wait()
	won := slices.IndexFunc(errs[:], func(err error) bool { return err == nil })
	if won < 0 || !errors.Is(errs[1-won], assistant.ErrNotPaused) {
		t.Fatalf("two Resumes at once: %v, %v; want one to start and the other ErrNotPaused", errs[0], errs[1])
	}
	next := ids[won]
	if next != id+"#2" || next != durable.ContinuationID(id) {
		t.Errorf("the continuation's ID is %q; want %q, as ContinuationID says (%q)", next, id+"#2", durable.ContinuationID(id))
	}
	if got, want := errs[1-won].Error(), "durable: run "+id+" was resumed already, as "+next; got != want {
		t.Errorf("the Resume that lost says %q; want %q", got, want)
	}
	res, err := w.eng.Await(ctx, next)
	if err != nil {
		t.Fatal(err)
	}
	if want := "done: refunded 30; noted for acme"; res.Text != want || res.ID != next || res.Stop != assistant.StopAnswer {
		t.Errorf("the continuation: %q (ID %s, stop %q); want %q (ID %s)", res.Text, res.ID, res.Stop, want, next)
	}
	if res.Usage.Total.Requests != 2 || res.Usage.Total.ToolCalls != 2 {
		t.Errorf("usage %+v; want the paused run's request with the continuation's, and the two calls", res.Usage.Total)
	}
	if n := w.ran.count("refund 30", id, next); n != 1 {
		t.Errorf("the refund ran %d times; want once", n)
	}
	for _, again := range []string{id, next} {
		if _, err := w.eng.Resume(ctx, again, map[string]assistant.Decision{"p1": assistant.Approved()}); !errors.Is(err, assistant.ErrNotPaused) {
			t.Errorf("Resume(%s) once resumed: %v; want ErrNotPaused", again, err)
		}
	}
	// A replay neither asks the approver again nor refunds again, before the steps it replays
	// from.
	replayFromEveryStep(ctx, t, w, dctx, q, id)
	replayFromEveryStep(ctx, t, w, dctx, q, next)
}

// TestAPauseInADelegatedRunIsResumed: a call waiting in a run delegated to pauses the whole
// tree, and a continuation resumes the delegated run, then its caller.
func TestAPauseInADelegatedRunIsResumed(t *testing.T) {
	t.Parallel()
	ctx := testContext(t, 2*time.Minute)
	w, dctx, q := startedDesk(t)
	id, err := w.eng.Start(ctx, "desk", durable.Input{Prompt: "A customer wants a refund", Meta: map[string]string{"tenant": "acme"}})
	if err != nil {
		t.Fatal(err)
	}
	paused, err := w.eng.Await(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if waiting := paused.Paused.Waiting(); len(waiting) != 1 || waiting[0].ID != "p1" || waiting[0].Assistant != "cashier" {
		t.Fatalf("waiting %+v; want the cashier's refund p1", waiting)
	}
	// Left undecided, the call pauses the run again, in a continuation resumed in turn.
	next, err := w.eng.Resume(ctx, id, nil)
	if err != nil {
		t.Fatal(err)
	}
	again, err := w.eng.Await(ctx, next)
	if err != nil || again.Stop != assistant.StopPending {
		t.Fatalf("a continuation without decisions: %v, stop %q; want paused again", err, again.Stop)
	}
	last, err := w.eng.Resume(ctx, next, map[string]assistant.Decision{"p1": assistant.Denied("not today")})
	if err != nil {
		t.Fatal(err)
	}
	if last != id+"#3" {
		t.Errorf("the second continuation's ID is %q; want %q", last, id+"#3")
	}
	res, err := w.eng.Await(ctx, last)
	if err != nil {
		t.Fatal(err)
	}
	if want := "desk: done: denied: a person did not allow this call: not today; noted for acme"; res.Text != want {
		t.Errorf("answer %q; want %q", res.Text, want)
	}
	if n := w.ran.count("refund 30", id, next, last); n != 0 {
		t.Errorf("the denied refund ran %d times", n)
	}
	if got := stepNames(t, dctx, id); !slices.Contains(got, "desk/d1:cashier/approve/p1") {
		t.Errorf("steps %q; want the approver's decision among them as desk/d1:cashier/approve/p1", got)
	}
	replayFromEveryStep(ctx, t, w, dctx, q, id)
	replayFromEveryStep(ctx, t, w, dctx, q, last)
}

// status returns the status of the workflow id.
func status(t *testing.T, dctx dbos.Context, id string) dbos.WorkflowStatusType {
	t.Helper()
	st, err := dbos.ListWorkflows(dctx, dbos.WithFilterWorkflowIDs(id))
	if err != nil || len(st) != 1 {
		t.Fatalf("ListWorkflows(%s): %v, %d", id, err, len(st))
	}
	return st[0].Status
}

// TestTheEngineTellsARunsStatus: Status tells a run that runs from one that waits for a person —
// which DBOS records as a workflow that succeeded — from one resumed, one that answered and one
// that failed.
func TestTheEngineTellsARunsStatus(t *testing.T) {
	t.Parallel()
	ctx := testContext(t, 2*time.Minute)
	dctx := newDBOS(t, dbos.Config{})
	eng, err := durable.New(dctx, durable.WithRestore(restoreTenant))
	if err != nil {
		t.Fatal(err)
	}
	w := &world{eng: eng, block: "Paris", blocked: filepath.Join(t.TempDir(), "blocked"), release: make(chan struct{})}
	durable.Register(eng, w.supervisor())
	durable.Register(eng, w.cashier(eng.Approver(w.approver())))
	launch(t, dctx)
	status := func(id string, want durable.Status) {
		t.Helper()
		if got, err := eng.Status(ctx, id); err != nil || got != want {
			t.Errorf("Status(%s) = %q, %v; want %q", id, got, err, want)
		}
	}

	running, err := eng.Start(ctx, "supervisor", durable.Input{Prompt: question1})
	if err != nil {
		t.Fatal(err)
	}
	waitFor(ctx, t, "the turn to be under way", func() bool {
		_, err := os.Stat(w.blocked)
		return err == nil
	})
	status(running, durable.StatusRunning)
	close(w.release)
	if _, err := eng.Await(ctx, running); err != nil {
		t.Fatal(err)
	}
	status(running, durable.StatusDone)

	failed, err := eng.Start(ctx, "supervisor", durable.Input{Prompt: question1, Limits: &usage.Limits{MaxRequests: 1}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := eng.Await(ctx, failed); err == nil {
		t.Fatal("a run of one request at most answered")
	}
	status(failed, durable.StatusFailed)

	paused, err := eng.Start(ctx, "cashier", durable.Input{Prompt: "Refund me", Meta: map[string]string{"tenant": "acme"}})
	if err != nil {
		t.Fatal(err)
	}
	if res, err := eng.Await(ctx, paused); err != nil || res.Stop != assistant.StopPending {
		t.Fatalf("%v; want the run paused", err)
	}
	status(paused, durable.StatusPaused)
	next, err := eng.Resume(ctx, paused, map[string]assistant.Decision{"p1": assistant.Approved()})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := eng.Await(ctx, next); err != nil {
		t.Fatal(err)
	}
	status(paused, durable.StatusResumed)
	status(next, durable.StatusDone)

	if _, err := eng.Status(ctx, "no-such-run"); !errors.Is(err, dbos.ErrNonExistentWorkflow) {
		t.Errorf("Status of a run that does not exist: %v; want ErrNonExistentWorkflow", err)
	}
}

// TestAContinuationKeepsTheRunsLimits: a durable run given Input.Limits pauses; its
// continuations — after a second pause too — run with the same limits, and stop where the same
// run without the engine, resumed with the same limits, stops: at a request the limits do not
// allow, which a continuation without them would make.
func TestAContinuationKeepsTheRunsLimits(t *testing.T) {
	t.Parallel()
	approved := map[string]assistant.Decision{"p1": assistant.Approved()}
	for _, tc := range []struct {
		name      string
		assistant string
		limits    usage.Limits
		decisions []map[string]assistant.Decision // one for each Resume; the last ends the run
	}{
		// The cashier's first request pauses the run; its second, in the continuation, is one
		// too many.
		{name: "one pause", assistant: "cashier", limits: usage.Limits{MaxRequests: 1}, decisions: []map[string]assistant.Decision{approved}},
		// The desk's request and the cashier's pause the run; left undecided, the call pauses it
		// again, without a request; decided, the cashier answers and the desk's second request
		// is one too many.
		{name: "two pauses", assistant: "desk", limits: usage.Limits{MaxRequests: 3}, decisions: []map[string]assistant.Decision{nil, approved}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx := testContext(t, 2*time.Minute)

			// The same run without the engine, resumed with the same limits each time.
			alone := &world{}
			cashier := alone.cashier(alone.approver())
			runs := map[string]*assistant.Assistant[string]{"cashier": cashier, "desk": alone.desk(cashier)}
			a, limits := runs[tc.assistant], assistant.WithLimits(tc.limits)
			res, err := a.Run(ctx, assistant.Input{Prompt: "Refund me", Options: []assistant.Option{limits}})
			for _, d := range tc.decisions {
				if err != nil || res.Stop != assistant.StopPending {
					t.Fatalf("without the engine: %v, stop %q; want the run paused", err, res.Stop)
				}
				res, err = a.Resume(ctx, res.Paused, d, limits)
			}
			var want *usage.LimitError
			if !errors.As(err, &want) || res == nil {
				t.Fatalf("without the engine, the run resumed with its limits: %v; want a *usage.LimitError, with the Result so far", err)
			}

			w, _, _ := startedDesk(t)
			id, err := w.eng.Start(ctx, tc.assistant, durable.Input{Prompt: "Refund me", Limits: &tc.limits, Meta: map[string]string{"tenant": "acme"}})
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range tc.decisions {
				paused, err := w.eng.Await(ctx, id)
				if err != nil || paused.Stop != assistant.StopPending {
					t.Fatalf("run %s: %v; want it paused", id, err)
				}
				if id, err = w.eng.Resume(ctx, id, d); err != nil {
					t.Fatal(err)
				}
			}
			got, err := w.eng.Await(ctx, id)
			var limit *usage.LimitError
			if !errors.As(err, &limit) {
				t.Fatalf("the last continuation, %s: %v (answer %q); want the *usage.LimitError of the run's limits", id, err, textOf(got))
			}
			if *limit != *want {
				t.Errorf("the continuation stopped at %+v; without the engine, the run stopped at %+v", *limit, *want)
			}
			if got == nil || got.Usage.Total != res.Usage.Total {
				t.Errorf("the continuation's usage: %+v; without the engine: %+v", got, res.Usage.Total)
			}
		})
	}
}

// textOf is the answer of res, if any.
func textOf(res *durable.Result) string {
	if res == nil {
		return ""
	}
	return res.Text
}
