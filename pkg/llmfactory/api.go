package llmfactory

// API names the wire dialect of a provider type's requests: the API its clients speak,
// whoever serves it. It decides which of llm.yaml's model settings the type's models take —
// those that only one API has — and how the factory's transport writes them into the
// requests, since langchaingo's clients cannot (see ProviderType.API).
type API string

const (
	// OpenAIAPI is OpenAI's Chat Completions API (POST .../chat/completions), spoken by
	// langchaingo's openai client to OpenAI and to every server that copies the API (Ollama,
	// vLLM, gateways). Its models take reasoning_effort.
	OpenAIAPI API = "openai"
	// AnthropicAPI is Anthropic's Messages API (POST .../messages). Its models take
	// thinking_budget and prompt_cache.
	AnthropicAPI API = "anthropic"
)
