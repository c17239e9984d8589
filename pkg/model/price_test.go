package model_test

import (
	"math"
	"testing"

	"github.com/cadrehq/cadre/pkg/model"
	"github.com/cadrehq/cadre/pkg/usage"
	"github.com/google/go-cmp/cmp"
)

// near reports whether a cost is the one computed by hand, but for float rounding.
func near(got, want float64) bool { return math.Abs(got-want) <= 1e-12*max(1, math.Abs(want)) }

// Cost bills a usage as providers do: the cached input apart from the rest, reasoning as the
// output it is part of. The wants are computed by hand, per million tokens.
func TestPriceCost(t *testing.T) {
	t.Parallel()
	gpt := model.Price{Input: 2.5, CacheRead: 1.25, CacheWrite: 2.5, Output: 10}
	claude := model.Price{Input: 3, CacheRead: 0.3, CacheWrite: 3.75, Output: 15}
	for _, tc := range []struct {
		name  string
		price model.Price
		usage usage.Usage
		want  float64
	}{{
		name: "no cache", price: gpt,
		usage: usage.Usage{Requests: 1, InputTokens: 1000, OutputTokens: 500},
		want:  (1000*2.5 + 500*10) / 1e6, // 0.0075
	}, {
		name: "millions", price: gpt,
		usage: usage.Usage{InputTokens: 2_000_000, OutputTokens: 1_000_000},
		want:  15,
	}, {
		// OpenAI's cached tokens are inside its prompt tokens, its reasoning inside its
		// completion tokens: neither is billed twice.
		name: "cache reads and reasoning", price: gpt,
		usage: usage.Usage{Requests: 1, ToolCalls: 3, InputTokens: 10_000, CacheReadTokens: 8000, OutputTokens: 1000, ReasoningTokens: 600},
		want:  (2000*2.5 + 8000*1.25 + 1000*10) / 1e6, // 0.025
	}, {
		// As UsageOf counts Anthropic's: 50 plain input tokens, 1000 read, 300 written.
		name: "cache reads and writes", price: claude,
		usage: usage.Usage{Requests: 1, InputTokens: 1350, CacheReadTokens: 1000, CacheWriteTokens: 300, OutputTokens: 120},
		want:  (50*3 + 1000*0.3 + 300*3.75 + 120*15) / 1e6, // 0.003375
	}, {
		name: "cache counts over the input", price: claude,
		usage: usage.Usage{InputTokens: 100, CacheReadTokens: 200},
		want:  200 * 0.3 / 1e6,
	}, {
		name: "output only priced", price: model.Price{Output: 4},
		usage: usage.Usage{InputTokens: 5000, CacheReadTokens: 1000, OutputTokens: 250},
		want:  250 * 4 / 1e6,
	}, {
		name: "no usage", price: claude, want: 0,
	}, {
		name: "the zero price", usage: usage.Usage{InputTokens: 1000, OutputTokens: 1000}, want: 0,
	}} {
		if got := tc.price.Cost(tc.usage); !near(got, tc.want) {
			t.Errorf("%s: Cost = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// Costs prices each model of a report by its name, leaves out and names the models without
// a price, and adds the rest up.
func TestCosts(t *testing.T) {
	t.Parallel()
	r := usage.Report{
		Total: usage.Usage{Requests: 4, InputTokens: 13_350, CacheReadTokens: 9000, CacheWriteTokens: 300, OutputTokens: 1620},
		ByModel: map[string]usage.Usage{
			"fast":  {Requests: 2, InputTokens: 10_000, CacheReadTokens: 8000, OutputTokens: 1000},
			"deep":  {Requests: 1, InputTokens: 1350, CacheReadTokens: 1000, CacheWriteTokens: 300, OutputTokens: 120},
			"local": {Requests: 1, InputTokens: 2000, OutputTokens: 500},
		},
	}
	prices := map[string]model.Price{
		"fast":   {Input: 2.5, CacheRead: 1.25, CacheWrite: 2.5, Output: 10},
		"deep":   {Input: 3, CacheRead: 0.3, CacheWrite: 3.75, Output: 15},
		"unused": {Input: 100, Output: 100},
	}
	total, byModel, missing := model.Costs(r, prices)
	want := map[string]float64{"fast": 0.025, "deep": 0.003375}
	if diff := cmp.Diff(want, byModel, cmp.Comparer(near)); diff != "" {
		t.Errorf("byModel (-want +got):\n%s", diff)
	}
	if !near(total, 0.028375) || total != byModel["deep"]+byModel["fast"] {
		t.Errorf("total = %v, want 0.028375, the sum of the models' costs in the order of their names", total)
	}
	if diff := cmp.Diff([]string{"local"}, missing); diff != "" {
		t.Errorf("missing (-want +got):\n%s", diff)
	}

	// Every model priced: nothing missing; an empty report costs nothing.
	prices["local"] = model.Price{}
	if _, _, missing := model.Costs(r, prices); missing != nil {
		t.Errorf("missing = %v with every model priced, want nil", missing)
	}
	total, byModel, missing = model.Costs(usage.Report{}, nil)
	if total != 0 || byModel == nil || len(byModel) != 0 || missing != nil {
		t.Errorf("Costs of an empty report = %v, %v, %v; want 0, an empty map, nil", total, byModel, missing)
	}
}
