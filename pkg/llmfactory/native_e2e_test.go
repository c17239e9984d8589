package llmfactory_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/cadrehq/cadre/pkg/assistant"
	"github.com/cadrehq/cadre/pkg/callback"
	"github.com/cadrehq/cadre/pkg/llmfactory"
	"github.com/cadrehq/cadre/pkg/llmfactory/googleai"
	"github.com/cadrehq/cadre/pkg/llmtest"
	"github.com/cadrehq/cadre/pkg/model"
	"github.com/cadrehq/cadre/pkg/providertest"
	"github.com/cadrehq/cadre/pkg/schema"
	"github.com/google/go-cmp/cmp"
	"github.com/tmc/langchaingo/llms"
)

// The end-to-end matrix of native structured output (docs/output.md): an assistant.New[T] run
// through the whole stack — the assistant, a factory parsed from an llm.yaml whose base_url
// points at a providertest fake, langchaingo's real client, the fake API, an llmtest model —
// for each provider type, checked on the wire (the fake's recorded bodies) and in the run's
// result and events.

// trip is the output type: a nested struct, a slice of structs and an optional member, whose
// strict form differs from its schema.
type trip struct {
	City  string     `json:"city"`
	Hotel tripHotel  `json:"hotel"`
	Stops []tripStop `json:"stops"`
	Note  string     `json:"note,omitempty"`
}

type tripHotel struct {
	Name  string `json:"name"`
	Stars int    `json:"stars"`
}

type tripStop struct {
	Place string `json:"place"`
	Days  int    `json:"days"`
}

// theTrip is what the models answer: long enough to stream in many pieces.
var theTrip = trip{
	City:  "Lisbon",
	Hotel: tripHotel{Name: "Pensão Amor do Cais", Stars: 4},
	Stops: []tripStop{{Place: "Belém Tower", Days: 1}, {Place: "Sintra and the Pena Palace", Days: 2},
		{Place: "Cascais by the sea", Days: 1}, {Place: "Alfama's old streets", Days: 3}},
	Note: "Take the 28 tram early in the morning, before the crowds.",
}

// tripLong has a string length, which OpenAI's strict mode does not take (and Anthropic's
// structured outputs do not either).
type tripLong struct {
	City string `json:"city" jsonschema:"minLength=1"`
	Days int    `json:"days"`
}

// tripBounded has a numeric bound, which OpenAI's strict mode takes and Anthropic's structured
// outputs do not.
type tripBounded struct {
	City string `json:"city"`
	Days int    `json:"days" jsonschema:"minimum=1"`
}

// wireAPI is where an API's requests carry the output schema and the tools.
type wireAPI struct {
	// field is the top-level member of the body that holds the schema: absent from a
	// request without one.
	field string
	// strict: the API takes a strict flag beside the schema, and a schema in its strict
	// subset (as trip's strict form is) goes with strict: true.
	strict bool
	// schema returns the schema of a request body and its strict flag (nil where the API has
	// none); present is false when the body carries none. A field of another shape than the
	// API's structured output is reported as present, with a nil doc.
	schema func(body map[string]any) (doc, strict any, present bool)
	// tools returns the names of the tools a body offers.
	tools func(body map[string]any) []string
}

// OpenAI's Chat Completions (and the APIs copying it): response_format: {type: json_schema,
// json_schema: {name, schema, strict}}.
var openAIWire = wireAPI{
	field:  "response_format",
	strict: true,
	schema: func(body map[string]any) (any, any, bool) {
		rf, ok := body["response_format"].(map[string]any)
		if !ok {
			return nil, nil, body["response_format"] != nil
		}
		js, _ := rf["json_schema"].(map[string]any)
		if rf["type"] != "json_schema" || js == nil {
			return nil, nil, true
		}
		return js["schema"], js["strict"], true
	},
	tools: func(body map[string]any) []string {
		return names(body["tools"], func(t map[string]any) any { f, _ := t["function"].(map[string]any); return f["name"] })
	},
}

// Anthropic's Messages: output_config: {format: {type: json_schema, schema}}.
var anthropicWire = wireAPI{
	field: "output_config",
	schema: func(body map[string]any) (any, any, bool) {
		oc, ok := body["output_config"].(map[string]any)
		if !ok {
			return nil, nil, body["output_config"] != nil
		}
		f, _ := oc["format"].(map[string]any)
		if f == nil || f["type"] != "json_schema" {
			return nil, nil, true
		}
		return f["schema"], nil, true
	},
	tools: func(body map[string]any) []string {
		return names(body["tools"], func(t map[string]any) any { return t["name"] })
	},
}

