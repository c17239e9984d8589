package eval_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/cadrehq/cadre/pkg/assistant"
	"github.com/cadrehq/cadre/pkg/eval"
	"github.com/cadrehq/cadre/pkg/llmfactory"
	"github.com/cadrehq/cadre/pkg/llmtest"
	"github.com/cadrehq/cadre/pkg/model"
	"github.com/cadrehq/cadre/pkg/providertest"
	"github.com/cadrehq/cadre/pkg/usage"
	"github.com/tmc/langchaingo/llms"
)

// models is a ModelSource of in-process models, by name.
type models map[string]model.Model

func (m models) Model(_ context.Context, name string) (model.Model, error) {
	if mm, ok := m[name]; ok {
		return mm, nil
	}
	return model.Model{}, fmt.Errorf("no model %q", name)
}

// answering is a model that answers every prompt with the city of that name, of population.
func answering(population int) *llmtest.FuncModel {
	return llmtest.NewFunc(func(_ context.Context, req llmtest.Request) llmtest.Reply {
		prompt := ""
		for _, msg := range req.Messages {
			if msg.Role == llms.ChatMessageTypeHuman {
				prompt = msg.Parts[0].(llms.TextContent).Text
			}
		}
		return llmtest.Reply{ToolCalls: []llms.ToolCall{llmtest.Call("final_result", fmt.Sprintf(`{"name":%q,"population":%d}`, prompt, population))},
			Usage: usage.Usage{InputTokens: 100, OutputTokens: 10}}
	})
}

func twoCities() *eval.Dataset[string, city] {
	return &eval.Dataset[string, city]{
		Name: "cities",
		Cases: []eval.Case[string, city]{
			{Name: "oslo", Input: "Oslo", Expected: &city{Name: "Oslo", Population: 709000}},
			{Name: "bergen", Input: "Bergen", Expected: &city{Name: "Bergen", Population: 709000}},
		},
		Evaluators: []eval.Evaluator[city]{eval.Equals[city]()},
	}
}

// TestMatrixRunsEachModel: the same dataset runs over each model, each report naming its
// variant, its runs made by that model alone and priced at its price.
func TestMatrixRunsEachModel(t *testing.T) {
	t.Parallel()
	ctx := testContext(t)
	// The assistant's own model is never asked: each variant replaces it.
	own := llmtest.NewFunc(func(context.Context, llmtest.Request) llmtest.Reply {
		return llmtest.Fail(errors.New("the assistant's own model was asked"))
	})
	a := assistant.New[city]("geo", assistant.WithModel(own))
	src := models{"small": model.Describe("small", answering(1)), "large": model.Describe("large", answering(709000))}
	variants, err := eval.Models(ctx, src, "small", "large")
	if err != nil {
		t.Fatal(err)
	}
	reps, err := eval.Matrix(ctx, twoCities(), a, variants, eval.WithRepeat(2),
		eval.WithPrices(map[string]model.Price{"small": {Input: 1, Output: 1}, "large": {Input: 10, Output: 10}}))
	if err != nil {
		t.Fatal(err)
	}
	if len(reps) != 2 {
		t.Fatalf("%d reports, want one for each variant", len(reps))
	}
	small, large := reps[0], reps[1]
	if small.Variant != "small" || large.Variant != "large" || small.Subject != "geo" || small.Dataset != "cities" {
		t.Errorf("reports of variants %q and %q (subject %q)", small.Variant, large.Variant, small.Subject)
	}
	if small.Summary.Runs != 4 || small.Summary.PassRate != 0 || large.Summary.Runs != 4 || large.Summary.PassRate != 1 {
		t.Errorf("pass rates: small %v of %d runs, large %v of %d", small.Summary.PassRate, small.Summary.Runs, large.Summary.PassRate, large.Summary.Runs)
	}
	for _, rep := range reps {
		for _, c := range rep.Cases {
			for _, run := range c.Runs {
				if run.Model != rep.Variant || run.Error != "" {
					t.Errorf("%s, %s: a run by %q (error %q)", rep.Variant, c.Name, run.Model, run.Error)
				}
			}
		}
	}
	if !small.Summary.CostKnown || !large.Summary.CostKnown || large.Summary.Cost != 10*small.Summary.Cost || small.Summary.Cost != 4*110/1e6 {
		t.Errorf("costs: small %v, large %v", small.Summary.Cost, large.Summary.Cost)
	}
}

