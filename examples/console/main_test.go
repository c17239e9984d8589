package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/cadrehq/cadre/pkg/agui"
	"github.com/google/go-cmp/cmp"
)

// The program serves the console until its context ends: the page, the three assistants and
// the client tool, a chat with the planner through its question, its approval and its answer,
// the chat listed, and the eval report.
func TestConsole(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	base, done := start(ctx, t, settings{addr: "127.0.0.1:0", fast: true})

	status, header, body := get(t, base)
	if status != http.StatusOK || !strings.HasPrefix(header.Get("Content-Type"), "text/html") || !strings.Contains(body, "static/console.js") {
		t.Errorf("the page: %d %s %q", status, header.Get("Content-Type"), body)
	}

	_, _, body = get(t, base+"api/assistants")
	var list struct {
		Assistants []struct {
			Name        string `json:"name"`
			Description string `json:"description"`
		} `json:"assistants"`
		ClientTools    []agui.Tool `json:"clientTools"`
		Chats, Reports bool
	}
	if err := json.Unmarshal([]byte(body), &list); err != nil {
		t.Fatalf("api/assistants: %v: %s", err, body)
	}
	var names []string
	for _, a := range list.Assistants {
		names = append(names, a.Name)
	}
	if diff := cmp.Diff([]string{"planner", "weather", "hotels"}, names); diff != "" || len(list.ClientTools) != 1 ||
		list.ClientTools[0].Name != "ask_user" || !list.Chats || !list.Reports {
		t.Errorf("api/assistants: %s (names -want +got:\n%s)", body, diff)
	}

	c := &client{url: base + "api/run/planner", thread: "planner~test", tools: list.ClientTools}
	c.messages = append(c.messages, agui.Message{ID: "user-1", Role: agui.RoleUser, Content: agui.Content{Text: "Plan me a weekend away."}})

	// The message names no city: the planner asks the person with ask_user, and the run ends
	// waiting for the answer.
	finished, _ := c.run(ctx, t, nil)
	if finished.Outcome == nil || len(finished.Outcome.PendingToolCallIDs) != 1 {
		t.Fatalf("the first run did not wait for ask_user: %+v", finished)
	}
	question := c.call(finished.Outcome.PendingToolCallIDs[0])
	if question == nil || question.Function.Name != "ask_user" || !strings.Contains(question.Function.Arguments, "Which city") {
		t.Fatalf("the pending call: %+v", question)
	}

	// Answered, the run goes on: both specialists, the weather one after a fallback, and the
	// hotels one waiting for the booking's approval.
	c.messages = append(c.messages, agui.Message{ID: "answer-1", Role: agui.RoleTool, ToolCallID: question.ID, Content: agui.Content{Text: "Lisbon, 3 nights"}})
	finished, events := c.run(ctx, t, nil)
	if finished.Outcome == nil || finished.Outcome.Type != agui.OutcomeInterrupt || len(finished.Outcome.Interrupts) != 1 {
		t.Fatalf("the second run did not end with an interrupt: %+v", finished)
	}
	in := finished.Outcome.Interrupts[0]
	wantArgs := map[string]any{"hotel": "Lisbon Grand Hotel", "city": "Lisbon", "nights": 3.0}
	if in.Metadata["tool"] != "book_hotel" || in.SubagentRunID == "" || !cmp.Equal(in.Metadata["arguments"], wantArgs) {
		t.Errorf("the interrupt: %+v", in)
	}
	subagents := map[string]bool{}
	for _, e := range events {
		if s, ok := e.(agui.SubagentStarted); ok {
			subagents[s.Name] = true
		}
	}
	if !subagents["weather"] || !subagents["hotels"] {
		t.Errorf("sub-agents started: %v", subagents)
	}
	if n := count(events, custom(agui.CustomFallback)); n != 1 {
		t.Errorf("%d fallbacks, want the weather specialist's one", n)
	}
	priced := count(events, func(e agui.Event) bool {
		if !custom(agui.CustomUsage)(e) {
			return false
		}
		v, _ := e.(agui.Custom).Value.(map[string]any)
		tokens, _ := v["inputTokens"].(float64)
		return v["cost"] != nil && tokens > 0
	})
	if priced == 0 {
		t.Error("no cadre.usage event with tokens and a cost")
	}

	// Approved, the booking is made and the planner answers, its text streamed in pieces.
	approve := agui.ResumeEntry{InterruptID: in.ID, Status: agui.ResumeResolved, Payload: json.RawMessage(`{"approved":true}`)}
	finished, events = c.run(ctx, t, []agui.ResumeEntry{approve})
	answer, _ := finished.Result.(string)
	if finished.Outcome != nil && (finished.Outcome.Type != agui.OutcomeSuccess || len(finished.Outcome.PendingToolCallIDs) != 0) ||
		!strings.HasPrefix(answer, "Your trip to Lisbon, 3 nights. The weather: In Lisbon expect sunny") ||
		!strings.Contains(answer, "Booked Lisbon Grand Hotel in Lisbon for 3 nights, reference HT-") {
		t.Errorf("the last run: %+v", finished)
	}
	if n := count(events, func(e agui.Event) bool {
		tc, ok := e.(agui.TextMessageContent)
		return ok && tc.SubagentRunID == ""
	}); n < 2 {
		t.Errorf("the answer came in %d pieces, want a few", n)
	}

	_, _, body = get(t, base+"api/chats?assistant=planner")
	if !strings.Contains(body, `"threadId":"planner~test"`) || !strings.Contains(body, `"title":"Plan me a weekend away."`) {
		t.Errorf("api/chats: %s", body)
	}
	_, _, body = get(t, base+"api/reports")
	if !strings.Contains(body, `"name":"weather.html"`) {
		t.Errorf("api/reports: %s", body)
	}
	status, header, body = get(t, base+"reports/weather.html")
	if status != http.StatusOK || !strings.HasPrefix(header.Get("Content-Security-Policy"), "sandbox") || !strings.Contains(body, "weather forecasts") {
		t.Errorf("the report: %d %v", status, header)
	}

	cancel()
	if err := <-done; err != nil {
		t.Errorf("run: %v", err)
	}
}

