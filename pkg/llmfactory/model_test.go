package llmfactory_test

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/cadrehq/cadre/pkg/llmfactory"
	"github.com/cadrehq/cadre/pkg/model"
	"github.com/google/go-cmp/cmp"
	"github.com/tmc/langchaingo/llms"
)

// A resolved model carries the provider's id of it, its provider and the provider's facts.
// No request is sent: clients are made, not used.
func TestResolvedModelsCarryTheirIDAndFacts(t *testing.T) {
	t.Parallel()
	doc := `
providers:
  openai: { api_key: k }
  proxy: { type: openai, base_url: 'http://127.0.0.1:9/v1' }
  eu: { type: openai, api_key: k, base_url: 'https://eu.api.openai.com/v1' }
  claude: { type: anthropic, api_key: k }
  local: { type: ollama }
  gateway: { type: gateway, api_key: k }
models:
  fast:   { provider: openai, model: gpt-5-mini }
  served: { provider: proxy, model: qwen3-32b }
  resident: { provider: eu, model: gpt-5-mini }
  deep:   { provider: claude, model: claude-sonnet-4-6 }
  short:  { provider: claude, model: claude-haiku-4-5, max_tokens: 100 }
  small:  { provider: local, model: 'qwen3:8b' }
  mine:   { provider: gateway, model: house-model }
assistants:
  all: [fast, served, resident, deep, short, small, mine]
`
	gateway := llmfactory.ProviderType{
		New: func(p llmfactory.Provider, id string) (llms.Model, error) { return idModel(id), nil },
	}
	f, err := llmfactory.Parse([]byte(doc), llmfactory.WithProviderType("gateway", gateway))
	if err != nil {
		t.Fatal(err)
	}
	chain, err := f.Resolve(context.Background(), "all")
	if err != nil {
		t.Fatal(err)
	}
	type facts struct {
		Name, ID, Provider   string
		Shape                model.Shape
		NoTools, StrictTools bool
		MaxTokens            int // from the default call options; 0 when none
	}
	var got []facts
	for _, m := range chain {
		var o llms.CallOptions
		for _, opt := range m.Options {
			opt(&o)
		}
		got = append(got, facts{m.Name, m.ID, m.Provider, m.Shape, m.NoTools, m.StrictTools, o.MaxTokens})
	}
	want := []facts{
		// OpenAI itself: strict tool schemas.
		{Name: "fast", ID: "gpt-5-mini", Provider: "openai", Shape: model.ShapeOpenAI, StrictTools: true},
		// A server that copies OpenAI's API: its shape, but not its strict schemas.
		{Name: "served", ID: "qwen3-32b", Provider: "openai", Shape: model.ShapeOpenAI},
		// OpenAI at an address of its data residency (eu.api.openai.com) is OpenAI itself.
		{Name: "resident", ID: "gpt-5-mini", Provider: "openai", Shape: model.ShapeOpenAI, StrictTools: true},
		// anthropic: a longer default answer than its client's 2048 tokens, unless the file sets one.
		{Name: "deep", ID: "claude-sonnet-4-6", Provider: "anthropic", Shape: model.ShapeSafe,
			MaxTokens: model.Facts("anthropic").MaxTokens},
		{Name: "short", ID: "claude-haiku-4-5", Provider: "anthropic", Shape: model.ShapeSafe, MaxTokens: 100},
		// ollama through the openai client: tools, and OpenAI's shape.
		{Name: "small", ID: "qwen3:8b", Provider: "ollama", Shape: model.ShapeOpenAI},
		// A type of the program's own: what its ProviderType says.
		{Name: "mine", ID: "house-model", Provider: "gateway", Shape: model.ShapeSafe},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("resolved models (-want +got):\n%s", diff)
	}
}

