package llmfactory

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/cadrehq/cadre/internal/yamlconf"
	"github.com/cadrehq/cadre/pkg/model"
	"github.com/tmc/langchaingo/llms"
	"gopkg.in/yaml.v3"
)

// RetryPolicy is llm.yaml's retry section: how the HTTP transport of every provider client
// retries a request that may succeed later. A RetryPolicy from Load or Parse has its defaults
// applied and is valid: MaxAttempts >= 1, 0 < InitialBackoff <= MaxBackoff.
type RetryPolicy struct {
	MaxAttempts    int           // attempts in all, the first included (default 3; 1 = no retry)
	InitialBackoff time.Duration // the wait before the first retry (default 500ms)
	MaxBackoff     time.Duration // the longest wait between attempts (default 10s)
}

// defaultRetry is the retry section of a file that has none.
func defaultRetry() RetryPolicy {
	return RetryPolicy{MaxAttempts: 3, InitialBackoff: 500 * time.Millisecond, MaxBackoff: 10 * time.Second}
}

// fileConfig is a parsed llm.yaml. Its references are checked: every model's provider is in
// providers, and def and every assistant chain name models in models.
type fileConfig struct {
	file       string                   // the path (Load) or the name given to Parse
	providers  map[string]*providerSpec // by name
	models     map[string]*modelSpec    // by name
	order      []string                 // model names in file order
	def        string                   // the default model's name; "" when absent
	assistants map[string][]string      // assistant -> its chain of model names, never empty
	retry      RetryPolicy              // defaults applied
	rateLimits RateLimits               // zero when the file has no rate_limits
}

// providerSpec is one entry of providers. typ is always a known type.
type providerSpec struct {
	name, typ string
	apiKey    Secret        // "" when not set
	baseURL   string        // an absolute http(s) URL; "" when not set
	version   string        // api_version; "" when not set, and for a type that takes none
	timeout   time.Duration // per attempt; 0 when not set
	region    string        // "" when not set; for types that take one (ProviderType.Regional)
	// missing names the ${VAR}s, unset and without a default, in the provider's values:
	// the provider cannot be used (the field they were in is left unset).
	missing []string
	pos     string // "llm.yaml:12": where the provider is named, for errors at first use
}

// String describes the provider with its key redacted: fmt cannot reach the methods of the
// unexported apiKey, and would print the key itself.
func (p providerSpec) String() string {
	return fmt.Sprintf("provider %q (type %s, api_key %q, base_url %q, api_version %q, timeout %s, region %q, missing %v, at %s)",
		p.name, p.typ, p.apiKey, p.baseURL, p.version, p.timeout, p.region, p.missing, p.pos)
}

// GoString is String, for %#v.
func (p providerSpec) GoString() string { return p.String() }

// modelSpec is one entry of models. A nil pointer or an empty slice is a setting the file
// does not give.
type modelSpec struct {
	name, provider, model string
	temperature, topP     *float64
	frequencyPenalty      *float64
	presencePenalty       *float64
	maxTokens, topK, seed *int
	stop                  []string
	json                  bool // JSON mode
	// The settings of one API, which the transport writes into the requests (see bodyEdit);
	// the parser checks them against the provider's API.
	reasoningEffort string // OpenAIAPI: one of reasoningEfforts; "" when not set
	thinkingBudget  *int   // AnthropicAPI: extended thinking's budget_tokens
	promptCache     bool   // AnthropicAPI: mark the tools and the system prompt for caching
	// output is the output key: how the model is asked for structured output (Model.Output);
	// OutputUnknown when not set. The parser checks native against the provider's type.
	output model.OutputForm
	// price is the price key, its cache prices filled in; nil when the file gives none.
	price *model.Price
	// missing names the ${VAR}s, unset and without a default, in the model's values: the
	// model cannot be used (the field they were in is left unset).
	missing []string
	pos     string // "llm.yaml:12": where the model is named
}

