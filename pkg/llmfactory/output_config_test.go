package llmfactory_test

import (
	"context"
	"strings"
	"testing"

	"github.com/cadrehq/cadre/pkg/llmfactory"
	"github.com/cadrehq/cadre/pkg/model"
	"github.com/tmc/langchaingo/llms"
)

// plainType is a provider type without an API: its client writes no output schema.
func plainType() llmfactory.Option {
	return llmfactory.WithProviderType("plain", llmfactory.ProviderType{
		New:      func(_ llmfactory.Provider, id string) (llms.Model, error) { return idModel(id), nil },
		Provider: "openai", // named after a provider of the table, whose models it may serve
	})
}

// A model's Output: its output key when it has one, else native where its client writes a
// schema and the table knows the model takes one, else unknown.
func TestModelOutputForm(t *testing.T) {
	t.Parallel()
	const data = `
providers:
  openai:    { api_key: k }
  elsewhere: { type: openai, base_url: 'http://localhost:9999/v1' }
  claude:    { type: anthropic, api_key: k }
  az:        { type: azure, api_key: k, base_url: 'https://x.openai.azure.com', api_version: 2024-10-21 }
  mistral:   { api_key: k }
  groq:      { api_key: k }
  ollama:    {}
  deepseek:  { api_key: k }
  plain:     { type: plain }
models:
  gpt4o:      { provider: openai, model: gpt-4o }
  gpt4o-may:  { provider: openai, model: gpt-4o-2024-05-13 }
  gpt35:      { provider: openai, model: gpt-3.5-turbo }
  gpt35-tool: { provider: openai, model: gpt-3.5-turbo, output: tool }
  gpt5-told:  { provider: openai, model: gpt-5, output: prompted }
  copy:       { provider: elsewhere, model: gpt-4o }
  copy-told:  { provider: elsewhere, model: my-model, output: native }
  sonnet:     { provider: claude, model: claude-sonnet-4-5 }
  haiku3:     { provider: claude, model: claude-3-haiku-20240307 }
  deploy:     { provider: az, model: gpt-4.1 }
  mydeploy:   { provider: az, model: prod-chat }
  mydeploy-n: { provider: az, model: prod-chat, output: native }
  small:      { provider: mistral, model: mistral-small-latest }
  oss:        { provider: groq, model: openai/gpt-oss-20b }
  llama3:     { provider: groq, model: llama-3.1-8b-instant }
  qwen:       { provider: ollama, model: 'qwen3:8b' }
  ds:         { provider: deepseek, model: deepseek-chat }
  plain4o:    { provider: plain, model: gpt-4o }
  plain-tool: { provider: plain, model: gpt-4o, output: tool }
`
	f, err := llmfactory.Parse([]byte(data), plainType())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	for name, want := range map[string]model.OutputForm{
		"gpt4o": model.NativeOutput, "gpt4o-may": model.OutputUnknown, "gpt35": model.OutputUnknown,
		"gpt35-tool": model.ToolOutput, "gpt5-told": model.PromptedOutput,
		// A server copying OpenAI's API serves models the table does not describe.
		"copy": model.OutputUnknown, "copy-told": model.NativeOutput,
		"sonnet": model.NativeOutput, "haiku3": model.OutputUnknown,
		"deploy": model.NativeOutput, "mydeploy": model.OutputUnknown, "mydeploy-n": model.NativeOutput,
		"small": model.NativeOutput, "oss": model.NativeOutput, "llama3": model.OutputUnknown,
		"qwen": model.NativeOutput, "ds": model.OutputUnknown,
		// A type whose client writes no schema is never native by the table.
		"plain4o": model.OutputUnknown, "plain-tool": model.ToolOutput,
	} {
		m, err := f.Model(context.Background(), name)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if m.Output != want {
			t.Errorf("%s (%s of %s): Output = %q; want %q", name, m.ID, m.Provider, m.Output, want)
		}
	}
}

// The output key's mistakes are errors that name the line and the key.
func TestOutputKeyErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, data string
		want       []string
	}{
		{"not a form", "providers:\n  openai: { api_key: k }\nmodels:\n  m:\n    provider: openai\n    model: gpt-4o\n    output: natve\n",
			[]string{`llm.yaml:7: models.m.output: "natve" is not an output form: use native, tool or prompted`}},
		{"native for a type that writes no schema", "providers:\n  p: { type: plain }\nmodels:\n  m: { provider: p, model: x, output: native }\n",
			[]string{"llm.yaml:4: models.m.output: native output needs a client that writes the output schema into its requests (types: anthropic, azure,",
				`provider "p" is of type plain: use tool or prompted`}},
	} {
		_, err := llmfactory.Parse([]byte(tc.data), plainType())
		for _, want := range tc.want {
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("%s: err = %v\nwant one saying %q", tc.name, err, want)
			}
		}
	}
}
