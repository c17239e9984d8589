package assistant_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/cadrehq/cadre/pkg/assistant"
	"github.com/cadrehq/cadre/pkg/callback"
	"github.com/cadrehq/cadre/pkg/callback/callbacktest"
	"github.com/cadrehq/cadre/pkg/chat"
	"github.com/cadrehq/cadre/pkg/llmtest"
	"github.com/cadrehq/cadre/pkg/tool"
	"github.com/cadrehq/cadre/pkg/usage"
	"github.com/tmc/langchaingo/llms"
)

// sub: one mail call with a fixed id, then text.
func sub(name, id string, sent *atomic.Int64, opts ...assistant.Option) *assistant.Assistant[string] {
	m := llmtest.NewFunc(func(_ context.Context, req llmtest.Request) llmtest.Reply {
		if req.Messages[len(req.Messages)-1].Role == llms.ChatMessageTypeTool {
			return llmtest.Reply{Text: name + " done", Usage: usage.Usage{InputTokens: 7}}
		}
		return llmtest.Reply{ToolCalls: []llms.ToolCall{{ID: id, Type: "function", FunctionCall: &llms.FunctionCall{Name: "send_mail", Arguments: `{"to":"a","body":"b"}`}}}, Usage: usage.Usage{InputTokens: 7}}
	})
	send := tool.Func("send_mail", "Sends.", func(_ context.Context, in mailArgs) (string, error) { sent.Add(1); return "sent", nil })
	return assistant.New[string](name, append([]assistant.Option{assistant.WithModel(m), assistant.WithTools(send)}, opts...)...)
}

// Two sibling delegations pause; one Resume with both decisions resumes both.
func TestSiblingPausesResumeTogether(t *testing.T) {
	var sent atomic.Int64
	ap := assistant.WithApproval(fixed(assistant.Pending()), "send_mail")
	a, b := sub("suba", "id_a", &sent, ap), sub("subb", "id_b", &sent, ap)
	top := assistant.New[string]("top", assistant.WithTools(assistant.AsTool[string](a), assistant.AsTool[string](b)),
		assistant.WithModel(llmtest.NewFunc(func(_ context.Context, req llmtest.Request) llmtest.Reply {
			if req.Messages[len(req.Messages)-1].Role == llms.ChatMessageTypeTool {
				var out []string
				for _, r := range toolResultsIn(req.Messages) {
					out = append(out, r.Content)
				}
				return llmtest.Text(strings.Join(out, "|"))
			}
			return llmtest.Calls(llmtest.Call("suba", `{"input":"x"}`), llmtest.Call("subb", `{"input":"y"}`))
		})))
	res, err := top.Run(testContext(t), assistant.Input{Prompt: "go"})
	if err != nil || res.Stop != assistant.StopPending || len(res.Paused.Waiting()) != 2 {
		t.Fatalf("err %v stop %q", err, res.Stop)
	}
	final, err := top.Resume(testContext(t), res.Paused, map[string]assistant.Decision{"id_a": assistant.Approved(), "id_b": assistant.Approved()})
	if err != nil {
		t.Fatal(err)
	}
	if sent.Load() != 2 || final.Output != "suba done|subb done" {
		t.Errorf("sent %d, output %q", sent.Load(), final.Output)
	}
	if r := final.Usage.ByAgent["suba"].Requests; r != 2 {
		t.Errorf("suba requests in final usage = %d, want 2 (usage: %+v)", r, final.Usage.ByAgent)
	}
}

