package llmtest_test

import (
	"context"
	"testing"

	"github.com/cadrehq/cadre/pkg/assistant"
	"github.com/cadrehq/cadre/pkg/llmtest"
	"github.com/tmc/langchaingo/llms"
)

// TestModelNames: an llmtest model given to assistant.WithModel is named by its kind, in the
// result and in the usage report, so that a test's progress lines, errors and usage keys say
// which stand-in answered.
func TestModelNames(t *testing.T) {
	t.Parallel()
	tests := []struct {
		want string
		llm  llms.Model
	}{
		{"scripted", llmtest.NewScripted(llmtest.Text("Done."))},
		{"func", llmtest.NewFunc(func(context.Context, llmtest.Request) llmtest.Reply { return llmtest.Text("Done.") })},
		{"synthetic", llmtest.NewSynthetic(llmtest.WithText("Done."))},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			t.Parallel()
			a := assistant.New[string]("writer", assistant.WithModel(tt.llm))
			res, err := a.Run(context.Background(), assistant.Input{Prompt: "Write."})
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			if res.Model != tt.want {
				t.Errorf("Model = %q; want %q", res.Model, tt.want)
			}
			if _, ok := res.Usage.ByModel[tt.want]; !ok || len(res.Usage.ByModel) != 1 {
				t.Errorf("Usage.ByModel = %v; want one entry, %q", res.Usage.ByModel, tt.want)
			}
		})
	}
}
