package durable_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cadrehq/cadre/pkg/assistant"
	"github.com/cadrehq/cadre/pkg/callback"
	"github.com/cadrehq/cadre/pkg/chat"
	"github.com/cadrehq/cadre/pkg/durable"
	"github.com/cadrehq/cadre/pkg/llmtest"
	"github.com/cadrehq/cadre/pkg/model"
	"github.com/cadrehq/cadre/pkg/tool"
	"github.com/dbos-inc/dbos-transact-golang/dbos"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/tmc/langchaingo/llms"
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
	want := []string{"chat/state", "chat/take_state_if", "chat/remove_state_if"}
	if names := stepNames(t, dctx, run+"#2"); len(names) < len(want) || !slices.Equal(names[:len(want)], want) {
		t.Errorf("the continuation's steps %q; want them to start with %q", names, want)
	}
}

// runEnds returns a handler that sends on ended when a top run ends, after its chat was saved.
func runEnds(ended chan<- error) callback.Handler {
	return callback.HandlerFunc(func(_ context.Context, e callback.Event) {
		if e.ParentRunID == "" && (e.Kind == callback.RunEnd || e.Kind == callback.RunError) {
			ended <- e.Err
		}
	})
}

// TestARunInAChatStoppedForGoodKeepsTheUsersTurn: a durable run in a chat that is cancelled
// (dbos.CancelWorkflow) or times out (durable.WithTimeout) in the middle of a turn has no next
// execution, unless someone resumes it: the chat gets what the run got to — the user's turn and
// the model's turn that asked for the calls — once. Resumed with dbos.ResumeWorkflow, the run
// answers, and the chat is not given the run a second time.
func TestARunInAChatStoppedForGoodKeepsTheUsersTurn(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		opts []durable.StartOption
		stop func(t *testing.T, dctx dbos.Context, run string, w *world)
	}{
		{name: "cancelled", stop: func(t *testing.T, dctx dbos.Context, run string, w *world) {
			if err := dbos.CancelWorkflow(dctx, run); err != nil {
				t.Fatal(err)
			}
			close(w.release) // the call that ran when the run was cancelled ends, unrecorded
		}},
		// The run waits in its call until its time is up.
		{name: "timed out", opts: []durable.StartOption{durable.WithTimeout(3 * time.Second)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx := testContext(t, 2*time.Minute)
			mem := chat.NewMemory()
			id := chat.ID{Tenant: "acme", User: "ana", Chat: "trip"}
			dctx := newDBOS(t, dbos.Config{})
			eng, err := durable.New(dctx)
			if err != nil {
				t.Fatal(err)
			}
			ended := make(chan error, 2)
			w := &world{eng: eng, block: "Paris", blocked: filepath.Join(t.TempDir(), "blocked"), release: make(chan struct{})}
			durable.Register(eng, w.supervisor(assistant.WithStore(eng.Store(mem)), assistant.WithCallback(runEnds(ended))))
			launch(t, dctx)
			run, err := eng.Start(ctx, "supervisor", durable.Input{Prompt: question1, Chat: id}, tc.opts...)
			if err != nil {
				t.Fatal(err)
			}
			waitFor(ctx, t, "the turn to be under way", func() bool {
				_, err := os.Stat(w.blocked)
				return err == nil
			})
			if tc.stop != nil {
				tc.stop(t, dctx, run, w)
			}
			select {
			case err := <-ended:
				if err == nil {
					t.Fatal("the run stopped in the middle of its turn ended without an error")
				}
			case <-ctx.Done():
				t.Fatal("the run did not end")
			}
			kept, err := mem.Load(ctx, id)
			if err != nil {
				t.Fatalf("the chat after the run stopped: %v; want the user's turn", err)
			}
			if len(kept) < 2 || kept[0].Role != llms.ChatMessageTypeHuman || kept[0].Parts[0] != (llms.TextContent{Text: question1}) ||
				kept[1].Role != llms.ChatMessageTypeAI || len(toolCalls(kept[1])) != 3 {
				t.Fatalf("the chat holds %d messages %+v; want the user's turn, then the model's turn with its three calls", len(kept), kept)
			}

			if tc.stop == nil {
				close(w.release)
			}
			if _, err := dbos.ResumeWorkflow[any](dctx, run); err != nil {
				t.Fatal(err)
			}
			res, err := eng.Await(ctx, run)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(res.Text, "report: ") {
				t.Errorf("the resumed run's answer: %q; want its report", res.Text)
			}
			again, err := mem.Load(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(kept, again, cmpopts.EquateEmpty()); d != "" {
				t.Errorf("the resumed run changed the chat (-before +after):\n%s", d)
			}
		})
	}
}

