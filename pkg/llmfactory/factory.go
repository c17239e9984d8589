package llmfactory

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/cadrehq/cadre/pkg/model"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/llms/anthropic"
	"github.com/tmc/langchaingo/llms/openai"
)

// Factory is an llm.yaml made ready: it gives each assistant its model chain by name
// (Resolve) and each model by its name (Model). Clients are created on first use and cached.
// A Factory is safe for concurrent use.
type Factory struct {
	cfg   *fileConfig
	types map[string]ProviderType
	http  *http.Client

	mu      sync.Mutex
	clients map[string]*modelEntry // by model name
}

type modelEntry struct {
	once sync.Once
	m    model.Model
	err  error
}

// Option configures Load and Parse.
type Option func(*options)

type options struct {
	http  *http.Client
	env   func(string) (string, bool)
	types map[string]ProviderType
	file  string
}

// WithHTTPClient makes the clients send their requests through c's transport (under cadre's
// retries and timeouts). The default is http.DefaultTransport.
func WithHTTPClient(c *http.Client) Option {
	return func(o *options) { o.http = c }
}

// WithEnv replaces os.LookupEnv for ${VAR} expansion.
func WithEnv(lookup func(string) (string, bool)) Option {
	return func(o *options) { o.env = lookup }
}

// WithProviderType adds a provider type that llm.yaml's providers may name in their type key:
// the googleai subpackage is one (llmfactory.WithProviderType("googleai", googleai.Type())). It
// replaces a built-in type of the same name.
func WithProviderType(name string, t ProviderType) Option {
	return func(o *options) {
		if o.types == nil {
			o.types = map[string]ProviderType{}
		}
		o.types[name] = t
	}
}

// withFileName names the document given to Parse in errors.
func withFileName(name string) Option {
	return func(o *options) { o.file = name }
}

// ProviderType makes clients for providers of one type.
type ProviderType struct {
	// New returns the client of model (the provider's own model id, e.g. "gpt-5-mini") for p.
	// The client must send its requests with p.HTTPClient, which carries cadre's retries,
	// timeout and error reports.
	New func(p Provider, model string) (llms.Model, error)
	// Shape is how conversations go out to the provider (see model.Shape; model.Facts gives
	// the shape of langchaingo's clients).
	Shape model.Shape
	// NoTools is set when the client cannot send tool definitions.
	NoTools bool
	// NeedsKey makes a missing api_key an error at first use.
	NeedsKey bool
	// Provider is the provider's name in model.Model; "" means the type's name. Its
	// model.Facts decide, for instance, that googleai gets its tool parameters as a map.
	Provider string
	// StrictTools: the provider accepts strict tool schemas (see model.Model.StrictTools).
	StrictTools bool
	// API is the wire dialect of the client's requests: OpenAIAPI for a client that speaks
	// OpenAI's Chat Completions (langchaingo's openai client, whatever the server), AnthropicAPI
	// for Anthropic's Messages, GeminiAPI for Gemini's generateContent in REST's JSON; "" for
	// any other. llm.yaml's reasoning_effort is for models of an OpenAIAPI type,
	// thinking_budget and prompt_cache for those of an AnthropicAPI type; the factory writes
	// them into the JSON bodies of the model's requests, and with them the output schema a
	// request's context carries (model.OutputSchemaOf), in the API's field for it.
	API API
	// NeedsBaseURL makes a provider of the type without base_url an error when the file is
	// read: the type has no address of its own (azure's is the resource's endpoint).
	NeedsBaseURL bool
	// APIVersion makes api_version a key of the type's providers, and a required one: New gets
	// it in Provider.APIVersion (azure's API version). Providers of other types may not set it.
	APIVersion bool
	// KeyVar is the environment variable that usually holds the type's API key, which an error
	// about a missing api_key suggests; "" means model.Facts(Provider).KeyVar, or else one made
	// of the type's name (GATEWAY_API_KEY for type gateway).
	KeyVar string
	// body puts a request's body in the form a built-in type's service takes (see compatible).
	body func(*object)
	// Regional: the type's providers take llm.yaml's region key (bedrock's do). A region
	// given to a provider of another type is an error at first use.
	Regional bool
	// OutputSchema is, for a type without an API whose client writes a request's output schema
	// (model.OutputSchemaOf) into its requests itself, the API whose field it writes it in:
	// bedrock's writes Anthropic's output_config (AnthropicOutputFormat), since its requests
	// are signed and the factory's transport cannot edit them. The factory checks the schema
	// against that API's limits before the request goes. "" for a type with an API, whose
	// requests the factory's transport writes the schema into, and for a type that takes
	// none: llm.yaml's output: native is an error for a model of a type with neither.
	OutputSchema API
}

