package llmfactory_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/cadrehq/cadre/pkg/llmfactory"
	"github.com/cadrehq/cadre/pkg/model"
	"github.com/tmc/langchaingo/llms"
)

// standIn is an OpenAI-compatible server on 127.0.0.1 that records the requests it gets and
// answers each with standInAnswer, as JSON or as a stream, as the request asks. Its client
// sends every request to it, whatever the address, recording that address: a factory given
// that client reaches no other server, even at a provider type's default base_url.
type standIn struct {
	srv *httptest.Server

	mu   sync.Mutex
	reqs []got
}

// got is a request as the stand-in saw it, with the address the client sent it to.
type got struct {
	url    string // where the client sent it, before the stand-in's client redirected it
	method string
	path   string
	query  url.Values
	header http.Header
	body   map[string]any
}

const standInAnswer = "from the stand-in"

func newStandIn(t *testing.T) *standIn {
	t.Helper()
	s := &standIn{}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.srv.Close)
	return s
}

func (s *standIn) serve(w http.ResponseWriter, r *http.Request) {
	data, _ := io.ReadAll(r.Body)
	var body map[string]any
	_ = json.Unmarshal(data, &body)
	s.mu.Lock()
	s.reqs = append(s.reqs, got{url: r.Header.Get(sentFor), method: r.Method, path: r.URL.Path, query: r.URL.Query(),
		header: r.Header.Clone(), body: body})
	s.mu.Unlock()
	usage := `{"prompt_tokens":3,"completion_tokens":4,"total_tokens":7}`
	if body["stream"] == true {
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprintf(w, "data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":%q},\"finish_reason\":null}]}\n\n", standInAnswer)
		fmt.Fprintf(w, "data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}],\"usage\":%s}\n\n", usage)
		fmt.Fprint(w, "data: [DONE]\n\n")
		return
	}
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(w, `{"id":"c1","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":%q},"finish_reason":"stop"}],"usage":%s}`,
		standInAnswer, usage)
}

// client returns the HTTP client that sends every request to the stand-in.
func (s *standIn) client() *http.Client {
	to, _ := url.Parse(s.srv.URL)
	return &http.Client{Transport: roundTripFunc(func(req *http.Request) (*http.Response, error) {
		r := req.Clone(req.Context())
		r.Header.Set(sentFor, req.URL.String())
		r.URL.Scheme, r.URL.Host, r.Host = to.Scheme, to.Host, ""
		return s.srv.Client().Transport.RoundTrip(r)
	})}
}

// sentFor is the header in which the stand-in's client tells it where a request was sent.
const sentFor = "X-Sent-For"