// toolCalls returns the tool calls of m.
func toolCalls(m llms.MessageContent) []llms.ToolCall {
	var calls []llms.ToolCall
	for _, p := range m.Parts {
		if c, ok := p.(llms.ToolCall); ok {
			calls = append(calls, c)
		}
	}
	return calls
}

// TestRunsInAChatOfAWorkflowOfOurOwnAppendOnceEach: a workflow of the program's own runs three
// runs in one chat, one after the other, and is cancelled in the middle of the second. The chat
// gets the first run and what the second got to; resumed, the workflow does not append the
// second run again, and appends the third: each run's append is told apart from the others'.
func TestRunsInAChatOfAWorkflowOfOurOwnAppendOnceEach(t *testing.T) {
	t.Parallel()
	ctx := testContext(t, 2*time.Minute)
	mem := chat.NewMemory()
	id := chat.ID{Tenant: "acme", User: "ana", Chat: "errands"}
	dctx := newDBOS(t, dbos.Config{})
	eng, err := durable.New(dctx)
	if err != nil {
		t.Fatal(err)
	}
	blocked, release, ended := make(chan struct{}), make(chan struct{}), make(chan error, 4)
	wait := tool.Func("wait", "Waits for something.", func(ctx context.Context, in query) (string, error) {
		if in.Q == "second" {
			select {
			case blocked <- struct{}{}:
			default: // the resumed execution
			}
			<-release
		}
		return "waited for " + in.Q, nil
	})
	clerk := assistant.New[string]("clerk",
		assistant.WithMiddleware(eng.Middleware()),
		assistant.WithModels(model.Fixed(model.Model{Name: "clerk", LLM: llmtest.NewFunc(func(_ context.Context, req llmtest.Request) llmtest.Reply {
			if turns(req.Messages) == 0 {
				return reply("", usageOf(10, 2), nil, call("c1", "wait", fmt.Sprintf(`{"q":%q}`, prompt(req.Messages))))
			}
			return reply("done: "+strings.Join(results(req.Messages[len(req.Messages)-1:]), ""), usageOf(20, 3), nil)
		}).NoRecord()})),
		assistant.WithTools(wait),
		assistant.WithStore(eng.Store(mem)),
		assistant.WithCallback(runEnds(ended)))
	errands := func(ctx dbos.Context, prompts []string) (string, error) {
		var done []string
		for _, p := range prompts {
			out, err := clerk.Run(chat.WithID(ctx, id), assistant.Input{Prompt: p})
			if err != nil {
				return "", err
			}
			done = append(done, out.Output)
		}
		return strings.Join(done, "; "), nil
	}
	dbos.RegisterWorkflow(dctx, errands, dbos.WithWorkflowName("test.errands"))
	launch(t, dctx)
	h, err := dbos.RunWorkflow(dctx, errands, []string{"first", "second", "third"})
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-blocked:
	case <-ctx.Done():
		t.Fatal("the second run did not call its tool")
	}
	if err := dbos.CancelWorkflow(dctx, h.GetWorkflowID()); err != nil {
		t.Fatal(err)
	}
	close(release)
	for range 2 { // the first run, then the second
		select {
		case <-ended:
		case <-ctx.Done():
			t.Fatal("the runs did not end")
		}
	}
	if got, want := userTurns(t, mem, id), []string{"first", "second"}; !slices.Equal(got, want) {
		t.Errorf("after the cancel the chat holds the user's turns %q; want %q", got, want)
	}
	// The mark of the second run's append, made outside the workflow, names it as the
	// workflow's second append (docs/durable-runs.md): <workflow>#appended-1.
	mark := h.GetWorkflowID() + "#appended-1"
	found, err := dbos.ListWorkflows(dctx, dbos.WithFilterWorkflowIDs(mark), dbos.WithFilterLoadInput(false), dbos.WithFilterLoadOutput(false))
	if err != nil {
		t.Fatal(err)
	}
	if len(found) != 1 || found[0].Name != "cadre.appended" {
		t.Errorf("the workflows of ID %s: %d; want one, of cadre.appended: the mark of the cancelled run's append", mark, len(found))
	}

	resumed, err := dbos.ResumeWorkflow[string](dctx, h.GetWorkflowID())
	if err != nil {
		t.Fatal(err)
	}
	out, err := resumed.GetResult()
	if err != nil {
		t.Fatal(err)
	}
	if want := "done: waited for first; done: waited for second; done: waited for third"; out != want {
		t.Errorf("the resumed workflow: %q; want %q", out, want)
	}
	if got, want := userTurns(t, mem, id), []string{"first", "second", "third"}; !slices.Equal(got, want) {
		t.Errorf("after the resume the chat holds the user's turns %q; want %q", got, want)
	}
}

