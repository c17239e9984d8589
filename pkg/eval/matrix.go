package eval

import (
	"context"
	"fmt"
	"slices"

	"github.com/cadrehq/cadre/pkg/assistant"
	"github.com/cadrehq/cadre/pkg/model"
)

// Variant is one way to run the assistant in a Matrix: a name for its report (Report.Variant)
// and the options each of its runs gets, after WithRunOptions'.
type Variant struct {
	Name    string
	Options []assistant.Option
}

// Matrix runs the eval of d through r once for each variant, in the order given, and returns
// their reports in that order, each with its Variant. Every variant's runs get WithRunOptions'
// options, then the variant's, so a variant's model (assistant.WithModels) replaces the
// assistant's own. The options of Evaluate hold for each variant; WithBudget bounds the whole
// matrix, every variant's runs and judges, in one ledger: once it is spent, Matrix returns the
// reports of the variants run so far, the last one cut short, with the *usage.LimitError. So
// does a cancellation of ctx, with its cause. A variant without a name, two of one name, or no
// variant at all is an error, without a report.
func Matrix[I, O any](ctx context.Context, d *Dataset[I, O], r assistant.Runner[O], variants []Variant, opts ...Option) ([]*Report, error) {
	if len(variants) == 0 {
		return nil, fmt.Errorf("eval: dataset %q: a matrix of no variant", d.Name)
	}
	names := map[string]bool{}
	for i, v := range variants {
		if v.Name == "" {
			return nil, fmt.Errorf("eval: dataset %q: variant %d has no name", d.Name, i+1)
		}
		if names[v.Name] {
			return nil, fmt.Errorf("eval: dataset %q: two variants are named %q", d.Name, v.Name)
		}
		names[v.Name] = true
	}
	cfg, inputs, err := prepare(d, opts)
	if err != nil {
		return nil, err
	}
	ctx = cfg.withBudget(ctx)
	reports := make([]*Report, 0, len(variants))
	for _, v := range variants {
		vc := *cfg
		vc.variant = v.Name
		vc.options = append(slices.Clip(cfg.options), v.Options...)
		rep, err := evaluate(ctx, d, r, inputs, &vc)
		reports = append(reports, rep)
		if err != nil {
			return reports, err
		}
	}
	return reports, nil
}

// ModelSource gives a model by its name; *llmfactory.Factory is one (Factory.Model).
type ModelSource interface {
	Model(ctx context.Context, name string) (model.Model, error)
}

// Models returns one variant for each model name, named after it, whose runs use that model
// alone (assistant.WithModels(model.Fixed(m))). The models come from src — an
// *llmfactory.Factory gives those of llm.yaml —, each made now: a name src does not know is an
// error. To price the runs, give WithPrices the factory's prices (Factory.Prices).
func Models(ctx context.Context, src ModelSource, names ...string) ([]Variant, error) {
	variants := make([]Variant, 0, len(names))
	for _, name := range names {
		m, err := src.Model(ctx, name)
		if err != nil {
			return nil, fmt.Errorf("eval: model %q: %w", name, err)
		}
		variants = append(variants, Variant{Name: name, Options: []assistant.Option{assistant.WithModels(model.Fixed(m))}})
	}
	return variants, nil
}