// OutputSchemaSupporter is implemented by a client of a type with ProviderType.OutputSchema
// that writes an output schema for some of its models only, as bedrock's writes it for
// Anthropic's models only. A model whose client reports false takes no output schema: its
// model.Model is never NativeOutput, and llm.yaml's output: native is an error for it at
// first use.
type OutputSchemaSupporter interface {
	SupportsOutputSchema() bool
}

// Provider is one provider of llm.yaml, as a ProviderType's New receives it.
type Provider struct {
	Name       string // its name in llm.yaml
	Type       string
	APIKey     Secret
	BaseURL    string // "" when not set
	APIVersion string // "" for a type without APIVersion
	Region     string // "" when not set; only for a Regional type
	HTTPClient *http.Client
}

// builtinTypes are the provider types every factory knows, each with the facts of the
// langchaingo client it makes: openai and anthropic, and the OpenAI-compatible services
// (compatibles).
func builtinTypes() map[string]ProviderType {
	openai, anthropic := model.Facts("openai"), model.Facts("anthropic")
	types := map[string]ProviderType{
		"openai":    {New: newOpenAI, Shape: openai.Shape, NoTools: openai.DropsTools, API: OpenAIAPI},
		"anthropic": {New: newAnthropic, Shape: anthropic.Shape, NoTools: anthropic.DropsTools, NeedsKey: true, API: AnthropicAPI},
	}
	for name, c := range compatibles() {
		types[name] = c.providerType()
	}
	return types
}

// Load reads and parses the llm.yaml file at path. Errors name the file, line and key.
func Load(path string, opts ...Option) (*Factory, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("llmfactory: %s does not exist%s: copy llm.yaml.example (at the root of cadre's repository) to %s, "+
				"keep the providers you use and set the API keys they name in the environment; docs/llm-yaml.md describes the file", path, lookedIn(path), path)
		}
		return nil, fmt.Errorf("llmfactory: %w", err)
	}
	return Parse(data, append([]Option{withFileName(path)}, opts...)...)
}

// Parse parses an llm.yaml document (named "llm.yaml" in errors). Errors name the line and
// key. Environment variables are expanded now; one a provider or model needs that is unset is
// an error when that provider or model is first used.
func Parse(data []byte, opts ...Option) (*Factory, error) {
	o := options{env: os.LookupEnv, file: "llm.yaml"}
	for _, opt := range opts {
		if opt != nil {
			opt(&o)
		}
	}
	types := builtinTypes()
	for name, t := range o.types {
		if t.New == nil {
			return nil, fmt.Errorf("llmfactory: provider type %q has no New function", name)
		}
		types[name] = t
	}
	cfg, err := parseConfig(data, o.file, o.env, types)
	if err != nil {
		return nil, err
	}
	base := http.DefaultTransport
	if o.http != nil && o.http.Transport != nil {
		base = o.http.Transport
	}
	f := &Factory{cfg: cfg, types: types, clients: map[string]*modelEntry{}}
	f.http = &http.Client{Transport: base}
	if o.http != nil {
		f.http.Jar, f.http.CheckRedirect = o.http.Jar, o.http.CheckRedirect
	}
	return f, nil
}

// Resolve gives the assistant its model chain: its entry under assistants, else the default
// model, else an error. It implements model.Resolver.
func (f *Factory) Resolve(ctx context.Context, assistant string) ([]model.Model, error) {
	names, ok := f.cfg.assistants[assistant]
	if !ok {
		if f.cfg.def == "" {
			return nil, fmt.Errorf("llmfactory: %s has no model for assistant %q and no default: add it under assistants, or set default", f.cfg.file, assistant)
		}
		names = []string{f.cfg.def}
	}
	chain := make([]model.Model, 0, len(names))
	for _, name := range names {
		m, err := f.Model(ctx, name)
		if err != nil {
			return nil, err
		}
		chain = append(chain, m)
	}
	return chain, nil
}

