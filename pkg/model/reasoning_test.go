package model_test

import (
	"context"
	"testing"

	"github.com/cadrehq/cadre/pkg/model"
	"github.com/google/go-cmp/cmp"
	"github.com/tmc/langchaingo/llms"
)

func thought(text, sig string) model.Reasoning {
	return model.Reasoning{TextContent: llms.TextContent{Text: text}, Signature: sig}
}

// A non-streamed anthropic answer from langchaingo's client: a choice per thinking block,
// with its text and signature, before the text and tool uses.
func TestReadTakesThinkingChoices(t *testing.T) {
	t.Parallel()
	resp := anthropicResponse()
	think := func(text, sig string) *llms.ContentChoice {
		info := anthropicInfo()
		info["ThinkingContent"], info["ThinkingSignature"] = text, sig
		return &llms.ContentChoice{StopReason: "tool_use", GenerationInfo: info}
	}
	resp.Choices = append([]*llms.ContentChoice{think("first", "s1"), think("second", "s2")}, resp.Choices...)
	r, err := model.Read(resp)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]model.Reasoning{thought("first", "s1"), thought("second", "s2")}, r.Reasoning); diff != "" {
		t.Errorf("reasoning (-want +got):\n%s", diff)
	}
	if r.Text != "Let me look both up." || len(r.ToolCalls) != 2 || r.Usage.InputTokens != 120 {
		t.Errorf("the rest of the reply changed: %+v", r)
	}
	msg := r.Message()
	if _, ok := msg.Parts[0].(model.Reasoning); !ok {
		t.Errorf("the message does not start with the reasoning: %#v", msg.Parts)
	}
	if len(msg.Parts) != 5 {
		t.Errorf("message parts = %d, want 2 reasoning, the text and 2 calls", len(msg.Parts))
	}
}

// Reasoning without a signature (DeepSeek's reasoning_content, through the openai client) is
// not kept: its API refuses it back.
func TestReadLeavesUnsealedReasoning(t *testing.T) {
	t.Parallel()
	resp := &llms.ContentResponse{Choices: []*llms.ContentChoice{{
		Content:        "42",
		GenerationInfo: map[string]any{"ThinkingContent": "let me think", "PromptTokens": 3, "CompletionTokens": 4},
	}}}
	r, err := model.Read(resp)
	if err != nil {
		t.Fatal(err)
	}
	if r.Reasoning != nil {
		t.Errorf("reasoning = %v, want none", r.Reasoning)
	}
}

// A client's own list stands for the thinking choices it left in the response.
func TestReadPrefersTheClientsList(t *testing.T) {
	t.Parallel()
	resp := anthropicResponse()
	info := anthropicInfo()
	info["ThinkingContent"], info["ThinkingSignature"] = "partial", ""
	resp.Choices = append([]*llms.ContentChoice{{GenerationInfo: info}}, resp.Choices...)
	given := []model.Reasoning{thought("whole", "sealed"), {Redacted: "opaque"}}
	resp.Choices[2].GenerationInfo[model.ReasoningInfo] = given
	r, err := model.Read(resp)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(given, r.Reasoning); diff != "" {
		t.Errorf("reasoning (-want +got):\n%s", diff)
	}
	one := &llms.ContentResponse{Choices: []*llms.ContentChoice{{Content: "hi", GenerationInfo: map[string]any{model.ReasoningInfo: given}}}}
	if r, _ := model.Read(one); len(r.Reasoning) != 2 {
		t.Errorf("one choice: reasoning = %v, want the client's list", r.Reasoning)
	}
}

// Generate names the provider of reasoning that came without one.
func TestGenerateNamesTheReasoningsProvider(t *testing.T) {
	t.Parallel()
	info := map[string]any{"ThinkingContent": "hm", "ThinkingSignature": "s", "InputTokens": 1}
	llm := &fakeLLM{resp: &llms.ContentResponse{Choices: []*llms.ContentChoice{
		{GenerationInfo: info}, {Content: "done", GenerationInfo: map[string]any{"InputTokens": 1}},
	}}}
	m := model.Model{Name: "deep", Provider: "anthropic", LLM: llm}
	r, err := m.Generate(context.Background(), []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, "hi")})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Reasoning) != 1 || r.Reasoning[0].Provider != "anthropic" {
		t.Errorf("reasoning = %+v, want one from anthropic", r.Reasoning)
	}
}

// Every shape but ShapeKeep leaves reasoning out, and an assistant message of reasoning only
// with it; ShapeKeep hands the conversation over as it is.
func TestWireLeavesReasoningOut(t *testing.T) {
	t.Parallel()
	call := llms.ToolCall{ID: "c1", Type: "function", FunctionCall: &llms.FunctionCall{Name: "f", Arguments: "{}"}}
	result := llms.ToolCallResponse{ToolCallID: "c1", Name: "f", Content: "ok"}
	r := thought("hm", "s")
	msgs := []llms.MessageContent{
		llms.TextParts(llms.ChatMessageTypeHuman, "go"),
		{Role: llms.ChatMessageTypeAI, Parts: []llms.ContentPart{r, llms.TextContent{Text: "calling"}, call}},
		{Role: llms.ChatMessageTypeTool, Parts: []llms.ContentPart{result}},
		{Role: llms.ChatMessageTypeAI, Parts: []llms.ContentPart{r}},
		llms.TextParts(llms.ChatMessageTypeHuman, "and?"),
	}
	for _, tc := range []struct {
		shape model.Shape
		want  []llms.MessageContent
	}{
		{model.ShapeOpenAI, []llms.MessageContent{
			msgs[0],
			{Role: llms.ChatMessageTypeAI, Parts: []llms.ContentPart{llms.TextContent{Text: "calling"}, call}},
			msgs[2],
			msgs[4],
		}},
		{model.ShapeSafe, []llms.MessageContent{
			msgs[0],
			llms.TextParts(llms.ChatMessageTypeAI, "calling"),
			{Role: llms.ChatMessageTypeAI, Parts: []llms.ContentPart{call}},
			msgs[2],
			msgs[4],
		}},
		{model.ShapeKeep, msgs},
	} {
		if diff := cmp.Diff(tc.want, tc.shape.Wire(msgs)); diff != "" {
			t.Errorf("shape %d (-want +got):\n%s", tc.shape, diff)
		}
	}
}
