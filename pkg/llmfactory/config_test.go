package llmfactory

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/tmc/langchaingo/llms"
)

// testTypes are the provider types of the parser's tests: three of those Parse knows without
// options, none of which needs a key of its own (see typeKeys).
var testTypes = map[string]ProviderType{"openai": {API: OpenAIAPI}, "anthropic": {API: AnthropicAPI}, "ollama": {API: OpenAIAPI}}

// doc joins lines into a document: line i+1 of the file is lines[i].
func doc(lines ...string) string { return strings.Join(lines, "\n") + "\n" }

// envOf looks variables up in m.
func envOf(m map[string]string) func(string) (string, bool) {
	return func(name string) (string, bool) {
		v, ok := m[name]
		return v, ok
	}
}

func parse(t *testing.T, data string, env map[string]string) (*fileConfig, error) {
	t.Helper()
	return parseConfig([]byte(data), "llm.yaml", envOf(env), testTypes)
}

func mustParse(t *testing.T, data string, env map[string]string) *fileConfig {
	t.Helper()
	cfg, err := parse(t, data, env)
	if err != nil {
		t.Fatalf("parseConfig:\n%s\nerror: %v", data, err)
	}
	return cfg
}

func ptr[T any](v T) *T { return &v }

var cmpConfig = cmp.AllowUnexported(fileConfig{}, providerSpec{}, modelSpec{})

// badConfig is a document with one kind of mistake, and what its error must say.
type badConfig struct {
	name string
	env  map[string]string
	data string
	want []string // each must be in the error
}