// Model returns the model named name in llm.yaml, creating its client on first use. An
// unknown name is an error, never a substitute.
func (f *Factory) Model(_ context.Context, name string) (model.Model, error) {
	spec, ok := f.cfg.models[name]
	if !ok {
		return model.Model{}, fmt.Errorf("llmfactory: %s has no model named %q (models: %s): use one of those names, or add %q under models",
			f.cfg.file, name, strings.Join(f.modelNames(), ", "), name)
	}
	f.mu.Lock()
	e := f.clients[name]
	if e == nil {
		e = &modelEntry{}
		f.clients[name] = e
	}
	f.mu.Unlock()
	e.once.Do(func() { e.m, e.err = f.newModel(spec) })
	return e.m, e.err
}

// Close releases what the clients the factory made hold open — googleai's keep a pool of
// connections and its goroutines until closed — and returns their errors, joined. A program
// that makes factories as it goes (a test, a reload of llm.yaml) closes each one it is done
// with; models in use keep working until it does. Close is safe to call more than once.
func (f *Factory) Close() error {
	f.mu.Lock()
	entries := make([]*modelEntry, 0, len(f.clients))
	for _, e := range f.clients {
		entries = append(entries, e)
	}
	f.clients = map[string]*modelEntry{}
	f.mu.Unlock()
	var errs []error
	for _, e := range entries {
		e.once.Do(func() { e.err = errClosed }) // one being made now is made and closed
		if c, ok := e.m.LLM.(*client); ok {
			if closer, ok := c.llm.(io.Closer); ok {
				errs = append(errs, closer.Close())
			}
		}
	}
	return errors.Join(errs...)
}

var errClosed = errors.New("llmfactory: the factory is closed")

