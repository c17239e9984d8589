package model_test

import (
	"testing"

	"github.com/cadrehq/cadre/pkg/model"
	"github.com/cadrehq/cadre/pkg/usage"
	"github.com/google/go-cmp/cmp"
)

func TestUsageOf(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		info map[string]any
		want usage.Usage
	}{
		{
			// As langchaingo's openai client writes it: PromptTokens holds the cached tokens
			// and CompletionTokens the reasoning ones; the reasoning count appears three times.
			name: "openai",
			info: map[string]any{
				"CompletionTokens":                   50,
				"PromptTokens":                       100,
				"TotalTokens":                        150,
				"ReasoningTokens":                    20,
				"PromptAudioTokens":                  0,
				"ThinkingContent":                    "",
				"ThinkingTokens":                     20,
				"PromptCachedTokens":                 40,
				"CompletionAudioTokens":              0,
				"CompletionReasoningTokens":          20,
				"CompletionAcceptedPredictionTokens": 0,
				"CompletionRejectedPredictionTokens": 0,
			},
			want: usage.Usage{InputTokens: 100, OutputTokens: 50, CacheReadTokens: 40, ReasoningTokens: 20},
		},
		{
			// Anthropic counts cache reads and writes outside InputTokens; they are added.
			name: "anthropic",
			info: map[string]any{
				"InputTokens":              10,
				"OutputTokens":             7,
				"CacheCreationInputTokens": 30,
				"CacheReadInputTokens":     100,
				"ThinkingContent":          "",
				"OutputContent":            "hi",
			},
			want: usage.Usage{InputTokens: 140, OutputTokens: 7, CacheReadTokens: 100, CacheWriteTokens: 30},
		},
		{
			name: "anthropic without cache",
			info: map[string]any{"InputTokens": 12, "OutputTokens": 3, "CacheCreationInputTokens": 0, "CacheReadInputTokens": 0},
			want: usage.Usage{InputTokens: 12, OutputTokens: 3},
		},
		{
			// Ollama behind its OpenAI-compatible API, through the openai client.
			name: "ollama through openai",
			info: map[string]any{
				"CompletionTokens":          9,
				"PromptTokens":              31,
				"TotalTokens":               40,
				"ReasoningTokens":           0,
				"ThinkingTokens":            0,
				"PromptCachedTokens":        0,
				"CompletionReasoningTokens": 0,
			},
			want: usage.Usage{InputTokens: 31, OutputTokens: 9},
		},
		{
			name: "ollama native",
			info: map[string]any{
				"CompletionTokens": 9,
				"PromptTokens":     31,
				"TotalTokens":      40,
				"ThinkingContent":  "",
				"ThinkingTokens":   0,
				"CachedTokens":     0,
				"CacheHit":         false,
			},
			want: usage.Usage{InputTokens: 31, OutputTokens: 9},
		},
		{
			// googleai writes its counts as int32, under two sets of names, and the cached
			// tokens under two names; they are already inside the prompt count.
			name: "googleai",
			info: map[string]any{
				"input_tokens":         int32(120),
				"output_tokens":        int32(30),
				"total_tokens":         int32(150),
				"PromptTokens":         int32(120),
				"CompletionTokens":     int32(30),
				"TotalTokens":          int32(150),
				"CachedTokens":         int32(80),
				"CacheReadInputTokens": int32(80),
				"NonCachedInputTokens": int32(40),
				"ThinkingContent":      "",
				"ThinkingTokens":       0,
			},
			want: usage.Usage{InputTokens: 120, OutputTokens: 30, CacheReadTokens: 80},
		},
		{
			name: "googleai without cache",
			info: map[string]any{
				"input_tokens":     int32(5),
				"output_tokens":    int32(2),
				"total_tokens":     int32(7),
				"PromptTokens":     int32(5),
				"CompletionTokens": int32(2),
				"TotalTokens":      int32(7),
				"ThinkingTokens":   0,
			},
			want: usage.Usage{InputTokens: 5, OutputTokens: 2},
		},
		{
			// A GenerationInfo that went through encoding/json holds float64s.
			name: "decoded from JSON",
			info: map[string]any{"PromptTokens": float64(8), "CompletionTokens": float64(4), "PromptCachedTokens": float64(2)},
			want: usage.Usage{InputTokens: 8, OutputTokens: 4, CacheReadTokens: 2},
		},
		{
			name: "int64",
			info: map[string]any{"InputTokens": int64(8), "OutputTokens": int64(4)},
			want: usage.Usage{InputTokens: 8, OutputTokens: 4},
		},
		{name: "nil", info: nil},
		{name: "no usage", info: map[string]any{"ThinkingContent": ""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := model.UsageOf(tt.info)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("UsageOf mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestUsageOfLowercaseKeys(t *testing.T) {
	// langchaingo's vertex and bedrock clients write only these keys.
	got := model.UsageOf(map[string]any{"input_tokens": int32(120), "output_tokens": int32(30)})
	if got.InputTokens != 120 || got.OutputTokens != 30 {
		t.Errorf("UsageOf = %+v, want 120 input and 30 output tokens", got)
	}
}