func badConfigs() []badConfig {
	return []badConfig{
		{name: "unknown top-level key", data: doc(
			"providers:",
			"  openai: {}",
			"models:",
			"  fast: {provider: openai, model: m}",
			"model: fast",
		), want: []string{"llm.yaml:5: model: unknown key (known: providers, models, default, assistants, retry"}},
		{name: "unknown model key", data: doc(
			"providers:",
			"  openai: {}",
			"models:",
			"  fast:",
			"    provider: openai",
			"    model: m",
			"    temprature: 0.2",
		), want: []string{"llm.yaml:7: models.fast.temprature: unknown key (known: provider, model, temperature, max_tokens, top_p"}},
		{name: "unknown provider key", data: doc(
			"providers:",
			"  openai:",
			"    apikey: x",
			"models:",
			"  fast: {provider: openai, model: m}",
		), want: []string{"llm.yaml:3: providers.openai.apikey: unknown key (known: type, api_key, base_url, api_version, timeout, region)"}},
		{name: "unknown retry key", data: doc(
			"providers: {openai: {}}",
			"models: {fast: {provider: openai, model: m}}",
			"retry:",
			"  attempts: 3",
		), want: []string{"llm.yaml:4: retry.attempts: unknown key (known: max_attempts, initial_backoff, max_backoff)"}},
		{name: "unknown provider type", data: doc(
			"providers:",
			"  openai:",
			"    type: opnai",
			"models:",
			"  fast: {provider: openai, model: m}",
		), want: []string{`llm.yaml:3: providers.openai.type: unknown provider type "opnai" (known: anthropic, ollama, openai)`}},
		{name: "no type for a name that is not a type", data: doc(
			"providers:",
			"  mine:",
			"    base_url: http://localhost:8000/v1",
			"models:",
			"  fast: {provider: mine, model: m}",
		), want: []string{"llm.yaml:2: providers.mine: missing type (one of: anthropic, ollama, openai)"}},
		{name: "model naming a missing provider", data: doc(
			"providers:",
			"  openai: {}",
			"  claude: {type: anthropic}",
			"models:",
			"  deep:",
			"    provider: claud",
			"    model: m",
		), want: []string{`llm.yaml:6: models.deep.provider: no provider named "claud" (providers: claude, openai)`}},
		{name: "model without provider", data: doc(
			"providers: {openai: {}}",
			"models:",
			"  fast: {model: m}",
		), want: []string{"llm.yaml:3: models.fast: missing provider (one of: openai)"}},
		{name: "model without model", data: doc(
			"providers: {openai: {}}",
			"models:",
			"  fast: {provider: openai}",
		), want: []string{"llm.yaml:3: models.fast: missing model: the provider's name for the model"}},
		{name: "assistant naming a missing model", data: doc(
			"providers: {openai: {}}",
			"models:",
			"  fast: {provider: openai, model: m}",
			"  deep: {provider: openai, model: m}",
			"assistants:",
			"  supervisor: [deeep, fast]",
		), want: []string{`llm.yaml:6: assistants.supervisor: no model named "deeep" (models: deep, fast)`}},
		{name: "assistant naming a model twice", data: doc(
			"providers: {openai: {}}",
			"models: {fast: {provider: openai, model: m}}",
			"assistants:",
			"  supervisor:",
			"    - fast",
			"    - fast",
		), want: []string{`llm.yaml:6: assistants.supervisor: "fast" is in the chain twice`}},
		{name: "assistant with an empty chain", data: doc(
			"providers: {openai: {}}",
			"models: {fast: {provider: openai, model: m}}",
			"assistants:",
			"  supervisor: []",
		), want: []string{"llm.yaml:4: assistants.supervisor: an empty chain"}},
		{name: "assistant with no model", data: doc(
			"providers: {openai: {}}",
			"models: {fast: {provider: openai, model: m}}",
			"assistants:",
			"  supervisor:",
		), want: []string{"llm.yaml:4: assistants.supervisor: expected a model name or a list of them, found nothing"}},
		{name: "assistant given a mapping", data: doc(
			"providers: {openai: {}}",
			"models: {fast: {provider: openai, model: m}}",
			"assistants:",
			"  supervisor: {model: fast}",
		), want: []string{"llm.yaml:4: assistants.supervisor: expected a model name or a list of them, found a mapping"}},
		{name: "default naming a missing model", data: doc(
			"providers: {openai: {}}",
			"models: {fast: {provider: openai, model: m}}",
			"default: fsat",
		), want: []string{`llm.yaml:3: default: no model named "fsat" (models: fast)`}},
		{name: "timeout without a unit", data: doc(
			"providers:",
			"  openai:",
			"    timeout: 60",
			"models: {fast: {provider: openai, model: m}}",
		), want: []string{`llm.yaml:3: providers.openai.timeout: "60" is not a duration (write e.g. 60s or 2m)`}},
		{name: "negative timeout", data: doc(
			"providers:",
			"  openai: {timeout: -5s}",
			"models: {fast: {provider: openai, model: m}}",
		), want: []string{`llm.yaml:2: providers.openai.timeout: "-5s": must be more than 0`}},
		{name: "temperature not a number", data: doc(
			"providers: {openai: {}}",
			"models:",
			"  fast: {provider: openai, model: m, temperature: warm}",
		), want: []string{`llm.yaml:3: models.fast.temperature: "warm" is not a number`}},
		{name: "temperature out of range", data: doc(
			"providers: {openai: {}}",
			"models:",
			"  fast: {provider: openai, model: m, temperature: 2.5}",
		), want: []string{`llm.yaml:3: models.fast.temperature: "2.5" is out of range (0 to 2)`}},
		{name: "temperature NaN", data: doc(
			"providers: {openai: {}}",
			"models:",
			"  fast: {provider: openai, model: m, temperature: .nan}",
		), want: []string{`models.fast.temperature: ".nan" is not a number`}},
		{name: "temperature Inf", data: doc(
			"providers: {openai: {}}",
			"models:",
			"  fast: {provider: openai, model: m, temperature: Inf}",
		), want: []string{`llm.yaml:3: models.fast.temperature: "Inf" is out of range (0 to 2)`}},
		{name: "top_p out of range", data: doc(
			"providers: {openai: {}}",
			"models:",
			"  fast: {provider: openai, model: m, top_p: 1.5}",
		), want: []string{`llm.yaml:3: models.fast.top_p: "1.5" is out of range (0 to 1)`}},
		{name: "penalty out of range", data: doc(
			"providers: {openai: {}}",
			"models:",
			"  fast: {provider: openai, model: m, presence_penalty: -3}",
		), want: []string{`llm.yaml:3: models.fast.presence_penalty: "-3" is out of range (-2 to 2)`}},
		{name: "max_tokens zero", data: doc(
			"providers: {openai: {}}",
			"models:",
			"  fast: {provider: openai, model: m, max_tokens: 0}",
		), want: []string{`llm.yaml:3: models.fast.max_tokens: "0" is out of range (1 to 10000000)`}},
		{name: "max_tokens too many", data: doc(
			"providers: {openai: {}}",
			"models:",
			"  fast: {provider: openai, model: m, max_tokens: 40960000}",
		), want: []string{`llm.yaml:3: models.fast.max_tokens: "40960000" is out of range (1 to 10000000)`}},
		{name: "top_k too large", data: doc(
			"providers: {openai: {}}",
			"models:",
			"  fast: {provider: openai, model: m, top_k: 4000}",
		), want: []string{`llm.yaml:3: models.fast.top_k: "4000" is out of range (1 to 1000)`}},
		{name: "timeout too long", data: doc(
			"providers:",
			"  openai: {timeout: 600m}",
			"models: {fast: {provider: openai, model: m}}",
		), want: []string{`llm.yaml:2: providers.openai.timeout: "600m" is out of range (more than 0, at most 1h0m0s)`}},
		{name: "max_tokens not whole", data: doc(
			"providers: {openai: {}}",
			"models:",
			"  fast: {provider: openai, model: m, max_tokens: 4.5}",
		), want: []string{`llm.yaml:3: models.fast.max_tokens: "4.5" is not a whole number (write e.g. 4096)`}},
		{name: "seed too large", data: doc(
			"providers: {openai: {}}",
			"models:",
			"  fast: {provider: openai, model: m, seed: 99999999999999999999}",
		), want: []string{`llm.yaml:3: models.fast.seed: "99999999999999999999" is out of range`}},
		{name: "json not a bool", data: doc(
			"providers: {openai: {}}",
			"models:",
			"  fast: {provider: openai, model: m, json: yes}",
		), want: []string{`llm.yaml:3: models.fast.json: "yes" is not true or false`}},
		{name: "stop given a mapping", data: doc(
			"providers: {openai: {}}",
			"models:",
			"  fast: {provider: openai, model: m, stop: {a: b}}",
		), want: []string{"llm.yaml:3: models.fast.stop: expected a single value, found a mapping"}},
		{name: "base_url without a scheme", data: doc(
			"providers:",
			"  ollama:",
			"    base_url: localhost:11434/v1",
			"models: {small: {provider: ollama, model: m}}",
		), want: []string{`llm.yaml:3: providers.ollama.base_url: "localhost:11434/v1" is not an absolute http(s) URL`}},
		{name: "base_url not http", data: doc(
			"providers:",
			"  ollama: {base_url: 'ftp://host/v1'}",
			"models: {small: {provider: ollama, model: m}}",
		), want: []string{`llm.yaml:2: providers.ollama.base_url: "ftp://host/v1" is not an absolute http(s) URL`}},
		{name: "duplicate model", data: doc(
			"providers: {openai: {}}",
			"models:",
			"  fast: {provider: openai, model: a}",
			"  fast: {provider: openai, model: b}",
		), want: []string{"llm.yaml:4: models.fast: duplicate key (first at line 3)"}},
		{name: "duplicate key in a model", data: doc(
			"providers: {openai: {}}",
			"models:",
			"  fast:",
			"    provider: openai",
			"    model: a",
			"    model: b",
		), want: []string{"llm.yaml:6: models.fast.model: duplicate key (first at line 5)"}},
		{name: "models given a list", data: doc(
			"providers: {openai: {}}",
			"models:",
			"  - fast",
		), want: []string{"llm.yaml:3: models: expected a mapping (key: value lines), found a list"}},
		{name: "provider given a list", data: doc(
			"providers:",
			"  openai: [a]",
			"models: {fast: {provider: openai, model: m}}",
		), want: []string{"llm.yaml:2: providers.openai: expected a mapping (key: value lines), found a list"}},
		{name: "model's provider given a mapping", data: doc(
			"providers: {openai: {}}",
			"models:",
			"  fast: {provider: {name: openai}, model: m}",
		), want: []string{"llm.yaml:3: models.fast.provider: expected a single value, found a mapping"}},
		{name: "top level not a mapping", data: doc(
			"- providers",
			"- models",
		), want: []string{"llm.yaml:1: expected a mapping (key: value lines), found a list"}},
		{name: "empty file", data: "", want: []string{
			"llm.yaml: the file is empty: it needs at least one provider and one model"}},
		{name: "only comments", data: doc("# nothing yet"), want: []string{"llm.yaml: the file is empty"}},
		{name: "only a document marker", data: doc("---"), want: []string{"llm.yaml: the file is empty"}},
		{name: "no providers section", data: doc(
			"models: {fast: {provider: openai, model: m}}",
		), want: []string{"llm.yaml:1: no providers section: add one with at least one provider"}},
		{name: "empty providers", data: doc(
			"providers: {}",
			"models: {fast: {provider: openai, model: m}}",
		), want: []string{"llm.yaml:1: providers: empty: add at least one provider"}},
		{name: "no models section", data: doc(
			"providers: {openai: {}}",
		), want: []string{"llm.yaml:1: no models section: add one with at least one model"}},
		{name: "empty model name", data: doc(
			"providers: {openai: {}}",
			"models:",
			`  "": {provider: openai, model: m}`,
		), want: []string{"llm.yaml:3: models: a model needs a name"}},
		{name: "YAML syntax", data: doc(
			"providers:",
			"  openai: {}",
			"models:",
			"  fast: {provider: openai, model: m",
			"default: fast",
		), want: []string{"llm.yaml:", "(YAML syntax)"}},
		{name: "YAML syntax with a line", data: doc(
			"providers:",
			"  openai: {}",
			"\tmodels: x",
		), want: []string{"llm.yaml:3: found character that cannot start any token (YAML syntax)"}},
		{name: "two documents", data: doc(
			"providers: {openai: {}}",
			"models: {fast: {provider: openai, model: m}}",
			"---",
			"default: fast",
		), want: []string{"llm.yaml:3: a second YAML document (after ---)"}},
		{name: "unclosed variable", data: doc(
			"providers:",
			"  openai:",
			"    api_key: ${OPENAI_API_KEY",
			"models: {fast: {provider: openai, model: m}}",
		), want: []string{"llm.yaml:3: providers.openai.api_key: ${OPENAI_API_KEY has no closing }"}},
		{name: "bad variable name", data: doc(
			"providers:",
			"  openai:",
			"    api_key: ${OPENAI-KEY}",
			"models: {fast: {provider: openai, model: m}}",
		), want: []string{"llm.yaml:3: providers.openai.api_key: ${OPENAI-KEY}: OPENAI-KEY is not a variable name"}},
		{name: "unset variable in retry", data: doc(
			"providers: {openai: {}}",
			"models: {fast: {provider: openai, model: m}}",
			"retry:",
			"  max_attempts: ${RETRIES}",
		), want: []string{"llm.yaml:4: retry.max_attempts: environment variable RETRIES is not set: set it, or give a default as in ${RETRIES:-...}"}},
		{name: "unset variable in default", data: doc(
			"providers: {openai: {}}",
			"models: {fast: {provider: openai, model: m}}",
			"default: ${DEFAULT_MODEL}",
		), want: []string{"llm.yaml:3: default: environment variable DEFAULT_MODEL is not set"}},
		{name: "unset variable in a provider's type", data: doc(
			"providers:",
			"  mine: {type: '${MINE_TYPE}'}",
			"models: {fast: {provider: mine, model: m}}",
		), want: []string{"llm.yaml:2: providers.mine.type: environment variable MINE_TYPE is not set"}},
		{name: "unset variable in a model's provider", data: doc(
			"providers: {openai: {}}",
			"models:",
			"  fast: {provider: '${P}', model: m}",
		), want: []string{"llm.yaml:3: models.fast.provider: environment variable P is not set"}},
		{name: "max_attempts zero", data: doc(
			"providers: {openai: {}}",
			"models: {fast: {provider: openai, model: m}}",
			"retry: {max_attempts: 0}",
		), want: []string{`llm.yaml:3: retry.max_attempts: "0" is out of range (1 to 10)`}},
		{name: "max_attempts too many", data: doc(
			"providers: {openai: {}}",
			"models: {fast: {provider: openai, model: m}}",
			"retry: {max_attempts: 100}",
		), want: []string{`llm.yaml:3: retry.max_attempts: "100" is out of range (1 to 10)`}},
		{name: "max_backoff too long", data: doc(
			"providers: {openai: {}}",
			"models: {fast: {provider: openai, model: m}}",
			"retry: {max_backoff: 1h}",
		), want: []string{`llm.yaml:3: retry.max_backoff: "1h" is out of range (more than 0, at most 10m0s)`}},
		{name: "initial backoff over max", data: doc(
			"providers: {openai: {}}",
			"models: {fast: {provider: openai, model: m}}",
			"retry:",
			"  initial_backoff: 5s",
			"  max_backoff: 1s",
		), want: []string{`llm.yaml:4: retry: initial_backoff "5s" is more than max_backoff "1s"`}},
		{name: "initial backoff over the default max", data: doc(
			"providers: {openai: {}}",
			"models: {fast: {provider: openai, model: m}}",
			"retry:",
			"  initial_backoff: 20s",
		), want: []string{`llm.yaml:4: retry: initial_backoff "20s" is more than max_backoff 10s (the default)`}},
		{name: "unknown rate_limits key", data: doc(
			"providers: {openai: {}}",
			"models: {fast: {provider: openai, model: m}}",
			"rate_limits:",
			"  tenants: {requests_per_minute: 60}",
		), want: []string{"llm.yaml:4: rate_limits.tenants: unknown key (known: tenant, user, max_wait)"}},
		{name: "unknown quota key", data: doc(
			"providers: {openai: {}}",
			"models: {fast: {provider: openai, model: m}}",
			"rate_limits:",
			"  user: {requests_per_hour: 60}",
		), want: []string{"llm.yaml:4: rate_limits.user.requests_per_hour: unknown key (known: requests_per_minute, tokens_per_day)"}},
		{name: "negative rate limit", data: doc(
			"providers: {openai: {}}",
			"models: {fast: {provider: openai, model: m}}",
			"rate_limits:",
			"  tenant:",
			"    tokens_per_day: -1",
		), want: []string{`llm.yaml:5: rate_limits.tenant.tokens_per_day: "-1" is out of range (0 to 1000000000000)`}},
		{name: "rate limit not a number", data: doc(
			"providers: {openai: {}}",
			"models: {fast: {provider: openai, model: m}}",
			"rate_limits: {user: {requests_per_minute: lots}}",
		), want: []string{`llm.yaml:3: rate_limits.user.requests_per_minute: "lots" is not a whole number (write e.g. 60, or 0 for no limit)`}},
		{name: "negative max_wait", data: doc(
			"providers: {openai: {}}",
			"models: {fast: {provider: openai, model: m}}",
			"rate_limits: {max_wait: -2s}",
		), want: []string{`llm.yaml:3: rate_limits.max_wait: "-2s": must be 0 (fail at once) or more`}},
		{name: "max_wait too long", data: doc(
			"providers: {openai: {}}",
			"models: {fast: {provider: openai, model: m}}",
			"rate_limits: {max_wait: 2h}",
		), want: []string{`llm.yaml:3: rate_limits.max_wait: "2h" is out of range (0 to 1h0m0s)`}},
		{name: "requests_per_minute too many", data: doc(
			"providers: {openai: {}}",
			"models: {fast: {provider: openai, model: m}}",
			"rate_limits: {user: {requests_per_minute: 60000000}}",
		), want: []string{`llm.yaml:3: rate_limits.user.requests_per_minute: "60000000" is out of range (0 to 1000000)`}},
		{name: "max_wait not a duration", data: doc(
			"providers: {openai: {}}",
			"models: {fast: {provider: openai, model: m}}",
			"rate_limits: {max_wait: 2}",
		), want: []string{`llm.yaml:3: rate_limits.max_wait: "2" is not a duration (write e.g. 2s, or 0 to fail at once)`}},
		{name: "bad merge", data: doc(
			"providers: {openai: {}}",
			"models:",
			"  fast: {<<: 3, provider: openai, model: m}",
		), want: []string{"llm.yaml:3: models.fast.<<: merges a mapping or a list of mappings, not a single value"}},
		{name: "merge cycle", data: doc(
			"providers: {openai: {}}",
			"models:",
			"  f: &f {<<: [*f], provider: openai, model: m}",
		), want: []string{"llm.yaml:3: models.f.<<: merges a mapping that holds this merge: a cycle"}},
		{name: "reasoning_effort not a level", data: doc(
			"providers: {openai: {}}",
			"models:",
			"  fast: {provider: openai, model: m, reasoning_effort: extreme}",
		), want: []string{`llm.yaml:3: models.fast.reasoning_effort: "extreme" is not one of minimal, low, medium, high`}},
		{name: "reasoning_effort not a text", data: doc(
			"providers: {openai: {}}",
			"models:",
			"  fast: {provider: openai, model: m, reasoning_effort: [low]}",
		), want: []string{"llm.yaml:3: models.fast.reasoning_effort: expected a single value, found a list"}},
		{name: "reasoning_effort for anthropic", data: doc(
			"providers: {claude: {type: anthropic}}",
			"models:",
			"  deep:",
			"    reasoning_effort: high", // before the provider: checked once it is known
			"    provider: claude",
			"    model: m",
		), want: []string{`llm.yaml:4: models.deep.reasoning_effort: only for providers that speak OpenAI's API (types: ollama, openai), ` +
			`and provider "claude" is of type anthropic: for Claude's extended thinking, set thinking_budget instead (tokens, 1024 or more)`}},
		{name: "thinking_budget not a number", data: doc(
			"providers: {claude: {type: anthropic}}",
			"models: {deep: {provider: claude, model: m, thinking_budget: lots}}",
		), want: []string{`llm.yaml:2: models.deep.thinking_budget: "lots" is not a whole number (write e.g. 4096)`}},
		{name: "thinking_budget too small", data: doc(
			"providers: {claude: {type: anthropic}}",
			"models: {deep: {provider: claude, model: m, thinking_budget: 512}}",
		), want: []string{`llm.yaml:2: models.deep.thinking_budget: "512" is out of range (1024 to 128000)`}},
		{name: "thinking_budget too large", data: doc(
			"providers: {claude: {type: anthropic}}",
			"models: {deep: {provider: claude, model: m, thinking_budget: 200000, max_tokens: 300000}}",
		), want: []string{`llm.yaml:2: models.deep.thinking_budget: "200000" is out of range (1024 to 128000)`}},
		{name: "thinking_budget for openai", data: doc(
			"providers: {openai: {}}",
			"models: {fast: {provider: openai, model: m, thinking_budget: 2048}}",
		), want: []string{`llm.yaml:2: models.fast.thinking_budget: only for providers that speak Anthropic's API (types: anthropic), ` +
			`and provider "openai" is of type openai: for OpenAI's reasoning models, set reasoning_effort instead (minimal, low, medium, high)`}},
		{name: "thinking_budget not less than max_tokens", data: doc(
			"providers: {claude: {type: anthropic}}",
			"models:",
			"  deep: {provider: claude, model: m, max_tokens: 4096, thinking_budget: 4096}",
		), want: []string{`llm.yaml:3: models.deep.thinking_budget: 4096 is not less than max_tokens (4096): the thinking counts in max_tokens`,
			"set max_tokens above the budget"}},
		{name: "thinking_budget not less than the default max_tokens", data: doc(
			"providers: {claude: {type: anthropic}}",
			"models:",
			"  deep: {provider: claude, model: m, thinking_budget: 10000}",
		), want: []string{`llm.yaml:3: models.deep.thinking_budget: 10000 is not less than 8192, the max_tokens the model gets when it sets none`,
			"set max_tokens above the budget, e.g. max_tokens: 14096"}},
		{name: "thinking_budget equal to the default max_tokens", data: doc(
			"providers: {claude: {type: anthropic}}",
			"models:",
			"  deep: {provider: claude, model: m, thinking_budget: 8192}",
		), want: []string{`llm.yaml:3: models.deep.thinking_budget: 8192 is not less than 8192, the max_tokens the model gets when it sets none`}},
		{name: "thinking_budget with temperature, top_k and a low top_p", data: doc(
			"providers: {claude: {type: anthropic}}",
			"models:",
			"  deep:",
			"    provider: claude",
			"    model: m",
			"    temperature: 0.3",
			"    top_k: 40",
			"    top_p: 0.9",
			"    thinking_budget: 2048",
		), want: []string{
			"llm.yaml:6: models.deep.temperature: cannot be set with thinking_budget (line 9): Anthropic takes no temperature with extended thinking on",
			"llm.yaml:7: models.deep.top_k: cannot be set with thinking_budget (line 9): Anthropic takes no top_k with extended thinking on",
			`llm.yaml:8: models.deep.top_p: "0.9" is out of range with thinking_budget (line 9): with extended thinking on, Anthropic takes a top_p from 0.95 to 1 only`,
		}},
		{name: "prompt_cache not a boolean", data: doc(
			"providers: {claude: {type: anthropic}}",
			"models: {deep: {provider: claude, model: m, prompt_cache: yes please}}",
		), want: []string{`llm.yaml:2: models.deep.prompt_cache: "yes please" is not true or false`}},
		{name: "prompt_cache for openai", data: doc(
			"providers: {openai: {}}",
			"models: {fast: {provider: openai, model: m, prompt_cache: true}}",
		), want: []string{`llm.yaml:2: models.fast.prompt_cache: only for providers that speak Anthropic's API (types: anthropic), ` +
			`and provider "openai" is of type openai: OpenAI caches long prompts by itself, with no setting, and reports the cached tokens in usage; remove prompt_cache`}},
		{name: "prompt_cache for ollama", data: doc(
			"providers: {ollama: {}}",
			"models: {small: {provider: ollama, model: m, prompt_cache: false}}",
		), want: []string{`llm.yaml:2: models.small.prompt_cache: only for providers that speak Anthropic's API (types: anthropic), and provider "ollama" is of type ollama`}},
		{name: "bad value from a variable", env: map[string]string{"T": "sixty"}, data: doc(
			"providers:",
			"  openai: {timeout: '${T}'}",
			"models: {fast: {provider: openai, model: m}}",
		), want: []string{`llm.yaml:2: providers.openai.timeout: the value of "${T}" is not a duration`}},
		{name: "price negative", data: doc(
			"providers: {openai: {}}",
			"models:",
			"  fast:",
			"    provider: openai",
			"    model: m",
			"    price:",
			"      input: 2.5",
			"      cache_read: -0.25",
		), want: []string{`llm.yaml:8: models.fast.price.cache_read: "-0.25" is negative: a price is 0 or more`}},
		{name: "price negative infinity", data: doc(
			"providers: {openai: {}}",
			"models: {fast: {provider: openai, model: m, price: {output: -1e999}}}",
		), want: []string{`llm.yaml:2: models.fast.price.output: "-1e999" is negative`}},
		{name: "price not a number", data: doc(
			"providers: {openai: {}}",
			"models:",
			"  fast:",
			"    provider: openai",
			"    model: m",
			"    price: {input: $2.50, output: 10}",
		), want: []string{`llm.yaml:6: models.fast.price.input: "$2.50" is not a number: write the price of a million tokens, e.g. 2.5`}},
		{name: "price NaN", data: doc(
			"providers: {openai: {}}",
			"models: {fast: {provider: openai, model: m, price: {input: NaN}}}",
		), want: []string{`llm.yaml:2: models.fast.price.input: "NaN" is not a number`}},
		{name: "price YAML's NaN", data: doc(
			"providers: {openai: {}}",
			"models: {fast: {provider: openai, model: m, price: {input: .nan}}}",
		), want: []string{`llm.yaml:2: models.fast.price.input: ".nan" is not a number`}},
		{name: "price too large", data: doc(
			"providers: {openai: {}}",
			"models: {fast: {provider: openai, model: m, price: {output: 2500000}}}",
		), want: []string{`llm.yaml:2: models.fast.price.output: "2500000" is out of range (0 to 1000000 per million tokens)`}},
		{name: "price infinite", data: doc(
			"providers: {openai: {}}",
			"models: {fast: {provider: openai, model: m, price: {output: Inf}}}",
		), want: []string{`llm.yaml:2: models.fast.price.output: "Inf" is out of range (0 to 1000000 per million tokens)`}},
		{name: "price unknown key", data: doc(
			"providers: {openai: {}}",
			"models:",
			"  fast:",
			"    provider: openai",
			"    model: m",
			"    price:",
			"      input: 2.5",
			"      cached_input: 1.25",
		), want: []string{"llm.yaml:8: models.fast.price.cached_input: unknown key (known: input, cache_read, cache_write, output)"}},
		{name: "price empty", data: doc(
			"providers: {openai: {}}",
			"models:",
			"  fast:",
			"    provider: openai",
			"    model: m",
			"    price: {}",
		), want: []string{"llm.yaml:6: models.fast.price: no price given: write at least one of input, cache_read, cache_write, output, per million tokens"}},
		{name: "price of nulls", data: doc(
			"providers: {openai: {}}",
			"models: {fast: {provider: openai, model: m, price: {input: ~, output: '${OUT:-}'}}}",
		), want: []string{"llm.yaml:2: models.fast.price: no price given"}},
		{name: "price not a mapping", data: doc(
			"providers: {openai: {}}",
			"models: {fast: {provider: openai, model: m, price: 2.5}}",
		), want: []string{"llm.yaml:2: models.fast.price: expected a mapping (key: value lines), found a single value"}},
		{name: "price given a list", data: doc(
			"providers: {openai: {}}",
			"models: {fast: {provider: openai, model: m, price: {input: [2.5]}}}",
		), want: []string{"llm.yaml:2: models.fast.price.input: expected a single value, found a list"}},
		{name: "price from a bad variable", env: map[string]string{"IN_PRICE": "cheap-secret"}, data: doc(
			"providers: {openai: {}}",
			"models: {fast: {provider: openai, model: m, price: {input: '${IN_PRICE}'}}}",
		), want: []string{`llm.yaml:2: models.fast.price.input: the value of "${IN_PRICE}" is not a number`}},
	}
}

func TestParseConfigErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range badConfigs() {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cfg, err := parse(t, tc.data, tc.env)
			if err == nil {
				t.Fatalf("parseConfig returned no error (config %+v) for\n%s", cfg, tc.data)
			}
			if cfg != nil {
				t.Errorf("parseConfig returned a config with its error")
			}
			for _, want := range tc.want {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error\n%v\ndoes not contain\n%s", err, want)
				}
			}
			for _, v := range tc.env {
				if strings.Contains(err.Error(), v) {
					t.Errorf("error %q shows the value of a variable, %q", err, v)
				}
			}
		})
	}
}

func TestParseConfigReportsSeveralErrorsInLineOrder(t *testing.T) {
	t.Parallel()
	_, err := parse(t, doc(
		"assistants:",
		"  a: nope",
		"providers:",
		"  openai: {timeout: 5}",
		"models:",
		"  fast: {provider: openai, model: m, temperature: 9}",
	), nil)
	if err == nil {
		t.Fatal("no error")
	}
	got := strings.Split(err.Error(), "\n")
	want := []string{
		`llm.yaml:2: assistants.a: no model named "nope" (models: fast)`,
		`llm.yaml:4: providers.openai.timeout: "5" is not a duration (write e.g. 60s or 2m)`,
		`llm.yaml:6: models.fast.temperature: "9" is out of range (0 to 2)`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("errors (-want +got):\n%s", diff)
	}
}

