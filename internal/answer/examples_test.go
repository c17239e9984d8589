package answer_test

import (
	"strings"
	"testing"

	"github.com/cadrehq/cadre/internal/answer"
	"github.com/google/go-cmp/cmp"
	"github.com/tmc/langchaingo/llms"
)

// TestExamplesAdd: an example's output is checked against the output type's schema; a text
// output is taken as it is.
func TestExamplesAdd(t *testing.T) {
	t.Parallel()
	ex := answer.NewExamples(mustShape[city](t))
	if err := ex.Add("north?", city{Name: "Oslo"}); err != nil {
		t.Fatal(err)
	}
	if err := ex.Add("nothing?", map[string]int{"name": 3}); err == nil || !strings.Contains(err.Error(), "does not match the output type's schema") {
		t.Errorf("Add of an output that does not match = %v; want the schema's error", err)
	}
	if err := ex.Add("a func?", func() {}); err == nil || !strings.Contains(err.Error(), "does not encode") {
		t.Errorf("Add of an output that does not encode = %v; want an error saying so", err)
	}
	if got := len(ex.Messages(false)); got != 2 {
		t.Errorf("after one good example and two refused, %d messages; want 2", got)
	}
}

// TestExamplesMessages: each example is a user's turn and its answer in the way the run asks
// for answers — as text, or as a final_result call (its arguments wrapped where O is not an
// object) answered as accepted — built once and shared.
func TestExamplesMessages(t *testing.T) {
	t.Parallel()
	call := func(id, args string) []llms.MessageContent {
		return []llms.MessageContent{
			{Role: llms.ChatMessageTypeAI, Parts: []llms.ContentPart{llms.ToolCall{ID: id, Type: "function", FunctionCall: &llms.FunctionCall{Name: answer.Tool, Arguments: args}}}},
			{Role: llms.ChatMessageTypeTool, Parts: []llms.ContentPart{llms.ToolCallResponse{ToolCallID: id, Name: answer.Tool, Content: answer.Accepted}}},
		}
	}
	human := func(s string) llms.MessageContent { return llms.TextParts(llms.ChatMessageTypeHuman, s) }
	ai := func(s string) llms.MessageContent { return llms.TextParts(llms.ChatMessageTypeAI, s) }
	for _, tt := range []struct {
		name  string
		shape *answer.Shape
		out   [2]any
		calls bool
		want  []llms.MessageContent
	}{
		{"object as text", mustShape[city](t), [2]any{city{"Oslo"}, city{"Rome"}}, false,
			[]llms.MessageContent{human("a"), ai(`{"name":"Oslo"}`), human("b"), ai(`{"name":"Rome"}`)}},
		{"object as calls", mustShape[city](t), [2]any{city{"Oslo"}, city{"Rome"}}, true,
			append(append([]llms.MessageContent{human("a")}, call("example_1", `{"name":"Oslo"}`)...), append([]llms.MessageContent{human("b")}, call("example_2", `{"name":"Rome"}`)...)...)},
		{"wrapped as calls", mustShape[int](t), [2]any{1, 2}, true,
			append(append([]llms.MessageContent{human("a")}, call("example_1", `{"output":1}`)...), append([]llms.MessageContent{human("b")}, call("example_2", `{"output":2}`)...)...)},
		{"text, even in tool mode", mustShape[string](t), [2]any{"north", "south"}, true,
			[]llms.MessageContent{human("a"), ai("north"), human("b"), ai("south")}},
	} {
		ex := answer.NewExamples(tt.shape)
		for i, in := range []string{"a", "b"} {
			if err := ex.Add(in, tt.out[i]); err != nil {
				t.Fatalf("%s: %v", tt.name, err)
			}
		}
		got := ex.Messages(tt.calls)
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s: messages (-want +got):\n%s", tt.name, diff)
		}
		if again := ex.Messages(tt.calls); &again[0] != &got[0] {
			t.Errorf("%s: the messages were built again; want them built once and shared", tt.name)
		}
	}
}
