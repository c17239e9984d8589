package llmfactory_test

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/cadrehq/cadre/internal/doccheck"
	"github.com/cadrehq/cadre/pkg/llmfactory"
	"github.com/tmc/langchaingo/llms"
	"gopkg.in/yaml.v3"
)

// Every example of docs/llm-yaml.md that has providers loads, and each of its models can be
// made, its variables set: an example a reader copies works. An example without models gets
// one of each provider.
func TestDocsExamplesLoad(t *testing.T) {
	t.Parallel()
	md, err := os.ReadFile(filepath.Join("..", "..", "docs", "llm-yaml.md"))
	if err != nil {
		t.Fatal(err)
	}
	env := llmfactory.WithEnv(func(name string) (string, bool) {
		if strings.HasSuffix(name, "_URL") || strings.HasSuffix(name, "_ENDPOINT") {
			return "https://example.test/v1", true
		}
		return "value-of-" + name, true
	})
	googleai := llmfactory.WithProviderType("googleai", llmfactory.ProviderType{
		New:      func(_ llmfactory.Provider, id string) (llms.Model, error) { return idModel(id), nil },
		NeedsKey: true,
	})
	bedrock := llmfactory.WithProviderType("bedrock", llmfactory.ProviderType{
		New:      func(_ llmfactory.Provider, id string) (llms.Model, error) { return idModel(id), nil },
		Regional: true,
	})
	examples := 0
	for _, b := range doccheck.Blocks("docs/llm-yaml.md", string(md)) {
		var doc struct {
			Providers map[string]any `yaml:"providers"`
			Models    map[string]any `yaml:"models"`
		}
		if b.Lang != "yaml" || yaml.Unmarshal([]byte(b.Code), &doc) != nil || doc.Providers == nil {
			continue
		}
		examples++
		data := b.Code
		if doc.Models == nil {
			names := make([]string, 0, len(doc.Providers))
			for name := range doc.Providers {
				names = append(names, name)
			}
			sort.Strings(names)
			data += "\nmodels:\n"
			for _, name := range names {
				data += "  of-" + name + ": { provider: " + name + ", model: some-model }\n"
			}
		}
		f, err := llmfactory.Parse([]byte(data), env, googleai, bedrock)
		if err != nil {
			t.Errorf("docs/llm-yaml.md:%d: %v", b.Line, err)
			continue
		}
		if err := yaml.Unmarshal([]byte(data), &doc); err != nil {
			t.Fatal(err)
		}
		for name := range doc.Models {
			if _, err := f.Model(context.Background(), name); err != nil {
				t.Errorf("docs/llm-yaml.md:%d: model %s: %v", b.Line, name, err)
			}
		}
		f.Close()
	}
	if examples < 3 {
		t.Errorf("%d examples with providers found in docs/llm-yaml.md: are its ```yaml blocks still there?", examples)
	}
}
