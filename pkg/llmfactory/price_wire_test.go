package llmfactory_test

import (
	"math"
	"testing"

	"github.com/cadrehq/cadre/pkg/assistant"
	"github.com/cadrehq/cadre/pkg/llmtest"
	"github.com/cadrehq/cadre/pkg/model"
	"github.com/cadrehq/cadre/pkg/usage"
	"github.com/google/go-cmp/cmp"
	"github.com/tmc/langchaingo/llms"
)

// Runs on the factory's models, over the fake OpenAI and Anthropic servers, cost what their
// llm.yaml prices say, cache reads and writes included: the usage the clients report and the
// prices agree on what the input tokens hold. Each resolved model carries its price; a model
// without one is named as missing.
func TestRunsCostWhatTheirPricesSay(t *testing.T) {
	t.Parallel()
	oa := llmtest.NewScripted(llmtest.Reply{Text: "About 709,000.",
		Usage: usage.Usage{InputTokens: 1000, CacheReadTokens: 800, OutputTokens: 300, ReasoningTokens: 200}})
	an := llmtest.NewScripted(llmtest.Reply{Response: &llms.ContentResponse{Choices: []*llms.ContentChoice{{
		Content: "About 709,000.",
		GenerationInfo: map[string]any{"InputTokens": 50, "OutputTokens": 120,
			"CacheReadInputTokens": 1000, "CacheCreationInputTokens": 300},
	}}}})
	local := llmtest.NewScripted(llmtest.Reply{Text: "About 709,000.", Usage: usage.Usage{InputTokens: 400, OutputTokens: 40}})
	s := start(t, oa, an, local)
	f := s.parse(t, nil, "", `  gpt:    { provider: oa, model: gpt-test, price: { input: 1.25, cache_read: 0.125, output: 10 } }
  claude: { provider: an, model: claude-test, price: { input: 3, cache_read: 0.3, cache_write: 3.75, output: 15 } }
`, "assistants: { a: gpt, b: claude, c: small }\n")
	defer f.Close()

	wantPrices := map[string]model.Price{
		"gpt":    {Input: 1.25, CacheRead: 0.125, CacheWrite: 1.25, Output: 10},
		"claude": {Input: 3, CacheRead: 0.3, CacheWrite: 3.75, Output: 15},
	}
	for name, want := range wantPrices {
		m, err := f.Model(ctx(t), name)
		if err != nil {
			t.Fatal(err)
		}
		if m.Price == nil || *m.Price != want {
			t.Errorf("model %s: Price %v, want %+v", name, m.Price, want)
		}
	}

	ledger := usage.NewLedger(usage.Limits{})
	c := usage.WithLedger(ctx(t), ledger)
	for _, name := range []string{"a", "b", "c"} {
		if _, err := assistant.New[string](name, assistant.WithModels(f)).Run(c, assistant.Input{Prompt: "How many people live in Oslo?"}); err != nil {
			t.Fatalf("assistant %s: %v", name, err)
		}
	}
	total, byModel, missing := model.Costs(ledger.Report(), f.Prices())
	want := map[string]float64{
		"gpt":    (200*1.25 + 800*0.125 + 300*10) / 1e6,       // 0.00335
		"claude": (50*3 + 1000*0.3 + 300*3.75 + 120*15) / 1e6, // 0.003375
	}
	near := cmp.Comparer(func(a, b float64) bool { return math.Abs(a-b) <= 1e-12 })
	if diff := cmp.Diff(want, byModel, near); diff != "" {
		t.Errorf("cost by model (-want +got):\n%s", diff)
	}
	if math.Abs(total-0.006725) > 1e-12 {
		t.Errorf("total = %v, want 0.006725", total)
	}
	if diff := cmp.Diff([]string{"small"}, missing); diff != "" {
		t.Errorf("models without a price (-want +got):\n%s", diff)
	}
}
