package model_test

import (
	"testing"

	"github.com/cadrehq/cadre/pkg/model"
	"github.com/google/go-cmp/cmp"
	"github.com/tmc/langchaingo/llms"
)

func text(role llms.ChatMessageType, s string) llms.MessageContent {
	return llms.MessageContent{Role: role, Parts: []llms.ContentPart{llms.TextContent{Text: s}}}
}

func ai(parts ...llms.ContentPart) llms.MessageContent {
	return llms.MessageContent{Role: llms.ChatMessageTypeAI, Parts: parts}
}

func results(parts ...llms.ContentPart) llms.MessageContent {
	return llms.MessageContent{Role: llms.ChatMessageTypeTool, Parts: parts}
}

func call(id, typ, args string) llms.ToolCall {
	return llms.ToolCall{ID: id, Type: typ, FunctionCall: &llms.FunctionCall{Name: "weather", Arguments: args}}
}

func result(id, content string) llms.ToolCallResponse {
	return llms.ToolCallResponse{ToolCallID: id, Name: "weather", Content: content}
}

// sameSlice reports whether a and b are the same slice, not only equal ones.
func sameSlice(a, b []llms.MessageContent) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

func TestShapeSafeWire(t *testing.T) {
	t.Parallel()
	// A turn as cadre keeps it: text and two calls in one message, one with no type (as
	// anthropic's client leaves it) and one whose arguments are not a JSON object.
	turn := func() llms.MessageContent {
		return ai(llms.TextContent{Text: "Checking."}, call("c1", "", `{"city":"Paris"}`), call("c2", "function", `Oslo`))
	}
	tests := []struct {
		name string
		msgs func() []llms.MessageContent // called twice: once to reshape, once to compare
	}{
		{"one tool message per result", func() []llms.MessageContent {
			return []llms.MessageContent{
				text(llms.ChatMessageTypeSystem, "Be terse."),
				text(llms.ChatMessageTypeHuman, "Weather in Paris and Oslo?"),
				turn(),
				results(result("c1", "sunny")),
				results(result("c2", "rain")),
				text(llms.ChatMessageTypeAI, "Sunny in Paris, rain in Oslo."),
			}
		}},
		{"results in another order", func() []llms.MessageContent {
			return []llms.MessageContent{
				text(llms.ChatMessageTypeSystem, "Be terse."),
				text(llms.ChatMessageTypeHuman, "Weather in Paris and Oslo?"),
				turn(),
				results(result("c2", "rain")),
				results(result("c1", "sunny")),
				text(llms.ChatMessageTypeAI, "Sunny in Paris, rain in Oslo."),
			}
		}},
		{"one tool message with both results", func() []llms.MessageContent {
			return []llms.MessageContent{
				text(llms.ChatMessageTypeSystem, "Be terse."),
				text(llms.ChatMessageTypeHuman, "Weather in Paris and Oslo?"),
				turn(),
				results(result("c1", "sunny"), result("c2", "rain")),
				text(llms.ChatMessageTypeAI, "Sunny in Paris, rain in Oslo."),
			}
		}},
	}
	want := []llms.MessageContent{
		text(llms.ChatMessageTypeSystem, "Be terse."),
		text(llms.ChatMessageTypeHuman, "Weather in Paris and Oslo?"),
		text(llms.ChatMessageTypeAI, "Checking."),
		ai(call("c1", "function", `{"city":"Paris"}`)),
		results(result("c1", "sunny")),
		ai(call("c2", "function", `{}`)),
		results(result("c2", "rain")),
		text(llms.ChatMessageTypeAI, "Sunny in Paris, rain in Oslo."),
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			msgs := tt.msgs()
			got := model.ShapeSafe.Wire(msgs)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("Wire mismatch (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.msgs(), msgs); diff != "" {
				t.Errorf("Wire modified its input (-before +after):\n%s", diff)
			}
		})
	}
}

func TestShapeSafeWireUnansweredResult(t *testing.T) {
	t.Parallel()
	// A result that answers no call of the turn stays, after the turn's pairs.
	msgs := []llms.MessageContent{
		text(llms.ChatMessageTypeHuman, "Weather?"),
		ai(call("c1", "function", `{"city":"Paris"}`), call("c2", "function", `{"city":"Oslo"}`)),
		results(result("c1", "sunny")),
		results(result("stray", "?")),
		results(result("c2", "rain")),
	}
	want := []llms.MessageContent{
		text(llms.ChatMessageTypeHuman, "Weather?"),
		ai(call("c1", "function", `{"city":"Paris"}`)),
		results(result("c1", "sunny")),
		ai(call("c2", "function", `{"city":"Oslo"}`)),
		results(result("c2", "rain")),
		results(result("stray", "?")),
	}
	if diff := cmp.Diff(want, model.ShapeSafe.Wire(msgs)); diff != "" {
		t.Errorf("Wire mismatch (-want +got):\n%s", diff)
	}
}