// Per-run options are not part of a paused state: Resume takes them again.
func TestResumeTakesPerRunOptionsAgain(t *testing.T) {
	t.Parallel()
	var sent atomic.Int64
	var n atomic.Int64
	m := llmtest.NewFunc(func(_ context.Context, req llmtest.Request) llmtest.Reply {
		if n.Add(1) <= 2 {
			return llmtest.Calls(llmtest.Call("send_mail", `{"to":"a","body":"b"}`))
		}
		return llmtest.Text("ok")
	})
	send := tool.Func("send_mail", "Sends.", func(_ context.Context, in mailArgs) (string, error) { sent.Add(1); return "sent", nil })
	a := assistant.New[string]("a", assistant.WithModel(m), assistant.WithTools(send))
	perRun := assistant.WithApproval(fixed(assistant.Pending()))
	res, err := a.Run(testContext(t), assistant.Input{Prompt: "go", Options: []assistant.Option{perRun}})
	if err != nil || res.Stop != assistant.StopPending {
		t.Fatalf("%v %q", err, res.Stop)
	}
	id := res.Paused.Waiting()[0].ID
	final, err := a.Resume(testContext(t), res.Paused, map[string]assistant.Decision{id: assistant.Approved()}, perRun)
	if err != nil {
		t.Fatal(err)
	}
	if final.Stop != assistant.StopPending || sent.Load() != 1 {
		t.Errorf("Stop %q, %d sent: the second mail must wait for the approver given again", final.Stop, sent.Load())
	}
}

// An approver that fails ends the run, with a chat history providers still accept.
func TestApproverErrorLeavesAValidChat(t *testing.T) {
	var sent atomic.Int64
	store := chat.NewMemory()
	bad := assistant.ApproverFunc(func(context.Context, assistant.ToolCall) (assistant.Decision, error) {
		return assistant.Decision{}, errors.New("approval service down")
	})
	a := mailer(&sent, assistant.WithApproval(bad, "send_mail"), assistant.WithStore(store))
	id := chat.ID{Tenant: "t", Chat: "c"}
	if _, err := a.Run(chat.WithID(testContext(t), id), assistant.Input{Prompt: "mail ana"}); err == nil {
		t.Fatal("want the approver's error")
	}
	stored, _ := store.Load(testContext(t), id)
	if err := replayError(stored); err != nil {
		t.Errorf("the chat is one no provider accepts any more: %v (roles %v)", err, roles(stored))
	}
}

// A chat with a paused run refuses new runs until it is resumed.
func TestChatWithAPausedRunRefusesNewRuns(t *testing.T) {
	t.Parallel()
	var sent atomic.Int64
	store := chat.NewMemory()
	a := mailer(&sent, assistant.WithApproval(fixed(assistant.Pending()), "send_mail"), assistant.WithStore(store))
	ctx := chat.WithID(testContext(t), chat.ID{Tenant: "t", Chat: "c"})
	if _, err := a.Run(ctx, assistant.Input{Prompt: "FIRST"}); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Run(ctx, assistant.Input{Prompt: "SECOND"}); err == nil || !strings.Contains(err.Error(), "Resume it first") {
		t.Fatalf("err = %v, want a refusal saying to resume first", err)
	}
	if _, err := a.Resume(ctx, nil, map[string]assistant.Decision{"call_mail": assistant.Approved()}); err != nil {
		t.Fatal(err)
	}
	// Resumed once, the pause is gone: a second Resume has nothing to resume.
	if _, err := a.Resume(ctx, nil, map[string]assistant.Decision{"call_mail": assistant.Approved()}); err == nil {
		t.Error("the same pause was resumed twice")
	}
	if sent.Load() != 1 {
		t.Errorf("%d mails sent, want 1", sent.Load())
	}
	if _, err := a.Run(ctx, assistant.Input{Prompt: "SECOND"}); err != nil {
		t.Errorf("after the resume, a new run: %v", err)
	}
}

// A pause ends the run (RunEnd) and Resume starts one (RunStart): events pair up.
func TestPauseAndResumeEventsPairUp(t *testing.T) {
	var sent atomic.Int64
	rec := callbacktest.NewRecorder()
	a := mailer(&sent, assistant.WithApproval(fixed(assistant.Pending()), "send_mail"), assistant.WithCallback(rec))
	res, _ := a.Run(testContext(t), assistant.Input{Prompt: "x"})
	a.Resume(testContext(t), res.Paused, map[string]assistant.Decision{"call_mail": assistant.Approved()})
	starts, ends := len(rec.Of(callback.RunStart)), len(rec.Of(callback.RunEnd))+len(rec.Of(callback.RunError))
	if starts != ends {
		t.Errorf("RunStart %d, RunEnd/RunError %d: %v", starts, ends, rec.Kinds())
	}
}