// callOptions returns the model's settings as langchaingo call options, only those the file
// gives, in a fixed order.
func (m *modelSpec) callOptions() []llms.CallOption {
	var opts []llms.CallOption
	if m.temperature != nil {
		opts = append(opts, llms.WithTemperature(*m.temperature))
	}
	if m.topP != nil {
		opts = append(opts, llms.WithTopP(*m.topP))
	}
	if m.topK != nil {
		opts = append(opts, llms.WithTopK(*m.topK))
	}
	if m.maxTokens != nil {
		opts = append(opts, llms.WithMaxTokens(*m.maxTokens))
	}
	if m.seed != nil {
		opts = append(opts, llms.WithSeed(*m.seed))
	}
	if len(m.stop) > 0 {
		opts = append(opts, llms.WithStopWords(slices.Clone(m.stop)))
	}
	if m.frequencyPenalty != nil {
		opts = append(opts, llms.WithFrequencyPenalty(*m.frequencyPenalty))
	}
	if m.presencePenalty != nil {
		opts = append(opts, llms.WithPresencePenalty(*m.presencePenalty))
	}
	if m.json {
		opts = append(opts, llms.WithJSONMode())
	}
	return opts
}

// The keys each mapping of llm.yaml may hold, in the order the docs list them.
var (
	topKeys      = []string{"providers", "models", "default", "assistants", "retry", "rate_limits"}
	providerKeys = []string{"type", "api_key", "base_url", "api_version", "timeout", "region"}
	modelKeys    = []string{"provider", "model", "temperature", "max_tokens", "top_p", "top_k",
		"stop", "seed", "frequency_penalty", "presence_penalty", "json",
		"reasoning_effort", "thinking_budget", "prompt_cache", "output", "price"}
	retryKeys = []string{"max_attempts", "initial_backoff", "max_backoff"}
)

// parseConfig parses the llm.yaml document data. file names it in errors. env looks variables
// up (nil means os.LookupEnv). types are the provider types known, by name: which keys a
// provider needs or may have depends on its type.
//
// Every error names the file, the line and the key path; up to ten are reported at once,
// joined. No error holds the value of an environment variable.
func parseConfig(data []byte, file string, env func(string) (string, bool), types map[string]ProviderType) (*fileConfig, error) {
	if file == "" {
		file = "llm.yaml"
	}
	p := &parser{Reader: yamlconf.NewReader(file, env), types: types}
	root, err := p.Document(data)
	if err != nil {
		return nil, err
	}
	cfg := p.config(root)
	if err := p.Err(); err != nil {
		return nil, err
	}
	return cfg, nil
}

// parser reads llm.yaml's sections from a document's nodes; the Reader records the errors.
type parser struct {
	*yamlconf.Reader
	types map[string]ProviderType
}

// config reads the top-level mapping.
func (p *parser) config(root *yaml.Node) *fileConfig {
	cfg := &fileConfig{
		file:       p.File(),
		providers:  map[string]*providerSpec{},
		models:     map[string]*modelSpec{},
		assistants: map[string][]string{},
		retry:      defaultRetry(),
	}
	if root == nil || yamlconf.IsNull(root) {
		p.Errorf(nil, "", "the file is empty: it needs at least one provider and one model, "+
			"e.g. providers: {openai: {api_key: ${OPENAI_API_KEY}}} and models: {fast: {provider: openai, model: gpt-5-mini}} (see docs/llm-yaml.md)")
		return cfg
	}
	top, ok := p.Entries(root, "")
	if !ok {
		return cfg
	}
	sections := map[string]*yamlconf.Entry{}
	for i, e := range top {
		switch {
		case slices.Contains(topKeys, e.Key):
			sections[e.Key] = &top[i]
		case strings.HasPrefix(e.Key, "x-"): // a place for YAML anchors
		default:
			p.UnknownKey(e, e.Key, topKeys, "; keys starting with x- are ignored")
		}
	}
	providersOK := p.providers(cfg, root, sections["providers"])
	modelsOK := p.models(cfg, root, sections["models"], providersOK)
	if sec := sections["default"]; sec != nil {
		if v, st := p.Text(sec.Val, "default", nil); st == yamlconf.Present && modelsOK {
			if p.modelRef(cfg, v) {
				cfg.def = v.Text
			}
		}
	}
	if sec := sections["assistants"]; sec != nil {
		p.assistants(cfg, sec, modelsOK)
	}
	if sec := sections["retry"]; sec != nil {
		p.retry(cfg, sec)
	}
	if sec := sections["rate_limits"]; sec != nil {
		p.rateLimits(cfg, sec)
	}
	return cfg
}

