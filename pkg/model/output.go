package model

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
)

// OutputForm is how a model is best asked for an answer of a given JSON schema: in the
// provider's own structured-output field, through a tool whose arguments are the answer, or
// with the schema in the prompt. The zero value, OutputUnknown, says nothing is known.
type OutputForm string

const (
	// OutputUnknown: nothing is known of the model's structured output, as for a client
	// given to assistant.WithModel or to Describe.
	OutputUnknown OutputForm = ""
	// NativeOutput: the provider constrains the answer to a JSON schema given in its own
	// field (OpenAI's response_format, Anthropic's output_config.format, Gemini's
	// responseJsonSchema), when the request carries one (WithOutputSchema).
	NativeOutput OutputForm = "native"
	// ToolOutput: the model takes tools, and is asked for the answer as a tool call.
	ToolOutput OutputForm = "tool"
	// PromptedOutput: the schema goes in the prompt, the answer comes as text.
	PromptedOutput OutputForm = "prompted"
)

// ParseOutputForm reads an OutputForm as llm.yaml's output key writes it: "native", "tool" or
// "prompted".
func ParseOutputForm(s string) (OutputForm, error) {
	switch f := OutputForm(s); f {
	case NativeOutput, ToolOutput, PromptedOutput:
		return f, nil
	}
	return OutputUnknown, errors.New(`not an output form: use "native", "tool" or "prompted"`)
}

// OutputSchema is the JSON schema a request asks the answer to fit, for a model that takes it
// in its provider's own field (NativeOutput). The client's transport writes it there, in the
// form of the provider's API; a client that takes no schema ignores it, and the answer is
// still checked against it by whoever asked.
type OutputSchema struct {
	// Name names the schema where an API wants a name (OpenAI's json_schema.name):
	// letters, digits, '_' and '-', at most 64.
	Name string
	// Description says what the answer is; "" for none.
	Description string
	// Schema is the answer's JSON Schema: an object schema, since every API takes one.
	Schema json.RawMessage
	// Strict is Schema in the strict form OpenAI's strict mode takes (every property
	// required, optional ones nullable, no additional properties); nil when the schema has no
	// such form. A model answering with it writes null for what it leaves out.
	Strict json.RawMessage
}

type outputSchemaKey struct{}

// WithOutputSchema returns ctx carrying s, for the client's transport to write into the
// request it sends under ctx; a nil s carries none.
func WithOutputSchema(ctx context.Context, s *OutputSchema) context.Context {
	if s == nil && OutputSchemaOf(ctx) == nil {
		return ctx
	}
	return context.WithValue(ctx, outputSchemaKey{}, s)
}

// OutputSchemaOf returns the schema ctx carries (WithOutputSchema); nil for none.
func OutputSchemaOf(ctx context.Context) *OutputSchema {
	s, _ := ctx.Value(outputSchemaKey{}).(*OutputSchema)
	return s
}

// ErrOutputSchema is wrapped by the error of a request whose output schema the provider does
// not take — refused with a 400 that names it, or outside the subset of JSON Schema its API
// takes, found before sending. Another form of the same request (a tool call) can succeed.
var ErrOutputSchema = errors.New("the provider does not take the output schema")

// nativeOutput lists, by provider, the model ids whose API takes an output schema: an entry
// is a prefix of ids, and one that starts with '-' is a prefix of ids that do not, which wins
// over a shorter prefix. Dates in ids are the provider's own.
var nativeOutput = map[string][]string{
	// Structured outputs (response_format json_schema) came with gpt-4o-2024-08-06 and
	// gpt-4o-mini; every later family has them. o1-mini and o1-preview do not.
	"openai": {"gpt-4o", "-gpt-4o-2024-05-13", "chatgpt-4o", "gpt-4.1", "gpt-4.5", "gpt-5", "o1", "-o1-mini", "-o1-preview", "o3", "o4"},
	// Azure names deployments, not models: a deployment named after its model is found here;
	// any other is set with llm.yaml's output key.
	"azure": {"gpt-4o", "-gpt-4o-2024-05-13", "gpt-4.1", "gpt-4.5", "gpt-5", "o1", "-o1-mini", "-o1-preview", "o3", "o4"},
	// output_config.format: Claude Sonnet 4.5, Opus 4.1 and later, Haiku 4.5.
	"anthropic": {"claude-sonnet-4-5", "claude-opus-4-1", "claude-opus-4-5", "claude-haiku-4-5", "claude-sonnet-4-6", "claude-opus-4-6"},
	// responseJsonSchema: Gemini 2.5 and later.
	"googleai": {"gemini-2.5", "gemini-3"},
	// response_format json_schema: Mistral's chat models.
	"mistral": {"mistral-", "ministral-", "magistral-", "codestral-", "pixtral-", "devstral-", "open-mistral-"},
	// Ollama constrains any model to a schema (its format, which its OpenAI-compatible
	// endpoint takes as response_format).
	"ollama": {""},
	// Groq's json_schema response format: the models its documentation lists.
	"groq": {"openai/gpt-oss-", "moonshotai/kimi-k2", "meta-llama/llama-4-"},
}

// NativeOutputFor reports whether the model id of provider (as Model.Provider names it) is
// known to take an output schema in its API's own field; false when it is not known to.
func NativeOutputFor(provider, id string) bool {
	best, native := -1, false
	for _, p := range nativeOutput[provider] {
		not := strings.HasPrefix(p, "-")
		p = strings.TrimPrefix(p, "-")
		if strings.HasPrefix(id, p) && len(p) > best {
			best, native = len(p), !not
		}
	}
	return native
}