func TestParseConfigCapsErrors(t *testing.T) {
	t.Parallel()
	lines := []string{"providers: {openai: {}}", "models:"}
	for i := range 15 {
		lines = append(lines, fmt.Sprintf("  m%d: {provider: openai, model: m, top_k: 0}", i))
	}
	_, err := parse(t, doc(lines...), nil)
	if err == nil {
		t.Fatal("no error")
	}
	const maxErrors = 10 // as docs/llm-yaml.md promises
	got := strings.Split(err.Error(), "\n")
	if len(got) != maxErrors+1 || got[maxErrors] != "llm.yaml: and 5 more errors" {
		t.Errorf("got %d lines ending %q; want %d errors and a count of the rest", len(got), got[len(got)-1], maxErrors)
	}
}

func TestParseConfig(t *testing.T) {
	t.Parallel()
	cfg := mustParse(t, doc(
		"providers:",
		"  openai:",
		"    api_key: sk-1",
		"    timeout: 90s",
		"  claude:",
		"    type: anthropic",
		"    api_key: sk-2",
		"  ollama:",
		"  vllm:",
		"    type: openai",
		"    base_url: http://gpu:8000/v1",
		"models:",
		"  fast: {provider: openai, model: gpt-5-mini, temperature: 0.2, max_tokens: 4096}",
		"  deep:",
		"    provider: claude",
		"    model: claude-sonnet-4-6",
		"    top_p: '0.9'", // quoted numbers are numbers: a key's type decides
		"    top_k: 40",
		"    stop: END",
		"  small:",
		"    provider: ollama",
		"    model: qwen3:8b",
		"    seed: -7",
		"    stop: [a, b]",
		"    frequency_penalty: 0.5",
		"    presence_penalty: -0.5",
		"    json: True",
		"  served: {provider: vllm, model: q, json: false, temperature: ~}",
		"default: fast",
		"assistants:",
		"  supervisor: [deep, fast]",
		"  researcher: small",
		"retry:",
		"  max_attempts: 1",
		"  max_backoff: 1m",
		"rate_limits:",
		"  tenant: {requests_per_minute: 600, tokens_per_day: '${TENANT_TOKENS:-5000000}'}",
		"  user:",
		"    requests_per_minute: 20",
		"  max_wait: 1.5s",
		"x-notes: anything",
	), nil)
	want := &fileConfig{
		file: "llm.yaml",
		providers: map[string]*providerSpec{
			"openai": {name: "openai", typ: "openai", apiKey: "sk-1", timeout: 90 * time.Second, pos: "llm.yaml:2"},
			"claude": {name: "claude", typ: "anthropic", apiKey: "sk-2", pos: "llm.yaml:5"},
			"ollama": {name: "ollama", typ: "ollama", pos: "llm.yaml:8"},
			"vllm":   {name: "vllm", typ: "openai", baseURL: "http://gpu:8000/v1", pos: "llm.yaml:9"},
		},
		models: map[string]*modelSpec{
			"fast": {name: "fast", provider: "openai", model: "gpt-5-mini", temperature: ptr(0.2), maxTokens: ptr(4096), pos: "llm.yaml:13"},
			"deep": {name: "deep", provider: "claude", model: "claude-sonnet-4-6", topP: ptr(0.9), topK: ptr(40),
				stop: []string{"END"}, pos: "llm.yaml:14"},
			"small": {name: "small", provider: "ollama", model: "qwen3:8b", seed: ptr(-7), stop: []string{"a", "b"},
				frequencyPenalty: ptr(0.5), presencePenalty: ptr(-0.5), json: true, pos: "llm.yaml:20"},
			"served": {name: "served", provider: "vllm", model: "q", pos: "llm.yaml:28"},
		},
		order:      []string{"fast", "deep", "small", "served"},
		def:        "fast",
		assistants: map[string][]string{"supervisor": {"deep", "fast"}, "researcher": {"small"}},
		retry:      RetryPolicy{MaxAttempts: 1, InitialBackoff: 500 * time.Millisecond, MaxBackoff: time.Minute},
		rateLimits: RateLimits{
			Tenant:  RateQuota{RequestsPerMinute: 600, TokensPerDay: 5_000_000},
			User:    RateQuota{RequestsPerMinute: 20},
			MaxWait: 1500 * time.Millisecond,
		},
	}
	if diff := cmp.Diff(want, cfg, cmpConfig); diff != "" {
		t.Errorf("config (-want +got):\n%s", diff)
	}
}

