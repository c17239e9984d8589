package agui_test

import (
	"context"
	"net/http"
	"reflect"
	"sync/atomic"
	"testing"

	"github.com/cadrehq/cadre/pkg/agui"
	"github.com/cadrehq/cadre/pkg/assistant"
	"github.com/cadrehq/cadre/pkg/llmtest"
	"github.com/cadrehq/cadre/pkg/tool"
	"github.com/tmc/langchaingo/llms"
)

type mail struct {
	To string `json:"to"`
}

// ask keeps every call it is asked about waiting for a person.
var ask = assistant.ApproverFunc(func(context.Context, assistant.ToolCall) (assistant.Decision, error) {
	return assistant.Pending(), nil
})

// mailer sends a mail once approved, then says what the tool answered.
func mailer(sent *atomic.Int64, m *llmtest.Scripted) *assistant.Assistant[string] {
	send := tool.Func("send_mail", "Sends a mail.", func(_ context.Context, in mail) (string, error) {
		sent.Add(1)
		return "sent to " + in.To, nil
	})
	return assistant.New[string]("mailer", assistant.WithModel(m), assistant.WithTools(send), assistant.WithApproval(ask, "send_mail"))
}

func TestHandlerApprovalInterruptAndResume(t *testing.T) {
	var sent atomic.Int64
	m := llmtest.NewScripted(
		llmtest.Calls(llmtest.Call("send_mail", `{"to":"ana@example.com"}`)),
		llmtest.Text("Done."),
	)
	h := agui.NewHandler(mailer(&sent, m))
	es := protocol(events(t, post(t, h, `{"threadId":"t1","runId":"r1","messages":[{"id":"u1","role":"user","content":"mail ana"}]}`)))
	if got, want := types(es), "RUN_STARTED TOOL_CALL_START TOOL_CALL_ARGS TOOL_CALL_END RUN_FINISHED"; got != want {
		t.Fatalf("events: %s\nwant:   %s", got, want)
	}
	f := es[len(es)-1].(agui.RunFinished)
	if f.Outcome == nil || f.Outcome.Type != agui.OutcomeInterrupt || len(f.Outcome.Interrupts) != 1 {
		t.Fatalf("outcome %+v", f.Outcome)
	}
	in := f.Outcome.Interrupts[0]
	call := es[1].(agui.ToolCallStart).ToolCallID
	if in.ID != call || in.ToolCallID != call || in.Reason != agui.ReasonApproval || in.ResponseSchema == nil {
		t.Errorf("interrupt %+v; want one for call %s", in, call)
	}
	if sent.Load() != 0 {
		t.Fatal("the mail went before its approval")
	}

	// The same pause resumed by two requests: one runs the call, the other is refused.
	resume := `{"threadId":"t1","runId":"r2","messages":[{"id":"u1","role":"user","content":"mail ana"},
		{"id":"a1","role":"assistant","toolCalls":[{"id":"` + call + `","type":"function","function":{"name":"send_mail","arguments":"{}"}}]}],
		"resume":[{"interruptId":"` + call + `","status":"resolved","payload":{"approved":true}}]}`
	es = protocol(events(t, post(t, h, resume)))
	if got, want := types(es), "RUN_STARTED TOOL_CALL_RESULT TEXT_MESSAGE_START TEXT_MESSAGE_CONTENT TEXT_MESSAGE_END RUN_FINISHED"; got != want {
		t.Fatalf("resumed: %s\nwant:     %s", got, want)
	}
	if r := es[1].(agui.ToolCallResult); r.ToolCallID != call || r.Content.Text != "sent to ana@example.com" {
		t.Errorf("result %+v", r)
	}
	if f := es[len(es)-1].(agui.RunFinished); f.Result != "Done." || f.Outcome.Type != agui.OutcomeSuccess {
		t.Errorf("finished %+v", f)
	}
	resp := post(t, h, resume)
	if resp.StatusCode != http.StatusBadRequest || sent.Load() != 1 {
		t.Errorf("a second resume: %s, %d mails sent; want 400 and one mail", resp.Status, sent.Load())
	}
}

// A call whose delegated run paused has no result until the run resumes: a TOOL_CALL_RESULT
// at the pause would put a tool message answering it in the client's conversation, and the
// resumed run's result a second one.
func TestHandlerDelegatedPauseResultsOnce(t *testing.T) {
	var sent atomic.Int64
	inner := llmtest.NewScripted(
		llmtest.Calls(llms.ToolCall{ID: "call_send", Type: "function", FunctionCall: &llms.FunctionCall{Name: "send_mail", Arguments: `{"to":"ana@example.com"}`}}),
		llmtest.Text("Sent."),
	)
	outer := llmtest.NewScripted(
		llmtest.Calls(llms.ToolCall{ID: "call_mailer", Type: "function", FunctionCall: &llms.FunctionCall{Name: "mailer", Arguments: `{"input":"mail ana"}`}}),
		llmtest.Text("Done."),
	)
	sup := assistant.New[string]("supervisor", assistant.WithModel(outer), assistant.WithTools(assistant.AsTool[string](mailer(&sent, inner))))
	h := agui.NewHandler(sup)
	results := func(es []agui.Event) map[string][]string {
		out := map[string][]string{}
		for _, e := range es {
			if r, ok := e.(agui.ToolCallResult); ok {
				out[r.ToolCallID] = append(out[r.ToolCallID], r.Content.Text)
			}
		}
		return out
	}

	es := protocol(events(t, post(t, h, `{"threadId":"t1","runId":"r1","messages":[{"id":"u1","role":"user","content":"mail ana"}]}`)))
	if f, ok := es[len(es)-1].(agui.RunFinished); !ok || f.Outcome.Type != agui.OutcomeInterrupt {
		t.Fatalf("events: %s", types(es))
	}
	if got := results(es); len(got) != 0 {
		t.Errorf("results at the pause: %q; want none", got)
	}

	es = protocol(events(t, post(t, h, `{"threadId":"t1","runId":"r2","messages":[{"id":"u1","role":"user","content":"mail ana"},
		{"id":"a1","role":"assistant","toolCalls":[{"id":"call_mailer","type":"function","function":{"name":"mailer","arguments":"{}"}}]}],
		"resume":[{"interruptId":"call_send","status":"resolved","payload":{"approved":true}}]}`)))
	want := map[string][]string{"call_send": {"sent to ana@example.com"}, "call_mailer": {"Sent."}}
	if got := results(es); !reflect.DeepEqual(got, want) {
		t.Errorf("results after the resume: %q; want %q\nevents: %s", got, want, types(es))
	}
}