// providers reads the providers section. It reports whether the section is whole enough to
// check the models' references against.
func (p *parser) providers(cfg *fileConfig, root *yaml.Node, sec *yamlconf.Entry) bool {
	es, ok := p.section(root, sec, "providers", "provider")
	for _, e := range es {
		cfg.providers[e.Key] = p.provider(e)
	}
	return ok
}

// section returns the named entries of a required section (providers, models) that must
// hold at least one of its kind, reporting what is missing; ok says whether the section
// could be read whole.
func (p *parser) section(root *yaml.Node, sec *yamlconf.Entry, name, kind string) (named []yamlconf.Entry, ok bool) {
	if sec == nil {
		p.Errorf(root, "", "no %s section: add one with at least one %s (see docs/llm-yaml.md)", name, kind)
		return nil, false
	}
	es, ok := p.Entries(sec.Val, name)
	if ok && len(es) == 0 {
		p.Errorf(sec.KeyNode, name, "empty: add at least one %s", kind)
	}
	for _, e := range es {
		if e.Key == "" {
			p.Errorf(e.KeyNode, name, "a %s needs a name", kind)
			continue
		}
		named = append(named, e)
	}
	return named, ok
}

// provider reads one entry of providers.
func (p *parser) provider(e yamlconf.Entry) *providerSpec {
	ps := &providerSpec{name: e.Key, pos: p.Pos(e.KeyNode)}
	path := "providers." + e.Key
	fields, _ := p.Entries(e.Val, path)
	var typ yamlconf.Value
	typState, baseState := yamlconf.Absent, yamlconf.Absent
	var version *yamlconf.Entry // the api_version entry, if written
	versionState := yamlconf.Absent
	for i, f := range fields {
		fp := path + "." + f.Key
		switch f.Key {
		case "type":
			// Not deferred: a provider's type must be known when the file is read.
			typ, typState = p.Text(f.Val, fp, nil)
		case "api_key":
			if v, st := p.Text(f.Val, fp, &ps.missing); st == yamlconf.Present {
				ps.apiKey = Secret(v.Text)
			}
		case "base_url":
			var v yamlconf.Value
			if v, baseState = p.Text(f.Val, fp, &ps.missing); baseState == yamlconf.Present && p.URL(v) {
				ps.baseURL = v.Text
			}
		case "api_version":
			var v yamlconf.Value
			version = &fields[i]
			if v, versionState = p.Text(f.Val, fp, &ps.missing); versionState == yamlconf.Present && p.apiVersion(v) {
				ps.version = v.Text
			}
		case "timeout":
			if v, st := p.Text(f.Val, fp, &ps.missing); st == yamlconf.Present {
				ps.timeout = p.Duration(v, maxTimeout)
			}
		case "region":
			if v, st := p.Text(f.Val, fp, &ps.missing); st == yamlconf.Present {
				ps.region = v.Text
			}
		default:
			p.UnknownKey(f, fp, providerKeys, "")
		}
	}
	switch typState {
	case yamlconf.Present:
		if _, ok := p.types[typ.Text]; ok {
			ps.typ = typ.Text
		} else {
			p.Errorf(typ.Node, typ.Path, "unknown provider type %s (known: %s)", typ.Quoted(), p.typeList(nil))
		}
	case yamlconf.Absent:
		if _, ok := p.types[e.Key]; ok {
			ps.typ = e.Key
		} else {
			p.Errorf(e.KeyNode, path, "missing type (one of: %s)", p.typeList(nil))
		}
	}
	if ps.typ != "" {
		p.typeKeys(ps, e, baseState, version, versionState)
	}
	return ps
}