// A provider with no api_key, where its type needs one, is an error that suggests the
// variable the key usually sits in.
func TestMissingKeySuggestsTheProvidersVariable(t *testing.T) {
	t.Parallel()
	needsKey := llmfactory.ProviderType{
		New:      func(p llmfactory.Provider, id string) (llms.Model, error) { return idModel(id), nil },
		NeedsKey: true,
	}
	asOpenAI := needsKey
	asOpenAI.Provider = "openai"
	asGoogle := needsKey
	asGoogle.Provider = "googleai"
	tests := []struct {
		name, provider, want string
	}{
		{"openai itself", "{ type: openai }", "${OPENAI_API_KEY}"},
		{"openai at a regional address", "{ type: openai, base_url: 'https://eu.api.openai.com/v1' }", "${OPENAI_API_KEY}"},
		{"anthropic", "{ type: anthropic }", "${ANTHROPIC_API_KEY}"},
		{"googleai", "{ type: googleai }", "${GOOGLE_API_KEY}"},
		{"a type of its own", "{ type: gateway }", "${GATEWAY_API_KEY}"},
		// Its name says more of the endpoint than the provider whose API it copies.
		{"a type of its own copying a provider", "{ type: azure }", "${AZURE_API_KEY}"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			doc := "providers:\n  p: " + tc.provider + "\nmodels:\n  m: { provider: p, model: x }\n"
			f, err := llmfactory.Parse([]byte(doc),
				llmfactory.WithProviderType("gateway", needsKey), llmfactory.WithProviderType("azure", asOpenAI),
				llmfactory.WithProviderType("googleai", asGoogle))
			if err != nil {
				t.Fatal(err)
			}
			_, err = f.Model(context.Background(), "m")
			if err == nil || !strings.Contains(err.Error(), `provider "p" (llm.yaml:2) has no api_key: set it, e.g. api_key: `+tc.want) {
				t.Errorf("error %v; want one suggesting %s", err, tc.want)
			}
		})
	}
}

// A type may take llm.yaml's region, which reaches its New, and may tell model by model
// which take tools (model.ToolSupporter), as bedrock's does. A region given to a type that
// takes none is an error at first use.
func TestARegionalTypeWithToolsForSomeModels(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	regions := map[string]string{}
	cloud := llmfactory.ProviderType{Regional: true, New: func(p llmfactory.Provider, id string) (llms.Model, error) {
		mu.Lock()
		defer mu.Unlock()
		regions[id] = p.Region
		if strings.HasPrefix(id, "text-") {
			return textOnly{idModel(id)}, nil
		}
		return idModel(id), nil
	}}
	doc := `
providers:
  cloud: { type: cloud, region: eu-north-1 }
  openai: { api_key: k, region: eu-north-1 }
models:
  chat:  { provider: cloud, model: chat-1 }
  text:  { provider: cloud, model: text-1 }
  other: { provider: openai, model: gpt-5-mini }
`
	f, err := llmfactory.Parse([]byte(doc), llmfactory.WithProviderType("cloud", cloud))
	if err != nil {
		t.Fatal(err)
	}
	for name, noTools := range map[string]bool{"chat": false, "text": true} {
		m, err := f.Model(context.Background(), name)
		if err != nil {
			t.Fatal(err)
		}
		if m.NoTools != noTools {
			t.Errorf("model %s: NoTools %v, want %v", name, m.NoTools, noTools)
		}
	}
	if want := map[string]string{"chat-1": "eu-north-1", "text-1": "eu-north-1"}; !cmp.Equal(regions, want) {
		t.Errorf("regions given to New: %v, want %v", regions, want)
	}
	_, err = f.Model(context.Background(), "other")
	if err == nil || !strings.Contains(err.Error(), `provider "openai" (llm.yaml:4) has a region, which type openai does not take: remove it`) {
		t.Errorf("err = %v; want the region of an openai provider refused", err)
	}
}

// textOnly is a client that takes no tools.
type textOnly struct{ idModel }

func (textOnly) SupportsTools() bool { return false }

// idModel is a client that answers with its model's id.
type idModel string

func (m idModel) GenerateContent(context.Context, []llms.MessageContent, ...llms.CallOption) (*llms.ContentResponse, error) {
	return &llms.ContentResponse{Choices: []*llms.ContentChoice{{Content: string(m)}}}, nil
}

func (m idModel) Call(ctx context.Context, prompt string, opts ...llms.CallOption) (string, error) {
	return llms.GenerateFromSinglePrompt(ctx, m, prompt, opts...)
}
