package model_test

import (
	"testing"

	"github.com/cadrehq/cadre/pkg/model"
	"github.com/google/go-cmp/cmp"
	"github.com/tmc/langchaingo/llms"
)

func TestFacts(t *testing.T) {
	t.Parallel()
	tests := []struct {
		provider string
		want     model.ProviderFacts
	}{
		{"openai", model.ProviderFacts{Shape: model.ShapeOpenAI, StrictTools: true, KeyVar: "OPENAI_API_KEY"}},
		{"anthropic", model.ProviderFacts{Shape: model.ShapeSafe, MaxTokens: 8192, KeyVar: "ANTHROPIC_API_KEY"}},
		{"googleai", model.ProviderFacts{Shape: model.ShapeSafe, ToolParametersAsMap: true, MaxTokens: 8192,
			MaxTokensOnClient: true, KeyVar: "GOOGLE_API_KEY"}},
		{"ollama", model.ProviderFacts{Shape: model.ShapeSafe, DropsTools: true}},
		{"bedrock", model.ProviderFacts{Shape: model.ShapeOpenAI, MaxTokens: 8192, MaxTokensOnClient: true}},
		// Unknown: what every provider accepts.
		{"", model.ProviderFacts{}},
		{"gateway", model.ProviderFacts{}},
		{"OpenAI", model.ProviderFacts{}}, // names are as Model.Provider writes them
	}
	for _, tc := range tests {
		if diff := cmp.Diff(tc.want, model.Facts(tc.provider)); diff != "" {
			t.Errorf("Facts(%q) (-want +got):\n%s", tc.provider, diff)
		}
	}
	if model.DefaultAnthropicMaxTokens != model.Facts("anthropic").MaxTokens {
		t.Errorf("DefaultAnthropicMaxTokens = %d, Facts(anthropic).MaxTokens = %d: one fact, two values",
			model.DefaultAnthropicMaxTokens, model.Facts("anthropic").MaxTokens)
	}
}

func TestFactsCallOptions(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		facts model.ProviderFacts
		want  llms.CallOptions
		none  bool
	}{
		{name: "a limit as a call option", facts: model.ProviderFacts{MaxTokens: 8192}, want: llms.CallOptions{MaxTokens: 8192}},
		{name: "a limit on the client", facts: model.ProviderFacts{MaxTokens: 8192, MaxTokensOnClient: true}, none: true},
		{name: "no limit", none: true},
	}
	for _, tc := range tests {
		opts := tc.facts.CallOptions()
		if tc.none {
			if opts != nil {
				t.Errorf("%s: %d options, want none", tc.name, len(opts))
			}
			continue
		}
		if diff := cmp.Diff(tc.want, callOptions(opts)); diff != "" {
			t.Errorf("%s: options (-want +got):\n%s", tc.name, diff)
		}
	}
}