// A denied call is a call the model made: it is counted, though it does not run.
func TestDeniedCallsAreCounted(t *testing.T) {
	var sent atomic.Int64
	res, err := mailer(&sent, assistant.WithApproval(fixed(assistant.Denied("no")), "send_mail")).Run(testContext(t), assistant.Input{Prompt: "x"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Usage.Total.ToolCalls != 2 {
		t.Errorf("ToolCalls = %d, want 2 (DESIGN: every call the model made except final_result)", res.Usage.Total.ToolCalls)
	}
}

// A delegated run's paused usage stays in the resumed tree's usage even when its call does not
// run again: a cancelled resume, a tool gone from the resuming assistant, arguments that fail
// the re-check.
func TestPausedUsageKeptWhenTheDelegatedCallDoesNotRun(t *testing.T) {
	t.Parallel()
	var sent atomic.Int64
	top := func(tools ...tool.Tool) *assistant.Assistant[string] {
		return assistant.New[string]("top", assistant.WithTools(tools...),
			assistant.WithModel(llmtest.NewFunc(func(_ context.Context, req llmtest.Request) llmtest.Reply {
				if req.Messages[len(req.Messages)-1].Role == llms.ChatMessageTypeTool {
					return llmtest.Reply{Text: "done", Usage: usage.Usage{InputTokens: 3}}
				}
				return llmtest.Reply{ToolCalls: []llms.ToolCall{llmtest.Call("suba", `{"input":"x"}`)}, Usage: usage.Usage{InputTokens: 5}}
			})))
	}
	pending := assistant.WithApproval(fixed(assistant.Pending()), "send_mail")
	res, err := top(assistant.AsTool[string](sub("suba", "id_a", &sent, pending))).Run(testContext(t), assistant.Input{Prompt: "go"})
	if err != nil || res.Stop != assistant.StopPending {
		t.Fatalf("err %v, Stop %q", err, res.Stop)
	}
	paused := res.Paused.Usage
	if paused.ByAgent["suba"].Requests != 1 {
		t.Fatalf("paused usage %+v, want suba's request in it", paused)
	}
	type query struct {
		Q string `json:"q"`
	}
	cancelled, cancel := context.WithCancel(testContext(t))
	cancel()
	for _, tc := range []struct {
		name string
		ctx  context.Context
		top  *assistant.Assistant[string]
	}{
		{"cancelled", cancelled, top(assistant.AsTool[string](sub("suba", "id_a", &sent)))},
		{"the tool is gone", testContext(t), top()},
		{"the arguments fail the re-check", testContext(t), top(assistant.AsTool[query](sub("suba", "id_a", &sent)))},
	} {
		t.Run(tc.name, func(t *testing.T) {
			final, _ := tc.top.Resume(tc.ctx, res.Paused, map[string]assistant.Decision{"id_a": assistant.Approved()})
			if final == nil {
				t.Fatal("no Result: what was paid for before the pause is lost")
			}
			if got, want := final.Usage.ByAgent["suba"], paused.ByAgent["suba"]; got != want {
				t.Errorf("suba's usage = %+v, want what it used before the pause, %+v", got, want)
			}
			var sum usage.Usage
			for _, u := range final.Usage.ByAgent {
				sum = sum.Add(u)
			}
			if sum != final.Usage.Total || final.Usage.Total.Requests < paused.Total.Requests {
				t.Errorf("Total %+v, ByAgent %+v: want them to add up, from the paused %+v on", final.Usage.Total, final.Usage.ByAgent, paused.Total)
			}
		})
	}
	if sent.Load() != 0 {
		t.Errorf("%d mails sent, want none", sent.Load())
	}
}

// A paused state whose usage has no breakdowns (JSON written by hand, or cut) is refused with
// an error, never a panic.
func TestResumeOfAPausedStateWithoutBreakdowns(t *testing.T) {
	t.Parallel()
	var sent atomic.Int64
	pending := assistant.WithApproval(fixed(assistant.Pending()), "send_mail")
	tree := func() *assistant.Assistant[string] {
		return assistant.New[string]("top", assistant.WithTools(assistant.AsTool[string](sub("suba", "id_a", &sent, pending))),
			assistant.WithModel(llmtest.NewFunc(func(_ context.Context, req llmtest.Request) llmtest.Reply {
				if req.Messages[len(req.Messages)-1].Role == llms.ChatMessageTypeTool {
					return llmtest.Text("done")
				}
				return llmtest.Reply{ToolCalls: []llms.ToolCall{llmtest.Call("suba", `{"input":"x"}`)}, Usage: usage.Usage{InputTokens: 5}}
			})))
	}
	res, err := tree().Run(testContext(t), assistant.Input{Prompt: "go"})
	if err != nil || res.Stop != assistant.StopPending {
		t.Fatalf("err %v, Stop %q", err, res.Stop)
	}
	state, err := json.Marshal(res.Paused)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(state, &doc); err != nil {
		t.Fatal(err)
	}
	delete(doc["usage"].(map[string]any), "ByAgent")
	state, _ = json.Marshal(doc)
	var paused assistant.Paused
	if err := json.Unmarshal(state, &paused); err != nil {
		t.Fatal(err)
	}
	_, err = tree().Resume(testContext(t), &paused, map[string]assistant.Decision{"id_a": assistant.Approved()})
	if err == nil || !strings.Contains(err.Error(), "damaged") {
		t.Errorf("err = %v, want one saying the paused state is damaged", err)
	}
}

// holdingStore is a chat store that, once armed, holds the first call that reads a chat's state
// (State, TakeState or TakeStateIf) after the store has answered it, until release is closed:
// what another Resume does meanwhile is what it would do between those two steps of the held one.
type holdingStore struct {
	chat.Store
	armed   atomic.Bool
	held    chan struct{} // closed when a call is held
	release chan struct{}
}

func newHoldingStore() *holdingStore {
	return &holdingStore{Store: chat.NewMemory(), held: make(chan struct{}), release: make(chan struct{})}
}

func (s *holdingStore) hold() {
	if s.armed.CompareAndSwap(true, false) {
		close(s.held)
		<-s.release
	}
}

func (s *holdingStore) State(ctx context.Context, id chat.ID) ([]byte, error) {
	defer s.hold()
	return s.Store.State(ctx, id)
}

func (s *holdingStore) TakeState(ctx context.Context, id chat.ID) ([]byte, error) {
	defer s.hold()
	return s.Store.TakeState(ctx, id)
}

func (s *holdingStore) TakeStateIf(ctx context.Context, id chat.ID, want []byte) (bool, error) {
	defer s.hold()
	return s.Store.TakeStateIf(ctx, id, want)
}

// TestAStaleResumeLeavesTheLiveOneAlone: a Resume of an earlier pause of a chat, resumed
// already, fails with ErrNotPaused without moving the chat's state — a Resume of the chat's
// live pause that runs while the stale one is between its steps goes on, and its approved call
// runs.
func TestAStaleResumeLeavesTheLiveOneAlone(t *testing.T) {
	t.Parallel()
	approve := map[string]assistant.Decision{"call_mail": assistant.Approved()}
	for _, tt := range []struct {
		name  string
		given bool // the live Resume is given its Paused, rather than reading it from the chat
	}{{"read from the chat", false}, {"given its pause", true}} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var sent atomic.Int64
			store := newHoldingStore()
			a := mailer(&sent, assistant.WithApproval(fixed(assistant.Pending()), "send_mail"), assistant.WithStore(store))
			ctx := chat.WithID(testContext(t), chat.ID{Tenant: "t", User: "ana", Chat: "mails"})
			first, err := a.Run(ctx, assistant.Input{Prompt: "mail ana"})
			if err != nil || first.Stop != assistant.StopPending {
				t.Fatalf("first run: %v, stop %q; want it paused", err, first.Stop)
			}
			if _, err := a.Resume(ctx, first.Paused, approve); err != nil {
				t.Fatalf("resuming the first pause: %v", err)
			}
			second, err := a.Run(ctx, assistant.Input{Prompt: "mail ana again"})
			if err != nil || second.Stop != assistant.StopPending {
				t.Fatalf("second run: %v, stop %q; want it paused", err, second.Stop)
			}

			store.armed.Store(true)
			stale := make(chan error, 1)
			go func() {
				_, err := a.Resume(ctx, first.Paused, approve)
				stale <- err
			}()
			select {
			case <-store.held:
			case err := <-stale:
				t.Fatalf("the stale Resume ended before reading the chat's state: %v", err)
			}
			var live *assistant.Paused
			if tt.given {
				live = second.Paused
			}
			res, err := a.Resume(ctx, live, approve)
			close(store.release)
			if err != nil || res.Stop != assistant.StopAnswer {
				t.Errorf("the live Resume, while a stale one was under way: %v; want it to go on to its answer", err)
			}
			if err := <-stale; !errors.Is(err, assistant.ErrNotPaused) {
				t.Errorf("the stale Resume: %v; want ErrNotPaused", err)
			}
			if n := sent.Load(); n != 2 {
				t.Errorf("%d mails sent; want 2, one for each pause", n)
			}
			if state, err := store.Store.State(testContext(t), chat.ID{Tenant: "t", User: "ana", Chat: "mails"}); err != nil || state != nil {
				t.Errorf("the chat's state after both Resumes: %d bytes, %v; want none: the live pause was resumed", len(state), err)
			}
		})
	}
}