// TestMatrixSharesOneBudget: WithBudget bounds the matrix as a whole: the second variant gets
// what the first left, and the variants after the one that spent it do not run.
func TestMatrixSharesOneBudget(t *testing.T) {
	t.Parallel()
	ctx := testContext(t)
	a := assistant.New[city]("geo", assistant.WithModel(answering(709000)))
	variants := []eval.Variant{{Name: "first"}, {Name: "second"}, {Name: "third"}}
	// Each run is one request: the first variant's two runs and one of the second's fit.
	reps, err := eval.Matrix(ctx, twoCities(), a, variants, eval.WithConcurrency(1), eval.WithBudget(usage.Limits{MaxRequests: 3}))
	var le *usage.LimitError
	if !errors.As(err, &le) {
		t.Fatalf("err %v, want a *usage.LimitError", err)
	}
	if len(reps) != 2 {
		t.Fatalf("%d reports, want the first variant's and the second's, cut short", len(reps))
	}
	first, second := reps[0], reps[1]
	if first.Stopped != "" || first.Summary.Runs != 2 || first.Summary.Passes != 2 {
		t.Errorf("first variant: %d runs, %d passes, stopped %q", first.Summary.Runs, first.Summary.Passes, first.Stopped)
	}
	if second.Stopped == "" || second.Summary.Usage.Requests != 1 || second.Cases[0].Passes != 1 || second.Cases[1].Passes != 0 {
		t.Errorf("second variant: %d requests, stopped %q, cases %+v", second.Summary.Usage.Requests, second.Stopped, second.Cases)
	}
}

// TestMatrixRefusesBadVariants: a matrix of no variant, of a variant without a name or of two
// of one name does not run.
func TestMatrixRefusesBadVariants(t *testing.T) {
	t.Parallel()
	a := assistant.New[city]("geo", assistant.WithModel(answering(1)))
	for _, tc := range []struct {
		variants []eval.Variant
		want     string
	}{
		{nil, "no variant"},
		{[]eval.Variant{{Name: "a"}, {}}, "variant 2 has no name"},
		{[]eval.Variant{{Name: "a"}, {Name: "a"}}, `two variants are named "a"`},
	} {
		reps, err := eval.Matrix(testContext(t), twoCities(), a, tc.variants)
		if err == nil || !strings.Contains(err.Error(), tc.want) || reps != nil {
			t.Errorf("Matrix(%v) = %v, %v: want no report and an error saying %q", tc.variants, reps, err, tc.want)
		}
	}
	if _, err := eval.Models(testContext(t), models{}, "huge"); err == nil || !strings.Contains(err.Error(), `model "huge"`) {
		t.Errorf("Models of an unknown name: %v", err)
	}
}

var _ eval.ModelSource = (*llmfactory.Factory)(nil)

// TestMatrixOfLLMYAML: the variants of Models are llm.yaml's models, each through its
// provider's API (a fake), priced by the file's prices.
func TestMatrixOfLLMYAML(t *testing.T) {
	t.Parallel()
	ctx := testContext(t)
	small, large := providertest.NewOpenAI(answering(1)), providertest.NewOpenAI(answering(709000))
	defer small.Close()
	defer large.Close()
	f, err := llmfactory.Parse([]byte(fmt.Sprintf(`
providers:
  openai: {api_key: k, base_url: '%s/v1'}
  other: {type: openai, api_key: k, base_url: '%s/v1'}
models:
  small: {provider: openai, model: gpt-4o-mini, price: {input: 1, output: 1}}
  large: {provider: other, model: gpt-4o, price: {input: 10, output: 10}}
default: small
`, small.URL(), large.URL())))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	variants, err := eval.Models(ctx, f, "small", "large")
	if err != nil {
		t.Fatal(err)
	}
	a := assistant.New[city]("geo", assistant.WithModels(f))
	reps, err := eval.Matrix(ctx, twoCities(), a, variants, eval.WithPrices(f.Prices()))
	if err != nil {
		t.Fatal(err)
	}
	if reps[0].Variant != "small" || reps[0].Summary.PassRate != 0 || reps[1].Variant != "large" || reps[1].Summary.PassRate != 1 {
		t.Errorf("small %q passes %v, large %q passes %v", reps[0].Variant, reps[0].Summary.PassRate, reps[1].Variant, reps[1].Summary.PassRate)
	}
	if small.Attempts() != 2 || large.Attempts() != 2 {
		t.Errorf("the APIs had %d and %d requests, want 2 each", small.Attempts(), large.Attempts())
	}
	if !reps[0].Summary.CostKnown || reps[1].Summary.Cost != 10*reps[0].Summary.Cost || reps[0].Summary.Cost == 0 {
		t.Errorf("costs: small %v, large %v", reps[0].Summary.Cost, reps[1].Summary.Cost)
	}
}
