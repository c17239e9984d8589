package model_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/cadrehq/cadre/pkg/model"
	"github.com/cadrehq/cadre/pkg/usage"
	"github.com/google/go-cmp/cmp"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/llms/anthropic"
	"github.com/tmc/langchaingo/llms/fake"
	"github.com/tmc/langchaingo/llms/googleai"
	"github.com/tmc/langchaingo/llms/ollama"
	"github.com/tmc/langchaingo/llms/openai"
)

// fakeLLM is an llms.Model of no known provider. It answers every request with resp or err
// and keeps the last request. It is not safe for concurrent use.
type fakeLLM struct {
	resp *llms.ContentResponse
	err  error

	msgs []llms.MessageContent
	opts llms.CallOptions
}

func (f *fakeLLM) GenerateContent(_ context.Context, msgs []llms.MessageContent, opts ...llms.CallOption) (*llms.ContentResponse, error) {
	f.msgs = msgs
	f.opts = llms.CallOptions{}
	for _, o := range opts {
		o(&f.opts)
	}
	return f.resp, f.err
}

func (f *fakeLLM) Call(ctx context.Context, prompt string, opts ...llms.CallOption) (string, error) {
	return llms.GenerateFromSinglePrompt(ctx, f, prompt, opts...)
}

// toolSupporter is a fakeLLM that says whether it takes tools.
type toolSupporter struct {
	fakeLLM
	tools bool
}

func (t *toolSupporter) SupportsTools() bool { return t.tools }