// requests returns the requests received so far.
func (s *standIn) requests() []got {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]got(nil), s.reqs...)
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// factoryOf parses an llm.yaml with provider p of the given keys (flow style) and model m of
// it, with the variables of env set and requests going to s.
func (s *standIn) factoryOf(t *testing.T, provider string, env map[string]string, models string) *llmfactory.Factory {
	t.Helper()
	doc := "providers:\n  p: { " + provider + " }\nmodels:\n  m: { provider: p, model: the-model }\n" + models +
		"retry: { max_attempts: 1 }\n"
	f, err := llmfactory.Parse([]byte(doc), llmfactory.WithHTTPClient(s.client()), llmfactory.WithEnv(func(k string) (string, bool) {
		v, ok := env[k]
		return v, ok
	}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// Every OpenAI-compatible type sends its requests where its service takes them, with the key
// where the service looks for it (or none, to a server that needs none), through langchaingo's
// real openai client, and reads the answer.
func TestCompatibleTypesOnTheWire(t *testing.T) {
	t.Parallel()
	const azureURL = "https://cadre-test.openai.azure.com/openai/deployments/the-model/chat/completions?api-version=2024-10-21"
	tests := []struct {
		name     string
		provider string // the provider's keys
		key      bool   // api_key is set
		url      string // where the request goes
		auth     string // the key's header: "bearer", "api-key", or "" for none
		noTools  bool
	}{
		{name: "azure", provider: "type: azure, base_url: 'https://cadre-test.openai.azure.com', api_version: 2024-10-21",
			key: true, url: azureURL, auth: "api-key"},
		{name: "azure at an endpoint with a slash", provider: "type: azure, base_url: 'https://cadre-test.openai.azure.com/', api_version: 2024-10-21",
			key: true, url: azureURL, auth: "api-key"},
		{name: "mistral", provider: "type: mistral", key: true, url: "https://api.mistral.ai/v1/chat/completions", auth: "bearer"},
		{name: "mistral elsewhere", provider: "type: mistral, base_url: 'https://mistral.example.test/v1'", key: true,
			url: "https://mistral.example.test/v1/chat/completions", auth: "bearer"},
		{name: "groq", provider: "type: groq", key: true, url: "https://api.groq.com/openai/v1/chat/completions", auth: "bearer"},
		{name: "deepseek", provider: "type: deepseek", key: true, url: "https://api.deepseek.com/v1/chat/completions", auth: "bearer"},
		{name: "perplexity", provider: "type: perplexity", key: true, url: "https://api.perplexity.ai/chat/completions", auth: "bearer", noTools: true},
		{name: "together", provider: "type: together", key: true, url: "https://api.together.ai/v1/chat/completions", auth: "bearer"},
		{name: "vllm", provider: "type: vllm", url: "http://localhost:8000/v1/chat/completions"},
		{name: "vllm with a key", provider: "type: vllm", key: true, url: "http://localhost:8000/v1/chat/completions", auth: "bearer"},
		{name: "vllm elsewhere", provider: "type: vllm, base_url: 'http://gpu-box:8000/v1'", url: "http://gpu-box:8000/v1/chat/completions"},
		{name: "lmstudio", provider: "type: lmstudio", url: "http://localhost:1234/v1/chat/completions"},
		{name: "llamacpp", provider: "type: llamacpp", url: "http://localhost:8080/v1/chat/completions"},
		{name: "ollama", provider: "type: ollama", url: "http://localhost:11434/v1/chat/completions"},
		// Not a new type: a server that copies OpenAI's API, named by its base_url alone.
		{name: "openai elsewhere without a key", provider: "type: openai, base_url: 'http://localhost:9999/v1'",
			url: "http://localhost:9999/v1/chat/completions"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := newStandIn(t)
			provider := tc.provider
			if tc.key {
				provider += ", api_key: '${KEY}'"
			}
			f := s.factoryOf(t, provider, map[string]string{"KEY": sentinelKey}, "")
			m, err := f.Model(ctx(t), "m")
			if err != nil {
				t.Fatal(err)
			}
			typ := strings.TrimSuffix(strings.Fields(tc.provider)[1], ",")
			if m.Provider != typ || m.Shape != model.ShapeOpenAI || m.NoTools != tc.noTools || m.StrictTools {
				t.Errorf("model: provider %q, shape %v, NoTools %v, StrictTools %v; want %q, the openai client's shape, NoTools %v, no strict schemas",
					m.Provider, m.Shape, m.NoTools, m.StrictTools, typ, tc.noTools)
			}
			reply, err := m.Generate(ctx(t), []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, "hi")})
			if err != nil {
				t.Fatal(err)
			}
			if reply.Text != standInAnswer || reply.Usage.InputTokens != 3 || reply.Usage.OutputTokens != 4 {
				t.Errorf("reply %+v, want the stand-in's answer and usage", reply)
			}
			reqs := s.requests()
			if len(reqs) != 1 {
				t.Fatalf("%d requests, want 1", len(reqs))
			}
			r := reqs[0]
			if r.url != tc.url {
				t.Errorf("request for %s, want %s", r.url, tc.url)
			}
			want, _ := url.Parse(tc.url)
			if r.method != http.MethodPost || r.path != want.Path || r.query.Encode() != want.Query().Encode() {
				t.Errorf("request %s %s?%s, want POST %s?%s", r.method, r.path, r.query.Encode(), want.Path, want.Query().Encode())
			}
			if r.body["model"] != "the-model" {
				t.Errorf("body's model %v, want the-model", r.body["model"])
			}
			bearer, apiKey := r.header.Get("Authorization"), r.header.Get("api-key")
			switch tc.auth {
			case "bearer":
				if bearer != "Bearer "+sentinelKey || apiKey != "" {
					t.Errorf("Authorization %q, api-key %q; want the key as a bearer token only", bearer, apiKey)
				}
			case "api-key":
				if apiKey != sentinelKey || bearer != "" {
					t.Errorf("api-key %q, Authorization %q; want the key in api-key only, as Azure takes it", apiKey, bearer)
				}
			default:
				if _, ok := r.header["Authorization"]; ok || apiKey != "" {
					t.Errorf("Authorization %q, api-key %q; want no key header to a server that needs no key", bearer, apiKey)
				}
			}
		})
	}
}