func TestParseConfigAPISettings(t *testing.T) {
	t.Parallel()
	cfg := mustParse(t, doc(
		"providers:",
		"  openai: {}",
		"  claude: {type: anthropic}",
		"  ollama: {}",
		"models:",
		"  fast: {provider: openai, model: gpt-5-mini, reasoning_effort: minimal}",
		"  deep: {provider: claude, model: claude-sonnet-4-6, thinking_budget: 8191, prompt_cache: true}", // under the default 8192
		"  wide: {provider: claude, model: claude-sonnet-4-6, thinking_budget: 128000, max_tokens: 128001, top_p: 0.95}",
		"  small: {provider: ollama, model: qwen3:8b, reasoning_effort: high}",
		"  plain: {provider: claude, model: claude-haiku-4-5, prompt_cache: false, temperature: 0.3}",
	), nil)
	want := map[string]*modelSpec{
		"fast":  {name: "fast", provider: "openai", model: "gpt-5-mini", reasoningEffort: "minimal", pos: "llm.yaml:6"},
		"deep":  {name: "deep", provider: "claude", model: "claude-sonnet-4-6", thinkingBudget: ptr(8191), promptCache: true, pos: "llm.yaml:7"},
		"wide":  {name: "wide", provider: "claude", model: "claude-sonnet-4-6", thinkingBudget: ptr(128000), maxTokens: ptr(128001), topP: ptr(0.95), pos: "llm.yaml:8"},
		"small": {name: "small", provider: "ollama", model: "qwen3:8b", reasoningEffort: "high", pos: "llm.yaml:9"},
		"plain": {name: "plain", provider: "claude", model: "claude-haiku-4-5", temperature: ptr(0.3), pos: "llm.yaml:10"},
	}
	if diff := cmp.Diff(want, cfg.models, cmpConfig); diff != "" {
		t.Errorf("models (-want +got):\n%s", diff)
	}
}