func TestDescribe(t *testing.T) {
	t.Parallel()
	openaiLLM, err := openai.New(openai.WithToken("test"))
	if err != nil {
		t.Fatal(err)
	}
	anthropicLLM, err := anthropic.New(anthropic.WithToken("test"))
	if err != nil {
		t.Fatal(err)
	}
	ollamaLLM, err := ollama.New()
	if err != nil {
		t.Fatal(err)
	}
	googleLLM, err := googleai.New(context.Background(), googleai.WithAPIKey("test"), googleai.WithRest())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { googleLLM.Close() })
	tests := []struct {
		name string
		llm  llms.Model
		want model.Model
	}{
		{"unknown provider", &fakeLLM{}, model.Model{Provider: "", Shape: model.ShapeSafe}},
		{"says it takes no tools", &toolSupporter{tools: false}, model.Model{NoTools: true, Shape: model.ShapeSafe}},
		{"says it takes tools", &toolSupporter{tools: true}, model.Model{Shape: model.ShapeSafe}},
		{"openai", openaiLLM, model.Model{Provider: "openai", Shape: model.ShapeOpenAI}},
		// Its client's default of 2048 output tokens is raised.
		{"anthropic", anthropicLLM, model.Model{Provider: "anthropic", Shape: model.ShapeSafe,
			Options: []llms.CallOption{llms.WithMaxTokens(8192)}}},
		// Its client takes a limit of its own, which a call option would override: it is kept.
		{"googleai", googleLLM, model.Model{Provider: "googleai", Shape: model.ShapeSafe}},
		// langchaingo's native ollama client drops tool definitions.
		{"ollama", ollamaLLM, model.Model{Provider: "ollama", NoTools: true, Shape: model.ShapeSafe}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := model.Describe("fast", tt.llm)
			if got.LLM != tt.llm {
				t.Errorf("Describe: LLM = %v, want the model given", got.LLM)
			}
			want := tt.want
			want.Name, want.LLM = "fast", tt.llm
			// Options are compared by what they set.
			if diff := cmp.Diff(callOptions(want.Options), callOptions(got.Options)); diff != "" {
				t.Errorf("Describe: options (-want +got):\n%s", diff)
			}
			want.Options, got.Options = nil, nil
			if diff := cmp.Diff(want, got, cmp.Comparer(func(a, b llms.Model) bool { return a == b })); diff != "" {
				t.Errorf("Describe mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// namer is a fakeLLM that names itself.
type namer struct {
	fakeLLM
	name string
}

func (n *namer) ModelName() string { return n.name }

// TestDescribeNames: a model given without a name is named from what its client is, so that
// usage reports, events, errors and traces tell one WithModel client from another.
func TestDescribeNames(t *testing.T) {
	t.Parallel()
	openaiLLM, err := openai.New(openai.WithToken("test"), openai.WithModel("gpt-5-mini"))
	if err != nil {
		t.Fatal(err)
	}
	anthropicLLM, err := anthropic.New(anthropic.WithToken("test"))
	if err != nil {
		t.Fatal(err)
	}
	ollamaLLM, err := ollama.New()
	if err != nil {
		t.Fatal(err)
	}
	googleLLM, err := googleai.New(context.Background(), googleai.WithAPIKey("test"), googleai.WithRest())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { googleLLM.Close() })
	tests := []struct {
		name, given string
		llm         llms.Model
		want        string
	}{
		// langchaingo's clients keep their model's id to themselves: their package names them.
		{"openai", "", openaiLLM, "openai"},
		{"anthropic", "", anthropicLLM, "anthropic"},
		{"googleai", "", googleLLM, "googleai"},
		{"ollama", "", ollamaLLM, "ollama"},
		{"another langchaingo client", "", fake.NewFakeLLM(nil), "fake"},
		{"a model that names itself", "", &namer{name: "gateway:gpt-5-mini"}, "gateway:gpt-5-mini"},
		{"a model that names itself blank", "", &namer{}, "model_test.namer"},
		{"any other model, by its type", "", &fakeLLM{}, "model_test.fakeLLM"},
		{"a given name wins", "fast", &namer{name: "gateway:gpt-5-mini"}, "fast"},
		{"a given name wins over a client's", "fast", openaiLLM, "fast"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := model.Describe(tt.given, tt.llm); got.Name != tt.want || got.ID != "" {
				t.Errorf("Describe(%q, %T): Name %q, ID %q; want Name %q, ID \"\"", tt.given, tt.llm, got.Name, got.ID, tt.want)
			}
		})
	}
}

func TestGenerate(t *testing.T) {
	t.Parallel()
	fake := &fakeLLM{resp: &llms.ContentResponse{Choices: []*llms.ContentChoice{{
		Content:        "Sunny.",
		StopReason:     "end_turn",
		GenerationInfo: map[string]any{"InputTokens": 9, "OutputTokens": 2},
	}}}}
	defaults := make([]llms.CallOption, 2, 8) // room to spare: Generate must not write into it
	defaults[0], defaults[1] = llms.WithTemperature(0.2), llms.WithMaxTokens(100)
	m := model.Model{Name: "fast", LLM: fake, Options: defaults}
	msgs := []llms.MessageContent{
		text(llms.ChatMessageTypeHuman, "Weather in Paris?"),
		ai(llms.TextContent{Text: "Checking."}, call("c1", "function", `{"city":"Paris"}`)),
		results(result("c1", "sunny")),
	}

	got, err := m.Generate(context.Background(), msgs, llms.WithMaxTokens(7))
	if err != nil {
		t.Fatalf("Generate: %v", err)
	}
	want := model.Reply{Text: "Sunny.", StopReason: "end_turn", Usage: usage.Usage{Requests: 1, InputTokens: 9, OutputTokens: 2}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Generate reply mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(model.ShapeSafe.Wire(msgs), fake.msgs); diff != "" {
		t.Errorf("Generate did not send the conversation in the model's shape (-want +got):\n%s", diff)
	}
	if fake.opts.Temperature != 0.2 || fake.opts.MaxTokens != 7 {
		t.Errorf("options sent: temperature %v, max tokens %d; want the default 0.2 and the given 7", fake.opts.Temperature, fake.opts.MaxTokens)
	}
	if defaults[:3][2] != nil {
		t.Error("Generate wrote its options into the spare capacity of Model.Options")
	}
}

func TestGenerateErrors(t *testing.T) {
	t.Parallel()
	refused := errors.New("refused")
	tests := []struct {
		name string
		llm  *fakeLLM
		want error
	}{
		{"client error", &fakeLLM{err: refused}, refused},
		{"no choices", &fakeLLM{resp: &llms.ContentResponse{}}, model.ErrEmptyResponse},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			m := model.Model{Name: "fast", LLM: tt.llm}
			if _, err := m.Generate(context.Background(), nil); !errors.Is(err, tt.want) {
				t.Errorf("Generate error = %v, want %v", err, tt.want)
			}
		})
	}
}

func TestToolParameters(t *testing.T) {
	t.Parallel()
	doc := json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`)
	t.Run("googleai takes a map", func(t *testing.T) {
		t.Parallel()
		got, err := model.Model{Name: "g", Provider: "googleai"}.ToolParameters(doc)
		if err != nil {
			t.Fatalf("ToolParameters: %v", err)
		}
		want := map[string]any{
			"type":       "object",
			"properties": map[string]any{"city": map[string]any{"type": "string"}},
			"required":   []any{"city"},
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("ToolParameters mismatch (-want +got):\n%s", diff)
		}
	})
	t.Run("googleai, not an object", func(t *testing.T) {
		t.Parallel()
		if _, err := (model.Model{Name: "g", Provider: "googleai"}).ToolParameters(json.RawMessage(`[1]`)); err == nil {
			t.Error("ToolParameters of an array for googleai: no error")
		}
	})
	for _, provider := range []string{"openai", "anthropic", "ollama", ""} {
		t.Run(provider+" takes the document", func(t *testing.T) {
			t.Parallel()
			got, err := model.Model{Name: "m", Provider: provider}.ToolParameters(doc)
			if err != nil {
				t.Fatalf("ToolParameters: %v", err)
			}
			if raw, ok := got.(json.RawMessage); !ok || string(raw) != string(doc) {
				t.Errorf("ToolParameters = %#v, want the document as it is", got)
			}
		})
	}
}

func TestFixed(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	if _, err := model.Fixed().Resolve(ctx, "researcher"); err == nil {
		t.Error("Fixed() resolved without any model")
	}
	chain, err := model.Fixed(model.Model{Name: "fast"}, model.Model{Name: "slow"}).Resolve(ctx, "researcher")
	if err != nil {
		t.Fatalf("Resolve: %v", err)
	}
	var names []string
	for _, m := range chain {
		names = append(names, m.Name)
	}
	if diff := cmp.Diff([]string{"fast", "slow"}, names); diff != "" {
		t.Errorf("chain mismatch (-want +got):\n%s", diff)
	}
}

// callOptions resolves call options into the values they set.
func callOptions(opts []llms.CallOption) llms.CallOptions {
	var o llms.CallOptions
	for _, opt := range opts {
		opt(&o)
	}
	return o
}
