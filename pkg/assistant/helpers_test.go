package assistant_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cadrehq/cadre/pkg/callback"
	"github.com/cadrehq/cadre/pkg/llmtest"
	"github.com/cadrehq/cadre/pkg/schema"
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

// recorder is a callback.Handler that keeps every event, safe for concurrent use.
type recorder struct {
	mu     sync.Mutex
	events []callback.Event
}

func (r *recorder) Handle(_ context.Context, e callback.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, e)
}

// Events returns a copy of the events received so far.
func (r *recorder) Events() []callback.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]callback.Event(nil), r.events...)
}

// Kinds returns the kinds of the events received so far, in order.
func (r *recorder) Kinds() []callback.Kind {
	events := r.Events()
	kinds := make([]callback.Kind, len(events))
	for i, e := range events {
		kinds[i] = e.Kind
	}
	return kinds
}

// Of returns the events of kind k.
func (r *recorder) Of(k callback.Kind) []callback.Event {
	var out []callback.Event
	for _, e := range r.Events() {
		if e.Kind == k {
			out = append(out, e)
		}
	}
	return out
}
