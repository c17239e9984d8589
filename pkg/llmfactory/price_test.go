package llmfactory

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cadrehq/cadre/pkg/model"
	"github.com/google/go-cmp/cmp"
)

// A model's price key gives its prices per million tokens; a cache price it leaves out is the
// input price, and a price written as 0 is 0.
func TestParseConfigPrice(t *testing.T) {
	t.Parallel()
	cfg := mustParse(t, doc(
		"providers: {openai: {}, claude: {type: anthropic}}",
		"x-std: &std {input: 3, output: 15}",
		"models:",
		"  full:",
		"    provider: openai",
		"    model: m",
		"    price: {input: 2.5, cache_read: 0.25, cache_write: 3.125, output: 10}",
		"  plain: {provider: claude, model: m, price: {input: 3, output: 15}}",
		"  free-reads: {provider: claude, model: m, price: {input: 3, cache_read: 0, output: 15}}",
		"  output-only: {provider: openai, model: m, price: {output: 4}}",
		"  written: {provider: openai, model: m, price: {input: '1.5', cache_read: 15e-2, cache_write: ~, output: '${OUT_PRICE:-6}'}}",
		"  shared: {provider: claude, model: m, price: *std}",
		"  merged: {provider: claude, model: m, price: {<<: *std, cache_write: 3.75}}",
		"  zero: {provider: openai, model: m, price: {input: 0, output: -0}}",
		"  unpriced: {provider: openai, model: m, price: ~}",
		"  silent: {provider: openai, model: m}",
	), nil)
	want := map[string]*model.Price{
		"full":        {Input: 2.5, CacheRead: 0.25, CacheWrite: 3.125, Output: 10},
		"plain":       {Input: 3, CacheRead: 3, CacheWrite: 3, Output: 15},
		"free-reads":  {Input: 3, CacheRead: 0, CacheWrite: 3, Output: 15},
		"output-only": {Output: 4},
		"written":     {Input: 1.5, CacheRead: 0.15, CacheWrite: 1.5, Output: 6},
		"shared":      {Input: 3, CacheRead: 3, CacheWrite: 3, Output: 15},
		"merged":      {Input: 3, CacheRead: 3, CacheWrite: 3.75, Output: 15},
		"zero":        {},
		"unpriced":    nil,
		"silent":      nil,
	}
	got := map[string]*model.Price{}
	for name, m := range cfg.models {
		got[name] = m.price
		if len(m.missing) != 0 {
			t.Errorf("model %s: missing %v", name, m.missing)
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("prices (-want +got):\n%s", diff)
	}
	if p := cfg.models["zero"].price; p != nil && (1/p.Output) < 0 {
		t.Errorf("output: -0 read as -0, want 0")
	}
}

// Prices gives the price of every model that has one, without making a client; a model whose
// price names an unset variable has none, and cannot be used.
func TestPrices(t *testing.T) {
	t.Parallel()
	f, err := Parse([]byte(doc(
		"providers: {openai: {api_key: k}, claude: {type: anthropic, api_key: k}}",
		"models:",
		"  fast: {provider: openai, model: gpt-5-mini, price: {input: 0.25, cache_read: 0.025, output: 2}}",
		"  deep: {provider: claude, model: claude-sonnet-4-6, price: {input: 3, cache_read: 0.3, cache_write: 3.75, output: 15}}",
		"  local: {provider: openai, model: qwen}",
		"  later:",
		"    provider: openai",
		"    model: m",
		"    price: {input: '${LATER_PRICE}', output: 1}",
	)), WithEnv(envOf(nil)))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]model.Price{
		"fast": {Input: 0.25, CacheRead: 0.025, CacheWrite: 0.25, Output: 2},
		"deep": {Input: 3, CacheRead: 0.3, CacheWrite: 3.75, Output: 15},
	}
	prices := f.Prices()
	if diff := cmp.Diff(want, prices); diff != "" {
		t.Errorf("Prices (-want +got):\n%s", diff)
	}
	if len(f.clients) != 0 {
		t.Errorf("Prices made %d clients, want none", len(f.clients))
	}
	prices["fast"] = model.Price{}
	if got := f.Prices()["fast"]; got != want["fast"] {
		t.Errorf("a change to the map Prices returned changed the factory's price: %+v", got)
	}
	if _, err := f.Model(context.Background(), "later"); err == nil || !strings.Contains(err.Error(), "LATER_PRICE") {
		t.Errorf("model later: err = %v, want one naming the unset LATER_PRICE", err)
	}

	// A factory model carries its price, a copy of the factory's own; one without has nil.
	for name, p := range want {
		m, err := f.Model(context.Background(), name)
		if err != nil {
			t.Fatal(err)
		}
		if m.Price == nil || *m.Price != p {
			t.Errorf("model %s: Price %v, want %+v", name, m.Price, p)
			continue
		}
		*m.Price = model.Price{}
		if got := f.Prices()[name]; got != p {
			t.Errorf("a change to model %s's Price changed the factory's: %+v", name, got)
		}
	}
	if m, err := f.Model(context.Background(), "local"); err != nil || m.Price != nil {
		t.Errorf("model local: Price %v, err %v; want nil, no error", m.Price, err)
	}
	f.Close()
}

// The prices llm.yaml.example shows in comments are right once uncommented.
func TestExamplePrices(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(filepath.Join("..", "..", "llm.yaml.example"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(data), "\n")
	uncommented := 0
	for i, inPrice := 0, false; i < len(lines); i++ {
		body := strings.TrimLeft(lines[i], " ")
		indent := lines[i][:len(lines[i])-len(body)]
		switch {
		case strings.HasPrefix(body, "# price:"):
			inPrice = true
		case inPrice && strings.HasPrefix(body, "#   "):
		default:
			inPrice = false
			continue
		}
		lines[i] = indent + strings.TrimPrefix(body, "# ")
		uncommented++
	}
	if uncommented < 2 {
		t.Fatalf("%d price lines found in llm.yaml.example; want its commented prices", uncommented)
	}
	cfg, err := parseConfig([]byte(strings.Join(lines, "\n")), "llm.yaml.example", envOf(nil), builtinTypes())
	if err != nil {
		t.Fatalf("llm.yaml.example with its prices uncommented: %v", err)
	}
	want := map[string]*model.Price{
		"fast": {Input: 0.25, CacheRead: 0.025, CacheWrite: 0.25, Output: 2},
		"deep": {Input: 3, CacheRead: 0.3, CacheWrite: 3.75, Output: 15},
	}
	got := map[string]*model.Price{}
	for name, m := range cfg.models {
		if m.price != nil {
			got[name] = m.price
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("prices (-want +got):\n%s", diff)
	}
}