// typeKeys checks the keys of provider ps (entry e) that its type decides on: base_url, which a
// type without an address of its own needs, and api_version, which only some types take, and
// they need. The states say how base_url and api_version (entry version, nil when not written)
// were found.
func (p *parser) typeKeys(ps *providerSpec, e yamlconf.Entry, baseState yamlconf.State, version *yamlconf.Entry, versionState yamlconf.State) {
	t, path := p.types[ps.typ], "providers."+e.Key
	if t.NeedsBaseURL && baseState == yamlconf.Absent {
		p.Errorf(e.KeyNode, path, "missing base_url: type %s has no address of its own: write your service's "+
			"(docs/llm-yaml.md shows what it is for each type)", ps.typ)
	}
	switch {
	case !t.APIVersion && version != nil:
		ps.version = ""
		p.Errorf(version.KeyNode, path+".api_version", "type %s takes no api_version (types that do: %s)",
			ps.typ, p.typeList(func(t ProviderType) bool { return t.APIVersion }))
	case t.APIVersion && versionState == yamlconf.Absent:
		p.Errorf(e.KeyNode, path, "missing api_version: type %s needs the version of the API to call, e.g. api_version: 2024-10-21", ps.typ)
	}
}

// apiVersion reports whether v can be an API version, such as 2024-10-21 or
// 2025-04-01-preview, recording an error if not: it goes into the request's URL as it is.
func (p *parser) apiVersion(v yamlconf.Value) bool {
	for _, c := range v.Text {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '.' || c == '_') {
			p.Errorf(v.Node, v.Path, "%s is not an API version (write e.g. 2024-10-21)", v.Quoted())
			return false
		}
	}
	return true
}

// typeList lists the known types that keep reports true for (all of them when keep is nil).
func (p *parser) typeList(keep func(ProviderType) bool) string {
	names := make([]string, 0, len(p.types))
	for name, t := range p.types {
		if keep == nil || keep(t) {
			names = append(names, name)
		}
	}
	return list(names)
}

// models reads the models section. providersOK says whether provider references can be
// checked. It reports whether the section is whole enough to check references to models.
func (p *parser) models(cfg *fileConfig, root *yaml.Node, sec *yamlconf.Entry, providersOK bool) bool {
	es, ok := p.section(root, sec, "models", "model")
	for _, e := range es {
		cfg.models[e.Key] = p.model(cfg, e, providersOK)
		cfg.order = append(cfg.order, e.Key)
	}
	return ok
}