// Gemini's generateContent: generationConfig: {responseMimeType: application/json,
// responseJsonSchema}. generationConfig holds the client's own settings too: only
// responseJsonSchema says a schema is there.
var geminiWire = wireAPI{
	field: "", // generationConfig is always there
	schema: func(body map[string]any) (any, any, bool) {
		gc, _ := body["generationConfig"].(map[string]any)
		s, ok := gc["responseJsonSchema"]
		if !ok {
			return nil, nil, false
		}
		if gc["responseMimeType"] != "application/json" {
			return nil, nil, true
		}
		return s, nil, true
	},
	tools: func(body map[string]any) []string {
		var all []string
		tools, _ := body["tools"].([]any)
		for _, t := range tools {
			t, _ := t.(map[string]any)
			all = append(all, names(t["functionDeclarations"], func(d map[string]any) any { return d["name"] })...)
		}
		return all
	},
}

// names returns name(e) of each object e of list, a JSON array.
func names(list any, name func(map[string]any) any) []string {
	var out []string
	arr, _ := list.([]any)
	for _, e := range arr {
		if o, ok := e.(map[string]any); ok {
			s, _ := name(o).(string)
			out = append(out, s)
		}
	}
	return out
}

// How a provider takes a schema outside the subset of JSON Schema its API takes
// (docs/output.md, "what the schema must be").
type subsetRule int

const (
	// looseOutsideStrict: OpenAI's API and those copying it take any schema, in strict mode
	// only those of its strict subset; tripLong (minLength) goes natively with strict: false.
	looseOutsideStrict subsetRule = iota
	// toolOutsideSubset: Anthropic's subset is checked before sending; tripBounded (minimum)
	// goes as a final_result tool, no request ever carrying the schema.
	toolOutsideSubset
	// noSubset: Gemini has no subset checked locally: tripBounded goes natively as it is, and
	// the API alone would refuse what it does not take (a 400, see TestNativeOutputSchemaRefused).
	noSubset
)

// nativeProvider is a provider type of the matrix: how llm.yaml names it and a model the
// factory asks natively, its fake API, and what its API does.
type nativeProvider struct {
	name     string
	fake     func(llms.Model, ...providertest.Option) *providertest.Server
	provider string // the provider's keys in llm.yaml, flow style; %s is the fake's URL
	model    string // the model's keys: its id and, when the table does not say native, output
	opts     []llmfactory.Option
	wire     wireAPI
	subset   subsetRule
	// schemaRefusal is a 400's message naming the schema, in that API's words.
	schemaRefusal string
	// refusal: the API signals a refusal in words.
	refusal bool
}

