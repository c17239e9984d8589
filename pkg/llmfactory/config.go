package llmfactory

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"net/url"
	"os"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

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
}

// providerSpec is one entry of providers. typ is always a known type.
type providerSpec struct {
	name, typ string
	apiKey    Secret        // "" when not set
	baseURL   string        // an absolute http(s) URL; "" when not set
	timeout   time.Duration // per attempt; 0 when not set
	// missing names the ${VAR}s, unset and without a default, in the provider's values:
	// the provider cannot be used (the field they were in is left unset).
	missing []string
	pos     string // "llm.yaml:12": where the provider is named, for errors at first use
}

// String describes the provider with its key redacted: fmt cannot reach the methods of the
// unexported apiKey, and would print the key itself.
func (p providerSpec) String() string {
	return fmt.Sprintf("provider %q (type %s, api_key %q, base_url %q, timeout %s, missing %v, at %s)",
		p.name, p.typ, p.apiKey, p.baseURL, p.timeout, p.missing, p.pos)
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
	topKeys      = []string{"providers", "models", "default", "assistants", "retry"}
	providerKeys = []string{"type", "api_key", "base_url", "timeout"}
	modelKeys    = []string{"provider", "model", "temperature", "max_tokens", "top_p", "top_k",
		"stop", "seed", "frequency_penalty", "presence_penalty", "json"}
	retryKeys = []string{"max_attempts", "initial_backoff", "max_backoff"}
)

const (
	maxErrors    = 10      // errors reported at once; the rest are counted
	maxVisits    = 1 << 18 // nodes visited, aliases expanded: bounds the work of a small file
	tooManyNodes = "too many nodes to read with aliases expanded (over 262144): the file repeats itself too much"
)

// parseConfig parses the llm.yaml document data. file names it in errors. env looks variables
// up (nil means os.LookupEnv). types is the set of provider type names known.
//
// Every error names the file, the line and the key path; up to maxErrors are reported at
// once, joined. No error holds the value of an environment variable.
func parseConfig(data []byte, file string, env func(string) (string, bool), types map[string]bool) (*fileConfig, error) {
	if file == "" {
		file = "llm.yaml"
	}
	if env == nil {
		env = os.LookupEnv
	}
	p := &parser{file: file, env: env, types: types}
	root, err := p.document(data)
	if err != nil {
		return nil, err
	}
	cfg := p.config(root)
	if err := p.err(); err != nil {
		return nil, err
	}
	return cfg, nil
}

// parser walks a document's yaml.Node tree, collecting errors as it goes.
type parser struct {
	file    string
	env     func(string) (string, bool)
	types   map[string]bool
	errs    []*configError
	visits  int                 // nodes visited, up to maxVisits
	walking map[*yaml.Node]bool // the mappings being read: a merge of one of them is a cycle
}

// configError is one thing wrong in the file.
type configError struct {
	file string
	line int    // 0 when it is about the whole file
	path string // the key path, e.g. models.fast.temperature; "" for the top
	msg  string
}

func (e *configError) Error() string {
	var b strings.Builder
	b.WriteString(e.file)
	if e.line > 0 {
		b.WriteString(":" + strconv.Itoa(e.line))
	}
	b.WriteString(": ")
	if e.path != "" {
		b.WriteString(e.path + ": ")
	}
	b.WriteString(e.msg)
	return b.String()
}

// errorf records an error at node n (nil: the whole file) and key path.
func (p *parser) errorf(n *yaml.Node, path, format string, args ...any) {
	e := &configError{file: p.file, path: path, msg: fmt.Sprintf(format, args...)}
	if n != nil {
		e.line = n.Line
	}
	p.errs = append(p.errs, e)
}