// model reads one entry of models.
func (p *parser) model(cfg *fileConfig, e yamlconf.Entry, providersOK bool) *modelSpec {
	ms := &modelSpec{name: e.Key, pos: p.Pos(e.KeyNode)}
	path := "models." + e.Key
	fields, _ := p.Entries(e.Val, path)
	provState, modelState := yamlconf.Absent, yamlconf.Absent
	given := map[string]yamlconf.Value{} // the keys written, for the checks that need them all
	for _, f := range fields {
		fp := path + "." + f.Key
		if f.Key == "provider" {
			// Not deferred: the reference is checked now.
			var v yamlconf.Value
			if v, provState = p.Text(f.Val, fp, nil); provState == yamlconf.Present && providersOK {
				if _, ok := cfg.providers[v.Text]; ok {
					ms.provider = v.Text
				} else {
					p.Errorf(v.Node, fp, "no provider named %s (providers: %s)", v.Quoted(), list(keys(cfg.providers)))
				}
			}
			continue
		}
		if f.Key == "stop" {
			ms.stop = p.Texts(f.Val, fp, &ms.missing)
			continue
		}
		if f.Key == "price" {
			ms.price = p.price(f, fp, &ms.missing)
			continue
		}
		if !slices.Contains(modelKeys, f.Key) {
			p.UnknownKey(f, fp, modelKeys, "")
			continue
		}
		v, st := p.Text(f.Val, fp, &ms.missing)
		if f.Key == "model" {
			modelState = st
		}
		if st != yamlconf.Present {
			if st == yamlconf.Skipped {
				given[f.Key] = yamlconf.Value{Node: f.Val, Path: fp}
			}
			continue
		}
		given[f.Key] = v
		switch f.Key {
		case "model":
			ms.model = v.Text
		case "temperature":
			ms.temperature = p.Number(v, 0, 2)
		case "top_p":
			ms.topP = p.Number(v, 0, 1)
		case "frequency_penalty":
			ms.frequencyPenalty = p.Number(v, -2, 2)
		case "presence_penalty":
			ms.presencePenalty = p.Number(v, -2, 2)
		case "max_tokens":
			ms.maxTokens = p.Integer(v, 1, maxMaxTokens, "4096")
		case "top_k":
			ms.topK = p.Integer(v, 1, maxTopK, "40")
		case "seed":
			ms.seed = p.Integer(v, math.MinInt, math.MaxInt, "42")
		case "json":
			ms.json = p.Bool(v)
		case "reasoning_effort":
			if slices.Contains(reasoningEfforts, v.Text) {
				ms.reasoningEffort = v.Text
			} else {
				p.Errorf(v.Node, v.Path, "%s is not one of %s", v.Quoted(), strings.Join(reasoningEfforts, ", "))
			}
		case "thinking_budget":
			ms.thinkingBudget = p.Integer(v, minThinkingBudget, maxThinkingBudget, "4096")
		case "prompt_cache":
			ms.promptCache = p.Bool(v)
		case "output":
			if f, err := model.ParseOutputForm(v.Text); err == nil {
				ms.output = f
			} else {
				p.Errorf(v.Node, v.Path, "%s is not an output form: use native, tool or prompted", v.Quoted())
			}
		}
	}
	p.apiSettings(cfg, ms, given)
	p.outputKey(cfg, ms, given)
	if provState == yamlconf.Absent {
		p.Errorf(e.KeyNode, path, "missing provider (one of: %s)", list(keys(cfg.providers)))
	}
	if modelState == yamlconf.Absent {
		p.Errorf(e.KeyNode, path, "missing model: the provider's name for the model, e.g. gpt-5-mini")
	}
	return ms
}

// reasoningEfforts are the values of models.*.reasoning_effort, least effort first.
var reasoningEfforts = []string{"minimal", "low", "medium", "high"}

// The bounds of models.*.thinking_budget: Anthropic's least budget, and its largest output.
const (
	minThinkingBudget = 1024
	maxThinkingBudget = 128_000
)

// apiSettings checks the settings that only one API takes (reasoning_effort, thinking_budget,
// prompt_cache) against the API of the model's provider, unsetting those it does not take,
// and a thinking budget against the settings Anthropic refuses with it. given holds the keys
// the model writes, by key. A model whose provider is unknown is left alone: that is an error
// already.
func (p *parser) apiSettings(cfg *fileConfig, ms *modelSpec, given map[string]yamlconf.Value) {
	prov := cfg.providers[ms.provider]
	if prov == nil || prov.typ == "" {
		return
	}
	t := p.types[prov.typ]
	// takes reports whether the model may have key, which is for want's providers only,
	// recording an error with hint (for the model's API) when it may not.
	takes := func(key string, want API, hint map[API]string) bool {
		v, ok := given[key]
		if !ok || t.API == want {
			return true
		}
		msg := fmt.Sprintf("only for providers that speak %s (types: %s), and provider %q is of type %s",
			apiName(want), p.typesOf(want), prov.name, prov.typ)
		if h := hint[t.API]; h != "" {
			msg += ": " + h
		}
		p.Errorf(v.Node, v.Path, "%s", msg)
		return false
	}
	if !takes("reasoning_effort", OpenAIAPI, map[API]string{
		AnthropicAPI: "for Claude's extended thinking, set thinking_budget instead (tokens, 1024 or more)",
	}) {
		ms.reasoningEffort = ""
	}
	if !takes("thinking_budget", AnthropicAPI, map[API]string{
		OpenAIAPI: "for OpenAI's reasoning models, set reasoning_effort instead (" + strings.Join(reasoningEfforts, ", ") + ")",
	}) {
		ms.thinkingBudget = nil
	}
	if !takes("prompt_cache", AnthropicAPI, map[API]string{
		OpenAIAPI: "OpenAI caches long prompts by itself, with no setting, and reports the cached tokens in usage; remove prompt_cache",
	}) {
		ms.promptCache = false
	}
	if ms.thinkingBudget != nil {
		p.thinkingBudget(ms, given, model.Facts(cmp.Or(t.Provider, prov.typ)).MaxTokens)
	}
}

