package durable_test

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/cadrehq/cadre/pkg/assistant"
	"github.com/cadrehq/cadre/pkg/chat"
	"github.com/cadrehq/cadre/pkg/durable"
	"github.com/dbos-inc/dbos-transact-golang/dbos"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// TestARunInAChatStoppedMidTurnAppendsOnce: a durable run in a chat whose process stops in the
// middle of a turn — DBOS shuts down, the run ends with its context cancelled, and a run that
// fails appends what it has to its chat — is taken up by the next process, and the chat gets
// the run's messages once, as from a run that never stopped; the next run of the chat sees them.
func TestARunInAChatStoppedMidTurnAppendsOnce(t *testing.T) {
	t.Parallel()
	ctx := testContext(t, 2*time.Minute)
	mem := chat.NewMemory()
	app, dir := appName(), t.TempDir()
	id := chat.ID{Tenant: "acme", User: "ana", Chat: "trip"}

	first := newDBOS(t, dbos.Config{AppName: app, ExecutorID: "one"})
	eng, err := durable.New(first)
	if err != nil {
		t.Fatal(err)
	}
	w := &world{eng: eng, block: "Paris", blocked: filepath.Join(dir, "blocked")}
	durable.Register(eng, w.supervisor(assistant.WithStore(eng.Store(mem))))
	launch(t, first)
	run, err := eng.Start(ctx, "supervisor", durable.Input{Prompt: question1, Chat: id})
	if err != nil {
		t.Fatal(err)
	}
	waitFor(ctx, t, "the turn to be under way", func() bool {
		_, err := os.Stat(w.blocked)
		return err == nil
	})
	if err := dbos.Shutdown(first, 20*time.Second); err != nil {
		t.Fatal(err)
	}
	if msgs, err := mem.Load(ctx, id); !errors.Is(err, chat.ErrNotFound) {
		t.Fatalf("after the stop, the chat holds %d messages (%v); want none yet", len(msgs), err)
	}

	second := newDBOS(t, dbos.Config{AppName: app, ExecutorID: "one"})
	eng2, err := durable.New(second)
	if err != nil {
		t.Fatal(err)
	}
	w2 := &world{eng: eng2}
	durable.Register(eng2, w2.supervisor(assistant.WithStore(eng2.Store(mem))))
	launch(t, second)
	res, err := eng2.Await(ctx, run)
	if err != nil {
		t.Fatal(err)
	}
	kept, err := mem.Load(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(res.Messages, kept, cmpopts.EquateEmpty()); d != "" {
		t.Errorf("the chat holds other messages than the run's (-run +chat):\n%s", d)
	}
	names := stepNames(t, second, run)
	if !slices.Contains(names, "chat/load") || names[len(names)-1] != "chat/append" {
		t.Errorf("steps %q; want the chat's load among them and its append last", names)
	}

	// The next run of the chat is sent the first one's messages.
	again, err := eng2.Run(ctx, "supervisor", durable.Input{Prompt: question1, Chat: id})
	if err != nil {
		t.Fatal(err)
	}
	if kept, _ = mem.Load(ctx, id); len(kept) != 2*len(res.Messages) || len(again.Messages) != len(res.Messages) {
		t.Errorf("after a second run the chat holds %d messages; want twice the %d of the first", len(kept), len(res.Messages))
	}
}

// TestAPauseInAChatIsResumedOnce: a durable run in a chat that pauses keeps its state with the
// chat; of two Resumes one goes on, its continuation takes the state from the chat, and the
// chat ends with the run's messages, once, and no state.
func TestAPauseInAChatIsResumedOnce(t *testing.T) {
	t.Parallel()
	ctx := testContext(t, 2*time.Minute)
	mem := chat.NewMemory()
	id := chat.ID{Tenant: "acme", User: "ana", Chat: "refund"}
	dctx := newDBOS(t, dbos.Config{})
	eng, err := durable.New(dctx, durable.WithRestore(restoreTenant))
	if err != nil {
		t.Fatal(err)
	}
	w := &world{eng: eng}
	durable.Register(eng, w.cashier(eng.Approver(w.approver())), assistant.WithStore(eng.Store(mem)))
	launch(t, dctx)
	run, err := eng.Start(ctx, "cashier", durable.Input{Prompt: "Refund me", Chat: id, Meta: map[string]string{"tenant": "acme"}})
	if err != nil {
		t.Fatal(err)
	}
	paused, err := eng.Await(ctx, run)
	if err != nil || paused.Stop != assistant.StopPending {
		t.Fatalf("%v, stop %q; want the run paused", err, paused.Stop)
	}
	if state, err := mem.State(ctx, id); err != nil || len(state) == 0 {
		t.Fatalf("the chat's state: %d bytes, %v; want the paused run", len(state), err)
	}
	done := make(chan error, 2)
	for range 2 {
		go func() {
			_, err := eng.Resume(ctx, run, map[string]assistant.Decision{"p1": assistant.Approved()})
			done <- err
		}()
	}
	errs := []error{<-done, <-done}
	if (errs[0] == nil) == (errs[1] == nil) || !errors.Is(errors.Join(errs...), assistant.ErrNotPaused) {
		t.Fatalf("two Resumes: %v, %v; want one to go on and the other ErrNotPaused", errs[0], errs[1])
	}
	res, err := eng.Await(ctx, run+"#2")
	if err != nil {
		t.Fatal(err)
	}
	if res.Text != "done: refunded 30; noted for acme" {
		t.Errorf("answer %q", res.Text)
	}
	if n := w.ran.count("refund 30", run, run+"#2"); n != 1 {
		t.Errorf("the refund ran %d times; want once", n)
	}
	if state, err := mem.State(ctx, id); err != nil || state != nil {
		t.Errorf("the chat's state after the resume: %q, %v; want none", state, err)
	}
	kept, err := mem.Load(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(res.Messages, kept, cmpopts.EquateEmpty()); d != "" {
		t.Errorf("the chat holds other messages than the run's (-run +chat):\n%s", d)
	}
	want := []string{"chat/take_state", "chat/remove_state"}
	if names := stepNames(t, dctx, run+"#2"); !slices.Equal(names[:2], want) {
		t.Errorf("the continuation's steps %q; want them to start with %q", names, want)
	}
}