func TestShapeSafeWireUnchanged(t *testing.T) {
	t.Parallel()
	msgs := []llms.MessageContent{
		text(llms.ChatMessageTypeSystem, "Be terse."),
		text(llms.ChatMessageTypeHuman, "Weather in Paris?"),
		ai(call("c1", "function", `{"city":"Paris"}`)),
		results(result("c1", "sunny")),
		text(llms.ChatMessageTypeAI, "Sunny."),
	}
	if got := model.ShapeSafe.Wire(msgs); !sameSlice(got, msgs) {
		t.Errorf("Wire of a conversation already in shape returned a new slice:\n%v", got)
	}
}

func TestShapeOpenAIWire(t *testing.T) {
	t.Parallel()
	t.Run("well formed", func(t *testing.T) {
		t.Parallel()
		msgs := []llms.MessageContent{
			text(llms.ChatMessageTypeSystem, "Be terse."),
			text(llms.ChatMessageTypeHuman, "Weather in Paris and Oslo?"),
			ai(llms.TextContent{Text: "Checking."}, call("c1", "function", `{"city":"Paris"}`), call("c2", "function", `{"city":"Oslo"}`)),
			results(result("c1", "sunny")),
			results(result("c2", "rain")),
			text(llms.ChatMessageTypeAI, "Sunny in Paris, rain in Oslo."),
		}
		if got := model.ShapeOpenAI.Wire(msgs); !sameSlice(got, msgs) {
			t.Errorf("Wire of a well-formed conversation returned a new slice:\n%v", got)
		}
	})
	t.Run("tool message with two results", func(t *testing.T) {
		t.Parallel()
		build := func() []llms.MessageContent {
			return []llms.MessageContent{
				text(llms.ChatMessageTypeHuman, "Weather in Paris and Oslo?"),
				ai(llms.TextContent{Text: "Checking."}, call("c1", "function", `{"city":"Paris"}`), call("c2", "function", `{"city":"Oslo"}`)),
				results(result("c1", "sunny"), result("c2", "rain")),
			}
		}
		msgs := build()
		want := []llms.MessageContent{
			text(llms.ChatMessageTypeHuman, "Weather in Paris and Oslo?"),
			ai(llms.TextContent{Text: "Checking."}, call("c1", "function", `{"city":"Paris"}`), call("c2", "function", `{"city":"Oslo"}`)),
			results(result("c1", "sunny")),
			results(result("c2", "rain")),
		}
		if diff := cmp.Diff(want, model.ShapeOpenAI.Wire(msgs)); diff != "" {
			t.Errorf("Wire mismatch (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff(build(), msgs); diff != "" {
			t.Errorf("Wire modified its input (-before +after):\n%s", diff)
		}
	})
	t.Run("untyped call and empty text", func(t *testing.T) {
		t.Parallel()
		// OpenAI takes any arguments string, so they are sent as they are.
		msgs := []llms.MessageContent{
			text(llms.ChatMessageTypeHuman, "Weather in Oslo?"),
			ai(llms.TextContent{}, call("c1", "", `Oslo`)),
			results(result("c1", "rain")),
		}
		want := []llms.MessageContent{
			text(llms.ChatMessageTypeHuman, "Weather in Oslo?"),
			ai(call("c1", "function", `Oslo`)),
			results(result("c1", "rain")),
		}
		if diff := cmp.Diff(want, model.ShapeOpenAI.Wire(msgs)); diff != "" {
			t.Errorf("Wire mismatch (-want +got):\n%s", diff)
		}
		if tc := msgs[1].Parts[1].(llms.ToolCall); tc.Type != "" {
			t.Errorf("Wire modified its input: call type is %q", tc.Type)
		}
	})
}

func TestWireDropsEmptyAnswers(t *testing.T) {
	t.Parallel()
	msgs := []llms.MessageContent{
		llms.TextParts(llms.ChatMessageTypeHuman, "hi"),
		{Role: llms.ChatMessageTypeAI}, // a model's empty answer, as stored
		llms.TextParts(llms.ChatMessageTypeHuman, "Your answer could not be used."),
		{Role: llms.ChatMessageTypeAI, Parts: []llms.ContentPart{llms.TextContent{}}},
	}
	for _, shape := range []model.Shape{model.ShapeSafe, model.ShapeOpenAI} {
		got := shape.Wire(msgs)
		for _, m := range got {
			if m.Role == llms.ChatMessageTypeAI {
				t.Errorf("shape %d sent an empty assistant message: %+v", shape, got)
			}
		}
		if len(got) != 2 {
			t.Errorf("shape %d: %d messages, want the 2 human ones", shape, len(got))
		}
	}
}

func TestReadGivesCallsWithoutIDsOne(t *testing.T) {
	t.Parallel()
	// googleai's client returns calls without IDs: results are matched to calls by ID.
	resp := &llms.ContentResponse{Choices: []*llms.ContentChoice{{ToolCalls: []llms.ToolCall{
		{FunctionCall: &llms.FunctionCall{Name: "lookup", Arguments: `{"city":"Oslo"}`}},
		{FunctionCall: &llms.FunctionCall{Name: "lookup", Arguments: `{"city":"Rome"}`}},
	}}}}
	r, err := model.Read(resp)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.ToolCalls) != 2 || r.ToolCalls[0].ID == "" || r.ToolCalls[0].ID == r.ToolCalls[1].ID {
		t.Errorf("calls = %+v, want two distinct IDs", r.ToolCalls)
	}
	if resp.Choices[0].ToolCalls[0].ID != "" {
		t.Error("Read changed the response")
	}
}