// The token limit goes out as max_tokens, which every OpenAI-compatible service takes,
// except to Azure and Groq, which take OpenAI's max_completion_tokens.
func TestCompatibleTypesTokenLimitField(t *testing.T) {
	t.Parallel()
	tests := []struct{ provider, field string }{
		{"type: openai, api_key: k", "max_completion_tokens"},
		{"type: azure, api_key: k, base_url: 'https://x.openai.azure.com', api_version: 2024-10-21", "max_completion_tokens"},
		{"type: groq, api_key: k", "max_completion_tokens"},
		{"type: mistral, api_key: k", "max_tokens"},
		{"type: deepseek, api_key: k", "max_tokens"},
		{"type: perplexity, api_key: k", "max_tokens"},
		{"type: together, api_key: k", "max_tokens"},
		{"type: vllm", "max_tokens"},
		{"type: lmstudio", "max_tokens"},
		{"type: llamacpp", "max_tokens"},
		{"type: ollama", "max_tokens"},
	}
	for _, tc := range tests {
		t.Run(tc.provider, func(t *testing.T) {
			t.Parallel()
			s := newStandIn(t)
			f := s.factoryOf(t, tc.provider, nil, "  short: { provider: p, model: the-model, max_tokens: 300 }\n")
			m, err := f.Model(ctx(t), "short")
			if err != nil {
				t.Fatal(err)
			}
			if _, err := m.Generate(ctx(t), []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, "hi")}); err != nil {
				t.Fatal(err)
			}
			body := s.requests()[0].body
			other := "max_tokens"
			if tc.field == other {
				other = "max_completion_tokens"
			}
			if body[tc.field] != 300.0 || body[other] != nil {
				t.Errorf("body %v, want %s: 300 and no %s", body, tc.field, other)
			}
		})
	}
}

// Mistral refuses every field it does not know: the request it gets has its own names for
// the seed and the token limit, no stream_options, and tool call ids it takes.
func TestMistralGetsFieldsItTakes(t *testing.T) {
	t.Parallel()
	s := newStandIn(t)
	f := s.factoryOf(t, "type: mistral, api_key: k", nil, "  tuned: { provider: p, model: mistral-small-latest, seed: 42, max_tokens: 300 }\n")
	m, err := f.Model(ctx(t), "tuned")
	if err != nil {
		t.Fatal(err)
	}
	// A conversation begun with another provider, whose tool call ids Mistral would refuse,
	// streamed.
	history := []llms.MessageContent{
		llms.TextParts(llms.ChatMessageTypeHuman, "look Oslo & Rome up"),
		{Role: llms.ChatMessageTypeAI, Parts: []llms.ContentPart{
			llms.ToolCall{ID: "toolu_01A", Type: "function", FunctionCall: &llms.FunctionCall{Name: "lookup", Arguments: `{"city":"Oslo"}`}},
			llms.ToolCall{ID: "abcDEF123", Type: "function", FunctionCall: &llms.FunctionCall{Name: "lookup", Arguments: `{"city":"Rome"}`}},
		}},
		{Role: llms.ChatMessageTypeTool, Parts: []llms.ContentPart{llms.ToolCallResponse{ToolCallID: "toolu_01A", Name: "lookup", Content: "<b>4000</b>"}}},
		{Role: llms.ChatMessageTypeTool, Parts: []llms.ContentPart{llms.ToolCallResponse{ToolCallID: "abcDEF123", Name: "lookup", Content: "4000"}}},
	}
	var streamed strings.Builder
	reply, err := m.Generate(ctx(t), history, llms.WithStreamingFunc(func(_ context.Context, chunk []byte) error {
		streamed.Write(chunk)
		return nil
	}))
	if err != nil {
		t.Fatal(err)
	}
	if reply.Text != standInAnswer || streamed.String() != standInAnswer || reply.Usage.OutputTokens != 4 {
		t.Errorf("reply %+v, streamed %q: want the stand-in's answer, streamed, with its usage", reply, streamed.String())
	}
	body := s.requests()[0].body
	if body["random_seed"] != 42.0 || body["max_tokens"] != 300.0 || body["stream"] != true {
		t.Errorf("body %v, want random_seed 42, max_tokens 300, stream", body)
	}
	for _, field := range []string{"seed", "max_completion_tokens", "stream_options"} {
		if v, ok := body[field]; ok {
			t.Errorf("body has %s: %v, which Mistral refuses", field, v)
		}
	}
	msgs, _ := body["messages"].([]any)
	if len(msgs) != 4 {
		t.Fatalf("messages %v, want 4", body["messages"])
	}
	calls, _ := msgs[1].(map[string]any)["tool_calls"].([]any)
	if len(calls) != 2 {
		t.Fatalf("tool calls %v, want 2", msgs[1])
	}
	first, second := calls[0].(map[string]any)["id"].(string), calls[1].(map[string]any)["id"].(string)
	if len(first) != 9 || strings.Trim(first, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789") != "" {
		t.Errorf("the call toolu_01A went out as %q, want nine letters and digits", first)
	}
	if second != "abcDEF123" {
		t.Errorf("the call abcDEF123, an id Mistral takes, went out as %q", second)
	}
	if got := msgs[2].(map[string]any)["tool_call_id"]; got != first {
		t.Errorf("the result of toolu_01A answers %v, want %q, its call's new id", got, first)
	}
	if got := msgs[2].(map[string]any)["content"]; got != "<b>4000</b>" {
		t.Errorf("a result's content went out as %q", got)
	}
	if got := msgs[3].(map[string]any)["tool_call_id"]; got != "abcDEF123" {
		t.Errorf("the result of abcDEF123 answers %v", got)
	}
}