// A provider type that speaks neither API takes none of their settings; the error lists the
// types that do.
func TestParseConfigAPISettingsOfAnotherType(t *testing.T) {
	t.Parallel()
	types := builtinTypes()
	types["gemini"] = ProviderType{}
	_, err := parseConfig([]byte(doc(
		"providers: {g: {type: gemini}}",
		"models:",
		"  m: {provider: g, model: x, reasoning_effort: low, thinking_budget: 2048, prompt_cache: true}",
	)), "llm.yaml", envOf(nil), types)
	for _, want := range []string{
		`llm.yaml:3: models.m.reasoning_effort: only for providers that speak OpenAI's API (types: azure, deepseek, groq, llamacpp, lmstudio, mistral, ollama, openai, perplexity, together, vllm), and provider "g" is of type gemini` + "\n",
		`llm.yaml:3: models.m.thinking_budget: only for providers that speak Anthropic's API (types: anthropic), and provider "g" is of type gemini` + "\n",
		`llm.yaml:3: models.m.prompt_cache: only for providers that speak Anthropic's API (types: anthropic), and provider "g" is of type gemini`,
	} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error\n%v\ndoes not contain\n%s", err, want)
		}
	}
}

// A thinking budget is checked against a max_tokens that could be read only: one that is
// wrong, or waits for a variable, has its own error or none yet.
func TestParseConfigThinkingBudgetWithUnreadMaxTokens(t *testing.T) {
	t.Parallel()
	cfg := mustParse(t, doc(
		"providers: {claude: {type: anthropic}}",
		"models: {deep: {provider: claude, model: m, thinking_budget: 10000, max_tokens: '${MAX}'}}",
	), nil)
	if m := cfg.models["deep"]; *m.thinkingBudget != 10000 || !cmp.Equal(m.missing, []string{"MAX"}) {
		t.Errorf("deep = %+v; want the budget, and MAX missing", m)
	}
	_, err := parse(t, doc(
		"providers: {claude: {type: anthropic}}",
		"models: {deep: {provider: claude, model: m, thinking_budget: 10000, max_tokens: many}}",
	), nil)
	if err == nil || strings.Contains(err.Error(), "thinking_budget") {
		t.Errorf("err = %v; want max_tokens' error only", err)
	}
}

func TestParseConfigDefaults(t *testing.T) {
	t.Parallel()
	cfg := mustParse(t, doc(
		"providers: {openai: {api_key: k}}",
		"models: {fast: {provider: openai, model: m}}",
	), nil)
	if cfg.def != "" || len(cfg.assistants) != 0 {
		t.Errorf("default %q, assistants %v; want none", cfg.def, cfg.assistants)
	}
	if cfg.retry != defaultRetry() {
		t.Errorf("retry %+v; want the defaults %+v", cfg.retry, defaultRetry())
	}
	if cfg.rateLimits != (RateLimits{}) {
		t.Errorf("rate limits %+v; want none", cfg.rateLimits)
	}
	if got := cfg.models["fast"].callOptions(); len(got) != 0 {
		t.Errorf("a model without settings has %d call options", len(got))
	}
}

func TestParseConfigFileName(t *testing.T) {
	t.Parallel()
	_, err := parseConfig([]byte("providers: 3\n"), "conf/models.yaml", envOf(nil), testTypes)
	if err == nil || !strings.HasPrefix(err.Error(), "conf/models.yaml:1: providers: expected a mapping") {
		t.Errorf("error %v; want it to start with the file name given", err)
	}
}

func TestParseConfigAnchorsAndMerges(t *testing.T) {
	t.Parallel()
	cfg := mustParse(t, doc(
		"x-sampling: &sampling {temperature: 0.2, max_tokens: 100}",
		"x-stop: &stop [END]",
		"providers:",
		"  openai: {}",
		"models:",
		"  fast: {<<: *sampling, provider: openai, model: a, max_tokens: 200, stop: *stop}",
		"  slow:",
		"    <<: [*sampling, {top_k: 5}]",
		"    provider: openai",
		"    model: b",
	), nil)
	fast, slow := cfg.models["fast"], cfg.models["slow"]
	if *fast.temperature != 0.2 || *fast.maxTokens != 200 || !cmp.Equal(fast.stop, []string{"END"}) {
		t.Errorf("fast: temperature %v, max_tokens %v, stop %v; want 0.2, 200 (written wins over merged), [END]",
			*fast.temperature, *fast.maxTokens, fast.stop)
	}
	if *slow.maxTokens != 100 || *slow.topK != 5 {
		t.Errorf("slow: max_tokens %v, top_k %v; want 100, 5", *slow.maxTokens, *slow.topK)
	}
}

func TestParseConfigBoundsAliasExpansion(t *testing.T) {
	t.Parallel()
	// 600 models each aliasing a 600-item list: small to write, 360,000 nodes to read.
	var b strings.Builder
	b.WriteString("x-stop: &s [")
	for i := range 600 {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "w%d", i)
	}
	b.WriteString("]\nproviders: {openai: {}}\nmodels:\n")
	for i := range 600 {
		fmt.Fprintf(&b, "  m%d: {provider: openai, model: m, stop: *s}\n", i)
	}
	_, err := parse(t, b.String(), nil)
	const want = "llm.yaml: too many nodes to read with aliases expanded (over 262144): the file repeats itself too much"
	if err == nil || err.Error() != want {
		t.Errorf("error %v; want too many nodes", err)
	}
}

