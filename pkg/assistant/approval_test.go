package assistant_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/cadrehq/cadre/pkg/assistant"
	"github.com/cadrehq/cadre/pkg/chat"
	"github.com/cadrehq/cadre/pkg/llmtest"
	"github.com/cadrehq/cadre/pkg/tool"
	"github.com/cadrehq/cadre/pkg/usage"
	"github.com/tmc/langchaingo/llms"
)

type mailArgs struct {
	To   string `json:"to"`
	Body string `json:"body"`
}

// mailer is an assistant whose model sends one mail (and looks a city up in the same turn),
// then reports what the tool said. sent counts the mails that went out.
func mailer(sent *atomic.Int64, opts ...assistant.Option) *assistant.Assistant[string] {
	m := llmtest.NewFunc(func(_ context.Context, req llmtest.Request) llmtest.Reply {
		last := req.Messages[len(req.Messages)-1]
		if last.Role == llms.ChatMessageTypeTool {
			var out []string
			for _, r := range toolResultsIn(req.Messages) {
				out = append(out, r.Name+": "+r.Content)
			}
			return llmtest.Reply{Text: strings.Join(out, "; "), Usage: usage.Usage{InputTokens: 20, OutputTokens: 5}}
		}
		return llmtest.Reply{ToolCalls: []llms.ToolCall{
			{ID: "call_mail", Type: "function", FunctionCall: &llms.FunctionCall{Name: "send_mail", Arguments: `{"to":"ana@example.com","body":"hi"}`}},
			{ID: "call_city", Type: "function", FunctionCall: &llms.FunctionCall{Name: "lookup", Arguments: `{"city":"Oslo"}`}},
		}, Usage: usage.Usage{InputTokens: 10, OutputTokens: 3}}
	})
	send := tool.Func("send_mail", "Sends a mail.", func(_ context.Context, in mailArgs) (string, error) {
		sent.Add(1)
		return "sent to " + in.To, nil
	})
	lookup := tool.Func("lookup", "Looks a city up.", func(_ context.Context, in cityArgs) (string, error) { return "big", nil })
	return assistant.New[string]("mailer", append([]assistant.Option{assistant.WithModel(m), assistant.WithTools(send, lookup)}, opts...)...)
}

func fixed(d assistant.Decision) assistant.Approver {
	return assistant.ApproverFunc(func(context.Context, assistant.ToolCall) (assistant.Decision, error) { return d, nil })
}