// TestAResumedDelegatedCallIsReservedOnce: the call that delegated to a run that paused was
// reserved when it first ran; resuming it does not reserve it again. After the resume the
// tree's tool calls are the calls made — the delegation and the approved mail — and a
// MaxToolCalls of exactly that many, on the tree or on the supervisor, lets the resume finish.
func TestAResumedDelegatedCallIsReservedOnce(t *testing.T) {
	t.Parallel()
	const made = 2
	for _, tc := range []struct {
		name string
		opts []assistant.Option
	}{
		{"no limit", nil},
		{"MaxToolCalls of the calls made", []assistant.Option{assistant.WithLimits(usage.Limits{MaxToolCalls: made})}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var sent atomic.Int64
			top := assistant.New[string]("top", append([]assistant.Option{
				assistant.WithTools(assistant.AsTool[string](sub("suba", "id_a", &sent, assistant.WithApproval(fixed(assistant.Pending()), "send_mail")))),
				assistant.WithModel(llmtest.NewFunc(func(_ context.Context, req llmtest.Request) llmtest.Reply {
					if req.Messages[len(req.Messages)-1].Role == llms.ChatMessageTypeTool {
						return llmtest.Text("done")
					}
					return llmtest.Calls(llmtest.Call("suba", `{"input":"x"}`))
				}))}, tc.opts...)...)
			res, err := top.Run(testContext(t), assistant.Input{Prompt: "go"})
			if err != nil || res.Stop != assistant.StopPending {
				t.Fatalf("Run = %v, %v; want a pause", res, err)
			}
			final, err := top.Resume(testContext(t), res.Paused, map[string]assistant.Decision{"id_a": assistant.Approved()})
			if err != nil {
				t.Fatalf("Resume: %v", err)
			}
			if final.Output != "done" || sent.Load() != 1 {
				t.Errorf("Output %q with %d mails sent; want done, the approved mail sent", final.Output, sent.Load())
			}
			if got := final.Usage.Total.ToolCalls; got != made {
				t.Errorf("ToolCalls = %d; want the %d calls made, the delegation counted once", got, made)
			}
			if got := final.Usage.ByAgent; got["top"].ToolCalls != 1 || got["suba"].ToolCalls != 1 {
				t.Errorf("ByAgent = %+v; want one tool call each", got)
			}
		})
	}
}
