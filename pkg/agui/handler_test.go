package agui_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/cadrehq/cadre/pkg/agui"
	"github.com/cadrehq/cadre/pkg/assistant"
	"github.com/cadrehq/cadre/pkg/llmtest"
	"github.com/cadrehq/cadre/pkg/model"
	"github.com/cadrehq/cadre/pkg/tool"
	"github.com/tmc/langchaingo/llms"
)

const hello = `{"threadId":"t1","runId":"r1","messages":[{"id":"u1","role":"user","content":"Hello"}]}`

// post sends body to h and returns the response.
func post(t *testing.T, h http.Handler, body string) *http.Response {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	resp, err := http.Post(srv.URL, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// events reads the SSE stream of resp to its end.
func events(t *testing.T, resp *http.Response) []agui.Event {
	t.Helper()
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != agui.ContentType {
		t.Fatalf("status %d, Content-Type %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	out, err := readEvents(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// readEvents reads an SSE stream of events to its end.
func readEvents(r io.Reader) ([]agui.Event, error) {
	var out []agui.Event
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		e, err := agui.ParseEvent([]byte(line))
		if err != nil {
			return nil, fmt.Errorf("event %q: %w", line, err)
		}
		out = append(out, e)
	}
	return out, sc.Err()
}

// protocol is es without the CUSTOM events.
func protocol(es []agui.Event) []agui.Event {
	var out []agui.Event
	for _, e := range es {
		if e.Type() != agui.TypeCustom {
			out = append(out, e)
		}
	}
	return out
}

func types(es []agui.Event) string {
	s := make([]string, len(es))
	for i, e := range es {
		s[i] = string(e.Type())
	}
	return strings.Join(s, " ")
}

func TestHandlerTextAnswer(t *testing.T) {
	m := llmtest.NewScripted(llmtest.Text("Hi there."))
	var msgs []llms.MessageContent // what the run asked for, in cadre's shape
	spy := assistant.Middleware{Request: func(ctx context.Context, req *assistant.ModelRequest, next assistant.RequestNext) (model.Reply, error) {
		msgs = slices.Clone(req.Messages)
		return next(ctx, req)
	}}
	a := assistant.New[string]("greeter", assistant.WithModel(m), assistant.WithMiddleware(spy))
	body := `{"threadId":"t1","runId":"r1","messages":[
		{"id":"s1","role":"system","content":"Be brief."},
		{"id":"u0","role":"user","content":"Weather?"},
		{"id":"a0","role":"assistant","content":"Let me look.","toolCalls":[{"id":"c0","type":"function","function":{"name":"weather","arguments":"{}"}}]},
		{"id":"t0","role":"tool","toolCallId":"c0","content":"sunny"},
		{"id":"u1","role":"user","content":[{"type":"text","text":"Hello"}]}]}`
	es := protocol(events(t, post(t, agui.NewHandler(a), body)))

	want := "RUN_STARTED TEXT_MESSAGE_START TEXT_MESSAGE_CONTENT TEXT_MESSAGE_END RUN_FINISHED"
	if got := types(es); got != want {
		t.Fatalf("events: %s\nwant:   %s", got, want)
	}
	if s := es[0].(agui.RunStarted); s.ThreadID != "t1" || s.RunID != "r1" {
		t.Errorf("RUN_STARTED = %+v", s)
	}
	start, content, end := es[1].(agui.TextMessageStart), es[2].(agui.TextMessageContent), es[3].(agui.TextMessageEnd)
	if start.MessageID == "" || content.MessageID != start.MessageID || end.MessageID != start.MessageID {
		t.Errorf("message ids: %q %q %q", start.MessageID, content.MessageID, end.MessageID)
	}
	if content.Delta != "Hi there." {
		t.Errorf("delta = %q", content.Delta)
	}
	f := es[4].(agui.RunFinished)
	if f.ThreadID != "t1" || f.RunID != "r1" || f.Result != "Hi there." || f.Outcome == nil || f.Outcome.Type != agui.OutcomeSuccess {
		t.Errorf("RUN_FINISHED = %+v", f)
	}

	// The run got the history in cadre's shape, then the prompt.
	var roles []string
	for _, mc := range msgs {
		roles = append(roles, string(mc.Role))
	}
	if got, want := strings.Join(roles, " "), "system human ai tool human"; got != want {
		t.Fatalf("roles sent: %s, want %s", got, want)
	}
	ai := msgs[2]
	if len(ai.Parts) != 2 || ai.Parts[0] != (llms.TextContent{Text: "Let me look."}) {
		t.Fatalf("AI turn = %#v", ai.Parts)
	}
	if c, ok := ai.Parts[1].(llms.ToolCall); !ok || c.ID != "c0" || c.FunctionCall.Name != "weather" {
		t.Errorf("AI tool call = %#v", ai.Parts[1])
	}
	if r, ok := msgs[3].Parts[0].(llms.ToolCallResponse); !ok || r.ToolCallID != "c0" || r.Name != "weather" || r.Content != "sunny" {
		t.Errorf("tool turn = %#v", msgs[3].Parts)
	}
	if p := msgs[4].Parts[0]; p != (llms.TextContent{Text: "Hello"}) {
		t.Errorf("prompt = %#v", p)
	}
}

type city struct {
	Name       string `json:"name"`
	Population int    `json:"population"`
}

func TestHandlerParallelToolCalls(t *testing.T) {
	type q struct {
		City string `json:"city"`
	}
	lookup := tool.Func("lookup", "Looks a city up.", func(_ context.Context, in q) (string, error) {
		return "found " + in.City, nil
	})
	broken := tool.Func("broken", "Fails.", func(context.Context, q) (string, error) {
		return "", errors.New("out of order")
	})
	m := llmtest.NewScripted(
		llmtest.Calls(llmtest.Call("lookup", `{"city":"Oslo"}`), llmtest.Call("broken", `{"city":"Rome"}`)),
		llmtest.Text(`{"name":"Oslo","population":700000}`),
	)
	a := assistant.New[city]("geo", assistant.WithModel(m), assistant.WithTools(lookup, broken))
	es := events(t, post(t, agui.NewHandler(a), hello))

	if es[0].Type() != agui.TypeRunStarted {
		t.Fatalf("first event %s", es[0].Type())
	}
	f, ok := es[len(es)-1].(agui.RunFinished)
	if !ok {
		t.Fatalf("events: %s", types(es))
	}
	raw, _ := json.Marshal(f.Result)
	var got city
	if err := json.Unmarshal(raw, &got); err != nil || got != (city{"Oslo", 700000}) {
		t.Errorf("result = %s (%v)", raw, err)
	}

	// Each call: START, ARGS, END in order, then its RESULT.
	type seen struct {
		name, args, result string
		steps              []agui.EventType
	}
	calls := map[string]*seen{}
	for _, e := range es {
		var id string
		switch e := e.(type) {
		case agui.ToolCallStart:
			id = e.ToolCallID
			calls[id] = &seen{name: e.ToolCallName}
		case agui.ToolCallArgs:
			id = e.ToolCallID
			calls[id].args += e.Delta
		case agui.ToolCallEnd:
			id = e.ToolCallID
		case agui.ToolCallResult:
			id = e.ToolCallID
			if e.MessageID == "" {
				t.Errorf("result of %s has no message id", id)
			}
			calls[id].result = e.Content.Text
		default:
			continue
		}
		calls[id].steps = append(calls[id].steps, e.Type())
	}
	if len(calls) != 2 {
		t.Fatalf("%d tool calls in %s", len(calls), types(es))
	}
	want := map[string]seen{
		"lookup": {args: `{"city":"Oslo"}`, result: "found Oslo"},
		"broken": {args: `{"city":"Rome"}`, result: "error: out of order"},
	}
	for id, c := range calls {
		w := want[c.name]
		steps := []agui.EventType{agui.TypeToolCallStart, agui.TypeToolCallArgs, agui.TypeToolCallEnd, agui.TypeToolCallResult}
		if c.args != w.args || !strings.HasPrefix(c.result, w.result) || len(c.steps) != 4 ||
			c.steps[0] != steps[0] || c.steps[1] != steps[1] || c.steps[2] != steps[2] || c.steps[3] != steps[3] {
			t.Errorf("call %s (%s): args %q result %q steps %v", id, c.name, c.args, c.result, c.steps)
		}
	}
}

func TestHandlerModelFails(t *testing.T) {
	m := llmtest.NewScripted(llmtest.Fail(errors.New("model unavailable")))
	a := assistant.New[string]("greeter", assistant.WithModel(m))
	es := protocol(events(t, post(t, agui.NewHandler(a), hello)))
	if got := types(es); got != "RUN_STARTED RUN_ERROR" {
		t.Fatalf("events: %s", got)
	}
	if msg := es[1].(agui.RunError).Message; !strings.Contains(msg, "model unavailable") {
		t.Errorf("RUN_ERROR message %q", msg)
	}
}

func TestHandlerRefusesBadRequests(t *testing.T) {
	a := assistant.New[string]("greeter", assistant.WithModel(llmtest.NewScripted(llmtest.Text("Hi")).Cycle()))
	h := agui.NewHandler(a, agui.WithMaxBody(1024))
	for _, tc := range []struct{ name, body, want string }{
		{"malformed", `{"threadId":"t1"`, "invalid RunAgentInput"},
		{"no run id", `{"threadId":"t1","messages":[]}`, "runId is missing"},
		{"no user turn", `{"threadId":"t1","runId":"r1","messages":[]}`, "no new user message"},
		{"too large", `{"threadId":"` + strings.Repeat("x", 2000) + `"}`, "larger than 1024 bytes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp := post(t, h, tc.body)
			body, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(body), tc.want) {
				t.Errorf("status %d, body %q; want 400 with %q", resp.StatusCode, body, tc.want)
			}
			if ct := resp.Header.Get("Content-Type"); strings.Contains(ct, "json") || ct == agui.ContentType {
				t.Errorf("Content-Type %q", ct)
			}
		})
	}
	t.Run("GET", func(t *testing.T) {
		srv := httptest.NewServer(h)
		defer srv.Close()
		resp, err := http.Get(srv.URL)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusMethodNotAllowed || resp.Header.Get("Allow") != "POST, OPTIONS" {
			t.Errorf("status %d, Allow %q", resp.StatusCode, resp.Header.Get("Allow"))
		}
	})
}

func TestHandlerClientGoneCancelsRun(t *testing.T) {
	started, ended := make(chan struct{}), make(chan error, 1)
	m := llmtest.NewFunc(func(ctx context.Context, _ llmtest.Request) llmtest.Reply {
		close(started)
		<-ctx.Done()
		ended <- ctx.Err()
		return llmtest.Fail(ctx.Err())
	})
	a := assistant.New[string]("waiter", assistant.WithModel(m))
	srv := httptest.NewServer(agui.NewHandler(a))
	defer srv.Close()

	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL, strings.NewReader(hello))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	first, err := bufio.NewReader(resp.Body).ReadString('\n')
	if err != nil || !strings.Contains(first, "RUN_STARTED") {
		t.Fatalf("first line %q, %v", first, err)
	}
	<-started
	cancel()
	if err := <-ended; !errors.Is(err, context.Canceled) {
		t.Errorf("the run's context ended with %v", err)
	}
}

// The calls of one model turn are one assistant message for the client: HttpAgent puts a
// TOOL_CALL_START without a parentMessageId in a message of its own, so that two calls made
// together would come back in the next request's history as two turns.
func TestHandlerCallsOfOneTurnShareTheirMessage(t *testing.T) {
	echo := tool.Func("echo", "Echoes.", func(_ context.Context, in struct {
		S string `json:"s"`
	}) (string, error) {
		return in.S, nil
	})
	for _, tc := range []struct {
		name  string
		reply llmtest.Reply
		texts int // text messages in the stream, "Done." one of them
	}{
		{"calls alone", llmtest.Calls(llmtest.Call("echo", `{"s":"a"}`), llmtest.Call("echo", `{"s":"b"}`)), 1},
		{"calls after text", llmtest.Reply{Text: "Echoing.", ToolCalls: []llms.ToolCall{llmtest.Call("echo", `{"s":"a"}`), llmtest.Call("echo", `{"s":"b"}`)}}, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := llmtest.NewScripted(tc.reply, llmtest.Text("Done."))
			a := assistant.New[string]("echoer", assistant.WithModel(m), assistant.WithTools(echo))
			es := protocol(events(t, post(t, agui.NewHandler(a), hello)))
			var parents []string
			texts := map[string]string{} // message id -> text
			for _, e := range es {
				switch e := e.(type) {
				case agui.ToolCallStart:
					parents = append(parents, e.ParentMessageID)
				case agui.TextMessageContent:
					texts[e.MessageID] += e.Delta
				}
			}
			if len(parents) != 2 || parents[0] == "" || parents[1] != parents[0] {
				t.Fatalf("the calls' parentMessageIds: %q; want one, not empty\nevents: %s", parents, types(es))
			}
			// The turn's text, given whole after the request by a model that does not
			// stream, is its message, written before the calls and once.
			if texts[parents[0]] != tc.reply.Text || len(texts) != tc.texts {
				t.Errorf("texts by message %q; the calls' message %q\nevents: %s", texts, parents[0], types(es))
			}
		})
	}
}
