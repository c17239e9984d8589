package model

import (
	"reflect"

	"github.com/tmc/langchaingo/llms"
)

// ProviderFacts is what cadre knows of a provider's API and of langchaingo's client for it
// (langchaingo v0.1.14): what a Model of that provider must do differently. Facts gives them
// by provider name. The zero ProviderFacts, which Facts gives for a provider it does not know,
// suits every provider: the conversation in ShapeSafe, tools sent, no strict schemas, the
// client's own output token limit.
type ProviderFacts struct {
	// Shape is how conversations go out to the provider's client (see Shape).
	Shape Shape
	// DropsTools is set when langchaingo's client for the provider sends no tool definitions
	// (its native ollama client): a Model of that client gets NoTools.
	DropsTools bool
	// StrictTools is set when the provider's own API accepts strict tool schemas (OpenAI's).
	// A server that copies the API may not, so a Model gets StrictTools only where it is known
	// to reach the provider itself: the llm.yaml factory sets it for its openai type at
	// OpenAI's address, and Describe never does.
	StrictTools bool
	// ToolParametersAsMap is set when the client sends a tool's parameters correctly only as a
	// map[string]any (googleai's); the others get the schema document as it is, which keeps the
	// order of its properties. See Model.ToolParameters.
	ToolParametersAsMap bool
	// MaxTokens is the output token limit cadre asks for when a model sets none, because the
	// client would ask for 2048, which cuts long answers short; 0 when the client's own default
	// is fine.
	MaxTokens int
	// MaxTokensOnClient is set when the client takes MaxTokens as a setting of its own when it
	// is made (googleai's WithDefaultMaxTokens): whoever makes the client gives it there, and a
	// client made elsewhere keeps the limit it was given. Otherwise MaxTokens goes in as a
	// default call option (CallOptions).
	MaxTokensOnClient bool
	// KeyVar is the environment variable that usually holds the provider's API key (the one
	// llm.yaml's examples name); "" for a provider that needs no key.
	KeyVar string
}

// defaultMaxTokens is the output token limit cadre asks of clients whose own default, 2048,
// cuts long answers short.
const defaultMaxTokens = 8192

// DefaultAnthropicMaxTokens is the output token limit cadre gives anthropic models that set
// none: langchaingo's client would send 2048, which cuts long answers short. It is
// Facts("anthropic").MaxTokens.
//
// Deprecated: use Facts("anthropic").MaxTokens, which sits with the provider's other facts.
const DefaultAnthropicMaxTokens = defaultMaxTokens

// Facts returns the facts of provider, named as Model.Provider names it: "openai",
// "anthropic", "googleai", "bedrock" or "ollama". The ollama facts are those of langchaingo's native
// ollama client; the llm.yaml factory's ollama type reaches Ollama's OpenAI-compatible
// endpoint with the openai client instead, and takes that client's shape and tool support
// from Facts("openai"). Any other name gets the zero ProviderFacts.
func Facts(provider string) ProviderFacts {
	switch provider {
	case "openai":
		return ProviderFacts{Shape: ShapeOpenAI, StrictTools: true, KeyVar: "OPENAI_API_KEY"}
	case "anthropic":
		return ProviderFacts{Shape: ShapeSafe, MaxTokens: defaultMaxTokens, KeyVar: "ANTHROPIC_API_KEY"}
	case "googleai":
		return ProviderFacts{Shape: ShapeSafe, ToolParametersAsMap: true, MaxTokens: defaultMaxTokens, MaxTokensOnClient: true,
			KeyVar: "GOOGLE_API_KEY"}
	case "ollama":
		return ProviderFacts{Shape: ShapeSafe, DropsTools: true}
	case "bedrock":
		// langchaingo's bedrock client sends each part as a message and merges neighbours of one
		// role: a turn as cadre keeps it (ShapeOpenAI) reaches Anthropic's models on Bedrock in
		// their own form, the turn's calls in one assistant message and their results in one
		// user message. Its default of 2048 output tokens is Anthropic's models' only: the
		// llm.yaml factory's bedrock type gives them MaxTokens, and other families keep their
		// own limits and defaults.
		return ProviderFacts{Shape: ShapeOpenAI, MaxTokens: defaultMaxTokens, MaxTokensOnClient: true}
	}
	return ProviderFacts{}
}

// CallOptions returns the default call options that a Model of the provider starts from, nil
// for none: the output token limit, when it goes in as a call option. Options given later
// override them.
func (f ProviderFacts) CallOptions() []llms.CallOption {
	if f.MaxTokens == 0 || f.MaxTokensOnClient {
		return nil
	}
	return []llms.CallOption{llms.WithMaxTokens(f.MaxTokens)}
}

// clientProvider names the provider of one of langchaingo's own clients, recognised by its
// package without linking it in; "" for any other llms.Model.
func clientProvider(llm llms.Model) string {
	t := reflect.TypeOf(llm)
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil {
		return ""
	}
	switch p := langchaingoPackage(t); p {
	case "openai", "anthropic", "googleai", "ollama":
		return p
	}
	return ""
}
