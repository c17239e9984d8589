package interop

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/cadrehq/cadre/pkg/agui"
	"github.com/cadrehq/cadre/pkg/assistant"
	"github.com/cadrehq/cadre/pkg/llmtest"
	"github.com/cadrehq/cadre/pkg/tool"
	"github.com/tmc/langchaingo/llms"
)

// clientRun is one agent.runAgent of agui_client.mjs, prepared as its fields say (see the
// script's comment).
type clientRun struct {
	User    string         `json:"user,omitempty"`
	Answer  string         `json:"answer,omitempty"`
	Resume  map[string]any `json:"resume,omitempty"`
	Tools   []agui.Tool    `json:"tools,omitempty"`
	AbortOn agui.EventType `json:"abortOn,omitempty"`
}

// clientSaw is what HttpAgent made of one run.
type clientSaw struct {
	Raw     []json.RawMessage `json:"events"`
	Events  []agui.Event      `json:"-"` // Raw, parsed
	Invalid []struct {
		Type  string `json:"type"`
		Error string `json:"error"`
	} `json:"invalid"`
	Result             json.RawMessage  `json:"result"`
	NewMessages        []agui.Message   `json:"newMessages"`
	PendingToolCallIDs []string         `json:"pendingToolCallIds"`
	PendingInterrupts  []agui.Interrupt `json:"pendingInterrupts"`
	Error              string           `json:"error"`
	Warnings           []string         `json:"warnings"`
}

// clientReport is what agui_client.mjs writes.
type clientReport struct {
	Runs     []clientSaw    `json:"runs"`
	Messages []agui.Message `json:"messages"` // agent.messages after the last run
	Warnings []string       `json:"warnings"`
}

// httpAgent serves h on 127.0.0.1 and has @ag-ui/client's HttpAgent run the runs against it,
// on one thread. It fails the test when an event on the wire does not validate against
// @ag-ui/core's EventSchema, when runAgent threw (HttpAgent throws on an event out of order),
// and when the client warned (it warns of a field it strips, of an event it drops).
func httpAgent(t *testing.T, h http.Handler, runs ...clientRun) clientReport {
	t.Helper()
	requireNodePackages(t, "@ag-ui/core", "@ag-ui/client")
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	in, err := json.Marshal(map[string]any{"url": srv.URL, "threadId": "thread-1", "runs": runs})
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(testContext(t), "node", "agui_client.mjs")
	cmd.Stdin = bytes.NewReader(in)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("node agui_client.mjs: %v\nstderr:\n%s", err, stderr.String())
	}
	var rep clientReport
	if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
		t.Fatalf("agui_client.mjs wrote %q: %v\nstderr:\n%s", stdout.String(), err, stderr.String())
	}
	if len(rep.Runs) != len(runs) {
		t.Fatalf("agui_client.mjs reported %d runs of %d", len(rep.Runs), len(runs))
	}
	for _, w := range rep.Warnings {
		t.Errorf("HttpAgent warned: %s", w)
	}
	for i := range rep.Runs {
		r := &rep.Runs[i]
		for _, raw := range r.Raw {
			e, err := agui.ParseEvent(raw)
			if err != nil {
				t.Fatalf("run %d: the client saw %s: %v", i, raw, err)
			}
			r.Events = append(r.Events, e)
		}
		for _, v := range r.Invalid {
			t.Errorf("run %d: @ag-ui/core's EventSchema refuses cadre's %s:\n%s", i, v.Type, v.Error)
		}
		if r.Error != "" {
			t.Errorf("run %d: runAgent threw: %s\nevents: %s", i, r.Error, kinds(r.Events))
		}
		for _, w := range r.Warnings {
			t.Errorf("run %d: HttpAgent warned: %s", i, w)
		}
	}
	return rep
}

// kinds is the types of es but CUSTOM, space-separated.
func kinds(es []agui.Event) string {
	var s []string
	for _, e := range es {
		if e.Type() != agui.TypeCustom {
			s = append(s, string(e.Type()))
		}
	}
	return strings.Join(s, " ")
}

// of returns the events of es of type E.
func of[E agui.Event](es []agui.Event) []E {
	var out []E
	for _, e := range es {
		if e, ok := e.(E); ok {
			out = append(out, e)
		}
	}
	return out
}

