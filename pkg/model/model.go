package model

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	"github.com/tmc/langchaingo/llms"
)

// Model is a langchaingo model with what cadre must know of it. A Model is a value: copy it
// freely; it is safe for concurrent use when its LLM is.
type Model struct {
	// Name is the model's name in llm.yaml; "custom" for a model given to assistant.WithModel.
	// It names the model in usage reports, events and errors.
	Name string
	// Provider is "openai", "anthropic", "ollama", "googleai", or "" when unknown.
	Provider string
	// ID is the provider's own id for the model ("gpt-4o-mini"), as llm.yaml's model entry
	// names it; "" when unknown.
	ID string
	// LLM is the client.
	LLM llms.Model
	// Options are default call options (from llm.yaml); options given later override them.
	Options []llms.CallOption
	// NoTools is set for a client that cannot send tool definitions (langchaingo's native
	// ollama client drops them). An assistant then asks for its output in the prompt.
	NoTools bool
	// StrictTools is set for a provider that accepts strict tool schemas (the llm.yaml factory
	// sets it for OpenAI's own API); an assistant's final_result tool is then sent in its strict
	// form, when the output type's strict schema is one such providers accept.
	StrictTools bool
	// Shape is how conversations go out on the wire; the zero value is ShapeSafe.
	Shape Shape
}

// DefaultAnthropicMaxTokens is the output token limit cadre gives anthropic models that set
// none: langchaingo's client would send 2048, which cuts long answers short.
const DefaultAnthropicMaxTokens = 8192

// ToolSupporter is implemented by an llms.Model that knows whether it can take tool
// definitions, the way llms.ReasoningModel tells whether a model reasons. llmtest's models
// implement it.
type ToolSupporter interface {
	SupportsTools() bool
}

// Describe returns the Model for llm named name: it recognises langchaingo's own provider
// clients by their package and applies their facts (provider, wire shape, tool support), without
// linking them into programs that do not use them. Any other llms.Model gets ShapeSafe, which
// every provider accepts, and tool support as its SupportsTools method says (true without one).
// An anthropic model gets a default of DefaultAnthropicMaxTokens output tokens; StrictTools is
// left unset, since an openai client may point at a server that copies OpenAI's API without
// strict tools (the llm.yaml factory sets it for OpenAI's own API).
func Describe(name string, llm llms.Model) Model {
	m := Model{Name: name, LLM: llm}
	t := reflect.TypeOf(llm)
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t != nil {
		switch pkg := t.PkgPath(); {
		case strings.HasSuffix(pkg, "langchaingo/llms/openai"):
			m.Provider, m.Shape = "openai", ShapeOpenAI
		case strings.HasSuffix(pkg, "langchaingo/llms/anthropic"):
			// Its client's own default of 2048 output tokens cuts long answers short.
			m.Provider, m.Options = "anthropic", []llms.CallOption{llms.WithMaxTokens(DefaultAnthropicMaxTokens)}
		case strings.HasSuffix(pkg, "langchaingo/llms/googleai"):
			m.Provider = "googleai"
		case strings.HasSuffix(pkg, "langchaingo/llms/ollama"):
			m.Provider, m.NoTools = "ollama", true
		}
	}
	if ts, ok := llm.(ToolSupporter); ok && !ts.SupportsTools() {
		m.NoTools = true
	}
	return m
}

// ToolParameters returns a tool's argument schema in the form m's client sends correctly:
// googleai's client needs a map[string]any, the others send the raw document as it is (which
// keeps the order of its properties).
func (m Model) ToolParameters(schema json.RawMessage) (any, error) {
	if m.Provider != "googleai" {
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
	return Read(resp)
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