// With -otel, the planner's runs and the specialists' it delegates to are spans in the traces
// writer once the program ends.
func TestConsoleOtel(t *testing.T) {
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "") // the spans to the writer, not to a collector
	t.Setenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var traces bytes.Buffer
	base, done := start(ctx, t, settings{addr: "127.0.0.1:0", fast: true, traces: &traces})
	c := &client{url: base + "api/run/planner", thread: "planner~traced"}
	c.messages = append(c.messages, agui.Message{ID: "user-1", Role: agui.RoleUser, Content: agui.Content{Text: "Two nights in Kyoto"}})
	if finished, _ := c.run(ctx, t, nil); finished.Outcome == nil || finished.Outcome.Type != agui.OutcomeInterrupt {
		t.Fatalf("the run did not wait for the booking's approval: %+v", finished)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("run: %v", err)
	}
	for _, name := range []string{"invoke_agent planner", "invoke_agent weather", "invoke_agent hotels", "execute_tool forecast"} {
		if !strings.Contains(traces.String(), `"Name": "`+name+`"`) {
			t.Errorf("no span %q in the traces", name)
		}
	}
}

// start runs the program with s and returns the console's address once it printed it, and
// the channel of run's result.
func start(ctx context.Context, t *testing.T, s settings) (string, <-chan error) {
	t.Helper()
	r, w := io.Pipe()
	done := make(chan error, 1)
	go func() {
		err := run(ctx, w, io.Discard, s)
		w.Close()
		done <- err
	}()
	lines := bufio.NewScanner(r)
	base := ""
	for base == "" && lines.Scan() {
		if u, ok := strings.CutPrefix(lines.Text(), "console: http://"); ok {
			base = "http://" + u
		}
	}
	if base == "" {
		t.Fatalf("no address printed; run: %v", <-done)
	}
	go func() { _, _ = io.Copy(io.Discard, r) }() // what else it prints
	return base, done
}