func TestParseConfigVariables(t *testing.T) {
	t.Parallel()
	env := map[string]string{"OPENAI_API_KEY": "sk-env", "T": "45s", "EMPTY": "", "MODEL": "gpt-5"}
	cfg := mustParse(t, doc(
		"providers:",
		"  openai:",
		"    api_key: ${OPENAI_API_KEY}", // set
		"    timeout: ${T:-10s}",         // set, in a duration
		"  claude:",
		"    type: anthropic",
		"    api_key: ${ANTHROPIC_API_KEY}",  // unset: deferred
		"    timeout: ${CLAUDE_TIMEOUT:-2m}", // unset with a default, in a duration
		"  local:",
		"    type: ollama",
		"    base_url: http://${HOST:-localhost}:11434/v1",
		"    api_key: ${EMPTY:-}", // empty: no key
		"models:",
		"  fast: {provider: openai, model: '${MODEL}', stop: ['$$END', '${STOP}']}",
		"  deep: {provider: claude, model: '${DEEP_MODEL:-claude-opus-4-1}', max_tokens: '${DEEP_TOKENS}'}",
		"default: ${DEFAULT:-fast}",
	), env)
	openai, claude, local := cfg.providers["openai"], cfg.providers["claude"], cfg.providers["local"]
	if openai.apiKey != "sk-env" || openai.timeout != 45*time.Second || len(openai.missing) != 0 {
		t.Errorf("openai: key %q, timeout %v, missing %v; want the variables' values", openai.apiKey.Reveal(), openai.timeout, openai.missing)
	}
	if claude.apiKey != "" || claude.timeout != 2*time.Minute || !cmp.Equal(claude.missing, []string{"ANTHROPIC_API_KEY"}) {
		t.Errorf("claude: key %q, timeout %v, missing %v; want no key, the default timeout, ANTHROPIC_API_KEY missing",
			claude.apiKey.Reveal(), claude.timeout, claude.missing)
	}
	if local.baseURL != "http://localhost:11434/v1" || local.apiKey != "" || len(local.missing) != 0 {
		t.Errorf("local: base_url %q, key %q, missing %v", local.baseURL, local.apiKey.Reveal(), local.missing)
	}
	fast, deep := cfg.models["fast"], cfg.models["deep"]
	if fast.model != "gpt-5" || !cmp.Equal(fast.stop, []string{"$END"}) || !cmp.Equal(fast.missing, []string{"STOP"}) {
		t.Errorf("fast: model %q, stop %q, missing %v; want gpt-5, [$END], STOP missing", fast.model, fast.stop, fast.missing)
	}
	if deep.model != "claude-opus-4-1" || deep.maxTokens != nil || !cmp.Equal(deep.missing, []string{"DEEP_TOKENS"}) {
		t.Errorf("deep: model %q, max_tokens %v, missing %v; want the default model, no max_tokens, DEEP_TOKENS missing",
			deep.model, deep.maxTokens, deep.missing)
	}
	if cfg.def != "fast" {
		t.Errorf("default %q; want fast from the variable's default", cfg.def)
	}
}

func TestParseConfigErrorsHideVariableValues(t *testing.T) {
	t.Parallel()
	const secret = "SECRET-VALUE-42"
	env := map[string]string{"V": secret, "URL": secret, "N": secret}
	_, err := parse(t, doc(
		"providers:",
		"  openai: {api_key: '${V}', timeout: '${V}', base_url: '${URL}', type: '${V}'}",
		"models:",
		"  fast: {provider: '${V}', model: m, temperature: '${N}', max_tokens: '${N}', json: '${N}', top_k: '${N}'}",
		"default: ${V}",
		"assistants: {a: '${V}', b: ['${V}']}",
		"retry: {max_attempts: '${N}', initial_backoff: '${N}'}",
	), env)
	if err == nil {
		t.Fatal("no error")
	}
	if strings.Contains(err.Error(), secret) {
		t.Errorf("an error shows a variable's value:\n%v", err)
	}
	if !strings.Contains(err.Error(), `the value of "${V}"`) {
		t.Errorf("errors do not quote the file's text:\n%v", err)
	}
}

func TestCallOptions(t *testing.T) {
	t.Parallel()
	m := &modelSpec{
		temperature: ptr(0.3), topP: ptr(0.8), topK: ptr(20), maxTokens: ptr(512), seed: ptr(7),
		stop: []string{"END"}, frequencyPenalty: ptr(0.1), presencePenalty: ptr(-0.1), json: true,
		// Sent by the transport, not as call options.
		reasoningEffort: "high", thinkingBudget: ptr(2048), promptCache: true,
	}
	var got llms.CallOptions
	for _, o := range m.callOptions() {
		o(&got)
	}
	want := llms.CallOptions{
		Temperature: 0.3, TopP: 0.8, TopK: 20, MaxTokens: 512, Seed: 7, StopWords: []string{"END"},
		FrequencyPenalty: 0.1, PresencePenalty: -0.1, JSONMode: true,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("call options (-want +got):\n%s", diff)
	}
	got.StopWords[0] = "changed"
	if m.stop[0] != "END" {
		t.Error("a call option shares the model's stop list")
	}

	// Only the settings given become options: zero is a setting, absence is not.
	m = &modelSpec{temperature: ptr(0.0)}
	if n := len(m.callOptions()); n != 1 {
		t.Errorf("temperature 0 alone gave %d options; want 1", n)
	}
}

func TestProviderSpecPrintsNoKey(t *testing.T) {
	t.Parallel()
	ps := &providerSpec{name: "openai", typ: "openai", apiKey: "sk-secret-key", pos: "llm.yaml:2"}
	for _, format := range []string{"%v", "%+v", "%#v", "%s"} {
		for _, arg := range []any{ps, *ps} {
			if got := fmt.Sprintf(format, arg); strings.Contains(got, "sk-secret-key") {
				t.Errorf("Sprintf(%q, %T) = %s: shows the key", format, arg, got)
			}
		}
	}
	cfg := &fileConfig{providers: map[string]*providerSpec{"openai": ps}}
	if got := fmt.Sprintf("%+v %#v", cfg, cfg); strings.Contains(got, "sk-secret-key") {
		t.Errorf("a printed fileConfig shows the key: %s", got)
	}
}