// The mistakes a newcomer makes with the new types are errors naming the file, the line and
// the key, and what to write.
func TestCompatibleTypesErrors(t *testing.T) {
	t.Parallel()
	parse := func(provider string) error {
		doc := "providers:\n  p: { " + provider + " }\nmodels:\n  m: { provider: p, model: x }\n"
		_, err := llmfactory.Parse([]byte(doc))
		return err
	}
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"azure without base_url", parse("type: azure, api_key: k, api_version: 2024-10-21"),
			"llm.yaml:2: providers.p: missing base_url: type azure has no address of its own"},
		{"azure without api_version", parse("type: azure, api_key: k, base_url: 'https://x.openai.azure.com'"),
			"llm.yaml:2: providers.p: missing api_version: type azure needs the version of the API to call, e.g. api_version: 2024-10-21"},
		{"api_version on another type", parse("type: groq, api_key: k, api_version: 2024-10-21"),
			"llm.yaml:2: providers.p.api_version: type groq takes no api_version (types that do: azure)"},
		{"an unknown type lists the new ones", parse("type: mistrall"),
			`providers.p.type: unknown provider type "mistrall" (known: anthropic, azure, deepseek, groq, llamacpp, lmstudio, mistral, ollama, openai, perplexity, together, vllm)`},
	}
	for _, tc := range tests {
		if tc.err == nil || !strings.Contains(tc.err.Error(), tc.want) {
			t.Errorf("%s: error %v\nwant one saying %q", tc.name, tc.err, tc.want)
		}
	}
}

// A provider of a type that needs a key, without api_key, fails at first use, suggesting the
// variable the service's own documentation names.
func TestCompatibleTypesSuggestTheirKeyVariable(t *testing.T) {
	t.Parallel()
	for provider, variable := range map[string]string{
		"type: azure, base_url: 'https://x.openai.azure.com', api_version: 2024-10-21": "AZURE_OPENAI_API_KEY",
		"type: mistral":    "MISTRAL_API_KEY",
		"type: groq":       "GROQ_API_KEY",
		"type: deepseek":   "DEEPSEEK_API_KEY",
		"type: perplexity": "PERPLEXITY_API_KEY",
		"type: together":   "TOGETHER_API_KEY",
	} {
		err := modelOf("providers:\n  p: { "+provider+" }\nmodels:\n  m: { provider: p, model: x }\n", "m")()
		want := `provider "p" (llm.yaml:2) has no api_key: set it, e.g. api_key: ${` + variable + "}"
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v\nwant one saying %q", provider, err, want)
		}
	}
	// The servers on one's own machine need none.
	for _, typ := range []string{"vllm", "lmstudio", "llamacpp", "ollama"} {
		if err := modelOf("providers:\n  p: { type: "+typ+" }\nmodels:\n  m: { provider: p, model: x }\n", "m")(); err != nil {
			t.Errorf("%s without a key: %v", typ, err)
		}
	}
}

// langchaingo's openai client sends OPENAI_ORGANIZATION, from the environment, with every
// request: OpenAI's organization, which is no other service's business. (Not parallel: it sets
// the environment.)
func TestCompatibleTypesSendNoOpenAIOrganization(t *testing.T) {
	t.Setenv("OPENAI_ORGANIZATION", "org-cadre-test")
	for provider, want := range map[string]string{
		"type: openai, api_key: k": "org-cadre-test",
		"type: groq, api_key: k":   "",
		"type: vllm":               "",
	} {
		s := newStandIn(t)
		m, err := s.factoryOf(t, provider, nil, "").Model(ctx(t), "m")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := m.Generate(ctx(t), []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, "hi")}); err != nil {
			t.Fatal(err)
		}
		if got := s.requests()[0].header.Get("OpenAI-Organization"); got != want {
			t.Errorf("%s: OpenAI-Organization %q, want %q", provider, got, want)
		}
	}
}