var nativeProviders = []nativeProvider{
	{name: "openai", fake: providertest.NewOpenAI,
		provider: "type: openai, api_key: k, base_url: '%s/v1'",
		// gpt-4o is native by the table only at OpenAI's own address: the fake is elsewhere.
		model: "model: gpt-4o, output: native",
		wire:  openAIWire, subset: looseOutsideStrict,
		schemaRefusal: "Invalid schema for response_format 'trip': In context=(), 'required' is required to be supplied.",
		refusal:       true},
	{name: "azure", fake: providertest.NewOpenAI,
		provider: "type: azure, api_key: k, base_url: '%s', api_version: 2024-10-21",
		model:    "model: gpt-4.1-mini", // a deployment named after its model: native by the table
		opts:     []llmfactory.Option{azureToFake()},
		wire:     openAIWire, subset: looseOutsideStrict,
		schemaRefusal: "Invalid schema for response_format 'trip': In context=('properties', 'stops'), 'additionalProperties' is required to be supplied and to be false.",
		refusal:       true},
	{name: "anthropic", fake: providertest.NewAnthropic,
		provider: "type: anthropic, api_key: k, base_url: '%s/v1'",
		model:    "model: claude-sonnet-4-5",
		wire:     anthropicWire, subset: toolOutsideSubset,
		schemaRefusal: "output_config.format.schema: For 'object' type, 'additionalProperties' must be explicitly set to false",
		refusal:       true},
	{name: "googleai", fake: providertest.NewGemini,
		provider: "type: googleai, api_key: k, base_url: '%s'",
		model:    "model: gemini-2.5-flash",
		opts:     []llmfactory.Option{llmfactory.WithProviderType("googleai", googleai.Type())},
		wire:     geminiWire, subset: noSubset,
		schemaRefusal: `Invalid JSON payload received. Unknown name "responseJsonSchema" at 'generation_config': Cannot find field.`,
		// No refusal in words: a safety stop (finishReason SAFETY) says nothing.
	},
	{name: "mistral", fake: providertest.NewOpenAI,
		provider: "type: mistral, api_key: k, base_url: '%s/v1'",
		model:    "model: mistral-small-latest",
		wire:     openAIWire, subset: looseOutsideStrict,
		schemaRefusal: "response_format.json_schema.schema: Input should be a valid dictionary",
		refusal:       true},
	{name: "ollama", fake: providertest.NewOpenAI,
		// The fake wants a key; Ollama takes none.
		provider: "type: ollama, api_key: ollama, base_url: '%s/v1'",
		model:    "model: 'qwen3:8b'",
		wire:     openAIWire, subset: looseOutsideStrict,
		schemaRefusal: "invalid JSON schema in format",
		refusal:       true},
	{name: "groq", fake: providertest.NewOpenAI,
		provider: "type: groq, api_key: k, base_url: '%s/v1'",
		model:    "model: openai/gpt-oss-20b",
		wire:     openAIWire, subset: looseOutsideStrict,
		schemaRefusal: "response_format: json_schema is not supported with this model",
		refusal:       true},
}

// azureToFake sends Azure OpenAI's requests to the fake OpenAI API, which serves OpenAI's path
// and key header only: a request to Azure's path (/openai/deployments/{deployment}/chat/completions
// with its api-version and api-key) goes to /v1/chat/completions with the key as a bearer
// token; any other request fails.
func azureToFake() llmfactory.Option {
	return llmfactory.WithHTTPClient(&http.Client{Transport: roundTripFunc(func(req *http.Request) (*http.Response, error) {
		key := req.Header.Get("api-key")
		if !strings.HasPrefix(req.URL.Path, "/openai/deployments/") || !strings.HasSuffix(req.URL.Path, "/chat/completions") ||
			req.URL.Query().Get("api-version") == "" || key == "" {
			return nil, fmt.Errorf("not a request of Azure OpenAI: %s %s", req.Method, req.URL)
		}
		req = req.Clone(req.Context())
		req.URL.Path, req.URL.RawQuery = "/v1/chat/completions", ""
		req.Header.Set("Authorization", "Bearer "+key)
		return http.DefaultTransport.RoundTrip(req)
	})})
}

// start starts p's fake answered by m, and parses an llm.yaml whose one model, the default,
// it serves, with no retry. The model is native for the factory: OutputAuto asks it so.
func (p nativeProvider) start(t *testing.T, m llms.Model) (*providertest.Server, *llmfactory.Factory) {
	t.Helper()
	srv := p.fake(m)
	t.Cleanup(srv.Close)
	doc := fmt.Sprintf("providers:\n  p: { %s }\nmodels:\n  m: { provider: p, %s }\ndefault: m\nretry: { max_attempts: 1 }\n",
		fmt.Sprintf(p.provider, srv.URL()), p.model)
	f, err := llmfactory.Parse([]byte(doc), p.opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	if m, err := f.Model(ctx(t), "m"); err != nil || m.Output != model.NativeOutput {
		t.Fatalf("model m: Output %q, %v; want native", m.Output, err)
	}
	return srv, f
}

// planner is the model behind the fakes: it answers with answer, as text when the request
// carries an output schema (the fake hands it on in the context, as the API would constrain
// decoding to it), else as final_result's arguments when that tool is offered. With
// lookupFirst, a turn in tool form calls lookup first, until its result is in the
// conversation.
func planner(answer any, lookupFirst bool) *llmtest.FuncModel {
	data, err := json.Marshal(answer)
	if err != nil {
		panic(err)
	}
	return llmtest.NewFunc(func(ctx context.Context, req llmtest.Request) llmtest.Reply {
		if model.OutputSchemaOf(ctx) != nil || !slices.ContainsFunc(req.Options.Tools, func(t llms.Tool) bool { return t.Function.Name == "final_result" }) {
			return llmtest.Text(string(data))
		}
		if lookupFirst && !slices.ContainsFunc(req.Messages, func(m llms.MessageContent) bool { return m.Role == llms.ChatMessageTypeTool }) {
			return llmtest.Calls(llmtest.Call("lookup", `{"city":"Lisbon"}`))
		}
		return llmtest.Calls(llmtest.Call("final_result", string(data)))
	})
}

// events records a run's events of the kinds given.
type events struct {
	mu   sync.Mutex
	kind []callback.Kind
	got  []callback.Event
}

func recordEvents(kinds ...callback.Kind) *events { return &events{kind: kinds} }

func (e *events) Handle(_ context.Context, ev callback.Event) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if slices.Contains(e.kind, ev.Kind) {
		e.got = append(e.got, ev)
	}
}

