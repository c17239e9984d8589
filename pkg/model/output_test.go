package model_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/cadrehq/cadre/pkg/model"
	"github.com/tmc/langchaingo/llms"
)

func TestNativeOutputForKnowsModelsNotProviders(t *testing.T) {
	for _, c := range []struct {
		provider, id string
		native       bool
	}{
		{"openai", "gpt-4o-2024-08-06", true},
		{"openai", "gpt-4o", true},
		{"openai", "gpt-4o-2024-05-13", false},
		{"openai", "gpt-5-mini", true},
		{"openai", "o1", true},
		{"openai", "o1-mini", false},
		{"openai", "gpt-3.5-turbo", false},
		{"anthropic", "claude-sonnet-4-5-20250929", true},
		{"anthropic", "claude-haiku-4-5", true},
		{"anthropic", "claude-3-5-haiku-latest", false},
		{"anthropic", "claude-sonnet-4-20250514", false},
		{"googleai", "gemini-2.5-flash", true},
		{"googleai", "gemini-1.5-pro", false},
		{"mistral", "mistral-small-latest", true},
		{"ollama", "llama3.2", true},
		{"groq", "openai/gpt-oss-20b", true},
		{"groq", "llama-3.1-8b-instant", false},
		{"bedrock", "anthropic.claude-sonnet-4-5-20250929-v1:0", false},
		{"", "gpt-5", false},
	} {
		if got := model.NativeOutputFor(c.provider, c.id); got != c.native {
			t.Errorf("NativeOutputFor(%q, %q) = %v, want %v", c.provider, c.id, got, c.native)
		}
	}
}

func TestParseOutputForm(t *testing.T) {
	for _, s := range []string{"native", "tool", "prompted"} {
		if f, err := model.ParseOutputForm(s); err != nil || string(f) != s {
			t.Errorf("ParseOutputForm(%q) = %q, %v", s, f, err)
		}
	}
	for _, s := range []string{"", "Native", "json"} {
		if _, err := model.ParseOutputForm(s); err == nil {
			t.Errorf("ParseOutputForm(%q) took it", s)
		}
	}
}

func TestOutputSchemaTravelsInTheContext(t *testing.T) {
	ctx := context.Background()
	if model.WithOutputSchema(ctx, nil) != ctx || model.OutputSchemaOf(ctx) != nil {
		t.Fatal("a context without a schema changed")
	}
	s := &model.OutputSchema{Name: "answer", Schema: []byte(`{"type":"object"}`)}
	with := model.WithOutputSchema(ctx, s)
	if model.OutputSchemaOf(with) != s {
		t.Fatal("the schema did not travel")
	}
	if model.OutputSchemaOf(model.WithOutputSchema(with, nil)) != nil {
		t.Fatal("a nil schema did not take the place of the one before")
	}
}

func TestAReplyWithARefusalFinishesRefused(t *testing.T) {
	for _, choices := range [][]*llms.ContentChoice{
		{{Content: "", StopReason: "stop", GenerationInfo: map[string]any{model.RefusalInfo: "I can't help with that."}}},
		{{Content: "a"}, {Content: "", StopReason: "stop", GenerationInfo: map[string]any{model.RefusalInfo: "I can't help with that."}}},
	} {
		r, err := model.Read(&llms.ContentResponse{Choices: choices})
		if err != nil {
			t.Fatal(err)
		}
		if r.Refusal != "I can't help with that." || r.Finish() != model.FinishRefusal {
			t.Errorf("Refusal %q, Finish %v", r.Refusal, r.Finish())
		}
		// In the conversation, the refusal is what the assistant said: a provider refuses an
		// assistant message without content.
		if m := r.Message(); len(choices) == 1 && (len(m.Parts) != 1 || m.Parts[0] != llms.TextContent{Text: "I can't help with that."}) {
			t.Errorf("Message() = %+v", m)
		}
	}
}

func TestProviderErrorWrapsWhatItMeans(t *testing.T) {
	err := fmt.Errorf("run: %w", &model.ProviderError{Provider: "p", Model: "m", Status: 400, Message: "bad schema", Err: model.ErrOutputSchema})
	if !errors.Is(err, model.ErrOutputSchema) {
		t.Error("ErrOutputSchema not found")
	}
	if errors.Is(&model.ProviderError{Status: 400}, model.ErrOutputSchema) {
		t.Error("found in an error without it")
	}
}
