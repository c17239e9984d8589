package model

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/tmc/langchaingo/llms"
)

// Model is a langchaingo model with what cadre must know of it. A Model is a value: copy it
// freely; it is safe for concurrent use when its LLM is.
type Model struct {
	// Name is the model's name in llm.yaml; for a model given to assistant.WithModel, what its
	// client is, as Describe names a model given no name: "openai", "anthropic", "scripted"
	// (an llmtest model), a Namer's own name, or the client's Go type. It names the model in
	// usage reports, events, errors, traces and durable step names.
	Name string
	// ID is the provider's own id of the model ("gpt-5-mini", "claude-sonnet-4-6"), as the
	// model entry of llm.yaml gives it; "" when unknown, as for a client given to
	// assistant.WithModel, since langchaingo's clients do not tell theirs. Telemetry reports it
	// as the model requested.
	ID string
	// Provider is "openai", "anthropic", "ollama", "googleai", "bedrock", or "" when unknown; for a model
	// of the llm.yaml factory, its provider's type ("azure", "mistral", "groq", ...).
	// Facts(Provider) is what cadre knows of it.
	Provider string
	// LLM is the client.
	LLM llms.Model
	// Options are default call options: the provider's (ProviderFacts.CallOptions), then the
	// model's settings in llm.yaml; options given later override them.
	Options []llms.CallOption
	// NoTools is set for a client that cannot send tool definitions (langchaingo's native
	// ollama client drops them). An assistant then asks for its output in the prompt.
	NoTools bool
	// StrictTools is set for a provider that accepts strict tool schemas (ProviderFacts; the
	// llm.yaml factory sets it for OpenAI's own API); an assistant's final_result tool is then
	// sent in its strict form, when the output type's strict schema is one such providers accept.
	StrictTools bool
	// Shape is how conversations go out on the wire (ProviderFacts.Shape); the zero value is
	// ShapeSafe.
	Shape Shape
	// Output is how the model is best asked for structured output: for a model of the llm.yaml
	// factory, its output key, else NativeOutput where its client writes an output schema and
	// NativeOutputFor knows its id takes one (for the openai type, only at OpenAI's own
	// address: a server that copies the API may not), else OutputUnknown; OutputUnknown for a
	// client given to assistant.WithModel or Describe, whose transport may not write a schema
	// at all.
	Output OutputForm
	// Price is what the model's tokens cost (Price.Cost prices a usage with it), nil when
	// unknown: for a model of the llm.yaml factory, its price key, nil when it has none; nil
	// for a model given to assistant.WithModel or Describe, unless set on the Model returned.
	// The copies of a Model share it: replace it rather than change the Price it points to.
	Price *Price
}

// ToolSupporter is implemented by an llms.Model that knows whether it can take tool
// definitions, the way llms.ReasoningModel tells whether a model reasons. llmtest's models
// implement it.
type ToolSupporter interface {
	SupportsTools() bool
}

// Describe returns the Model for llm named name: it recognises langchaingo's own provider
// clients by their package, without linking them into programs that do not use them, and
// applies their Facts: the provider, the wire shape, tool support and the default call options
// (an anthropic model asks for Facts("anthropic").MaxTokens output tokens). Any other
// llms.Model gets the zero ProviderFacts: ShapeSafe, which every provider accepts, and tool
// support as its SupportsTools method says (true without one). StrictTools is left unset,
// since an openai client may point at a server that copies OpenAI's API without strict tools
// (the llm.yaml factory sets it for OpenAI's own API), and ID is left "", since langchaingo's
// clients do not tell their model's id: set it on the Model returned when you know it.
//
// A name of "" names the model from what llm is: its ModelName when it is a Namer; for one of
// langchaingo's clients, which keep their model's id unexported, its package ("openai",
// "anthropic", "googleai", "ollama", "bedrock", "mistral", "vertex", ...); for any other
// model, its Go type ("gateway.Client"). assistant.WithModel names its model so.
func Describe(name string, llm llms.Model) Model {
	if name == "" {
		name = clientName(llm)
	}
	m := Model{Name: name, Provider: clientProvider(llm), LLM: llm}
	f := Facts(m.Provider)
	m.Shape, m.NoTools, m.Options = f.Shape, f.DropsTools, f.CallOptions()
	if ts, ok := llm.(ToolSupporter); ok && !ts.SupportsTools() {
		m.NoTools = true
	}
	return m
}

// ToolParameters returns a tool's argument schema in the form m's client sends correctly: a
// map[string]any where Facts(m.Provider) says the client needs one (googleai's), else the raw
// document as it is (which keeps the order of its properties).
func (m Model) ToolParameters(schema json.RawMessage) (any, error) {
	if !Facts(m.Provider).ToolParametersAsMap {
		return schema, nil
	}
	var params map[string]any
	if err := json.Unmarshal(schema, &params); err != nil {
		return nil, fmt.Errorf("model %q: tool schema is not a JSON object: %w", m.Name, err)
	}
	return params, nil
}

// Generate sends msgs (in cadre's conversation shape) to the model with m.Options followed by
// opts, and reads the answer into one Reply. The messages are reshaped for the wire (see Shape)
// without being modified. A response with no choices is an error.
func (m Model) Generate(ctx context.Context, msgs []llms.MessageContent, opts ...llms.CallOption) (Reply, error) {
	if len(m.Options) > 0 {
		opts = append(m.Options[:len(m.Options):len(m.Options)], opts...)
	}
	resp, err := m.LLM.GenerateContent(ctx, m.Shape.Wire(msgs), opts...)
	if err != nil {
		return Reply{}, err
	}
	r, err := Read(resp)
	for i := range r.Reasoning {
		if r.Reasoning[i].Provider == "" {
			r.Reasoning[i].Provider = m.Provider
		}
	}
	return r, err
}

// Resolver gives an assistant its model chain: the first is preferred, the rest are fallbacks
// tried in order by the assistant. Retries happen inside each Model's client (its HTTP
// transport); the assistant only falls back. Resolve must be safe for concurrent use.
type Resolver interface {
	Resolve(ctx context.Context, assistant string) ([]Model, error)
}

// Fixed returns a Resolver that gives every assistant the same chain.
func Fixed(chain ...Model) Resolver { return fixed(chain) }

type fixed []Model

func (f fixed) Resolve(context.Context, string) ([]Model, error) {
	if len(f) == 0 {
		return nil, fmt.Errorf("model.Fixed: no models given")
	}
	return f, nil
}