func (e *events) all() []callback.Event {
	e.mu.Lock()
	defer e.mu.Unlock()
	return slices.Clone(e.got)
}

// schemaDoc returns the schema of O as a decoded JSON value: its strict form, or the schema
// as it is.
func schemaDoc[O any](t *testing.T, strict bool) any {
	t.Helper()
	s, err := schema.For[O]()
	if err != nil {
		t.Fatal(err)
	}
	doc := s.JSON()
	if strict {
		doc = s.Strict()
	}
	var v any
	if err := json.Unmarshal(doc, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

// checkNative checks that body carries the schema want in w's field, with the strict flag
// strict where the API has one, and offers no final_result tool.
func checkNative(t *testing.T, w wireAPI, body map[string]any, want any, strict bool) {
	t.Helper()
	doc, flag, present := w.schema(body)
	if !present {
		t.Fatalf("the request carries no output schema; body %v", body)
	}
	if diff := cmp.Diff(want, doc); diff != "" {
		t.Errorf("the schema in the request (-want +got):\n%s", diff)
	}
	if w.strict && flag != strict {
		t.Errorf("strict = %v; want %v", flag, strict)
	}
	if tools := w.tools(body); slices.Contains(tools, "final_result") {
		t.Errorf("tools %v: final_result beside the schema", tools)
	}
}

// checkToolForm checks that body asks for the output with a final_result tool and carries no
// output schema.
func checkToolForm(t *testing.T, w wireAPI, body map[string]any) {
	t.Helper()
	if _, _, present := w.schema(body); present {
		t.Errorf("a request in tool form carries an output schema")
	}
	if w.field != "" && body[w.field] != nil {
		t.Errorf("a request in tool form has %s: %v", w.field, body[w.field])
	}
	if tools := w.tools(body); !slices.Contains(tools, "final_result") {
		t.Errorf("tools %v; want final_result", tools)
	}
}

// bodies decodes the bodies srv received.
func bodies(t *testing.T, srv *providertest.Server) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, b := range srv.Bodies() {
		out = append(out, decode(t, b))
	}
	return out
}

// Done when, first: under OutputAuto a model the factory knows to be native is asked with the
// output's schema in its API's own field — in its strict form where the API takes one —
// beside the assistant's tools and without final_result, and its answer is the Output, in one
// request.
func TestNativeOutputOnTheWire(t *testing.T) {
	t.Parallel()
	for _, p := range nativeProviders {
		t.Run(p.name, func(t *testing.T) {
			t.Parallel()
			srv, f := p.start(t, planner(theTrip, false))
			a := assistant.New[trip]("planner", assistant.WithModels(f), assistant.WithTools(lookup()))
			res, err := a.Run(ctx(t), assistant.Input{Prompt: "Plan a week in Lisbon."})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(theTrip, res.Output); diff != "" {
				t.Errorf("Output (-want +got):\n%s", diff)
			}
			if res.Usage.Total.Requests != 1 {
				t.Errorf("Usage.Total.Requests = %d; want 1", res.Usage.Total.Requests)
			}
			got := bodies(t, srv)
			if len(got) != 1 {
				t.Fatalf("%d requests; want 1", len(got))
			}
			checkNative(t, p.wire, got[0], schemaDoc[trip](t, p.wire.strict), true)
			if tools := p.wire.tools(got[0]); !slices.Equal(tools, []string{"lookup"}) {
				t.Errorf("tools %v; want the assistant's lookup alone", tools)
			}
		})
	}
}

// Done when, second: a schema outside the subset a provider takes falls back as
// docs/output.md says — to strict: false for OpenAI's API and its copies, to a final_result
// tool without any request carrying the schema for Anthropic (one OutputFallback event); for
// Gemini nothing is checked before sending.
func TestNativeOutputOutsideTheSubset(t *testing.T) {
	t.Parallel()
	for _, p := range nativeProviders {
		t.Run(p.name, func(t *testing.T) {
			t.Parallel()
			ev := recordEvents(callback.OutputFallback)
			ctx := ctx(t)
			switch p.subset {
			case looseOutsideStrict:
				want := tripLong{City: "Porto", Days: 2}
				srv, f := p.start(t, planner(want, false))
				res, err := assistant.New[tripLong]("planner", assistant.WithModels(f), assistant.WithCallback(ev)).
					Run(ctx, assistant.Input{Prompt: "A weekend?"})
				if err != nil {
					t.Fatal(err)
				}
				got := bodies(t, srv)
				if res.Output != want || len(got) != 1 {
					t.Fatalf("Output %+v after %d requests; want %+v after 1", res.Output, len(got), want)
				}
				checkNative(t, p.wire, got[0], schemaDoc[tripLong](t, false), false)
				if n := len(ev.all()); n != 0 {
					t.Errorf("%d OutputFallback events; want none", n)
				}
			case toolOutsideSubset:
				want := tripBounded{City: "Porto", Days: 2}
				srv, f := p.start(t, planner(want, false))
				res, err := assistant.New[tripBounded]("planner", assistant.WithModels(f), assistant.WithCallback(ev)).
					Run(ctx, assistant.Input{Prompt: "A weekend?"})
				if err != nil {
					t.Fatal(err)
				}
				got := bodies(t, srv)
				if res.Output != want || len(got) != 1 {
					t.Fatalf("Output %+v after %d requests; want %+v after 1: the schema was refused before sending", res.Output, len(got), want)
				}
				checkToolForm(t, p.wire, got[0])
				if fb := ev.all(); len(fb) != 1 || !errors.Is(fb[0].Err, model.ErrOutputSchema) || !strings.Contains(fb[0].Err.Error(), `"minimum"`) {
					t.Errorf("OutputFallback events %+v; want one, wrapping model.ErrOutputSchema and naming minimum", fb)
				}
			case noSubset:
				// Gemini's schema is not checked before sending: the API takes what it takes, and
				// a 400 naming the schema is the only fallback.
				want := tripBounded{City: "Porto", Days: 2}
				srv, f := p.start(t, planner(want, false))
				res, err := assistant.New[tripBounded]("planner", assistant.WithModels(f), assistant.WithCallback(ev)).
					Run(ctx, assistant.Input{Prompt: "A weekend?"})
				if err != nil {
					t.Fatal(err)
				}
				got := bodies(t, srv)
				if res.Output != want || len(got) != 1 {
					t.Fatalf("Output %+v after %d requests; want %+v after 1", res.Output, len(got), want)
				}
				checkNative(t, p.wire, got[0], schemaDoc[tripBounded](t, false), false)
			}
		})
	}
}

// Done when, third: a 400 naming the schema falls back to tool form once — the same request
// again at once with final_result, one OutputFallback event — and the run's later requests stay
// in tool form.
func TestNativeOutputSchemaRefused(t *testing.T) {
	t.Parallel()
	for _, p := range nativeProviders {
		t.Run(p.name, func(t *testing.T) {
			t.Parallel()
			srv, f := p.start(t, planner(theTrip, true))
			srv.Fault(providertest.Fault{Status: 400, Message: p.schemaRefusal})
			ev := recordEvents(callback.OutputFallback, callback.ModelFallback)
			a := assistant.New[trip]("planner", assistant.WithModels(f), assistant.WithTools(lookup()), assistant.WithCallback(ev))
			res, err := a.Run(ctx(t), assistant.Input{Prompt: "Plan a week in Lisbon."})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(theTrip, res.Output); diff != "" {
				t.Errorf("Output (-want +got):\n%s", diff)
			}
			got := bodies(t, srv)
			if len(got) != 3 {
				t.Fatalf("%d requests; want 3: refused, then lookup's turn and the answer's in tool form", len(got))
			}
			checkNative(t, p.wire, got[0], schemaDoc[trip](t, p.wire.strict), true)
			for i, body := range got[1:] {
				t.Run(fmt.Sprintf("request %d", i+2), func(t *testing.T) { checkToolForm(t, p.wire, body) })
			}
			fb := ev.all()
			if len(fb) != 1 || fb[0].Kind != callback.OutputFallback || fb[0].Model != "m" || !errors.Is(fb[0].Err, model.ErrOutputSchema) ||
				!strings.Contains(fb[0].Err.Error(), p.schemaRefusal[:20]) {
				t.Errorf("events %+v; want one OutputFallback of model m wrapping model.ErrOutputSchema, with the provider's words", fb)
			}
		})
	}
}

// Done when, fourth: a model that refuses ends the run with a *assistant.ModelStopError wrapping
// assistant.ErrRefusal and quoting the refusal, after one request, streamed or not, where the
// API signals a refusal in words.
func TestNativeOutputRefusal(t *testing.T) {
	t.Parallel()
	const said = "I can't help with that."
	for _, p := range nativeProviders {
		if !p.refusal {
			continue
		}
		for _, streamed := range []bool{false, true} {
			t.Run(named(p.name, streamed), func(t *testing.T) {
				t.Parallel()
				srv, f := p.start(t, llmtest.NewFunc(func(context.Context, llmtest.Request) llmtest.Reply { return llmtest.Reply{Refusal: said} }))
				opts := []assistant.Option{assistant.WithModels(f)}
				if streamed {
					opts = append(opts, assistant.WithStream(func(context.Context, assistant.Chunk) error { return nil }))
				}
				_, err := assistant.New[trip]("planner", opts...).Run(ctx(t), assistant.Input{Prompt: "Plan a week in Lisbon."})
				var stop *assistant.ModelStopError
				if !errors.As(err, &stop) || !errors.Is(err, assistant.ErrRefusal) || stop.Refusal != said {
					t.Fatalf("err = %v; want a *ModelStopError wrapping ErrRefusal that quotes %q", err, said)
				}
				got := bodies(t, srv)
				if len(got) != 1 {
					t.Fatalf("%d requests; want 1: a refusal is not corrected", len(got))
				}
				if _, _, present := p.wire.schema(got[0]); !present {
					t.Error("the refused request carried no output schema")
				}
				if streamed != (got[0]["stream"] == true) {
					t.Errorf("stream = %v; want %v", got[0]["stream"], streamed)
				}
			})
		}
	}
}

// Done when, fifth: OutputAuto over a chain of two providers sends each model its own form:
// the native one the schema in its field, the other a final_result tool — whichever comes
// first and fails over.
func TestNativeOutputFallbackChain(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		chain   string // the models of assistant x, in order
		fails   string // the first, whose server answers with a 503
		answers string // the second
	}{
		{"native first, failing", "[claude, gpt35]", "claude", "gpt35"},
		{"native second", "[gpt35, claude]", "gpt35", "claude"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			an := providertest.NewAnthropic(planner(theTrip, false))
			oa := providertest.NewOpenAI(planner(theTrip, false))
			t.Cleanup(func() { an.Close(); oa.Close() })
			// gpt-3.5-turbo takes no output schema; claude-sonnet-4-5 does, by the table.
			doc := fmt.Sprintf(`providers:
  an: { type: anthropic, api_key: k, base_url: '%s/v1' }
  oa: { type: openai, api_key: k, base_url: '%s/v1' }
models:
  claude: { provider: an, model: claude-sonnet-4-5 }
  gpt35:  { provider: oa, model: gpt-3.5-turbo }
assistants:
  x: %s
retry: { max_attempts: 1 }
`, an.URL(), oa.URL(), tc.chain)
			f, err := llmfactory.Parse([]byte(doc))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { f.Close() })
			if tc.fails == "claude" {
				an.Fault(providertest.Fault{Status: 503})
			} else {
				oa.Fault(providertest.Fault{Status: 503})
			}
			ev := recordEvents(callback.ModelFallback, callback.OutputFallback)
			res, err := assistant.New[trip]("x", assistant.WithModels(f), assistant.WithCallback(ev)).
				Run(ctx(t), assistant.Input{Prompt: "Plan a week in Lisbon."})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(theTrip, res.Output); diff != "" {
				t.Errorf("Output (-want +got):\n%s", diff)
			}
			if res.Model != tc.answers {
				t.Errorf("Model = %q; want %q, the second of the chain", res.Model, tc.answers)
			}
			anBodies, oaBodies := bodies(t, an), bodies(t, oa)
			if len(anBodies) != 1 || len(oaBodies) != 1 {
				t.Fatalf("%d requests to Anthropic, %d to OpenAI; want one each", len(anBodies), len(oaBodies))
			}
			checkNative(t, anthropicWire, anBodies[0], schemaDoc[trip](t, false), false)
			checkToolForm(t, openAIWire, oaBodies[0])
			if fb := ev.all(); len(fb) != 1 || fb[0].Kind != callback.ModelFallback || fb[0].Model != tc.fails {
				t.Errorf("events %+v; want one ModelFallback from %s, and no OutputFallback", fb, tc.fails)
			}
		})
	}
}

