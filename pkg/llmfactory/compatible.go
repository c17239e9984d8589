package llmfactory

import (
	"net/http"

	"github.com/cadrehq/cadre/pkg/model"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/llms/openai"
)

// compatible is a built-in provider type that is langchaingo's openai client at a service
// that speaks OpenAI's Chat Completions API: a hosted one, a server on the user's machine, or
// Azure OpenAI, which speaks it at addresses of its own.
type compatible struct {
	baseURL  string // the default base_url, as the service's documentation gives it; "" for none
	keyVar   string // the variable that usually holds the key; "" when the service usually takes none
	needsKey bool
	noTools  bool // the service refuses tool definitions
	azure    bool // Azure OpenAI: the deployment in the path, api_version, the api-key header
	// body puts each request's JSON object in the form the service takes; nil leaves it as
	// langchaingo's client writes it, for OpenAI. The model's transport applies it (bodyEdit).
	body func(*object)
}

// compatibles are the built-in types of OpenAI-compatible services, by name. ollama is
// Ollama's OpenAI-compatible endpoint, since langchaingo's own ollama client drops tools.
func compatibles() map[string]compatible {
	return map[string]compatible{
		"azure":      {keyVar: "AZURE_OPENAI_API_KEY", needsKey: true, azure: true},
		"mistral":    {baseURL: "https://api.mistral.ai/v1", keyVar: "MISTRAL_API_KEY", needsKey: true, body: mistralBody},
		"groq":       {baseURL: "https://api.groq.com/openai/v1", keyVar: "GROQ_API_KEY", needsKey: true},
		"deepseek":   {baseURL: "https://api.deepseek.com/v1", keyVar: "DEEPSEEK_API_KEY", needsKey: true, body: maxTokensField},
		"perplexity": {baseURL: "https://api.perplexity.ai", keyVar: "PERPLEXITY_API_KEY", needsKey: true, noTools: true, body: maxTokensField},
		"together":   {baseURL: "https://api.together.ai/v1", keyVar: "TOGETHER_API_KEY", needsKey: true, body: maxTokensField},
		"vllm":       {baseURL: "http://localhost:8000/v1", keyVar: "VLLM_API_KEY", body: maxTokensField},
		"lmstudio":   {baseURL: "http://localhost:1234/v1", body: maxTokensField},
		"llamacpp":   {baseURL: "http://localhost:8080/v1", body: maxTokensField},
		"ollama":     {baseURL: "http://localhost:11434/v1", body: maxTokensField},
	}
}

// providerType is the ProviderType of c: the openai client's shape and tool support, and the
// keys the service needs.
func (c compatible) providerType() ProviderType {
	facts := model.Facts("openai")
	return ProviderType{
		New:          c.newClient,
		Shape:        facts.Shape,
		NoTools:      c.noTools || facts.DropsTools,
		NeedsKey:     c.needsKey,
		KeyVar:       c.keyVar,
		NeedsBaseURL: c.baseURL == "",
		APIVersion:   c.azure,
		API:          OpenAIAPI,
		body:         c.body,
	}
}

// newClient makes the client of model (Azure's deployment) at p.
func (c compatible) newClient(p Provider, model string) (llms.Model, error) {
	if p.BaseURL == "" {
		p.BaseURL = c.baseURL
	}
	// The client takes OPENAI_ORGANIZATION from the environment: OpenAI's, for no other service.
	opts := []openai.Option{openai.WithOrganization("")}
	if c.azure {
		// The client builds Azure's URL, {base_url}/openai/deployments/{model}/chat/completions
		// ?api-version={api_version}, and sends the key in the api-key header.
		opts = append(opts, openai.WithAPIType(openai.APITypeAzure), openai.WithAPIVersion(p.APIVersion))
	}
	return openAIClient(p, model, opts...)
}

// withTransport returns a copy of c that sends its requests through rt.
func withTransport(c *http.Client, rt http.RoundTripper) *http.Client {
	out := *c
	out.Transport = rt
	return &out
}

// noAuth sends requests without their Authorization header: langchaingo's openai client will
// not be made without a key, and a server that takes none is sent none rather than a made-up
// one.
type noAuth struct{ base http.RoundTripper }

func (t noAuth) RoundTrip(req *http.Request) (*http.Response, error) {
	r := req.Clone(req.Context())
	r.Header.Del("Authorization")
	return t.base.RoundTrip(r)
}

// maxTokensField sends the output token limit as max_tokens, the field every one of these
// services takes, where langchaingo's client writes max_completion_tokens, the field OpenAI's
// reasoning models brought, which some of them ignore and Mistral refuses. (The client's own
// switch, openai.WithLegacyMaxTokensField, is a call option kept in CallOptions.Metadata,
// which a caller's llms.WithMetadata replaces; the body is what goes out, whatever the
// options.)
func maxTokensField(body *object) {
	body.rename("max_completion_tokens", "max_tokens")
}
