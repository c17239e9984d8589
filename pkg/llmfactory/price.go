package llmfactory

import (
	"errors"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/cadrehq/cadre/internal/yamlconf"
	"github.com/cadrehq/cadre/pkg/model"
)

// Prices returns the price of each model of llm.yaml that has one (models.*.price), by model
// name: what model.Costs takes to price a usage report, without making any model's client. A
// model whose price names an unset variable has none here, as it cannot be used. The map is
// new on every call.
func (f *Factory) Prices() map[string]model.Price {
	prices := map[string]model.Price{}
	for name, spec := range f.cfg.models {
		if spec.price != nil {
			prices[name] = *spec.price
		}
	}
	return prices
}

// priceKeys are the keys of models.*.price, in the order the docs list them.
var priceKeys = []string{"input", "cache_read", "cache_write", "output"}

// maxPrice bounds each price of models.*.price, per million tokens: one unit of the currency
// per token, more than any model costs in any currency's usual unit. Past it, a value is a
// mistake (a price per token written as a count, a digit too many).
const maxPrice = 1_000_000

// price reads models.*.price, entry e at key path path: what a million tokens of each kind
// cost. A cache price it does not give is the input price; an input or output price it does
// not give is 0. It returns nil for a null price, which is as if not written; for a price with
// an error, recorded (one that gives no price at all is one); and for a price that names an
// unset variable, added to missing (the model cannot be used).
func (p *parser) price(e yamlconf.Entry, path string, missing *[]string) *model.Price {
	if n := p.Resolve(e.Val); n == nil || yamlconf.IsNull(n) {
		return nil
	}
	fields, ok := p.Entries(e.Val, path)
	if !ok {
		return nil
	}
	var given [4]*float64 // by the index of the key in priceKeys
	whole := true
	for _, f := range fields {
		fp := path + "." + f.Key
		i := slices.Index(priceKeys, f.Key)
		if i < 0 {
			p.UnknownKey(f, fp, priceKeys, "")
			whole = false
			continue
		}
		switch v, st := p.Text(f.Val, fp, missing); st {
		case yamlconf.Present:
			given[i] = p.perMillion(v)
			whole = whole && given[i] != nil
		case yamlconf.Skipped:
			whole = false
		}
	}
	if !whole {
		return nil
	}
	if given == [4]*float64{} {
		p.Errorf(e.KeyNode, path, "no price given: write at least one of %s, per million tokens, e.g. price: {input: 2.5, output: 10}",
			strings.Join(priceKeys, ", "))
		return nil
	}
	of := func(i int, def float64) float64 {
		if given[i] == nil {
			return def
		}
		return *given[i]
	}
	input := of(0, 0)
	return &model.Price{Input: input, CacheRead: of(1, input), CacheWrite: of(2, input), Output: of(3, 0)}
}

// perMillion parses v as a price per million tokens, from 0 to maxPrice; nil after recording
// an error.
func (p *parser) perMillion(v yamlconf.Value) *float64 {
	f, err := strconv.ParseFloat(v.Text, 64)
	switch {
	case err != nil && !errors.Is(err, strconv.ErrRange) || math.IsNaN(f):
		p.Errorf(v.Node, v.Path, "%s is not a number: write the price of a million tokens, e.g. 2.5", v.Quoted())
	case f < 0:
		p.Errorf(v.Node, v.Path, "%s is negative: a price is 0 or more", v.Quoted())
	case err != nil || f > maxPrice:
		p.Errorf(v.Node, v.Path, "%s is out of range (0 to %d per million tokens)", v.Quoted(), maxPrice)
	default:
		if f == 0 {
			f = 0 // not -0
		}
		return &f
	}
	return nil
}