func TestExampleFile(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(filepath.Join("..", "..", "llm.yaml.example"))
	if err != nil {
		t.Fatal(err)
	}
	// As a new user would run it: no variables set, the types Parse knows.
	cfg, err := parseConfig(data, "llm.yaml.example", envOf(nil), builtinTypes())
	if err != nil {
		t.Fatalf("llm.yaml.example: %v", err)
	}
	if diff := cmp.Diff([]string{"fast", "deep", "local", "served"}, cfg.order); diff != "" {
		t.Errorf("models (-want +got):\n%s", diff)
	}
	types := map[string]string{}
	for name, p := range cfg.providers {
		types[name] = p.typ
	}
	wantTypes := map[string]string{"openai": "openai", "claude": "anthropic", "ollama": "ollama", "vllm": "vllm"}
	if diff := cmp.Diff(wantTypes, types); diff != "" {
		t.Errorf("provider types (-want +got):\n%s", diff)
	}
	if got := cfg.providers["openai"].missing; !cmp.Equal(got, []string{"OPENAI_API_KEY"}) {
		t.Errorf("openai missing %v; want OPENAI_API_KEY", got)
	}
	if got := cfg.providers["claude"].missing; !cmp.Equal(got, []string{"ANTHROPIC_API_KEY"}) {
		t.Errorf("claude missing %v; want ANTHROPIC_API_KEY", got)
	}
	for _, name := range []string{"ollama", "vllm"} {
		if p := cfg.providers[name]; len(p.missing) != 0 || p.baseURL == "" {
			t.Errorf("%s: missing %v, base_url %q; want usable with no variables set", name, p.missing, p.baseURL)
		}
	}
	if fast, deep := cfg.models["fast"], cfg.models["deep"]; fast.reasoningEffort == "" || deep.thinkingBudget == nil || !deep.promptCache {
		t.Errorf("fast %+v, deep %+v; the example should show reasoning_effort, thinking_budget and prompt_cache", fast, deep)
	}
	if cfg.def != "fast" || len(cfg.assistants["supervisor"]) < 2 {
		t.Errorf("default %q, supervisor %v; want a default and a fallback chain", cfg.def, cfg.assistants["supervisor"])
	}
	if cfg.retry != defaultRetry() {
		t.Errorf("retry %+v; the example should show the defaults %+v", cfg.retry, defaultRetry())
	}

	// With the keys set, every provider is ready.
	cfg, err = parseConfig(data, "llm.yaml.example", envOf(map[string]string{
		"OPENAI_API_KEY": "sk-o", "ANTHROPIC_API_KEY": "sk-a",
	}), builtinTypes())
	if err != nil {
		t.Fatal(err)
	}
	for name, p := range cfg.providers {
		if len(p.missing) != 0 {
			t.Errorf("%s: missing %v with the keys set", name, p.missing)
		}
	}
}

func TestDocsNameEveryKey(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(filepath.Join("..", "..", "docs", "llm-yaml.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, set := range [][]string{topKeys, providerKeys, modelKeys, retryKeys, rateLimitKeys, quotaKeys, priceKeys} {
		for _, key := range set {
			if !strings.Contains(string(data), "`"+key+"`") {
				t.Errorf("docs/llm-yaml.md does not document `%s`", key)
			}
		}
	}
}

func FuzzParseConfig(f *testing.F) {
	if data, err := os.ReadFile(filepath.Join("..", "..", "llm.yaml.example")); err == nil {
		f.Add(data)
	}
	for _, tc := range badConfigs() {
		f.Add([]byte(tc.data))
	}
	f.Add([]byte(doc(
		"providers: {openai: {}}",
		"x-price: &std {input: 2.5, cache_read: 0.25, output: 10}",
		"models:",
		"  fast: {provider: openai, model: m, price: {input: 1.25, cache_read: 0.125, cache_write: 1.5, output: 10}}",
		"  other: {provider: openai, model: n, price: *std}",
	)))
	const secret = "fuzz-secret-value"
	env := func(name string) (string, bool) {
		if strings.HasPrefix(name, "S") {
			return secret, true
		}
		return "", false
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg, err := parseConfig(data, "llm.yaml", env, testTypes)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "llm.yaml") {
				t.Errorf("error does not name the file: %v", err)
			}
			if !strings.Contains(string(data), secret) && strings.Contains(err.Error(), secret) {
				t.Errorf("error shows a variable's value: %v", err)
			}
			return
		}
		checkConfig(t, cfg)
	})
}

// checkConfig checks what the factory relies on in a parsed config.
func checkConfig(t *testing.T, cfg *fileConfig) {
	t.Helper()
	if len(cfg.providers) == 0 || len(cfg.models) == 0 || len(cfg.order) != len(cfg.models) {
		t.Fatalf("%d providers, %d models, %d in order", len(cfg.providers), len(cfg.models), len(cfg.order))
	}
	for name, p := range cfg.providers {
		if _, ok := testTypes[p.typ]; !ok || p.name != name {
			t.Errorf("provider %q: name %q, type %q", name, p.name, p.typ)
		}
	}
	for name, m := range cfg.models {
		if _, ok := cfg.providers[m.provider]; !ok || m.name != name {
			t.Errorf("model %q: name %q, provider %q not in providers", name, m.name, m.provider)
		}
		if m.model == "" && len(m.missing) == 0 {
			t.Errorf("model %q has no model id and nothing missing", name)
		}
		if p := m.price; p != nil {
			for _, x := range []float64{p.Input, p.CacheRead, p.CacheWrite, p.Output} {
				if !(x >= 0 && x <= maxPrice) {
					t.Errorf("model %q has price %+v, out of range", name, *p)
				}
			}
		}
	}
	if _, ok := cfg.models[cfg.def]; cfg.def != "" && !ok {
		t.Errorf("default %q is not a model", cfg.def)
	}
	for a, chain := range cfg.assistants {
		if len(chain) == 0 {
			t.Errorf("assistant %q has an empty chain", a)
		}
		for _, name := range chain {
			if _, ok := cfg.models[name]; !ok {
				t.Errorf("assistant %q names %q, not a model", a, name)
			}
		}
	}
	if r := cfg.retry; r.MaxAttempts < 1 || r.InitialBackoff <= 0 || r.InitialBackoff > r.MaxBackoff {
		t.Errorf("retry %+v is not valid", r)
	}
}

// TestRetryBackoffs: a policy may wait as long before the first retry as at most, and a
// max_backoff refused is reported as what it is, not also as less than initial_backoff.
func TestRetryBackoffs(t *testing.T) {
	t.Parallel()
	head := "providers: {openai: {}}\nmodels: {fast: {provider: openai, model: m}}\n"
	cfg, err := parseConfig([]byte(head+"retry: {initial_backoff: 2s, max_backoff: 2s}\n"), "llm.yaml", envOf(nil), testTypes)
	if err != nil {
		t.Fatal(err)
	}
	if want := (RetryPolicy{MaxAttempts: 3, InitialBackoff: 2 * time.Second, MaxBackoff: 2 * time.Second}); cfg.retry != want {
		t.Errorf("retry = %+v, want %+v", cfg.retry, want)
	}
	for _, bad := range []string{"0s", "1h", "soon"} {
		_, err := parseConfig([]byte(head+"retry: {max_backoff: "+bad+"}\n"), "llm.yaml", envOf(nil), testTypes)
		if err == nil || !strings.Contains(err.Error(), "retry.max_backoff: \""+bad+"\"") || strings.Contains(err.Error(), "more than max_backoff") {
			t.Errorf("max_backoff %s: error %v, want one error, about max_backoff", bad, err)
		}
	}
}

// TestMaxWaitBounds: rate_limits.max_wait takes 0 (fail at once) and its longest, an hour.
func TestMaxWaitBounds(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		text string
		want time.Duration
	}{{"0s", 0}, {"0", 0}, {"1h", time.Hour}, {"59m59s", time.Hour - time.Second}} {
		cfg, err := parseConfig([]byte(doc(
			"providers: {openai: {}}",
			"models: {fast: {provider: openai, model: m}}",
			"rate_limits: {tenant: {requests_per_minute: 60}, max_wait: "+tc.text+"}",
		)), "llm.yaml", envOf(nil), testTypes)
		if err != nil {
			t.Errorf("max_wait %s: %v", tc.text, err)
			continue
		}
		if cfg.rateLimits.MaxWait != tc.want {
			t.Errorf("max_wait %s read as %s, want %s", tc.text, cfg.rateLimits.MaxWait, tc.want)
		}
	}
}
