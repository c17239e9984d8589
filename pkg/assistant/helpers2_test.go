package assistant_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cadrehq/cadre/pkg/llmtest"
	"github.com/cadrehq/cadre/pkg/tool"
	"github.com/tmc/langchaingo/llms"
)

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