// outputKey checks a model's output: native against the type of its provider, which must
// write an output schema into its requests (a type with an API, or with
// ProviderType.OutputSchema), unsetting it if not. given holds the keys the model writes.
func (p *parser) outputKey(cfg *fileConfig, ms *modelSpec, given map[string]yamlconf.Value) {
	prov := cfg.providers[ms.provider]
	v, ok := given["output"]
	if !ok || ms.output != model.NativeOutput || prov == nil || prov.typ == "" {
		return
	}
	if t := p.types[prov.typ]; t.API != "" || t.OutputSchema != "" {
		return
	}
	ms.output = model.OutputUnknown
	p.Errorf(v.Node, v.Path, "native output needs a client that writes the output schema into its requests (types: %s), and provider %q is of type %s: "+
		"use tool or prompted", p.typeList(func(t ProviderType) bool { return t.API != "" || t.OutputSchema != "" }), prov.name, prov.typ)
}

// apiName names api in an error.
func apiName(api API) string {
	switch api {
	case OpenAIAPI:
		return "OpenAI's API"
	case AnthropicAPI:
		return "Anthropic's API"
	case GeminiAPI:
		return "Google's Gemini API"
	}
	return string(api)
}

// anthropicClientMaxTokens is the output token limit langchaingo's anthropic client asks for
// when a model sets none and its provider's facts give no other.
const anthropicClientMaxTokens = 2048

// thinkingBudget checks a model's thinking budget against what Anthropic refuses with
// extended thinking on: a budget not less than max_tokens (defaultMax, or the client's own
// limit, when the model sets none), a temperature, a top_k, a top_p under 0.95.
func (p *parser) thinkingBudget(ms *modelSpec, given map[string]yamlconf.Value, defaultMax int) {
	budget, at := *ms.thinkingBudget, given["thinking_budget"]
	line := at.Node.Line
	_, maxGiven := given["max_tokens"]
	switch {
	case ms.maxTokens != nil && budget >= *ms.maxTokens:
		p.Errorf(at.Node, at.Path, "%d is not less than max_tokens (%d): the thinking counts in max_tokens, and the answer needs room too; "+
			"set max_tokens above the budget, or lower the budget", budget, *ms.maxTokens)
	case !maxGiven && budget >= cmp.Or(defaultMax, anthropicClientMaxTokens):
		p.Errorf(at.Node, at.Path, "%d is not less than %d, the max_tokens the model gets when it sets none: the thinking counts in max_tokens; "+
			"set max_tokens above the budget, e.g. max_tokens: %d", budget, cmp.Or(defaultMax, anthropicClientMaxTokens), budget+4096)
	}
	if v, ok := given["temperature"]; ok && ms.temperature != nil {
		p.Errorf(v.Node, v.Path, "cannot be set with thinking_budget (line %d): Anthropic takes no temperature with extended thinking on; remove it", line)
	}
	if v, ok := given["top_k"]; ok && ms.topK != nil {
		p.Errorf(v.Node, v.Path, "cannot be set with thinking_budget (line %d): Anthropic takes no top_k with extended thinking on; remove it", line)
	}
	if v, ok := given["top_p"]; ok && ms.topP != nil && *ms.topP < 0.95 {
		p.Errorf(v.Node, v.Path, "%s is out of range with thinking_budget (line %d): with extended thinking on, Anthropic takes a top_p from 0.95 to 1 only", v.Quoted(), line)
	}
}

// typesOf lists the provider types that speak api.
func (p *parser) typesOf(api API) string {
	var names []string
	for name, t := range p.types {
		if t.API == api {
			names = append(names, name)
		}
	}
	return list(names)
}

