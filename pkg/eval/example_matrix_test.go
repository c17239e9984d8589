package eval_test

import (
	"context"
	"fmt"

	"github.com/cadrehq/cadre/pkg/assistant"
	"github.com/cadrehq/cadre/pkg/eval"
	"github.com/cadrehq/cadre/pkg/llmtest"
	"github.com/cadrehq/cadre/pkg/model"
	"github.com/cadrehq/cadre/pkg/usage"
)

// Two models answer the same dataset; the matrix tells which one to use. Here the models are
// in-process stand-ins; with llm.yaml, eval.Models(ctx, factory, "small", "large") makes the
// variants, and eval.WithPrices(factory.Prices()) prices them.
func ExampleMatrix() {
	ctx := context.Background()
	answers := func(word string) model.Model {
		return model.Describe(word, llmtest.NewFunc(func(context.Context, llmtest.Request) llmtest.Reply {
			return llmtest.Text(word)
		}))
	}
	variants := []eval.Variant{
		{Name: "small", Options: []assistant.Option{assistant.WithModels(model.Fixed(answers("Bergen")))}},
		{Name: "large", Options: []assistant.Option{assistant.WithModels(model.Fixed(answers("Oslo")))}},
	}
	oslo := "Oslo"
	d := &eval.Dataset[string, string]{
		Name:       "capitals",
		Cases:      []eval.Case[string, string]{{Name: "norway", Input: "The capital of Norway?", Expected: &oslo}},
		Evaluators: []eval.Evaluator[string]{eval.Equals[string]()},
	}
	capitals := assistant.New[string]("capitals") // each variant gives it its model
	reports, err := eval.Matrix(ctx, d, capitals, variants, eval.WithRepeat(3), eval.WithBudget(usage.Limits{MaxRequests: 10}))
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range reports {
		fmt.Printf("%s: %.0f%% of %d runs\n", r.Variant, 100*r.Summary.PassRate, r.Summary.Runs)
	}
	// Output:
	// small: 0% of 3 runs
	// large: 100% of 3 runs
}