func (f *Factory) modelNames() []string {
	names := make([]string, 0, len(f.cfg.models))
	for n := range f.cfg.models {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// newModel creates the client of one model.
func (f *Factory) newModel(spec *modelSpec) (model.Model, error) {
	p := f.cfg.providers[spec.provider]
	if len(p.missing) > 0 {
		return model.Model{}, fmt.Errorf("llmfactory: provider %q (%s): %s", p.name, p.pos, unset(p.missing))
	}
	if len(spec.missing) > 0 {
		return model.Model{}, fmt.Errorf("llmfactory: model %q (%s): %s", spec.name, spec.pos, unset(spec.missing))
	}
	t := f.types[p.typ]
	provider := t.Provider
	if provider == "" {
		provider = p.typ
	}
	facts := model.Facts(provider)
	ownAPI := p.typ == "openai" && isOpenAI(p.baseURL) // OpenAI itself, not a server copying its API
	if p.apiKey == "" && (t.NeedsKey || ownAPI) {
		return model.Model{}, fmt.Errorf("llmfactory: provider %q (%s) has no api_key: set it, e.g. api_key: ${%s}", p.name, p.pos, keyVar(p.typ, t))
	}
	if p.region != "" && !t.Regional {
		return model.Model{}, fmt.Errorf("llmfactory: provider %q (%s) has a region, which type %s does not take: remove it", p.name, p.pos, p.typ)
	}
	edit := newBodyEdit(t, spec)
	tr := &transport{base: f.http.Transport, retry: f.cfg.retry, timeout: p.timeout, key: p.apiKey, edit: edit}
	hc := &http.Client{Transport: tr, Jar: f.http.Jar, CheckRedirect: f.http.CheckRedirect}
	llm, err := t.New(Provider{Name: p.name, Type: p.typ, APIKey: p.apiKey, BaseURL: p.baseURL, APIVersion: p.version, Region: p.region, HTTPClient: hc}, spec.model)
	if err != nil {
		return model.Model{}, fmt.Errorf("llmfactory: model %q of provider %q: %s", spec.name, p.name, tr.scrub(err.Error()))
	}
	noTools := t.NoTools
	if ts, ok := llm.(model.ToolSupporter); ok && !ts.SupportsTools() {
		noTools = true // a client that takes tools for some of its models only, as bedrock's does
	}
	schemaAPI := cmp.Or(t.API, t.OutputSchema)
	if s, ok := llm.(OutputSchemaSupporter); ok && !s.SupportsOutputSchema() {
		schemaAPI = ""
	}
	if spec.output == model.NativeOutput && schemaAPI == "" {
		if closer, ok := llm.(io.Closer); ok {
			closer.Close()
		}
		return model.Model{}, fmt.Errorf("llmfactory: model %q (%s): output: native, and its client writes no output schema for model %s: "+
			"set output to tool or prompted", spec.name, spec.pos, spec.model)
	}
	// The provider's defaults first, such as anthropic's output token limit (its client's own
	// cuts long answers short), so that the file's settings override them.
	opts := append(facts.CallOptions(), spec.callOptions()...)
	c := &client{llm: llm, provider: p.name, model: spec.name, scrub: tr.scrub, schemaAPI: schemaAPI, refusals: t.API == OpenAIAPI}
	shape := t.Shape
	if edit.thinks() { // the client shapes the conversation, and sends the thinking back
		c.thinking, c.shape, shape = true, t.Shape, model.ShapeKeep
	}
	return model.Model{
		Name:        spec.name,
		ID:          spec.model,
		Provider:    provider,
		StrictTools: t.StrictTools || ownAPI && facts.StrictTools,
		LLM:         c,
		Options:     opts,
		NoTools:     noTools,
		Shape:       shape,
		Output:      outputForm(spec, schemaAPI, provider, p.typ != "openai" || ownAPI),
		Price:       price(spec),
	}, nil
}

// price is a copy of the price of spec, for its model.Model; nil when it has none.
func price(spec *modelSpec) *model.Price {
	if spec.price == nil {
		return nil
	}
	p := *spec.price
	return &p
}

// outputForm is how the model of spec is best asked for structured output: its output key,
// else NativeOutput when its client writes an output schema (in schemaAPI's field) and the
// provider's table knows the model takes one (model.NativeOutputFor), else OutputUnknown.
// known is false for a server that copies the API of the provider it is named after (type
// openai at another base_url), whose models the table does not describe.
func outputForm(spec *modelSpec, schemaAPI API, provider string, known bool) model.OutputForm {
	if spec.output != model.OutputUnknown {
		return spec.output
	}
	if schemaAPI != "" && known && model.NativeOutputFor(provider, spec.model) {
		return model.NativeOutput
	}
	return model.OutputUnknown
}

func isOpenAI(baseURL string) bool {
	if baseURL == "" {
		return true
	}
	u, err := url.Parse(baseURL)
	return err == nil && strings.HasSuffix(u.Hostname(), "openai.com")
}

// unset says that the environment variables names are not set, and what to do.
func unset(names []string) string {
	if len(names) == 1 {
		return fmt.Sprintf("environment variable %s is not set: set it (export %s=...) and start the program again", names[0], names[0])
	}
	return fmt.Sprintf("environment variables %s are not set: set them and start the program again", strings.Join(names, ", "))
}

// lookedIn says where a relative path was looked for, or nothing for an absolute one.
func lookedIn(path string) string {
	if filepath.IsAbs(path) {
		return ""
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return ""
	}
	return " (looked for " + abs + ")"
}

// keyVar names the environment variable that usually holds the API key of a provider of type
// typ (t), for an error's example: the type's own, else that of the provider typ names
// (model.Facts), else one made of typ, whose name says more of the endpoint than the provider
// it copies.
func keyVar(typ string, t ProviderType) string {
	if t.KeyVar != "" {
		return t.KeyVar
	}
	if v := model.Facts(typ).KeyVar; v != "" {
		return v
	}
	return strings.ToUpper(typ) + "_API_KEY"
}

func newOpenAI(p Provider, name string) (llms.Model, error) {
	return openAIClient(p, name)
}

// openAIClient makes langchaingo's openai client of model name at p, with extra options.
func openAIClient(p Provider, name string, extra ...openai.Option) (llms.Model, error) {
	token, hc := p.APIKey.Reveal(), p.HTTPClient
	if token == "" {
		// The client wants a key even for a server that checks none: it gets a stand-in,
		// which never goes out.
		token, hc = "unused", withTransport(hc, noAuth{hc.Transport})
	}
	opts := []openai.Option{openai.WithToken(token), openai.WithModel(name), openai.WithHTTPClient(hc)}
	if p.BaseURL != "" {
		opts = append(opts, openai.WithBaseURL(p.BaseURL))
	}
	return openai.New(append(opts, extra...)...)
}

func newAnthropic(p Provider, name string) (llms.Model, error) {
	opts := []anthropic.Option{anthropic.WithToken(p.APIKey.Reveal()), anthropic.WithModel(name), anthropic.WithHTTPClient(p.HTTPClient)}
	if p.BaseURL != "" {
		opts = append(opts, anthropic.WithBaseURL(p.BaseURL))
	}
	return anthropic.New(opts...)
}

// client is a provider's client as the factory hands it out: its failures come back as
// *model.ProviderError, with the status and message the transport noted, and never with the
// key.
type client struct {
	llm             llms.Model
	provider, model string
	scrub           func(string) string
	// thinking: the model has a thinking budget. It takes the conversation as cadre keeps it
	// (model.ShapeKeep), gives langchaingo's client a copy in shape and its transport the
	// original, and hands the answer's thinking blocks to model.Read (see thinking.go).
	thinking bool
	shape    model.Shape
	// schemaAPI is the API whose field a request's output schema goes in, checked against
	// that API's limits before the request goes (see checkOutputSchema); "" for a type that
	// takes none.
	schemaAPI API
	// refusals: the client's transport reads the refusals of OpenAI's API (see refusal.go),
	// which the client hands to model.Read.
	refusals bool
}

func (c *client) GenerateContent(ctx context.Context, msgs []llms.MessageContent, opts ...llms.CallOption) (*llms.ContentResponse, error) {
	schema := model.OutputSchemaOf(ctx)
	if schema != nil && c.schemaAPI != "" {
		if err := checkOutputSchema(c.schemaAPI, schema); err != nil {
			return nil, outputSchemaError(c.provider, c.model, err)
		}
	}
	var f failure
	var tc *thinkingCall
	if c.thinking {
		tc = &thinkingCall{msgs: msgs}
		ctx, msgs = withThinking(ctx, tc), c.shape.Wire(msgs)
	}
	var rc *refusalCall
	if c.refusals {
		rc = &refusalCall{}
		ctx = withRefusal(ctx, rc)
	}
	resp, err := c.llm.GenerateContent(withFailure(ctx, &f), msgs, opts...)
	if err == nil {
		if len(resp.Choices) > 0 && resp.Choices[0] != nil {
			first := resp.Choices[0]
			if rs := tc.reasoning(); rs != nil {
				info(first)[model.ReasoningInfo] = rs
			}
			if r := rc.refusal(); r != "" {
				info(first)[model.RefusalInfo] = r
			}
		}
		return resp, nil
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if f.noted && (f.status != 0 || f.transient) {
		pe := &model.ProviderError{Provider: c.provider, Model: c.model, Status: f.status, Message: f.message}
		if schema != nil && refusedForSchema(f.status, f.message) {
			pe.Err = model.ErrOutputSchema
		}
		return nil, pe
	}
	if f.noted { // a configuration error, such as a host that does not exist: no fallback
		return nil, &clientError{msg: fmt.Sprintf("provider %q, model %q: %s (check the provider's base_url)", c.provider, c.model, f.message), err: f.cause}
	}
	if f.answered != 0 {
		// The provider answered, and its answer could not be read (JSON that does not parse, no
		// choices, a stream that ends wrong): a failure of the provider, which another model
		// may not have.
		return nil, &model.ProviderError{Provider: c.provider, Model: c.model, Status: f.answered,
			Message: "its answer could not be read: " + c.scrub(err.Error())}
	}
	return nil, &clientError{msg: fmt.Sprintf("provider %q, model %q: %s", c.provider, c.model, c.scrub(err.Error())), err: err}
}

// info returns the GenerationInfo of ch, made if it has none.
func info(ch *llms.ContentChoice) map[string]any {
	if ch.GenerationInfo == nil {
		ch.GenerationInfo = map[string]any{}
	}
	return ch.GenerationInfo
}

// clientError is an error of the client itself, its text without the key; errors.Is and As
// still reach what it wraps (an error of a stream function, say).
type clientError struct {
	msg string
	err error
}

func (e *clientError) Error() string { return e.msg }
func (e *clientError) Unwrap() error { return e.err }

func (c *client) Call(ctx context.Context, prompt string, opts ...llms.CallOption) (string, error) {
	return llms.GenerateFromSinglePrompt(ctx, c, prompt, opts...)
}