// userTurns returns the texts of the user's turns in the chat id of mem.
func userTurns(t *testing.T, mem chat.Store, id chat.ID) []string {
	t.Helper()
	msgs, err := mem.Load(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	var turns []string
	for _, m := range msgs {
		if m.Role == llms.ChatMessageTypeHuman {
			turns = append(turns, m.Parts[0].(llms.TextContent).Text)
		}
	}
	return turns
}

// TestTakeStateIfInARunIsDecidedByItsRead: in a durable run, the store's TakeStateIf answers as
// the execution that read the chat's state did. A replay from its removal — an execution that
// died after the store removed the state, before the removal was recorded — finds the state
// gone and still answers true, so that the continuation goes on; and whatever replays, a state
// other than the one asked for, such as the chat's next pause, stays in the chat.
func TestTakeStateIfInARunIsDecidedByItsRead(t *testing.T) {
	t.Parallel()
	ctx := testContext(t, time.Minute)
	mem := chat.NewMemory()
	id := chat.ID{Tenant: "acme", User: "ana", Chat: "refund"}
	dctx := newDBOS(t, dbos.Config{})
	eng, err := durable.New(dctx)
	if err != nil {
		t.Fatal(err)
	}
	store := eng.Store(mem)
	take := func(ctx dbos.Context, want string) (bool, error) {
		return store.TakeStateIf(ctx, id, []byte(want))
	}
	dbos.RegisterWorkflow(dctx, take, dbos.WithWorkflowName("take"))
	launch(t, dctx)
	run := func(want string) (string, bool) {
		t.Helper()
		h, err := dbos.RunWorkflow(dctx, take, want)
		if err != nil {
			t.Fatal(err)
		}
		taken, err := h.GetResult()
		if err != nil {
			t.Fatalf("TakeStateIf(%q) in a workflow: %v", want, err)
		}
		return h.GetWorkflowID(), taken
	}
	checkState := func(when, want string) {
		t.Helper()
		if got, err := mem.State(ctx, id); err != nil || string(got) != want {
			t.Fatalf("the chat's state %s: %q, %v; want %q", when, got, err, want)
		}
	}

	if err := mem.SetState(ctx, id, []byte("pause 2")); err != nil {
		t.Fatal(err)
	}
	other, taken := run("pause 1")
	if taken {
		t.Errorf("TakeStateIf of another state than the chat's: true; want false")
	}
	checkState("after a TakeStateIf of another", "pause 2")
	if names := stepNames(t, dctx, other); !slices.Equal(names, []string{"chat/take_state_if"}) {
		t.Errorf("steps %q; want the read alone", names)
	}

	wf, taken := run("pause 2")
	if !taken {
		t.Fatalf("TakeStateIf of the chat's state: false; want true")
	}
	checkState("after it was taken", "")
	steps := []string{"chat/take_state_if", "chat/remove_state_if"}
	if names := stepNames(t, dctx, wf); !slices.Equal(names, steps) {
		t.Errorf("steps %q; want %q", names, steps)
	}

	if err := mem.SetState(ctx, id, []byte("pause 3")); err != nil { // the chat's next pause
		t.Fatal(err)
	}
	for start, want := range []bool{false, true, true} { // from the read, the removal, after it
		h, err := dbos.ForkWorkflow[bool](dctx, dbos.ForkWorkflowInput{OriginalWorkflowID: wf, StartStep: uint(start)})
		if err != nil {
			t.Fatalf("ForkWorkflow from step %d: %v", start, err)
		}
		if got, err := h.GetResult(); err != nil || got != want {
			t.Errorf("the fork from step %d: %v, %v; want %v", start, got, err, want)
		}
		checkState(fmt.Sprintf("after the fork from step %d", start), "pause 3")
	}
}

// TestARunInAChatCancelledByItsProgramAppendsInItsStep: a workflow of the program's own runs a
// run in a chat with a context of its own, which the program cancels in the middle of the turn
// — the workflow goes on — and then a second run in the chat. The first run's append is a step
// of the workflow like any other, and does not keep the second run from appending: the run's
// context being done does not tell that the workflow was stopped.
func TestARunInAChatCancelledByItsProgramAppendsInItsStep(t *testing.T) {
	t.Parallel()
	mem := chat.NewMemory()
	id := chat.ID{Tenant: "acme", User: "ana", Chat: "errands"}
	dctx := newDBOS(t, dbos.Config{})
	eng, err := durable.New(dctx)
	if err != nil {
		t.Fatal(err)
	}
	var cancelFirst context.CancelFunc
	wait := tool.Func("wait", "Waits for something.", func(ctx context.Context, in query) (string, error) {
		if in.Q == "first" {
			cancelFirst() // the program gives up on the first run
			<-ctx.Done()
			return "", ctx.Err()
		}
		return "waited for " + in.Q, nil
	})
	clerk := assistant.New[string]("clerk",
		assistant.WithMiddleware(eng.Middleware()),
		assistant.WithModels(model.Fixed(model.Model{Name: "clerk", LLM: llmtest.NewFunc(func(_ context.Context, req llmtest.Request) llmtest.Reply {
			if turns(req.Messages) == 0 {
				return reply("", usageOf(10, 2), nil, call("c1", "wait", fmt.Sprintf(`{"q":%q}`, prompt(req.Messages))))
			}
			return reply("done: "+strings.Join(results(req.Messages[len(req.Messages)-1:]), ""), usageOf(20, 3), nil)
		}).NoRecord()})),
		assistant.WithTools(wait),
		assistant.WithStore(eng.Store(mem)))
	errands := func(ctx dbos.Context, _ string) (string, error) {
		first, cancel := context.WithCancel(ctx)
		defer cancel()
		cancelFirst = cancel
		if _, err := clerk.Run(chat.WithID(first, id), assistant.Input{Prompt: "first"}); !errors.Is(err, context.Canceled) {
			return "", fmt.Errorf("the first run: %v; want it cancelled", err)
		}
		out, err := clerk.Run(chat.WithID(ctx, id), assistant.Input{Prompt: "second"})
		return out.Output, err
	}
	dbos.RegisterWorkflow(dctx, errands, dbos.WithWorkflowName("test.errands_cancelled"))
	launch(t, dctx)
	h, err := dbos.RunWorkflow(dctx, errands, "")
	if err != nil {
		t.Fatal(err)
	}
	out, err := h.GetResult()
	if err != nil {
		t.Fatal(err)
	}
	if want := "done: waited for second"; out != want {
		t.Errorf("the workflow: %q; want %q", out, want)
	}
	if got, want := userTurns(t, mem, id), []string{"first", "second"}; !slices.Equal(got, want) {
		t.Fatalf("the chat holds the user's turns %q; want %q", got, want)
	}
	names := stepNames(t, dctx, h.GetWorkflowID())
	if n := strings.Count(strings.Join(names, " "), "chat/append"); n != 2 {
		t.Errorf("the workflow recorded %d chat appends in %q; want 2, one a run", n, names)
	}
}

// heldStore is a chat store whose first Append says so on appending and waits for release
// before it appends.
type heldStore struct {
	chat.Store
	once      sync.Once
	appending chan struct{}
	release   chan struct{}
}

func (h *heldStore) Append(ctx context.Context, id chat.ID, msgs []llms.MessageContent) error {
	h.once.Do(func() {
		close(h.appending)
		<-h.release
	})
	return h.Store.Append(ctx, id, msgs)
}

// TestARunCancelledWhileItAppendsAppendsOnce: a durable run in a chat whose workflow is cancelled
// while the store appends the run's messages — the append is made, and DBOS does not record its
// step — has the messages in the chat once: the run does not append them again outside the
// workflow, nor does the run resumed.
func TestARunCancelledWhileItAppendsAppendsOnce(t *testing.T) {
	t.Parallel()
	ctx := testContext(t, time.Minute)
	id := chat.ID{Tenant: "acme", User: "ana", Chat: "groceries"}
	mem := &heldStore{Store: chat.NewMemory(), appending: make(chan struct{}), release: make(chan struct{})}
	dctx := newDBOS(t, dbos.Config{})
	eng, err := durable.New(dctx)
	if err != nil {
		t.Fatal(err)
	}
	ended := make(chan error, 1)
	clerk := assistant.New[string]("clerk",
		assistant.WithModels(model.Fixed(model.Model{Name: "clerk", LLM: llmtest.NewFunc(func(_ context.Context, req llmtest.Request) llmtest.Reply {
			return reply("noted: "+prompt(req.Messages), usageOf(10, 2), nil)
		}).NoRecord()})),
		assistant.WithStore(eng.Store(mem)),
		assistant.WithCallback(runEnds(ended)))
	durable.Register(eng, clerk)
	launch(t, dctx)
	run, err := eng.Start(ctx, "clerk", durable.Input{Prompt: "milk", Chat: id})
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-mem.appending:
	case <-ctx.Done():
		t.Fatal("the run did not append")
	}
	if err := dbos.CancelWorkflow(dctx, run); err != nil {
		t.Fatal(err)
	}
	close(mem.release)
	select {
	case <-ended:
	case <-ctx.Done():
		t.Fatal("the run did not end")
	}
	want := []string{"milk"}
	if got := userTurns(t, mem, id); !slices.Equal(got, want) {
		t.Fatalf("after the cancel the chat holds the user's turns %q; want %q", got, want)
	}

	if _, err := dbos.ResumeWorkflow[any](dctx, run); err != nil {
		t.Fatal(err)
	}
	res, err := eng.Await(ctx, run)
	if err != nil {
		t.Fatal(err)
	}
	if res.Text != "noted: milk" {
		t.Errorf("the resumed run answered %q; want %q", res.Text, "noted: milk")
	}
	if got := userTurns(t, mem, id); !slices.Equal(got, want) {
		t.Errorf("after the resume the chat holds the user's turns %q; want %q", got, want)
	}
}