// A call typed "function" without its FunctionCall (a history given by hand, a store's) goes
// out with an empty one, its arguments {}: every provider's client reads the call's name and
// arguments from it.
func TestWireGivesACallWithoutFunctionOne(t *testing.T) {
	t.Parallel()
	bare := llms.ToolCall{ID: "c1", Type: "function"}
	msgs := []llms.MessageContent{
		text(llms.ChatMessageTypeHuman, "Weather?"),
		ai(bare),
		results(result("c1", "rain")),
	}
	want := []llms.MessageContent{
		text(llms.ChatMessageTypeHuman, "Weather?"),
		ai(llms.ToolCall{ID: "c1", Type: "function", FunctionCall: &llms.FunctionCall{Arguments: "{}"}}),
		results(result("c1", "rain")),
	}
	for _, shape := range []model.Shape{model.ShapeSafe, model.ShapeOpenAI} {
		if diff := cmp.Diff(want, shape.Wire(msgs)); diff != "" {
			t.Errorf("shape %d: Wire mismatch (-want +got):\n%s", shape, diff)
		}
	}
	if msgs[1].Parts[0].(llms.ToolCall).FunctionCall != nil {
		t.Error("Wire modified its input")
	}
}

// In the safe shape, arguments are a JSON object when they are one after white space, and
// arguments of white space alone go as {}.
func TestShapeSafeWireArgumentsAfterWhiteSpace(t *testing.T) {
	t.Parallel()
	for args, want := range map[string]string{
		" \t\r\n{\"city\":\"Oslo\"}": " \t\r\n{\"city\":\"Oslo\"}",
		" \n ":                       "{}",
		"":                           "{}",
	} {
		msgs := []llms.MessageContent{text(llms.ChatMessageTypeHuman, "Weather?"), ai(call("c1", "function", args)), results(result("c1", "rain"))}
		got := model.ShapeSafe.Wire(msgs)
		if tc := got[1].Parts[0].(llms.ToolCall); tc.FunctionCall.Arguments != want {
			t.Errorf("arguments %q went as %q, want %q", args, tc.FunctionCall.Arguments, want)
		}
	}
}

// TestToolCallChunk: an openai-shaped client's chunk of tool-call JSON is not text; text that
// looks like it, and any chunk of another shape's client, is.
func TestToolCallChunk(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		shape model.Shape
		chunk string
		want  bool
	}{
		{model.ShapeOpenAI, `[{"id":"c1","function":{"name":"look","arguments":"{}"}}]`, true},
		{model.ShapeOpenAI, `[{"id":"c1"}]`, false},
		{model.ShapeOpenAI, `[{"function":{}}, 3]`, false},
		{model.ShapeOpenAI, `[{"function":{"name":`, false},
		{model.ShapeOpenAI, `Hello`, false},
		{model.ShapeSafe, `[{"id":"c1","function":{"name":"look","arguments":"{}"}}]`, false},
	} {
		if got := tc.shape.ToolCallChunk([]byte(tc.chunk)); got != tc.want {
			t.Errorf("shape %d: ToolCallChunk(%s) = %v; want %v", tc.shape, tc.chunk, got, tc.want)
		}
	}
}