// modelRef reports whether v names a model, recording an error if not.
func (p *parser) modelRef(cfg *fileConfig, v yamlconf.Value) bool {
	if _, ok := cfg.models[v.Text]; ok {
		return true
	}
	p.Errorf(v.Node, v.Path, "no model named %s (models: %s)", v.Quoted(), list(keys(cfg.models)))
	return false
}

// assistants reads the assistants section: name -> a model name or a list of them.
func (p *parser) assistants(cfg *fileConfig, sec *yamlconf.Entry, modelsOK bool) {
	es, _ := p.Entries(sec.Val, "assistants")
	for _, e := range es {
		path := "assistants." + e.Key
		if e.Key == "" {
			p.Errorf(e.KeyNode, "assistants", "an assistant needs a name")
			continue
		}
		n := p.Resolve(e.Val)
		if n == nil {
			continue
		}
		var items []*yaml.Node
		switch {
		case n.Kind == yaml.SequenceNode:
			items = n.Content
		case n.Kind == yaml.ScalarNode && !yamlconf.IsNull(n):
			items = []*yaml.Node{e.Val}
		case n.Kind == yaml.ScalarNode || n.Kind == yaml.MappingNode:
			p.Errorf(e.Val, path, "expected a model name or a list of them, found %s", yamlconf.Describe(n))
			continue
		}
		var chain []string
		ok := true
		for _, item := range items {
			v, st := p.Text(item, path, nil)
			switch {
			case st == yamlconf.Absent:
				p.Errorf(item, path, "an empty model name: write a model's name")
				ok = false
			case st != yamlconf.Present:
				ok = false
			case slices.Contains(chain, v.Text):
				p.Errorf(item, path, "%s is in the chain twice: a model is tried once", v.Quoted())
				ok = false
			case !modelsOK || p.modelRef(cfg, v):
				chain = append(chain, v.Text)
			default:
				ok = false
			}
		}
		if !ok {
			continue
		}
		if len(chain) == 0 {
			p.Errorf(e.Val, path, "an empty chain: give a model name or a list of them")
			continue
		}
		cfg.assistants[e.Key] = chain
	}
}

// The bounds of llm.yaml's numbers that the providers' own ranges do not give: past them, a
// value is a mistake (a missing unit, a digit too many), not a setting.
const (
	maxTimeout   = time.Hour        // providers.*.timeout
	maxMaxTokens = 10_000_000       // models.*.max_tokens
	maxTopK      = 1000             // models.*.top_k
	maxAttempts  = 10               // retry.max_attempts: each attempt may wait max_backoff
	maxBackoff   = 10 * time.Minute // retry.initial_backoff and retry.max_backoff
)

// retry reads the retry section over the defaults.
func (p *parser) retry(cfg *fileConfig, sec *yamlconf.Entry) {
	fields, _ := p.Entries(sec.Val, "retry")
	r := &cfg.retry
	initial, maxb := yamlconf.Value{Text: r.InitialBackoff.String() + " (the default)"}, yamlconf.Value{Text: r.MaxBackoff.String() + " (the default)"}
	for _, f := range fields {
		fp := "retry." + f.Key
		if !slices.Contains(retryKeys, f.Key) {
			p.UnknownKey(f, fp, retryKeys, "")
			continue
		}
		v, st := p.Text(f.Val, fp, nil)
		if st != yamlconf.Present {
			continue
		}
		switch f.Key {
		case "max_attempts":
			if n := p.Integer(v, 1, maxAttempts, "3"); n != nil {
				r.MaxAttempts = *n
			}
		case "initial_backoff":
			if d := p.Duration(v, maxBackoff); d > 0 {
				r.InitialBackoff, initial = d, v
			}
		case "max_backoff":
			if d := p.Duration(v, maxBackoff); d > 0 {
				r.MaxBackoff, maxb = d, v
			}
		}
	}
	if r.InitialBackoff > r.MaxBackoff {
		at := initial
		if at.Node == nil {
			at = maxb
		}
		p.Errorf(at.Node, "retry", "initial_backoff %s is more than max_backoff %s", initial.Quoted(), maxb.Quoted())
	}
}

func keys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

// list sorts names and joins them for an error message.
func list(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}