func get(t *testing.T, url string) (int, http.Header, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, resp.Header, string(b)
}

// client keeps a thread's conversation as the console's page does, and sends it whole, with
// the client tools, on every run.
type client struct {
	url, thread string
	tools       []agui.Tool
	messages    []agui.Message
	runs        int
}

// run makes one request and reads its events to the end, adding the top run's messages to
// the conversation: text and the tool calls of one request as one assistant message, each
// result as a tool message. It returns RUN_FINISHED and every event.
func (c *client) run(ctx context.Context, t *testing.T, resume []agui.ResumeEntry) (agui.RunFinished, []agui.Event) {
	t.Helper()
	c.runs++
	body, err := json.Marshal(agui.RunAgentInput{ThreadID: c.thread, RunID: fmt.Sprint("run-", c.runs),
		Messages: c.messages, Tools: c.tools, Resume: resume})
	if err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		msg, _ := io.ReadAll(resp.Body)
		t.Fatalf("run %d: %s: %s", c.runs, resp.Status, msg)
	}
	var events []agui.Event
	var finished *agui.RunFinished
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		e, err := agui.ParseEvent([]byte(data))
		if err != nil {
			t.Fatalf("run %d: %v: %s", c.runs, err, data)
		}
		events = append(events, e)
		c.keep(e)
		switch e := e.(type) {
		case agui.RunFinished:
			finished = &e
		case agui.RunError:
			t.Fatalf("run %d: RUN_ERROR %s", c.runs, e.Message)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if finished == nil {
		t.Fatalf("run %d: the stream ended before RUN_FINISHED", c.runs)
	}
	return *finished, events
}

// keep adds what an event of the top run says to the conversation; a sub-agent's events are
// its own.
func (c *client) keep(e agui.Event) {
	switch e := e.(type) {
	case agui.TextMessageStart:
		if e.SubagentRunID == "" {
			c.messages = append(c.messages, agui.Message{ID: e.MessageID, Role: agui.RoleAssistant})
		}
	case agui.TextMessageContent:
		if m := c.message(e.MessageID); m != nil && e.SubagentRunID == "" {
			m.Content.Text += e.Delta
		}
	case agui.ToolCallStart:
		if e.SubagentRunID != "" {
			return
		}
		m := c.message(e.ParentMessageID)
		if m == nil {
			c.messages = append(c.messages, agui.Message{ID: e.ParentMessageID, Role: agui.RoleAssistant})
			m = &c.messages[len(c.messages)-1]
		}
		m.ToolCalls = append(m.ToolCalls, agui.ToolCall{ID: e.ToolCallID, Function: agui.FunctionCall{Name: e.ToolCallName}})
	case agui.ToolCallArgs:
		if call := c.call(e.ToolCallID); call != nil && e.SubagentRunID == "" {
			call.Function.Arguments += e.Delta
		}
	case agui.ToolCallResult:
		if e.SubagentRunID == "" {
			c.messages = append(c.messages, agui.Message{ID: e.MessageID, Role: agui.RoleTool, ToolCallID: e.ToolCallID, Content: e.Content})
		}
	}
}

// message is the assistant message of id in the conversation, nil when there is none.
func (c *client) message(id string) *agui.Message {
	for i := range c.messages {
		if m := &c.messages[i]; m.ID == id && m.Role == agui.RoleAssistant {
			return m
		}
	}
	return nil
}

// call is the tool call of id in the conversation, nil when there is none.
func (c *client) call(id string) *agui.ToolCall {
	for i := range c.messages {
		for j := range c.messages[i].ToolCalls {
			if tc := &c.messages[i].ToolCalls[j]; tc.ID == id {
				return tc
			}
		}
	}
	return nil
}

func count(events []agui.Event, match func(agui.Event) bool) int {
	n := 0
	for _, e := range events {
		if match(e) {
			n++
		}
	}
	return n
}

// custom matches the CUSTOM events of name.
func custom(name string) func(agui.Event) bool {
	return func(e agui.Event) bool {
		c, ok := e.(agui.Custom)
		return ok && c.Name == name
	}
}
