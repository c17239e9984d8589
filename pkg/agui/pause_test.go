package agui_test

import (
	"context"
	"io"
	"net/http"
	"reflect"
	"slices"
	"strings"
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
func mailer(sent *atomic.Int64, m llms.Model) *assistant.Assistant[string] {
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

// body is a RunAgentInput with the given messages (JSON objects) and extra members.
func body(thread, run string, extra string, msgs ...string) string {
	b := `{"threadId":"` + thread + `","runId":"` + run + `","messages":[` + strings.Join(msgs, ",") + `]`
	if extra != "" {
		b += "," + extra
	}
	return b + "}"
}

func user(id, text string) string {
	return `{"id":"` + id + `","role":"user","content":"` + text + `"}`
}

func calling(id, callID, name string) string {
	return `{"id":"` + id + `","role":"assistant","toolCalls":[{"id":"` + callID + `","type":"function","function":{"name":"` + name + `","arguments":"{}"}}]}`
}

func toolMsg(id, callID, content string) string {
	return `{"id":"` + id + `","role":"tool","toolCallId":"` + callID + `","content":"` + content + `"}`
}

func finished(t *testing.T, es []agui.Event) agui.RunFinished {
	t.Helper()
	f, ok := es[len(es)-1].(agui.RunFinished)
	if !ok {
		t.Fatalf("last event %s; events %s", es[len(es)-1].Type(), types(es))
	}
	return f
}

func TestHandlerFrontendToolRoundTrip(t *testing.T) {
	var seen []string // what the model was sent as the confirm call's result
	m := llmtest.NewFunc(func(_ context.Context, req llmtest.Request) llmtest.Reply {
		last := req.Messages[len(req.Messages)-1]
		if r, ok := last.Parts[0].(llms.ToolCallResponse); ok {
			seen = append(seen, r.Name+"="+r.Content)
			return llmtest.Text("Booked.")
		}
		offered := false
		for _, tl := range req.Options.Tools {
			offered = offered || tl.Function.Name == "confirm"
		}
		if !offered {
			return llmtest.Text("no confirm tool offered")
		}
		return llmtest.Calls(llms.ToolCall{ID: "call_c", FunctionCall: &llms.FunctionCall{Name: "confirm", Arguments: `{"q":"Book it?"}`}})
	})
	h := agui.NewHandler(assistant.New[string]("booker", assistant.WithModel(m)))
	tools := `"tools":[{"name":"confirm","description":"Asks the user.","parameters":{"type":"object","properties":{"q":{"type":"string"}}}}]`

	es := protocol(events(t, post(t, h, body("t1", "r1", tools, user("u1", "book")))))
	if got, want := types(es), "RUN_STARTED TOOL_CALL_START TOOL_CALL_ARGS TOOL_CALL_END RUN_FINISHED"; got != want {
		t.Fatalf("events: %s\nwant:   %s", got, want)
	}
	f := finished(t, es)
	if f.Outcome.Type != agui.OutcomeSuccess || !slices.Equal(f.Outcome.PendingToolCallIDs, []string{"call_c"}) || f.Result != nil {
		t.Fatalf("outcome %+v, result %v: want success with the confirm call pending", f.Outcome, f.Result)
	}

	// The client answers with a tool message; the run goes on from its result.
	es = protocol(events(t, post(t, h, body("t1", "r2", tools, user("u1", "book"), calling("a1", "call_c", "confirm"), toolMsg("t1", "call_c", "yes")))))
	f = finished(t, es)
	if f.Result != "Booked." || f.Outcome.Type != agui.OutcomeSuccess || len(f.Outcome.PendingToolCallIDs) != 0 {
		t.Errorf("second run: %s, result %v outcome %+v", types(es), f.Result, f.Outcome)
	}
	if !slices.Equal(seen, []string{"confirm=yes"}) {
		t.Errorf("the model was sent %v; want the client's result once", seen)
	}
	for _, e := range es {
		if r, ok := e.(agui.ToolCallResult); ok {
			t.Errorf("a result the client gave was written back to it: %+v", r)
		}
	}
}

// supervisor delegates to a specialist whose tool needs approval.
func supervisor(sent *atomic.Int64) *assistant.Assistant[string] {
	inner := llmtest.NewScripted(llmtest.Calls(llmtest.Call("send_mail", `{"to":"bo@example.com"}`)), llmtest.Text("mailed bo"))
	spec := mailer(sent, inner)
	outer := llmtest.NewScripted(
		llmtest.Calls(llms.ToolCall{ID: "call_d", FunctionCall: &llms.FunctionCall{Name: "mailer", Arguments: `{"input":"mail bo"}`}}),
		llmtest.Text("All done."),
	)
	return assistant.New[string]("boss", assistant.WithModel(outer),
		assistant.WithTools(assistant.AsTool[string](spec, assistant.ToolDescription("Sends mails."))))
}

func TestHandlerDelegatedRunSuspendsAndResumes(t *testing.T) {
	var sent atomic.Int64
	h := agui.NewHandler(supervisor(&sent))
	es := protocol(events(t, post(t, h, body("t1", "r1", "", user("u1", "mail bo")))))
	want := "RUN_STARTED TOOL_CALL_START TOOL_CALL_ARGS TOOL_CALL_END SUBAGENT_STARTED TOOL_CALL_START TOOL_CALL_ARGS TOOL_CALL_END SUBAGENT_FINISHED RUN_FINISHED"
	if got := types(es); got != want {
		t.Fatalf("events: %s\nwant:   %s", got, want)
	}
	st := es[4].(agui.SubagentStarted)
	if st.ParentToolCallID != "call_d" || st.Name != "mailer" || st.SubagentRunID == "" {
		t.Errorf("SUBAGENT_STARTED %+v", st)
	}
	inner := es[5].(agui.ToolCallStart)
	if inner.SubagentRunID != st.SubagentRunID || inner.ToolCallName != "send_mail" {
		t.Errorf("the specialist's call %+v; want it attributed to %s", inner, st.SubagentRunID)
	}
	fin := es[8].(agui.SubagentFinished)
	if fin.SubagentRunID != st.SubagentRunID || fin.Outcome == nil || fin.Outcome.Type != agui.SubagentSuspended ||
		!slices.Equal(fin.Outcome.InterruptIDs, []string{inner.ToolCallID}) {
		t.Errorf("SUBAGENT_FINISHED %+v", fin)
	}
	f := finished(t, es)
	if f.Outcome.Type != agui.OutcomeInterrupt || len(f.Outcome.Interrupts) != 1 ||
		f.Outcome.Interrupts[0].ID != inner.ToolCallID || f.Outcome.Interrupts[0].SubagentRunID != st.SubagentRunID {
		t.Fatalf("outcome %+v", f.Outcome)
	}

	// Refused: the specialist is told why, answers, and so does the supervisor.
	resume := `"resume":[{"interruptId":"` + inner.ToolCallID + `","status":"resolved","payload":{"approved":false,"reason":"not today"}}]`
	es = protocol(events(t, post(t, h, body("t1", "r2", resume, user("u1", "mail bo"), calling("a1", "call_d", "mailer")))))
	f = finished(t, es)
	if f.Result != "All done." || sent.Load() != 0 {
		t.Errorf("resumed: %s, result %v, %d sent", types(es), f.Result, sent.Load())
	}
	var denied, subFinished bool
	for _, e := range es {
		switch e := e.(type) {
		case agui.ToolCallResult:
			denied = denied || (e.ToolCallID == inner.ToolCallID && strings.Contains(e.Content.Text, "not today"))
		case agui.SubagentFinished:
			subFinished = e.Outcome != nil && e.Outcome.Type == agui.SubagentSuccess && e.Result == "mailed bo"
		}
	}
	if !denied || !subFinished {
		t.Errorf("resumed events %s: denial written %v, specialist finished with its answer %v", types(es), denied, subFinished)
	}
}

func TestHandlerRefusesResumesItCannotTake(t *testing.T) {
	var sent atomic.Int64
	m := llmtest.NewScripted(llmtest.Calls(llmtest.Call("send_mail", `{"to":"ana@example.com"}`)), llmtest.Text("Done."))
	h := agui.NewHandler(mailer(&sent, m))
	for _, tc := range []struct{ name, body, want string }{
		{"no pause", body("t9", "r1", `"resume":[{"interruptId":"x","status":"resolved"}]`, user("u1", "hi")), "has no run waiting"},
	} {
		resp := post(t, h, tc.body)
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(b), tc.want) {
			t.Errorf("%s: %s %q; want 400 with %q", tc.name, resp.Status, b, tc.want)
		}
	}
	es := protocol(events(t, post(t, h, body("t1", "r1", "", user("u1", "mail ana")))))
	call := finished(t, es).Outcome.Interrupts[0].ID
	history := []string{user("u1", "mail ana"), calling("a1", call, "send_mail")}
	for _, tc := range []struct{ name, body, want string }{
		{"unknown interrupt", body("t1", "r2", `"resume":[{"interruptId":"nope","status":"resolved","payload":{"approved":true}}]`, history...),
			"interrupt \"nope\", which the thread does not wait for (waiting: " + call + ")"},
		{"no decision", body("t1", "r2", `"resume":[{"interruptId":"`+call+`","status":"resolved"}]`, history...), `{"approved": true}`},
		{"nothing answered", body("t1", "r2", "", history...), "resume its interrupts"},
		{"a new turn", body("t1", "r2", "", append(history, user("u2", "and bo"))...), "before a new user message"},
	} {
		resp := post(t, h, tc.body)
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(b), tc.want) {
			t.Errorf("%s: %s %q; want 400 with %q", tc.name, resp.Status, b, tc.want)
		}
	}
	// The pause is still there, for a good resume; a cancelled interrupt refuses the call.
	es = protocol(events(t, post(t, h, body("t1", "r3", `"resume":[{"interruptId":"`+call+`","status":"cancelled"}]`, history...))))
	if f := finished(t, es); f.Result != "Done." || sent.Load() != 0 {
		t.Errorf("cancelled: %s %v, %d sent", types(es), f.Result, sent.Load())
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

// Two models of a tree may give two calls one id: each call's result is written, attributed
// to its run.
func TestHandlerCallsOfOneIDInTwoRuns(t *testing.T) {
	lookup := tool.Func("lookup", "Looks up.", func(context.Context, mail) (string, error) { return "found", nil })
	spec := assistant.New[string]("spec", assistant.WithTools(lookup), assistant.WithModel(llmtest.NewScripted(
		llmtest.Calls(llms.ToolCall{ID: "call_1", FunctionCall: &llms.FunctionCall{Name: "lookup", Arguments: `{"to":"x"}`}}),
		llmtest.Text("spec done"))))
	boss := assistant.New[string]("boss", assistant.WithTools(assistant.AsTool[string](spec)), assistant.WithModel(llmtest.NewScripted(
		llmtest.Calls(llms.ToolCall{ID: "call_1", FunctionCall: &llms.FunctionCall{Name: "spec", Arguments: `{"input":"go"}`}}),
		llmtest.Text("boss done"))))
	es := protocol(events(t, post(t, agui.NewHandler(boss), hello)))
	var got []string
	for _, e := range es {
		if r, ok := e.(agui.ToolCallResult); ok {
			got = append(got, r.SubagentRunID+"|"+r.Content.Text)
		}
	}
	if len(got) != 2 || !strings.HasSuffix(got[0], "|found") || strings.HasPrefix(got[0], "|") || got[1] != "|spec done" {
		t.Errorf("results %q; want the specialist's, then the supervisor's", got)
	}
}
