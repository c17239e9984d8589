package model

import (
	"slices"

	"github.com/cadrehq/cadre/pkg/usage"
)

// Price is what a model's tokens cost, per million tokens of each kind, in the currency its
// prices are written in: llm.yaml's are usually US dollars, and cadre never converts. Each
// field is the price itself, with nothing inferred: a Price of the llm.yaml factory has its
// cache prices filled in (a cache price the file does not give is the input price). The zero
// Price makes every usage free.
type Price struct {
	Input      float64 // input tokens neither read from nor written to a prompt cache
	CacheRead  float64 // input tokens read from the provider's prompt cache
	CacheWrite float64 // input tokens written to the provider's prompt cache
	Output     float64 // output tokens, reasoning included
}

// Cost returns what u costs at p, as providers bill a usage: u.InputTokens count the cache
// reads and writes (see UsageOf), so the input billed at p.Input is InputTokens less
// CacheReadTokens and CacheWriteTokens; the cache reads are billed at p.CacheRead, the writes
// at p.CacheWrite, and OutputTokens, which hold the reasoning tokens, at p.Output.
// ReasoningTokens, Requests and ToolCalls add nothing. A usage whose cache counts exceed its
// input tokens (one made by hand) bills no plain input, never a negative amount.
//
// The cost is as exact as the usage the provider reported: a client that reports no cache
// tokens has them billed at p.Input, and one that leaves reasoning out of its output tokens
// (langchaingo's googleai client leaves Gemini's thinking out) has it billed at nothing.
func (p Price) Cost(u usage.Usage) float64 {
	plain := max(u.InputTokens-u.CacheReadTokens-u.CacheWriteTokens, 0)
	perMillion := float64(plain)*p.Input +
		float64(u.CacheReadTokens)*p.CacheRead +
		float64(u.CacheWriteTokens)*p.CacheWrite +
		float64(u.OutputTokens)*p.Output
	return perMillion / 1e6
}

// Costs prices a usage report by model, with prices by model name (as llmfactory's
// Factory.Prices gives them). byModel holds the cost of each model of r.ByModel that prices
// has a price for (Price.Cost of its usage); total is their sum, added in the order of the
// models' names, so that one report always costs the same to the last bit; missing names the
// models of r.ByModel that prices has none for, sorted, whose usage total leaves out. byModel
// is new on every call and never nil; missing is nil when every model has a price.
func Costs(r usage.Report, prices map[string]Price) (total float64, byModel map[string]float64, missing []string) {
	names := make([]string, 0, len(r.ByModel))
	for name := range r.ByModel {
		names = append(names, name)
	}
	slices.Sort(names)
	byModel = make(map[string]float64, len(names))
	for _, name := range names {
		p, ok := prices[name]
		if !ok {
			missing = append(missing, name)
			continue
		}
		c := p.Cost(r.ByModel[name])
		byModel[name] = c
		total += c
	}
	return total, byModel, missing
}