// Done when, sixth, through the real streaming clients: WithPartialOutput gets the output as
// it grows — each value within the final Output and within the next one, the last the final
// Output — for an answer streamed as text in native form (OpenAI, Anthropic, Gemini) and as
// final_result's arguments in tool form (OpenAI's client streams tool-call deltas). A client
// that did not stream would give none.
func TestNativeOutputPartial(t *testing.T) {
	t.Parallel()
	openAI, anthropic, gemini := nativeProviders[0], nativeProviders[2], nativeProviders[3]
	for _, tc := range []struct {
		name string
		p    nativeProvider
		mode assistant.OutputMode
	}{
		{"openai native", openAI, assistant.OutputAuto},
		{"anthropic native", anthropic, assistant.OutputAuto},
		{"gemini native", gemini, assistant.OutputAuto},
		{"openai tool", openAI, assistant.OutputTool},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv, f := tc.p.start(t, planner(theTrip, false))
			var shown []trip // f is called on the run's goroutine
			a := assistant.New[trip]("planner", assistant.WithModels(f), assistant.WithOutputMode(tc.mode),
				assistant.WithPartialOutput(0, func(_ context.Context, v trip) error {
					shown = append(shown, v)
					return nil
				}))
			res, err := a.Run(ctx(t), assistant.Input{Prompt: "Plan a week in Lisbon."})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(theTrip, res.Output); diff != "" {
				t.Errorf("Output (-want +got):\n%s", diff)
			}
			got := bodies(t, srv)
			if len(got) != 1 {
				t.Fatalf("%d requests; want 1", len(got))
			}
			if tc.mode == assistant.OutputTool {
				checkToolForm(t, tc.p.wire, got[0])
			} else if _, _, present := tc.p.wire.schema(got[0]); !present {
				t.Error("the request carried no output schema")
			}
			if len(shown) < 5 {
				t.Fatalf("%d partial outputs: %+v; want one for each of the many pieces streamed", len(shown), shown)
			}
			var prev trip
			for i, v := range shown {
				if !within(reflect.ValueOf(v), reflect.ValueOf(res.Output)) {
					t.Errorf("partial output %d %+v is not within the Output", i, v)
				}
				if !within(reflect.ValueOf(prev), reflect.ValueOf(v)) {
					t.Errorf("partial output %d %+v does not hold the one before, %+v", i, v, prev)
				}
				prev = v
			}
			if diff := cmp.Diff(res.Output, shown[len(shown)-1]); diff != "" {
				t.Errorf("the last partial output is not the Output (-want +got):\n%s", diff)
			}
		})
	}
}

// within reports whether the partial value v holds nothing that the whole value w does not:
// each string a prefix of w's, each slice no longer than w's with each element within w's,
// each struct's fields within w's, any other value w's or zero.
func within(v, w reflect.Value) bool {
	switch v.Kind() {
	case reflect.String:
		return strings.HasPrefix(w.String(), v.String())
	case reflect.Slice:
		if v.Len() > w.Len() {
			return false
		}
		for i := range v.Len() {
			if !within(v.Index(i), w.Index(i)) {
				return false
			}
		}
		return true
	case reflect.Struct:
		for i := range v.NumField() {
			if !within(v.Field(i), w.Field(i)) {
				return false
			}
		}
		return true
	}
	return v.IsZero() || v.Equal(w)
}