func TestApprovalApproveDenyPending(t *testing.T) {
	t.Parallel()
	var sent atomic.Int64
	res, err := mailer(&sent, assistant.WithApproval(fixed(assistant.Approved()), "send_mail")).Run(testContext(t), assistant.Input{Prompt: "mail ana"})
	if err != nil || sent.Load() != 1 || !strings.Contains(res.Output, "send_mail: sent to ana@example.com") {
		t.Errorf("approved: err %v, %d sent, output %q", err, sent.Load(), res.Output)
	}

	sent.Store(0)
	res, err = mailer(&sent, assistant.WithApproval(fixed(assistant.Denied("not on a Sunday")), "send_mail")).Run(testContext(t), assistant.Input{Prompt: "mail ana"})
	if err != nil || sent.Load() != 0 || !strings.Contains(res.Output, "send_mail: denied: a person did not allow this call: not on a Sunday") ||
		!strings.Contains(res.Output, "lookup: big") {
		t.Errorf("denied: err %v, %d sent, output %q; want the denial and its reason told, the rest run", err, sent.Load(), res.Output)
	}

	sent.Store(0)
	res, err = mailer(&sent, assistant.WithApproval(fixed(assistant.Pending()), "send_mail")).Run(testContext(t), assistant.Input{Prompt: "mail ana"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Stop != assistant.StopPending || res.Paused == nil || sent.Load() != 0 {
		t.Fatalf("pending: Stop %q, Paused %v, %d sent", res.Stop, res.Paused, sent.Load())
	}
	waiting := res.Paused.Waiting()
	if len(waiting) != 1 || waiting[0].ID != "call_mail" || waiting[0].Tool != "send_mail" || waiting[0].Assistant != "mailer" {
		t.Errorf("waiting = %+v, want the mail call", waiting)
	}
	if results := toolResultsIn(res.Messages); len(results) != 0 {
		t.Errorf("a call ran before the decision: %+v", results)
	}
}

func TestResumeFromJSONInAFreshAssistant(t *testing.T) {
	t.Parallel()
	var sent atomic.Int64
	res, err := mailer(&sent, assistant.WithApproval(fixed(assistant.Pending()), "send_mail")).Run(testContext(t), assistant.Input{Prompt: "mail ana"})
	if err != nil {
		t.Fatal(err)
	}
	state, err := json.Marshal(res.Paused)
	if err != nil {
		t.Fatal(err)
	}
	// Another process, in spirit: a new assistant value, the state from JSON.
	var paused assistant.Paused
	if err := json.Unmarshal(state, &paused); err != nil {
		t.Fatal(err)
	}
	fresh := mailer(&sent, assistant.WithApproval(fixed(assistant.Pending()), "send_mail"))
	final, err := fresh.Resume(testContext(t), &paused, map[string]assistant.Decision{"call_mail": assistant.Approved()})
	if err != nil {
		t.Fatal(err)
	}
	if final.Stop != assistant.StopAnswer || sent.Load() != 1 || !strings.Contains(final.Output, "send_mail: sent to ana@example.com; lookup: big") {
		t.Errorf("resumed: Stop %q, %d sent, output %q", final.Stop, sent.Load(), final.Output)
	}
	want := usage.Usage{Requests: 2, ToolCalls: 2, InputTokens: 30, OutputTokens: 8}
	if final.Usage.Total != want {
		t.Errorf("Usage.Total = %+v, want both parts %+v", final.Usage.Total, want)
	}
	if err := replayError(final.Messages); err != nil {
		t.Errorf("the resumed run's messages: %v", err)
	}
}

func TestResumeRejectsUnknownCalls(t *testing.T) {
	t.Parallel()
	var sent atomic.Int64
	a := mailer(&sent, assistant.WithApproval(fixed(assistant.Pending()), "send_mail"))
	res, err := a.Run(testContext(t), assistant.Input{Prompt: "mail ana"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = a.Resume(testContext(t), res.Paused, map[string]assistant.Decision{"call_nope": assistant.Approved()})
	if err == nil || !strings.Contains(err.Error(), `"call_nope"`) || !strings.Contains(err.Error(), "call_mail") {
		t.Errorf("err = %v, want one naming the unknown call and the waiting ones", err)
	}
	// A call left undecided pauses the run again.
	again, err := a.Resume(testContext(t), res.Paused, nil)
	if err != nil || again.Stop != assistant.StopPending || sent.Load() != 0 {
		t.Errorf("undecided: err %v, Stop %q, %d sent", err, again.Stop, sent.Load())
	}
}

func TestResumeChecksArgumentsAgain(t *testing.T) {
	t.Parallel()
	var sent atomic.Int64
	a := mailer(&sent, assistant.WithApproval(fixed(assistant.Pending()), "send_mail"))
	res, err := a.Run(testContext(t), assistant.Input{Prompt: "mail ana"})
	if err != nil {
		t.Fatal(err)
	}
	// The state was changed on its way: the arguments no longer match the tool's schema.
	for i := range res.Paused.Calls {
		if res.Paused.Calls[i].ID == "call_mail" {
			res.Paused.Calls[i].Arguments = `{"to":42}`
		}
	}
	final, err := a.Resume(testContext(t), res.Paused, map[string]assistant.Decision{"call_mail": assistant.Approved()})
	if err != nil {
		t.Fatal(err)
	}
	if sent.Load() != 0 || !strings.Contains(final.Output, "send_mail: error: invalid arguments") {
		t.Errorf("%d sent, output %q; want the arguments refused", sent.Load(), final.Output)
	}
}

func TestPendingTwoLevelsDown(t *testing.T) {
	t.Parallel()
	var sent atomic.Int64
	approver := fixed(assistant.Pending())
	inner := mailer(&sent, assistant.WithApproval(approver, "send_mail"))
	middle := assistant.New[string]("middle", assistant.WithTools(assistant.AsTool[string](inner)),
		assistant.WithModel(llmtest.NewFunc(func(_ context.Context, req llmtest.Request) llmtest.Reply {
			last := req.Messages[len(req.Messages)-1]
			if last.Role == llms.ChatMessageTypeTool {
				return llmtest.Text("middle: " + last.Parts[0].(llms.ToolCallResponse).Content)
			}
			return llmtest.Calls(llmtest.Call("mailer", `{"input":"mail ana"}`))
		})))
	top := assistant.New[string]("top", assistant.WithTools(assistant.AsTool[string](middle)),
		assistant.WithModel(llmtest.NewFunc(func(_ context.Context, req llmtest.Request) llmtest.Reply {
			last := req.Messages[len(req.Messages)-1]
			if last.Role == llms.ChatMessageTypeTool {
				return llmtest.Text("top: " + last.Parts[0].(llms.ToolCallResponse).Content)
			}
			return llmtest.Calls(llmtest.Call("middle", `{"input":"do it"}`))
		})))
	res, err := top.Run(testContext(t), assistant.Input{Prompt: "go"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Stop != assistant.StopPending {
		t.Fatalf("Stop = %q, want the whole tree paused", res.Stop)
	}
	waiting := res.Paused.Waiting()
	if len(waiting) != 1 || waiting[0].Assistant != "mailer" || waiting[0].ID != "call_mail" {
		t.Fatalf("waiting = %+v, want the mailer's call, two levels down", waiting)
	}
	b, _ := json.Marshal(res.Paused)
	var paused assistant.Paused
	if err := json.Unmarshal(b, &paused); err != nil {
		t.Fatal(err)
	}
	final, err := top.Resume(testContext(t), &paused, map[string]assistant.Decision{"call_mail": assistant.Approved()})
	if err != nil {
		t.Fatal(err)
	}
	want := "top: middle: send_mail: sent to ana@example.com; lookup: big"
	if final.Stop != assistant.StopAnswer || final.Output != want || sent.Load() != 1 {
		t.Errorf("resumed: Stop %q, output %q, %d sent; want %q", final.Stop, final.Output, sent.Load(), want)
	}
	if got := final.Usage.ByAgent; got["mailer"].Requests != 2 || got["middle"].Requests != 2 || got["top"].Requests != 2 {
		t.Errorf("ByAgent = %+v, want two requests each, both parts", got)
	}
}

func TestPausedRunKeptWithItsChat(t *testing.T) {
	t.Parallel()
	var sent atomic.Int64
	store := chat.NewMemory()
	a := mailer(&sent, assistant.WithApproval(fixed(assistant.Pending()), "send_mail"), assistant.WithStore(store))
	id := chat.ID{Tenant: "t", Chat: "c"}
	ctx := chat.WithID(testContext(t), id)
	if _, err := a.Run(ctx, assistant.Input{Prompt: "mail ana"}); err != nil {
		t.Fatal(err)
	}
	final, err := a.Resume(ctx, nil, map[string]assistant.Decision{"call_mail": assistant.Denied("no")})
	if err != nil {
		t.Fatal(err)
	}
	if final.Stop != assistant.StopAnswer || sent.Load() != 0 {
		t.Fatalf("Stop %q, %d sent", final.Stop, sent.Load())
	}
	if state, _ := store.State(testContext(t), id); state != nil {
		t.Error("the paused state stayed with the chat after the run ended")
	}
	stored, _ := store.Load(testContext(t), id)
	if got := roles(stored); !equalRoles(got, []llms.ChatMessageType{"human", "ai", "tool", "tool", "ai"}) {
		t.Errorf("stored = %v, want the whole run once", got)
	}
}

func TestAPendingDecisionPausesAgain(t *testing.T) {
	t.Parallel()
	var sent atomic.Int64
	a := mailer(&sent, assistant.WithApproval(fixed(assistant.Pending()), "send_mail"))
	res, err := a.Run(testContext(t), assistant.Input{Prompt: "mail ana"})
	if err != nil {
		t.Fatal(err)
	}
	again, err := a.Resume(testContext(t), res.Paused, map[string]assistant.Decision{"call_mail": assistant.Pending()})
	if err != nil || again.Stop != assistant.StopPending || sent.Load() != 0 {
		t.Errorf("an explicit Pending: err %v, Stop %q, %d sent; want the run paused again", err, again.Stop, sent.Load())
	}
}

func TestAPausedStateWhoseUserTurnIsOutOfItsMessagesIsDamaged(t *testing.T) {
	t.Parallel()
	var sent atomic.Int64
	a := mailer(&sent, assistant.WithApproval(fixed(assistant.Pending()), "send_mail"))
	res, err := a.Run(testContext(t), assistant.Input{Prompt: "mail ana"})
	if err != nil {
		t.Fatal(err)
	}
	msgs, err := chat.UnmarshalMessages(res.Paused.Messages)
	if err != nil {
		t.Fatal(err)
	}
	for _, first := range []int{-1, len(msgs)} {
		p := *res.Paused
		p.First = first
		if _, err := a.Resume(testContext(t), &p, map[string]assistant.Decision{"call_mail": assistant.Approved()}); err == nil || !strings.Contains(err.Error(), "damaged") {
			t.Errorf("First = %d of %d messages: err = %v, want the state refused as damaged", first, len(msgs), err)
		}
	}
	if sent.Load() != 0 {
		t.Errorf("a damaged state ran %d calls", sent.Load())
	}
}

func TestAnAssistantWithoutToolsOffersNone(t *testing.T) {
	t.Parallel()
	m := llmtest.NewScripted(llmtest.Text("Hello."))
	a := assistant.New[string]("greeter", assistant.WithModel(m))
	if _, err := a.Run(testContext(t), assistant.Input{Prompt: "hi"}); err != nil {
		t.Fatal(err)
	}
	if reqs := m.Requests(); len(reqs) != 1 || reqs[0].Options.Tools != nil {
		t.Errorf("tools offered: %+v; want none at all (OpenAI refuses an empty list of tools)", reqs[0].Options.Tools)
	}
}

// TestACallAnsweredElsewhere: a call carried out outside the run — a web front end's tool, a
// person — is answered with the result given in its decision: at resume (from JSON) or by the
// approver itself. The tool never runs, the model is sent that result, and usage counts the
// call.
func TestACallAnsweredElsewhere(t *testing.T) {
	t.Parallel()
	var sent atomic.Int64

	a := mailer(&sent, assistant.WithApproval(fixed(assistant.Pending()), "send_mail"))
	res, err := a.Run(testContext(t), assistant.Input{Prompt: "mail ana"})
	if err != nil || res.Stop != assistant.StopPending {
		t.Fatalf("%+v, %v: want a pause", res, err)
	}
	paused := throughJSON(t, res.Paused)
	final, err := mailer(&sent).Resume(testContext(t), paused,
		map[string]assistant.Decision{"call_mail": assistant.Answered("sent from the browser")})
	if err != nil {
		t.Fatal(err)
	}
	if sent.Load() != 0 || !strings.Contains(final.Output, "send_mail: sent from the browser") {
		t.Errorf("%d mails sent by the tool, output %q: want none, and the result given", sent.Load(), final.Output)
	}
	if final.Usage.Total.ToolCalls != 2 {
		t.Errorf("ToolCalls = %d; want 2: the answered call and the lookup", final.Usage.Total.ToolCalls)
	}

	// An approver may answer a call itself.
	res, err = mailer(&sent, assistant.WithApproval(fixed(assistant.Answered("queued for tonight")), "send_mail")).
		Run(testContext(t), assistant.Input{Prompt: "mail ana"})
	if err != nil || sent.Load() != 0 || !strings.Contains(res.Output, "send_mail: queued for tonight") {
		t.Errorf("%v, %d sent, output %q", err, sent.Load(), res.Output)
	}

	// A decision without a verdict is refused, naming the verdicts there are.
	_, err = mailer(&sent).Resume(testContext(t), paused, map[string]assistant.Decision{"call_mail": {Result: "x"}})
	if err == nil || !strings.Contains(err.Error(), "Answered") {
		t.Errorf("a decision without a verdict: %v", err)
	}
}

func TestARunsApprovalAddsToTheAssistants(t *testing.T) {
	t.Parallel()
	var sent atomic.Int64
	var asked []string
	var mu sync.Mutex
	record := func(d assistant.Decision) assistant.Approver {
		return assistant.ApproverFunc(func(_ context.Context, c assistant.ToolCall) (assistant.Decision, error) {
			mu.Lock()
			defer mu.Unlock()
			asked = append(asked, c.Tool)
			return d, nil
		})
	}
	// The assistant asks about mails; one run also asks about lookups, with its own approver.
	a := mailer(&sent, assistant.WithApproval(record(assistant.Pending()), "send_mail"))
	res, err := a.Run(testContext(t), assistant.Input{Prompt: "mail ana",
		Options: []assistant.Option{assistant.WithApproval(record(assistant.Answered("small")), "lookup")}})
	if err != nil || res.Stop != assistant.StopPending {
		t.Fatalf("%+v, %v: want the mail to wait: the run's rule leaves it to the assistant's", res, err)
	}
	if len(asked) != 2 {
		t.Errorf("asked about %v; want both calls, each by its own rule", asked)
	}
	for _, c := range res.Paused.Calls {
		if c.Tool == "lookup" && (c.State != "answered" || c.Result != "small") {
			t.Errorf("lookup %+v: want it answered by the run's approver", c)
		}
	}

	// A later rule without names decides every call.
	asked = nil
	res, err = a.Run(testContext(t), assistant.Input{Prompt: "mail ana",
		Options: []assistant.Option{assistant.WithApproval(record(assistant.Approved()))}})
	if err != nil || res.Stop != assistant.StopAnswer || sent.Load() != 1 || len(asked) != 2 {
		t.Errorf("%v, stop %q, %d sent, asked %v: want both approved by the run's rule", err, res.Stop, sent.Load(), asked)
	}
}

func TestDecisionTold(t *testing.T) {
	t.Parallel()
	for d, want := range map[assistant.Decision]string{
		assistant.Denied("not today"): "denied: a person did not allow this call: not today",
		assistant.Denied(""):          "denied: a person did not allow this call",
		assistant.Answered("sent"):    "sent",
		assistant.Approved():          "",
		assistant.Pending():           "",
	} {
		if got := d.Told(); got != want {
			t.Errorf("%+v.Told() = %q; want %q", d, got, want)
		}
	}
}