// finished is the run's RUN_FINISHED, failing the test when it has none.
func finished(t *testing.T, r clientSaw) agui.RunFinished {
	t.Helper()
	f := of[agui.RunFinished](r.Events)
	if len(f) != 1 || f[0].Outcome == nil {
		t.Fatalf("the client saw no RUN_FINISHED with an outcome: %s", kinds(r.Events))
	}
	return f[0]
}

// roles is the role of each message, with its text or the names of its calls, one a line.
func roles(ms []agui.Message) string {
	var b strings.Builder
	for _, m := range ms {
		b.WriteString(string(m.Role))
		if m.SubagentRunID != "" {
			b.WriteString(" (sub-agent)")
		}
		if m.Content.Text != "" {
			b.WriteString(" " + m.Content.Text)
		}
		for _, c := range m.ToolCalls {
			b.WriteString(" call:" + c.Function.Name)
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// call is a call of the function name with the arguments args and the ID id: llmtest numbers
// the calls of each model from call_1, and a run tree of two models needs IDs unique in it,
// as a provider's are.
func call(id, name, args string) llms.ToolCall {
	c := llmtest.Call(name, args)
	c.ID = id
	return c
}

// turns is a model answering its n-th request with turns[n]; a request beyond them fails.
func turns(t *testing.T, ts ...func(ctx context.Context, req llmtest.Request) llmtest.Reply) *llmtest.FuncModel {
	var mu sync.Mutex
	n := 0
	return llmtest.NewFunc(func(ctx context.Context, req llmtest.Request) llmtest.Reply {
		mu.Lock()
		i := n
		n++
		mu.Unlock()
		if i >= len(ts) {
			t.Errorf("model request %d: the script has %d", i+1, len(ts))
			return llmtest.Fail(errors.New("no more turns"))
		}
		return ts[i](ctx, req)
	})
}

// reply is a turn answering r.
func reply(r llmtest.Reply) func(context.Context, llmtest.Request) llmtest.Reply {
	return func(context.Context, llmtest.Request) llmtest.Reply { return r }
}

// streamed is a turn that streams pieces, as a provider streams text, and answers with them
// joined.
func streamed(pieces ...string) func(context.Context, llmtest.Request) llmtest.Reply {
	return func(ctx context.Context, req llmtest.Request) llmtest.Reply {
		if req.Options.StreamingFunc == nil {
			return llmtest.Fail(errors.New("the request streams nothing"))
		}
		for _, p := range pieces {
			if err := req.Options.StreamingFunc(ctx, []byte(p)); err != nil {
				return llmtest.Fail(err)
			}
		}
		return llmtest.Text(strings.Join(pieces, ""))
	}
}

func TestAGUIClientStreamedText(t *testing.T) {
	m := turns(t, streamed("Hello", ", ", "world."))
	a := assistant.New[string]("greeter", assistant.WithModel(m))
	rep := httpAgent(t, agui.NewHandler(a), clientRun{User: "Hi"})

	r := rep.Runs[0]
	want := "RUN_STARTED TEXT_MESSAGE_START TEXT_MESSAGE_CONTENT TEXT_MESSAGE_CONTENT TEXT_MESSAGE_CONTENT TEXT_MESSAGE_END RUN_FINISHED"
	if got := kinds(r.Events); got != want {
		t.Fatalf("events: %s\nwant:   %s", got, want)
	}
	if f := finished(t, r); f.Outcome.Type != agui.OutcomeSuccess || f.Result != "Hello, world." {
		t.Errorf("RUN_FINISHED: outcome %+v, result %v", f.Outcome, f.Result)
	}
	if string(r.Result) != `"Hello, world."` {
		t.Errorf("runAgent's result: %s", r.Result)
	}
	if got, want := roles(rep.Messages), "user Hi\nassistant Hello, world.\n"; got != want {
		t.Errorf("agent.messages:\n%swant:\n%s", got, want)
	}
	if len(r.NewMessages) != 1 || r.NewMessages[0].ID != of[agui.TextMessageStart](r.Events)[0].MessageID {
		t.Errorf("runAgent's newMessages: %+v", r.NewMessages)
	}
}

type city struct {
	City string `json:"city"`
}

func TestAGUIClientParallelToolCalls(t *testing.T) {
	forecast := tool.Func("forecast", "The weather of a city.", func(_ context.Context, in city) (string, error) {
		return "sunny in " + in.City, nil
	})
	clock := tool.Func("clock", "The time in a city.", func(_ context.Context, in city) (string, error) {
		return "noon in " + in.City, nil
	})
	m := turns(t,
		reply(llmtest.Calls(llmtest.Call("forecast", `{"city":"Oslo"}`), llmtest.Call("clock", `{"city":"Rome"}`))),
		streamed("Sunny in Oslo, ", "noon in Rome."),
	)
	a := assistant.New[string]("guide", assistant.WithModel(m), assistant.WithTools(forecast, clock))
	rep := httpAgent(t, agui.NewHandler(a), clientRun{User: "Weather in Oslo, time in Rome?"})

	r := rep.Runs[0]
	if f := finished(t, r); f.Outcome.Type != agui.OutcomeSuccess || f.Result != "Sunny in Oslo, noon in Rome." {
		t.Errorf("RUN_FINISHED: outcome %+v, result %v", f.Outcome, f.Result)
	}
	starts := of[agui.ToolCallStart](r.Events)
	results := map[string]string{}
	var toolMessages string // in the order the calls returned
	for _, res := range of[agui.ToolCallResult](r.Events) {
		results[res.ToolCallID] = res.Content.Text
		toolMessages += "tool " + res.Content.Text + "\n"
	}
	want := map[string]string{"forecast": "sunny in Oslo", "clock": "noon in Rome"}
	if len(starts) != 2 || len(results) != 2 {
		t.Fatalf("events: %s", kinds(r.Events))
	}
	for _, s := range starts {
		if results[s.ToolCallID] != want[s.ToolCallName] {
			t.Errorf("call %s (%s): result %q, want %q", s.ToolCallID, s.ToolCallName, results[s.ToolCallID], want[s.ToolCallName])
		}
	}
	if got, want := roles(rep.Messages), "user Weather in Oslo, time in Rome?\nassistant call:forecast call:clock\n"+toolMessages+"assistant Sunny in Oslo, noon in Rome.\n"; got != want {
		t.Errorf("agent.messages:\n%swant:\n%s", got, want)
	}
	for _, msg := range rep.Messages {
		if msg.Role == agui.RoleTool && !slices.ContainsFunc(starts, func(s agui.ToolCallStart) bool { return s.ToolCallID == msg.ToolCallID }) {
			t.Errorf("tool message %s answers %q, no call of the run", msg.ID, msg.ToolCallID)
		}
	}
}

func TestAGUIClientDelegatedRun(t *testing.T) {
	researcher := assistant.New[string]("researcher", assistant.WithModel(turns(t, streamed("Oslo has ", "700,000 people."))),
		assistant.WithDescription("Looks things up."))
	m := turns(t,
		reply(llmtest.Calls(call("call_researcher", "researcher", `{"input":"How many people live in Oslo?"}`))),
		reply(llmtest.Text("About 700,000.")),
	)
	a := assistant.New[string]("supervisor", assistant.WithModel(m), assistant.WithTools(assistant.AsTool[string](researcher)))
	rep := httpAgent(t, agui.NewHandler(a), clientRun{User: "How big is Oslo?"})

	r := rep.Runs[0]
	want := "RUN_STARTED TOOL_CALL_START TOOL_CALL_ARGS TOOL_CALL_END SUBAGENT_STARTED TEXT_MESSAGE_START TEXT_MESSAGE_CONTENT TEXT_MESSAGE_CONTENT TEXT_MESSAGE_END SUBAGENT_FINISHED TOOL_CALL_RESULT TEXT_MESSAGE_START TEXT_MESSAGE_CONTENT TEXT_MESSAGE_END RUN_FINISHED"
	if got := kinds(r.Events); got != want {
		t.Fatalf("events: %s\nwant:   %s", got, want)
	}
	delegating := of[agui.ToolCallStart](r.Events)[0]
	started := of[agui.SubagentStarted](r.Events)[0]
	if delegating.ToolCallName != "researcher" || delegating.SubagentRunID != "" ||
		started.ParentToolCallID != delegating.ToolCallID || started.Name != "researcher" || started.SubagentRunID == "" {
		t.Errorf("the delegating call %+v, SUBAGENT_STARTED %+v", delegating, started)
	}
	sub := started.SubagentRunID
	for _, e := range of[agui.TextMessageContent](r.Events) {
		if (e.Delta == "About 700,000.") == (e.SubagentRunID == sub) {
			t.Errorf("TEXT_MESSAGE_CONTENT %q has subagentRunId %q", e.Delta, e.SubagentRunID)
		}
	}
	done := of[agui.SubagentFinished](r.Events)[0]
	if done.SubagentRunID != sub || done.Outcome == nil || done.Outcome.Type != agui.SubagentSuccess || done.Result != "Oslo has 700,000 people." {
		t.Errorf("SUBAGENT_FINISHED %+v (outcome %+v)", done, done.Outcome)
	}
	if res := of[agui.ToolCallResult](r.Events)[0]; res.ToolCallID != delegating.ToolCallID || res.SubagentRunID != "" || res.Content.Text != "Oslo has 700,000 people." {
		t.Errorf("the delegating call's result %+v", res)
	}
	if got, want := roles(rep.Messages), "user How big is Oslo?\nassistant call:researcher\ntool Oslo has 700,000 people.\nassistant (sub-agent) Oslo has 700,000 people.\nassistant About 700,000.\n"; got != want {
		t.Errorf("agent.messages:\n%swant:\n%s", got, want)
	}
}

func TestAGUIClientFrontendTool(t *testing.T) {
	confirm := agui.Tool{Name: "confirm", Description: "Asks the user to confirm.",
		Parameters: json.RawMessage(`{"type":"object","properties":{"question":{"type":"string"}},"required":["question"]}`)}
	var callID string
	m := turns(t,
		func(_ context.Context, req llmtest.Request) llmtest.Reply {
			if !slices.ContainsFunc(req.Options.Tools, func(tl llms.Tool) bool { return tl.Function != nil && tl.Function.Name == "confirm" }) {
				t.Errorf("the client's tool confirm is not offered: %+v", req.Options.Tools)
			}
			return llmtest.Calls(llmtest.Call("confirm", `{"question":"Book the 9:40 train?"}`))
		},
		func(_ context.Context, req llmtest.Request) llmtest.Reply {
			last := req.Messages[len(req.Messages)-1]
			var res llms.ToolCallResponse
			if len(last.Parts) == 1 {
				res, _ = last.Parts[0].(llms.ToolCallResponse)
			}
			if last.Role != llms.ChatMessageTypeTool || res.Content != "Yes, book it." || res.Name != "confirm" {
				t.Errorf("the model got, last, %#v; want the client's answer to confirm", last)
			}
			callID = res.ToolCallID
			return llmtest.Text("Booked.")
		},
	)
	a := assistant.New[string]("booker", assistant.WithModel(m))
	tools := []agui.Tool{confirm}
	rep := httpAgent(t, agui.NewHandler(a),
		clientRun{User: "Book my train.", Tools: tools},
		clientRun{Answer: "Yes, book it.", Tools: tools},
	)

	first, second := rep.Runs[0], rep.Runs[1]
	f := finished(t, first)
	asked := of[agui.ToolCallStart](first.Events)
	if len(asked) != 1 || asked[0].ToolCallName != "confirm" {
		t.Fatalf("first run: %s", kinds(first.Events))
	}
	if f.Outcome.Type != agui.OutcomeSuccess || !slices.Equal(f.Outcome.PendingToolCallIDs, []string{asked[0].ToolCallID}) ||
		!slices.Equal(first.PendingToolCallIDs, f.Outcome.PendingToolCallIDs) {
		t.Errorf("first run's outcome %+v; the client's pending calls %v", f.Outcome, first.PendingToolCallIDs)
	}
	if len(of[agui.ToolCallResult](first.Events)) != 0 {
		t.Errorf("first run: a result for the client's own call: %s", kinds(first.Events))
	}
	if callID != asked[0].ToolCallID {
		t.Errorf("the model got the answer of call %q, want %q", callID, asked[0].ToolCallID)
	}
	if f := finished(t, second); f.Outcome.Type != agui.OutcomeSuccess || f.Result != "Booked." || len(f.Outcome.PendingToolCallIDs) != 0 {
		t.Errorf("second run: %s; outcome %+v, result %v", kinds(second.Events), f.Outcome, f.Result)
	}
	if got, want := roles(rep.Messages), "user Book my train.\nassistant call:confirm\ntool Yes, book it.\nassistant Booked.\n"; got != want {
		t.Errorf("agent.messages:\n%swant:\n%s", got, want)
	}
}

// approveAll answers every interrupt of the previous run with an approval.
var approveAll = map[string]any{"status": "resolved", "payload": map[string]any{"approved": true}}

// mailTool sends a mail, counting the mails sent; every call of it waits for a person.
func mailTool(sent *atomic.Int64) []assistant.Option {
	send := tool.Func("send_mail", "Sends a mail.", func(_ context.Context, in struct {
		To string `json:"to"`
	}) (string, error) {
		sent.Add(1)
		return "sent to " + in.To, nil
	})
	ask := assistant.ApproverFunc(func(context.Context, assistant.ToolCall) (assistant.Decision, error) {
		return assistant.Pending(), nil
	})
	return []assistant.Option{assistant.WithTools(send), assistant.WithApproval(ask, "send_mail")}
}

func TestAGUIClientApprovalInterrupt(t *testing.T) {
	var sent atomic.Int64
	m := turns(t,
		reply(llmtest.Calls(llmtest.Call("send_mail", `{"to":"ana@example.com"}`))),
		streamed("Mail ", "sent."),
	)
	a := assistant.New[string]("mailer", append(mailTool(&sent), assistant.WithModel(m))...)
	rep := httpAgent(t, agui.NewHandler(a),
		clientRun{User: "Mail Ana."},
		clientRun{Resume: approveAll},
	)

	first, second := rep.Runs[0], rep.Runs[1]
	f := finished(t, first)
	asked := of[agui.ToolCallStart](first.Events)
	if len(asked) != 1 || f.Outcome.Type != agui.OutcomeInterrupt || len(f.Outcome.Interrupts) != 1 {
		t.Fatalf("first run: %s; outcome %+v", kinds(first.Events), f.Outcome)
	}
	in := first.PendingInterrupts
	if len(in) != 1 || in[0].ToolCallID != asked[0].ToolCallID || in[0].ID == "" || in[0].Reason != agui.ReasonApproval || in[0].ResponseSchema == nil {
		t.Errorf("agent.pendingInterrupts after the first run: %+v", in)
	}

	if got, want := kinds(second.Events), "RUN_STARTED TOOL_CALL_RESULT TEXT_MESSAGE_START TEXT_MESSAGE_CONTENT TEXT_MESSAGE_CONTENT TEXT_MESSAGE_END RUN_FINISHED"; got != want {
		t.Fatalf("resumed: %s\nwant:    %s", got, want)
	}
	if res := of[agui.ToolCallResult](second.Events)[0]; res.ToolCallID != asked[0].ToolCallID || res.Content.Text != "sent to ana@example.com" {
		t.Errorf("result %+v", res)
	}
	if f := finished(t, second); f.Outcome.Type != agui.OutcomeSuccess || f.Result != "Mail sent." {
		t.Errorf("resumed: outcome %+v, result %v", f.Outcome, f.Result)
	}
	if len(second.PendingInterrupts) != 0 {
		t.Errorf("agent.pendingInterrupts after the resume: %+v", second.PendingInterrupts)
	}
	if n := sent.Load(); n != 1 {
		t.Errorf("the mail was sent %d times, want once", n)
	}
	if got, want := roles(rep.Messages), "user Mail Ana.\nassistant call:send_mail\ntool sent to ana@example.com\nassistant Mail sent.\n"; got != want {
		t.Errorf("agent.messages:\n%swant:\n%s", got, want)
	}
}

func TestAGUIClientDelegatedApproval(t *testing.T) {
	var sent atomic.Int64
	mailer := assistant.New[string]("mailer", append(mailTool(&sent), assistant.WithModel(turns(t,
		reply(llmtest.Calls(call("call_send", "send_mail", `{"to":"ana@example.com"}`))),
		reply(llmtest.Text("Sent to Ana.")),
	)))...)
	m := turns(t,
		reply(llmtest.Calls(call("call_mailer", "mailer", `{"input":"Mail Ana."}`))),
		reply(llmtest.Text("Ana has her mail.")),
	)
	a := assistant.New[string]("supervisor", assistant.WithModel(m), assistant.WithTools(assistant.AsTool[string](mailer)))
	rep := httpAgent(t, agui.NewHandler(a),
		clientRun{User: "Tell Ana."},
		clientRun{Resume: approveAll},
	)

	first, second := rep.Runs[0], rep.Runs[1]
	want := "RUN_STARTED TOOL_CALL_START TOOL_CALL_ARGS TOOL_CALL_END SUBAGENT_STARTED TOOL_CALL_START TOOL_CALL_ARGS TOOL_CALL_END SUBAGENT_FINISHED RUN_FINISHED"
	if got := kinds(first.Events); got != want {
		t.Fatalf("first run: %s\nwant:      %s", got, want)
	}
	calls := of[agui.ToolCallStart](first.Events)
	delegating, send := calls[0], calls[1]
	started := of[agui.SubagentStarted](first.Events)[0]
	sub := started.SubagentRunID
	if started.ParentToolCallID != delegating.ToolCallID || send.SubagentRunID != sub || send.ToolCallName != "send_mail" {
		t.Errorf("SUBAGENT_STARTED %+v; the specialist's call %+v", started, send)
	}
	suspended := of[agui.SubagentFinished](first.Events)[0]
	if suspended.SubagentRunID != sub || suspended.Outcome == nil || suspended.Outcome.Type != agui.SubagentSuspended ||
		!slices.Equal(suspended.Outcome.InterruptIDs, []string{send.ToolCallID}) {
		t.Errorf("SUBAGENT_FINISHED %+v (outcome %+v); want suspended on %s", suspended, suspended.Outcome, send.ToolCallID)
	}
	f := finished(t, first)
	if f.Outcome.Type != agui.OutcomeInterrupt || len(f.Outcome.Interrupts) != 1 ||
		f.Outcome.Interrupts[0].ToolCallID != send.ToolCallID || f.Outcome.Interrupts[0].SubagentRunID != sub {
		t.Errorf("first run's outcome %+v", f.Outcome)
	}
	if len(first.PendingInterrupts) != 1 || first.PendingInterrupts[0].ID != f.Outcome.Interrupts[0].ID {
		t.Errorf("agent.pendingInterrupts: %+v", first.PendingInterrupts)
	}

	want = "RUN_STARTED SUBAGENT_STARTED TOOL_CALL_RESULT TEXT_MESSAGE_START TEXT_MESSAGE_CONTENT TEXT_MESSAGE_END SUBAGENT_FINISHED TOOL_CALL_RESULT TEXT_MESSAGE_START TEXT_MESSAGE_CONTENT TEXT_MESSAGE_END RUN_FINISHED"
	if got := kinds(second.Events); got != want {
		t.Fatalf("resumed: %s\nwant:    %s", got, want)
	}
	resumed := of[agui.SubagentStarted](second.Events)[0]
	done := of[agui.SubagentFinished](second.Events)[0]
	if resumed.ParentToolCallID != delegating.ToolCallID || done.SubagentRunID != resumed.SubagentRunID ||
		done.Outcome == nil || done.Outcome.Type != agui.SubagentSuccess || done.Result != "Sent to Ana." {
		t.Errorf("resumed: SUBAGENT_STARTED %+v, SUBAGENT_FINISHED %+v (outcome %+v)", resumed, done, done.Outcome)
	}
	results := map[string]agui.ToolCallResult{}
	for _, res := range of[agui.ToolCallResult](second.Events) {
		results[res.ToolCallID] = res
	}
	if res := results[send.ToolCallID]; res.Content.Text != "sent to ana@example.com" {
		t.Errorf("resumed: the specialist's call's result %+v; events %s", res, kinds(second.Events))
	}
	if res := results[delegating.ToolCallID]; res.Content.Text != "Sent to Ana." || res.SubagentRunID != "" {
		t.Errorf("resumed: the delegating call's result %+v; events %s", res, kinds(second.Events))
	}
	if f := finished(t, second); f.Outcome.Type != agui.OutcomeSuccess || f.Result != "Ana has her mail." {
		t.Errorf("resumed: %s; outcome %+v, result %v", kinds(second.Events), f.Outcome, f.Result)
	}
	if n := sent.Load(); n != 1 {
		t.Errorf("the mail was sent %d times, want once", n)
	}
	want = "user Tell Ana.\nassistant call:mailer\ntool Sent to Ana.\nassistant (sub-agent) call:send_mail\ntool (sub-agent) sent to ana@example.com\nassistant (sub-agent) Sent to Ana.\nassistant Ana has her mail.\n"
	if got := roles(rep.Messages); got != want {
		t.Errorf("agent.messages:\n%swant:\n%s", got, want)
	}
}

func TestAGUIClientModelFails(t *testing.T) {
	m := turns(t, reply(llmtest.Fail(errors.New("model unavailable"))))
	a := assistant.New[string]("greeter", assistant.WithModel(m))
	rep := httpAgent(t, agui.NewHandler(a), clientRun{User: "Hi"})

	// HttpAgent 1.0.0 does not throw on RUN_ERROR: runAgent resolves without a result, and
	// the application learns of the failure from the event (onRunErrorEvent).
	r := rep.Runs[0]
	if got := kinds(r.Events); got != "RUN_STARTED RUN_ERROR" {
		t.Fatalf("events: %s", got)
	}
	if msg := of[agui.RunError](r.Events)[0].Message; !strings.Contains(msg, "model unavailable") {
		t.Errorf("RUN_ERROR message %q", msg)
	}
	if len(r.Result) > 0 || len(r.NewMessages) != 0 {
		t.Errorf("runAgent: result %s, new messages %+v", r.Result, r.NewMessages)
	}
}

// The client aborts the run while a tool blocks: two calls run together, and the result of
// the one that returns once the other started is the client's cue.
func TestAGUIClientCancel(t *testing.T) {
	started, ended := make(chan struct{}), make(chan error, 1)
	wait := tool.Func("wait", "Waits until it is cancelled.", func(ctx context.Context, _ struct{}) (string, error) {
		close(started)
		<-ctx.Done()
		ended <- ctx.Err()
		return "", ctx.Err()
	})
	cue := tool.Func("cue", "Returns once wait runs.", func(ctx context.Context, _ struct{}) (string, error) {
		select {
		case <-started:
			return "wait runs", nil
		case <-ctx.Done():
			return "", ctx.Err()
		}
	})
	m := turns(t, reply(llmtest.Calls(llmtest.Call("wait", `{}`), llmtest.Call("cue", `{}`))))
	a := assistant.New[string]("waiter", assistant.WithModel(m), assistant.WithTools(wait, cue))
	rep := httpAgent(t, agui.NewHandler(a), clientRun{User: "Wait.", AbortOn: agui.TypeToolCallResult})

	select {
	case err := <-ended:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("the tool's context ended with %v", err)
		}
	case <-testContext(t).Done():
		t.Fatal("the tool's context was not cancelled")
	}
	// The stream ends where the client stopped reading: HttpAgent ends an aborted run with a
	// RUN_ERROR of its own, code "abort", and runAgent resolves.
	r := rep.Runs[0]
	want := "RUN_STARTED TOOL_CALL_START TOOL_CALL_ARGS TOOL_CALL_END TOOL_CALL_START TOOL_CALL_ARGS TOOL_CALL_END TOOL_CALL_RESULT RUN_ERROR"
	if got := kinds(r.Events); got != want {
		t.Errorf("events: %s\nwant:   %s", got, want)
	}
	if e := of[agui.RunError](r.Events); len(e) != 1 || e[0].Code != "abort" {
		t.Errorf("RUN_ERROR %+v", e)
	}
}