// err returns the errors recorded, in line order, without repeats, at most maxErrors of them.
// Past maxVisits, the errors after that point say nothing useful: only that one is returned.
func (p *parser) err() error {
	if p.visits >= maxVisits {
		return &configError{file: p.file, msg: tooManyNodes}
	}
	seen := map[string]bool{}
	var errs []error
	sort.SliceStable(p.errs, func(i, j int) bool { return p.errs[i].line < p.errs[j].line })
	for _, e := range p.errs {
		if msg := e.Error(); !seen[msg] {
			seen[msg] = true
			errs = append(errs, e)
		}
	}
	switch {
	case len(errs) == 0:
		return nil
	case len(errs) == 1:
		return errs[0]
	case len(errs) > maxErrors:
		more := &configError{file: p.file, msg: fmt.Sprintf("and %d more errors", len(errs)-maxErrors)}
		errs = append(errs[:maxErrors], more)
	}
	return errors.Join(errs...)
}

func (p *parser) pos(n *yaml.Node) string { return p.file + ":" + strconv.Itoa(n.Line) }

// document parses data into the root node of its single YAML document; nil for an empty one.
func (p *parser) document(data []byte) (*yaml.Node, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc, next yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, nil
		}
		return nil, p.syntaxError(err)
	}
	switch err := dec.Decode(&next); {
	case errors.Is(err, io.EOF):
	case err != nil:
		return nil, p.syntaxError(err)
	default:
		return nil, &configError{file: p.file, line: next.Line,
			msg: "a second YAML document (after ---): put everything in one document"}
	}
	if len(doc.Content) == 0 {
		return nil, nil
	}
	return doc.Content[0], nil
}

var yamlLine = regexp.MustCompile(`^yaml: line (\d+): `)

// syntaxError turns yaml's "yaml: line 3: msg" into "llm.yaml:3: msg (YAML syntax)".
func (p *parser) syntaxError(err error) error {
	msg := err.Error()
	if m := yamlLine.FindStringSubmatch(msg); m != nil {
		line, _ := strconv.Atoi(m[1])
		return &configError{file: p.file, line: line, msg: msg[len(m[0]):] + " (YAML syntax)"}
	}
	return &configError{file: p.file, msg: strings.TrimPrefix(msg, "yaml: ") + " (YAML syntax)"}
}

// config reads the top-level mapping.
func (p *parser) config(root *yaml.Node) *fileConfig {
	cfg := &fileConfig{
		file:       p.file,
		providers:  map[string]*providerSpec{},
		models:     map[string]*modelSpec{},
		assistants: map[string][]string{},
		retry:      defaultRetry(),
	}
	if root == nil || isNull(root) {
		p.errorf(nil, "", "the file is empty: it needs at least one provider and one model, "+
			"e.g. providers: {openai: {api_key: ${OPENAI_API_KEY}}} and models: {fast: {provider: openai, model: gpt-5-mini}} (see docs/llm-yaml.md)")
		return cfg
	}
	top, ok := p.entries(root, "")
	if !ok {
		return cfg
	}
	sections := map[string]*entry{}
	for i, e := range top {
		switch {
		case slices.Contains(topKeys, e.key):
			sections[e.key] = &top[i]
		case strings.HasPrefix(e.key, "x-"): // a place for YAML anchors
		default:
			p.unknownKey(e, e.key, topKeys, "; keys starting with x- are ignored")
		}
	}
	providersOK := p.providers(cfg, root, sections["providers"])
	modelsOK := p.models(cfg, root, sections["models"], providersOK)
	if sec := sections["default"]; sec != nil {
		if v, st := p.text(sec.val, "default", nil); st == present && modelsOK {
			if p.modelRef(cfg, v) {
				cfg.def = v.text
			}
		}
	}
	if sec := sections["assistants"]; sec != nil {
		p.assistants(cfg, sec, modelsOK)
	}
	if sec := sections["retry"]; sec != nil {
		p.retry(cfg, sec)
	}
	return cfg
}

// providers reads the providers section. It reports whether the section is whole enough to
// check the models' references against.
func (p *parser) providers(cfg *fileConfig, root *yaml.Node, sec *entry) bool {
	es, ok := p.section(root, sec, "providers", "provider")
	for _, e := range es {
		cfg.providers[e.key] = p.provider(e)
	}
	return ok
}

