package assistant_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cadrehq/cadre/pkg/assistant"
	"github.com/cadrehq/cadre/pkg/llmtest"
	"github.com/cadrehq/cadre/pkg/schema"
	"github.com/cadrehq/cadre/pkg/tool"
	"github.com/tmc/langchaingo/llms"
)

// city is the typed output most tests ask for: both fields are required by its schema.
type city struct {
	Name       string `json:"name"`
	Population int    `json:"population"`
}

// cityArgs are the arguments of the test tools that look a city up.
type cityArgs struct {
	City string `json:"city"`
}

// testContext returns a context that ends with the test, and at the latest after a minute, so
// that a test whose behaviour is missing fails instead of hanging.
func testContext(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// textOf returns the text parts of m, joined.
func textOf(m llms.MessageContent) string {
	var b strings.Builder
	for _, p := range m.Parts {
		if tc, ok := p.(llms.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// systemOf returns the text of the system message of req, or "" when it has none.
func systemOf(req llmtest.Request) string {
	for _, m := range req.Messages {
		if m.Role == llms.ChatMessageTypeSystem {
			return textOf(m)
		}
	}
	return ""
}

// toolNames returns the names of the tools offered in req, in order.
func toolNames(req llmtest.Request) []string {
	var names []string
	for _, tl := range req.Options.Tools {
		if tl.Function != nil {
			names = append(names, tl.Function.Name)
		}
	}
	return names
}

// toolCallsIn returns every tool call in msgs, in order.
func toolCallsIn(msgs []llms.MessageContent) []llms.ToolCall {
	var calls []llms.ToolCall
	for _, m := range msgs {
		for _, p := range m.Parts {
			if c, ok := p.(llms.ToolCall); ok {
				calls = append(calls, c)
			}
		}
	}
	return calls
}

// toolResultsIn returns every tool result in msgs, in order.
func toolResultsIn(msgs []llms.MessageContent) []llms.ToolCallResponse {
	var results []llms.ToolCallResponse
	for _, m := range msgs {
		for _, p := range m.Parts {
			if r, ok := p.(llms.ToolCallResponse); ok {
				results = append(results, r)
			}
		}
	}
	return results
}

// roles returns the role of each message of msgs.
func roles(msgs []llms.MessageContent) []llms.ChatMessageType {
	out := make([]llms.ChatMessageType, len(msgs))
	for i, m := range msgs {
		out[i] = m.Role
	}
	return out
}

// schemaText returns T's JSON Schema as compact JSON: how the assistant quotes a schema to the
// model in a tool result.
func schemaText[T any](t *testing.T) string {
	t.Helper()
	s, err := schema.For[T]()
	if err != nil {
		t.Fatalf("schema.For: %v", err)
	}
	return compactJSON(t, s.JSON())
}

// schemaDoc returns T's JSON Schema document as it is (indented or not): how the assistant
// puts it in a prompt.
func schemaDoc[T any](t *testing.T) string {
	t.Helper()
	s, err := schema.For[T]()
	if err != nil {
		t.Fatalf("schema.For: %v", err)
	}
	return string(s.JSON())
}

// validationError returns the error text of validating doc against T's schema: the exact
// words the model must be shown. It fails the test when doc is valid.
func validationError[T any](t *testing.T, doc string) string {
	t.Helper()
	s, err := schema.For[T]()
	if err != nil {
		t.Fatalf("schema.For: %v", err)
	}
	verr := s.Validate([]byte(doc))
	if verr == nil {
		t.Fatalf("%s is valid against the schema; the test needs an invalid document", doc)
	}
	return verr.Error()
}

// compactJSON returns doc compacted.
func compactJSON(t *testing.T, doc json.RawMessage) string {
	t.Helper()
	var b bytes.Buffer
	if err := json.Compact(&b, doc); err != nil {
		t.Fatalf("compacting %s: %v", doc, err)
	}
	return b.String()
}

// abbrev returns s, or its start and its length when it is long, for test messages.
func abbrev(s string) string {
	const limit = 300
	if len(s) <= limit {
		return s
	}
	return fmt.Sprintf("%s... (%d bytes)", s[:limit], len(s))
}

// lookupArgs are the arguments of the counting test tool; q is optional, so "{}" is valid.
type lookupArgs struct {
	Q string `json:"q,omitempty"`
}

// countingTool returns a tool named name that counts its calls in n and answers "found".
func countingTool(name string, n *atomic.Int64) tool.Tool {
	return tool.Func(name, "Looks something up.", func(context.Context, lookupArgs) (string, error) {
		n.Add(1)
		return "found", nil
	})
}

// endlessModel returns a model that never answers: every request gets a turn of calls to the
// tool name, with empty arguments, calls times.
func endlessModel(name string, calls int) *llmtest.FuncModel {
	return llmtest.NewFunc(func(context.Context, llmtest.Request) llmtest.Reply {
		turn := make([]llms.ToolCall, calls)
		for i := range turn {
			turn[i] = llmtest.Call(name, `{}`)
		}
		return llmtest.Calls(turn...)
	})
}

// rawTool is a tool.Tool with any name and schema, for what tool.Func refuses to build.
type rawTool struct {
	name   string
	schema string
}

func (r rawTool) Name() string            { return r.name }
func (r rawTool) Description() string     { return "A hand-written tool." }
func (r rawTool) Schema() json.RawMessage { return json.RawMessage(r.schema) }
func (r rawTool) Call(context.Context, json.RawMessage) (string, error) {
	return "ok", nil
}

// replayError returns why a provider would reject msgs, or nil: every tool call of an AI
// message must be answered by a tool message carrying its id before the next AI, human or
// system message (and before the end), and every tool result must answer such a call.
func replayError(msgs []llms.MessageContent) error {
	pending := map[string]bool{}
	unanswered := func(i int) error {
		if len(pending) == 0 {
			return nil
		}
		ids := make([]string, 0, len(pending))
		for id := range pending {
			ids = append(ids, id)
		}
		return fmt.Errorf("message %d: tool calls %v are not answered before it", i, ids)
	}
	for i, m := range msgs {
		switch m.Role {
		case llms.ChatMessageTypeTool:
			if len(m.Parts) == 0 {
				return fmt.Errorf("message %d: a tool message without a result", i)
			}
			for _, p := range m.Parts {
				r, ok := p.(llms.ToolCallResponse)
				if !ok {
					return fmt.Errorf("message %d: a tool message holds a %T", i, p)
				}
				if !pending[r.ToolCallID] {
					return fmt.Errorf("message %d: a result for call %q, which is not awaiting one", i, r.ToolCallID)
				}
				delete(pending, r.ToolCallID)
			}
		default:
			if err := unanswered(i); err != nil {
				return err
			}
			for _, p := range m.Parts {
				if c, ok := p.(llms.ToolCall); ok {
					if m.Role != llms.ChatMessageTypeAI {
						return fmt.Errorf("message %d: a tool call in a %s message", i, m.Role)
					}
					if c.ID == "" || c.FunctionCall == nil {
						return fmt.Errorf("message %d: a tool call without an id or a function", i)
					}
					pending[c.ID] = true
				}
			}
		}
	}
	return unanswered(len(msgs))
}

// strictModel returns a model that fails any request that replayError rejects, or in which a
// tool call's arguments are not a JSON object, as provider APIs do, and answers every other
// request with the text answer.
func strictModel(answer string) *llmtest.FuncModel {
	return llmtest.NewFunc(func(_ context.Context, req llmtest.Request) llmtest.Reply {
		if err := replayError(req.Messages); err != nil {
			return llmtest.Fail(fmt.Errorf("400 invalid conversation: %w", err))
		}
		for _, c := range toolCallsIn(req.Messages) {
			var args map[string]any
			if json.Unmarshal([]byte(c.FunctionCall.Arguments), &args) != nil {
				return llmtest.Fail(fmt.Errorf("400 invalid conversation: call %s has arguments %q, not a JSON object", c.ID, c.FunctionCall.Arguments))
			}
		}
		return llmtest.Text(answer)
	})
}

// runAsync runs f on its own goroutine and returns a function that waits for it, failing the
// test if it has not returned within a minute: a run that does not honour its context fails
// instead of hanging the test.
func runAsync[T any](t *testing.T, f func() (T, error)) func() (T, error) {
	t.Helper()
	type outcome struct {
		v   T
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		v, err := f()
		done <- outcome{v, err}
	}()
	return func() (T, error) {
		t.Helper()
		timer := time.NewTimer(time.Minute)
		defer timer.Stop()
		select {
		case o := <-done:
			return o.v, o.err
		case <-timer.C:
			t.Fatal("the run did not return within a minute of its context being cancelled")
			panic("not reached")
		}
	}
}

// panicText runs f and returns the text of its panic, or reports that it did not panic.
func panicText(f func()) (msg string, panicked bool) {
	defer func() {
		if v := recover(); v != nil {
			msg, panicked = fmt.Sprint(v), true
		}
	}()
	f()
	return "", false
}

// lastToolResults returns the contents of the tool results in msgs after the last AI message.
func lastToolResults(msgs []llms.MessageContent) []string {
	var out []string
	for i := len(msgs) - 1; i >= 0 && msgs[i].Role == llms.ChatMessageTypeTool; i-- {
		for _, p := range msgs[i].Parts {
			if r, ok := p.(llms.ToolCallResponse); ok {
				out = append([]string{r.Content}, out...)
			}
		}
	}
	return out
}

// wantNotRun fails the test unless every result starts with "not run".
func wantNotRun(t *testing.T, results []string) {
	t.Helper()
	if len(results) == 0 {
		t.Fatal("no tool result answers the last turn's calls")
	}
	for _, r := range results {
		if !strings.HasPrefix(r, "not run") {
			t.Errorf("a call the run did not make is answered %q; want it to start with \"not run\"", r)
		}
	}
}

var errBoom = errors.New("boom: the provider is down")

// throughJSON returns a copy of p made through its JSON, as a paused run kept elsewhere comes
// back, in another process.
func throughJSON(t *testing.T, p *assistant.Paused) *assistant.Paused {
	t.Helper()
	state, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	var back assistant.Paused
	if err := json.Unmarshal(state, &back); err != nil {
		t.Fatal(err)
	}
	return &back
}
