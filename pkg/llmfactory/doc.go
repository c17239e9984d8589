// Package llmfactory turns an llm.yaml file into the models of cadre's assistants: which
// provider serves each model and how to reach it, each model's default settings, each
// assistant's model or fallback chain, how failed requests are retried, the rate limits of
// each tenant and user, and what each model's tokens cost.
//
// Load reads a file and Parse a document already in memory; the *Factory they return is a
// model.Resolver, which assistant.WithModels takes:
//
//	f, err := llmfactory.Load("llm.yaml")
//	if err != nil {
//		log.Fatal(err) // e.g. llm.yaml:12: models.fast.temprature: unknown key (known: ...)
//	}
//	a := assistant.New[string]("researcher", assistant.WithModels(f))
//
// # The file
//
//	providers:                  # how to reach an API; a client is created on first use
//	  openai:                   # type defaults to the name when the name is a type
//	    api_key: ${OPENAI_API_KEY}
//	    timeout: 60s
//	  local:
//	    type: ollama            # Ollama's OpenAI-compatible endpoint; no key
//	models:
//	  fast:  { provider: openai, model: gpt-5-mini, temperature: 0.2, max_tokens: 4096 }
//	  small: { provider: local, model: qwen3:8b }
//	default: fast               # for assistants not listed below
//	assistants:
//	  summarizer: [small, fast] # a fallback chain, tried in order
//	retry: { max_attempts: 3, initial_backoff: 500ms, max_backoff: 10s }
//	rate_limits:                # Factory.RateLimits; ratelimit.LimitsFrom converts it
//	  user: { requests_per_minute: 20, tokens_per_day: 200000 }
//
// docs/llm-yaml.md in the repository documents every key; llm.yaml.example is a commented
// file to start from.
//
// # Checking
//
// Load and Parse check the whole file before anything is used, and report every mistake they
// find (up to ten) with the file, line and key path: unknown or duplicate keys, values of the
// wrong kind, unknown provider types, models naming missing providers, assistants and default
// naming missing models, numbers, durations and URLs out of range, YAML syntax. An assistant
// that the file does not list uses default; with no default it is an error, never a silent
// substitute.
//
// # Structured output
//
// Each model's model.Model.Output says how it is best asked for typed output: its output key
// (native, tool or prompted), else native where model.NativeOutputFor knows the model takes
// a schema and its client can send one. A request whose context carries a schema
// (model.WithOutputSchema) gets it in its API's own field, written by the model's transport:
// OpenAI's response_format, Anthropic's output_config, Gemini's responseJsonSchema. A schema
// Anthropic does not take, and a 400 that names the schema, fail the request with an error
// that wraps model.ErrOutputSchema; OpenAI's refusals, which langchaingo's client drops, reach
// model.Read under model.RefusalInfo.
//
// # Prices
//
// A model's price key gives what a million tokens of each kind cost (input, cache_read,
// cache_write, output; a cache price left out is the input price). Factory.Prices gives them
// by model name, for model.Costs to price a usage report, and each resolved model.Model
// carries its own in Price.
//
// # Environment variables
//
// Any value may hold ${VAR} or ${VAR:-default} ($$ is a literal $), expanded before the value
// is read, so that timeout: ${T:-30s} works. A variable that a provider or model needs and that
// is unset is an error when that provider or model is first used, naming both; elsewhere in
// the file it is an error from Load and Parse. No error shows a variable's value.
//
// API keys are held as a Secret, which prints "[redacted]" under fmt, log/slog and the
// encoders; only the provider's client reads the key.
package llmfactory
