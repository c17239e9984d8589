package llmfactory

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/cadrehq/cadre/internal/yamlconf"
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
	return fmt.Sprintf("provider %q (type %s, api_key %q, base_url %q, timeout %s, region %q, missing %v, at %s)",
		p.name, p.typ, p.apiKey, p.baseURL, p.timeout, p.region, p.missing, p.pos)
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
	providerKeys = []string{"type", "api_key", "base_url", "timeout", "region"}
	modelKeys    = []string{"provider", "model", "temperature", "max_tokens", "top_p", "top_k",
		"stop", "seed", "frequency_penalty", "presence_penalty", "json"}
	retryKeys = []string{"max_attempts", "initial_backoff", "max_backoff"}
)

// parseConfig parses the llm.yaml document data. file names it in errors. env looks variables
// up (nil means os.LookupEnv). types is the set of provider type names known.
//
// Every error names the file, the line and the key path; up to ten are reported at once,
// joined. No error holds the value of an environment variable.
func parseConfig(data []byte, file string, env func(string) (string, bool), types map[string]bool) (*fileConfig, error) {
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
	types map[string]bool
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
	typState := yamlconf.Absent
	for _, f := range fields {
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
			if v, st := p.Text(f.Val, fp, &ps.missing); st == yamlconf.Present && p.URL(v) {
				ps.baseURL = v.Text
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
		if p.types[typ.Text] {
			ps.typ = typ.Text
		} else {
			p.Errorf(typ.Node, typ.Path, "unknown provider type %s (known: %s)", typ.Quoted(), p.typeList())
		}
	case yamlconf.Absent:
		if p.types[e.Key] {
			ps.typ = e.Key
		} else {
			p.Errorf(e.KeyNode, path, "missing type (one of: %s)", p.typeList())
		}
	}
	return ps
}

func (p *parser) typeList() string {
	names := make([]string, 0, len(p.types))
	for name, ok := range p.types {
		if ok {
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
		if !slices.Contains(modelKeys, f.Key) {
			p.UnknownKey(f, fp, modelKeys, "")
			continue
		}
		v, st := p.Text(f.Val, fp, &ms.missing)
		if f.Key == "model" {
			modelState = st
		}
		if st != yamlconf.Present {
			continue
		}
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
		}
	}
	if provState == yamlconf.Absent {
		p.Errorf(e.KeyNode, path, "missing provider (one of: %s)", list(keys(cfg.providers)))
	}
	if modelState == yamlconf.Absent {
		p.Errorf(e.KeyNode, path, "missing model: the provider's name for the model, e.g. gpt-5-mini")
	}
	return ms
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
		if ok && len(chain) == 0 {
			p.Errorf(e.Val, path, "an empty chain: give a model name or a list of them")
		}
		if ok && len(chain) > 0 {
			cfg.assistants[e.Key] = chain
		}
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