// section returns the named entries of a required section (providers, models) that must
// hold at least one of its kind, reporting what is missing; ok says whether the section
// could be read whole.
func (p *parser) section(root *yaml.Node, sec *entry, name, kind string) (named []entry, ok bool) {
	if sec == nil {
		p.errorf(root, "", "no %s section: add one with at least one %s (see docs/llm-yaml.md)", name, kind)
		return nil, false
	}
	es, ok := p.entries(sec.val, name)
	if ok && len(es) == 0 {
		p.errorf(sec.keyNode, name, "empty: add at least one %s", kind)
	}
	for _, e := range es {
		if e.key == "" {
			p.errorf(e.keyNode, name, "a %s needs a name", kind)
			continue
		}
		named = append(named, e)
	}
	return named, ok
}

// provider reads one entry of providers.
func (p *parser) provider(e entry) *providerSpec {
	ps := &providerSpec{name: e.key, pos: p.pos(e.keyNode)}
	path := "providers." + e.key
	fields, _ := p.entries(e.val, path)
	var typ value
	typState := absent
	for _, f := range fields {
		fp := path + "." + f.key
		switch f.key {
		case "type":
			// Not deferred: a provider's type must be known when the file is read.
			typ, typState = p.text(f.val, fp, nil)
		case "api_key":
			if v, st := p.text(f.val, fp, &ps.missing); st == present {
				ps.apiKey = Secret(v.text)
			}
		case "base_url":
			if v, st := p.text(f.val, fp, &ps.missing); st == present && p.url(v) {
				ps.baseURL = v.text
			}
		case "timeout":
			if v, st := p.text(f.val, fp, &ps.missing); st == present {
				ps.timeout = p.duration(v)
			}
		default:
			p.unknownKey(f, fp, providerKeys, "")
		}
	}
	switch typState {
	case present:
		if p.types[typ.text] {
			ps.typ = typ.text
		} else {
			p.errorf(typ.node, typ.path, "unknown provider type %s (known: %s)", typ.quoted(), p.typeList())
		}
	case absent:
		if p.types[e.key] {
			ps.typ = e.key
		} else {
			p.errorf(e.keyNode, path, "missing type (one of: %s)", p.typeList())
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
func (p *parser) models(cfg *fileConfig, root *yaml.Node, sec *entry, providersOK bool) bool {
	es, ok := p.section(root, sec, "models", "model")
	for _, e := range es {
		cfg.models[e.key] = p.model(cfg, e, providersOK)
		cfg.order = append(cfg.order, e.key)
	}
	return ok
}

// model reads one entry of models.
func (p *parser) model(cfg *fileConfig, e entry, providersOK bool) *modelSpec {
	ms := &modelSpec{name: e.key, pos: p.pos(e.keyNode)}
	path := "models." + e.key
	fields, _ := p.entries(e.val, path)
	provState, modelState := absent, absent
	for _, f := range fields {
		fp := path + "." + f.key
		if f.key == "provider" {
			// Not deferred: the reference is checked now.
			var v value
			if v, provState = p.text(f.val, fp, nil); provState == present && providersOK {
				if _, ok := cfg.providers[v.text]; ok {
					ms.provider = v.text
				} else {
					p.errorf(v.node, fp, "no provider named %s (providers: %s)", v.quoted(), list(keys(cfg.providers)))
				}
			}
			continue
		}
		if f.key == "stop" {
			ms.stop = p.texts(f.val, fp, &ms.missing)
			continue
		}
		if !slices.Contains(modelKeys, f.key) {
			p.unknownKey(f, fp, modelKeys, "")
			continue
		}
		v, st := p.text(f.val, fp, &ms.missing)
		if f.key == "model" {
			modelState = st
		}
		if st != present {
			continue
		}
		switch f.key {
		case "model":
			ms.model = v.text
		case "temperature":
			ms.temperature = p.number(v, 0, 2)
		case "top_p":
			ms.topP = p.number(v, 0, 1)
		case "frequency_penalty":
			ms.frequencyPenalty = p.number(v, -2, 2)
		case "presence_penalty":
			ms.presencePenalty = p.number(v, -2, 2)
		case "max_tokens":
			ms.maxTokens = p.integer(v, 1, "4096")
		case "top_k":
			ms.topK = p.integer(v, 1, "40")
		case "seed":
			ms.seed = p.integer(v, math.MinInt, "42")
		case "json":
			ms.json = p.boolean(v)
		}
	}
	if provState == absent {
		p.errorf(e.keyNode, path, "missing provider (one of: %s)", list(keys(cfg.providers)))
	}
	if modelState == absent {
		p.errorf(e.keyNode, path, "missing model: the provider's name for the model, e.g. gpt-5-mini")
	}
	return ms
}

// modelRef reports whether v names a model, recording an error if not.
func (p *parser) modelRef(cfg *fileConfig, v value) bool {
	if _, ok := cfg.models[v.text]; ok {
		return true
	}
	p.errorf(v.node, v.path, "no model named %s (models: %s)", v.quoted(), list(keys(cfg.models)))
	return false
}

// assistants reads the assistants section: name -> a model name or a list of them.
func (p *parser) assistants(cfg *fileConfig, sec *entry, modelsOK bool) {
	es, _ := p.entries(sec.val, "assistants")
	for _, e := range es {
		path := "assistants." + e.key
		if e.key == "" {
			p.errorf(e.keyNode, "assistants", "an assistant needs a name")
			continue
		}
		n := p.resolve(e.val)
		if n == nil {
			continue
		}
		var items []*yaml.Node
		switch {
		case n.Kind == yaml.SequenceNode:
			items = n.Content
		case n.Kind == yaml.ScalarNode && !isNull(n):
			items = []*yaml.Node{e.val}
		case n.Kind == yaml.ScalarNode || n.Kind == yaml.MappingNode:
			p.errorf(e.val, path, "expected a model name or a list of them, found %s", describe(n))
			continue
		}
		var chain []string
		ok := true
		for _, item := range items {
			v, st := p.text(item, path, nil)
			switch {
			case st == absent:
				p.errorf(item, path, "an empty model name: write a model's name")
				ok = false
			case st != present:
				ok = false
			case slices.Contains(chain, v.text):
				p.errorf(item, path, "%s is in the chain twice: a model is tried once", v.quoted())
				ok = false
			case !modelsOK || p.modelRef(cfg, v):
				chain = append(chain, v.text)
			default:
				ok = false
			}
		}
		if ok && len(chain) == 0 {
			p.errorf(e.val, path, "an empty chain: give a model name or a list of them")
		}
		if ok && len(chain) > 0 {
			cfg.assistants[e.key] = chain
		}
	}
}

// retry reads the retry section over the defaults.
func (p *parser) retry(cfg *fileConfig, sec *entry) {
	fields, _ := p.entries(sec.val, "retry")
	r := &cfg.retry
	initial, maxb := value{text: r.InitialBackoff.String() + " (the default)"}, value{text: r.MaxBackoff.String() + " (the default)"}
	for _, f := range fields {
		fp := "retry." + f.key
		if !slices.Contains(retryKeys, f.key) {
			p.unknownKey(f, fp, retryKeys, "")
			continue
		}
		v, st := p.text(f.val, fp, nil)
		if st != present {
			continue
		}
		switch f.key {
		case "max_attempts":
			if n := p.integer(v, 1, "3"); n != nil {
				r.MaxAttempts = *n
			}
		case "initial_backoff":
			if d := p.duration(v); d > 0 {
				r.InitialBackoff, initial = d, v
			}
		case "max_backoff":
			if d := p.duration(v); d > 0 {
				r.MaxBackoff, maxb = d, v
			}
		}
	}
	if r.InitialBackoff > r.MaxBackoff {
		at := initial
		if at.node == nil {
			at = maxb
		}
		p.errorf(at.node, "retry", "initial_backoff %s is more than max_backoff %s", initial.quoted(), maxb.quoted())
	}
}

// unknownKey records an unknown key, listing the known ones.
func (p *parser) unknownKey(e entry, path string, known []string, note string) {
	p.errorf(e.keyNode, path, "unknown key (known: %s%s)", strings.Join(known, ", "), note)
}

// entry is one key: value pair of a mapping.
type entry struct {
	key     string
	keyNode *yaml.Node
	val     *yaml.Node // as written: an alias is resolved by whoever reads it
}

// entries returns the pairs of the mapping n in file order, with merge keys (<<: *anchor)
// applied: a key written in n wins over a merged one, and an earlier merged mapping over a
// later one. A null n is an empty mapping. ok is false when n is not a mapping.
func (p *parser) entries(n *yaml.Node, path string) (es []entry, ok bool) {
	m := p.resolve(n)
	if m == nil {
		return nil, false
	}
	if isNull(m) {
		return nil, true
	}
	if m.Kind != yaml.MappingNode {
		p.errorf(n, path, "expected a mapping (key: value lines), found %s", describe(m))
		return nil, false
	}
	if p.walking == nil {
		p.walking = map[*yaml.Node]bool{}
	}
	p.walking[m] = true
	defer delete(p.walking, m)
	var merged []entry
	line := map[string]int{} // key -> the line it was first written on
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := p.resolve(m.Content[i]), m.Content[i+1]
		if k == nil {
			return nil, false
		}
		if k.Kind == yaml.ScalarNode && k.ShortTag() == "!!merge" {
			merged = append(merged, p.merge(v, path)...)
			continue
		}
		if k.Kind != yaml.ScalarNode {
			p.errorf(k, path, "expected a name as a key, found %s", describe(k))
			continue
		}
		key := k.Value
		if isNull(k) {
			key = ""
		}
		if first, dup := line[key]; dup {
			p.errorf(k, join(path, key), "duplicate key (first at line %d)", first)
			continue
		}
		line[key] = k.Line
		es = append(es, entry{key: key, keyNode: k, val: v})
	}
	for _, e := range merged {
		if _, written := line[e.key]; !written {
			line[e.key] = e.keyNode.Line
			es = append(es, e)
		}
	}
	return es, true
}

// merge returns the pairs a merge key's value brings: a mapping, or a list of mappings.
func (p *parser) merge(v *yaml.Node, path string) []entry {
	n := p.resolve(v)
	if n == nil {
		return nil
	}
	items := []*yaml.Node{v}
	if n.Kind == yaml.SequenceNode {
		items = n.Content
	}
	var es []entry
	for _, item := range items {
		m := p.resolve(item)
		switch {
		case m == nil:
			return nil
		case m.Kind != yaml.MappingNode:
			p.errorf(item, join(path, "<<"), "merges a mapping or a list of mappings, not %s", describe(m))
			continue
		case p.walking[m]:
			p.errorf(item, join(path, "<<"), "merges a mapping that holds this merge: a cycle")
			continue
		}
		more, _ := p.entries(item, path)
		es = append(es, more...)
	}
	return es
}

// resolve follows an alias to its anchored node, counting the visit. It returns nil, after
// recording the error once, when the file has made the parser visit too many nodes.
func (p *parser) resolve(n *yaml.Node) *yaml.Node {
	p.visits++
	if p.visits >= maxVisits {
		return nil
	}
	for i := 0; n != nil && n.Kind == yaml.AliasNode && i < 100; i++ {
		n = n.Alias
	}
	if n != nil && n.Kind == yaml.AliasNode {
		return nil
	}
	return n
}

// state says how a scalar value was found.
type state int

const (
	absent  state = iota // null or empty (after expansion): as if not written
	present              // value.text holds it
	skipped              // an error was recorded, or an unset variable deferred it
)

// value is a scalar value, expanded.
type value struct {
	text string     // expanded
	raw  string     // as written in the file, never holding a variable's value
	node *yaml.Node // as written (an alias keeps the line where it is used)
	path string
}

// quoted is the value for an error message: as written when it refers to variables, since an
// error must not show a variable's value.
func (v value) quoted() string {
	if v.node == nil { // a default, not written in the file
		return v.text
	}
	if strings.Contains(v.raw, "${") {
		return "the value of " + strconv.Quote(clip(v.raw))
	}
	return strconv.Quote(clip(v.text))
}

// text reads the scalar n, expanding variables. A ${VAR} that is unset and has no default is
// added to *missing, and the value skipped, when missing is not nil (providers and models:
// an error at first use); when missing is nil it is an error now.
func (p *parser) text(n *yaml.Node, path string, missing *[]string) (value, state) {
	r := p.resolve(n)
	switch {
	case r == nil:
		return value{}, skipped
	case r.Kind != yaml.ScalarNode:
		p.errorf(n, path, "expected a single value, found %s", describe(r))
		return value{}, skipped
	case isNull(r):
		return value{}, absent
	}
	out, unset, err := expand(r.Value, p.env)
	if err != nil {
		p.errorf(n, path, "%v", err)
		return value{}, skipped
	}
	if len(unset) > 0 {
		if missing == nil {
			p.errorf(n, path, "environment variable %s is not set: set it, or give a default as in ${%s:-...}",
				strings.Join(unset, ", "), unset[0])
			return value{}, skipped
		}
		for _, name := range unset {
			if !slices.Contains(*missing, name) {
				*missing = append(*missing, name)
			}
		}
		return value{}, skipped
	}
	if out == "" {
		return value{}, absent
	}
	return value{text: out, raw: r.Value, node: n, path: path}, present
}

// texts reads a list of scalars, or a single scalar as a list of one. Empty items are left out.
func (p *parser) texts(n *yaml.Node, path string, missing *[]string) []string {
	r := p.resolve(n)
	if r == nil {
		return nil
	}
	items := []*yaml.Node{n}
	if r.Kind == yaml.SequenceNode {
		items = r.Content
	}
	var out []string
	for _, item := range items {
		if v, st := p.text(item, path, missing); st == present {
			out = append(out, v.text)
		}
	}
	return out
}

func (p *parser) duration(v value) time.Duration {
	d, err := time.ParseDuration(v.text)
	switch {
	case err != nil:
		p.errorf(v.node, v.path, "%s is not a duration (write e.g. 60s or 2m)", v.quoted())
	case d <= 0:
		p.errorf(v.node, v.path, "%s: must be more than 0", v.quoted())
	default:
		return d
	}
	return 0
}

// number parses a number from lo to hi; nil after recording an error.
func (p *parser) number(v value, lo, hi float64) *float64 {
	f, err := strconv.ParseFloat(v.text, 64)
	switch {
	case err != nil && !errors.Is(err, strconv.ErrRange):
		p.errorf(v.node, v.path, "%s is not a number (write e.g. %v)", v.quoted(), (lo+hi)/2)
	case err != nil || !(f >= lo && f <= hi): // NaN fails both comparisons
		p.errorf(v.node, v.path, "%s is out of range (%v to %v)", v.quoted(), lo, hi)
	default:
		return &f
	}
	return nil
}

// integer parses a whole number of at least lo; nil after recording an error. example is
// one for the error message.
func (p *parser) integer(v value, lo int, example string) *int {
	i, err := strconv.Atoi(v.text)
	switch {
	case errors.Is(err, strconv.ErrRange):
		p.errorf(v.node, v.path, "%s is out of range", v.quoted())
	case err != nil:
		p.errorf(v.node, v.path, "%s is not a whole number (write e.g. %s)", v.quoted(), example)
	case i < lo:
		p.errorf(v.node, v.path, "%s: must be at least %d", v.quoted(), lo)
	default:
		return &i
	}
	return nil
}

func (p *parser) boolean(v value) bool {
	switch strings.ToLower(v.text) {
	case "true":
		return true
	case "false":
		return false
	}
	p.errorf(v.node, v.path, "%s is not true or false", v.quoted())
	return false
}

// url reports whether v is an absolute http(s) URL, recording an error if not.
func (p *parser) url(v value) bool {
	u, err := url.Parse(v.text)
	if err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" {
		return true
	}
	p.errorf(v.node, v.path, "%s is not an absolute http(s) URL (write e.g. http://localhost:8000/v1)", v.quoted())
	return false
}

// isNull reports whether n is a plain null: nothing, ~ or null, unquoted.
func isNull(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.Style&(yaml.SingleQuotedStyle|yaml.DoubleQuotedStyle) == 0 && n.ShortTag() == "!!null"
}

// describe names a node's kind for an error.
func describe(n *yaml.Node) string {
	switch {
	case n == nil:
		return "nothing"
	case n.Kind == yaml.MappingNode:
		return "a mapping"
	case n.Kind == yaml.SequenceNode:
		return "a list"
	case isNull(n):
		return "nothing"
	}
	return "a single value"
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
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
