package llmfactory

// API names the wire dialect of a provider type's requests: the API its clients speak,
// whoever serves it. It decides which of llm.yaml's model settings the type's models take —
// those that only one API has — and how the factory's transport writes them into the
// requests, since langchaingo's clients cannot (see ProviderType.API). It also decides where
// the transport writes a request's output schema (model.OutputSchemaOf): a type of an API
// can have output: native.
type API string

const (
	// OpenAIAPI is OpenAI's Chat Completions API (POST .../chat/completions), spoken by
	// langchaingo's openai client to OpenAI and to every server that copies the API (Ollama,
	// vLLM, gateways). Its models take reasoning_effort, and an output schema in
	// response_format.
	OpenAIAPI API = "openai"
	// AnthropicAPI is Anthropic's Messages API (POST .../messages). Its models take
	// thinking_budget and prompt_cache, and an output schema in output_config.format.
	AnthropicAPI API = "anthropic"
	// GeminiAPI is Google's Gemini API (POST ...:generateContent and
	// ...:streamGenerateContent, in REST's JSON), spoken by the googleai subpackage's client.
	// Its models take none of the settings above, and an output schema in generationConfig's
	// responseJsonSchema.
	GeminiAPI API = "gemini"
)
