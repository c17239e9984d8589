package googleai_test

import (
	"context"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cadrehq/cadre/pkg/assistant"
	"github.com/cadrehq/cadre/pkg/llmfactory"
	"github.com/cadrehq/cadre/pkg/llmfactory/googleai"
	"github.com/cadrehq/cadre/pkg/llmtest"
	"github.com/cadrehq/cadre/pkg/model"
	"github.com/cadrehq/cadre/pkg/providertest"
	"github.com/cadrehq/cadre/pkg/tool"
	"github.com/cadrehq/cadre/pkg/usage"
	"github.com/tmc/langchaingo/llms"
)

// The tests run the googleai provider type, made by the factory from an llm.yaml, against
// providertest's fake Gemini API on 127.0.0.1.

const key = "AIza-SENTINEL-key-0123"

type answer struct {
	City  string `json:"city"`
	Total int    `json:"total"`
}

func lookup() tool.Tool {
	return tool.Func("lookup", "Population of a city.", func(_ context.Context, in struct {
		City string `json:"city"`
	}) (int, error) {
		return len(in.City) * 1000, nil
	})
}

// requests records the URL and key header of each request the clients send.
type requests struct {
	base http.RoundTripper
	mu   sync.Mutex
	urls []*url.URL
	keys []string
}

func (r *requests) RoundTrip(req *http.Request) (*http.Response, error) {
	r.mu.Lock()
	r.urls = append(r.urls, req.URL)
	r.keys = append(r.keys, req.Header.Get("x-goog-api-key"))
	r.mu.Unlock()
	return r.base.RoundTrip(req)
}

// start starts a fake Gemini API answered by m and parses an llm.yaml whose model "flash"
// it serves; sent records what the clients send.
func start(t *testing.T, m llms.Model) (s *providertest.Server, f *llmfactory.Factory, sent *requests) {
	t.Helper()
	s = providertest.NewGemini(m, providertest.WithAPIKey(key))
	t.Cleanup(s.Close)
	sent = &requests{base: s.Client().Transport}
	doc := "providers:\n  gemini:\n    type: googleai\n    api_key: ${GOOGLE_API_KEY}\n    base_url: " + s.URL() +
		"\nmodels:\n  flash: { provider: gemini, model: gemini-test }\ndefault: flash\n" +
		"retry: { max_attempts: 3, initial_backoff: 1ms, max_backoff: 5ms }\n"
	f, err := llmfactory.Parse([]byte(doc), llmfactory.WithProviderType("googleai", googleai.Type()),
		llmfactory.WithHTTPClient(&http.Client{Transport: sent}),
		llmfactory.WithEnv(func(k string) (string, bool) { return key, k == "GOOGLE_API_KEY" }))
	if err != nil {
		t.Fatal(err)
	}
	return s, f, sent
}

func ctx(t *testing.T) context.Context {
	t.Helper()
	c, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return c
}

func TestToolTurnThroughTheFactory(t *testing.T) {
	t.Parallel()
	m := llmtest.NewScripted(
		llmtest.Reply{ToolCalls: []llms.ToolCall{llmtest.Call("lookup", `{"city":"Oslo"}`)},
			Usage: usage.Usage{InputTokens: 40, OutputTokens: 7}},
		llmtest.Reply{Text: `{"city":"Oslo","total":4000}`, Usage: usage.Usage{InputTokens: 60, OutputTokens: 9}},
	)
	_, f, sent := start(t, m)
	a := assistant.New[answer]("geo", assistant.WithModels(f), assistant.WithTools(lookup()))
	res, err := a.Run(ctx(t), assistant.Input{Prompt: "Population of the capital of Norway?"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Output != (answer{City: "Oslo", Total: 4000}) {
		t.Errorf("Output = %+v", res.Output)
	}
	// The answer came in two pieces of a stream: the googleai client reports the usage of the
	// first, which the API sends without the output tokens, so the answer's 9 are lost.
	want := usage.Usage{Requests: 2, ToolCalls: 1, InputTokens: 100, OutputTokens: 7}
	if res.Usage.Total != want {
		t.Errorf("Usage.Total = %+v, want %+v", res.Usage.Total, want)
	}

	reqs := m.Requests()
	if len(reqs) != 2 {
		t.Fatalf("the model got %d requests, want 2", len(reqs))
	}
	// The tools went out as the API takes them, and the client asked for more output than its
	// own default of 2048 tokens.
	o := reqs[0].Options
	if !slices.ContainsFunc(o.Tools, func(t llms.Tool) bool { return t.Function.Name == "lookup" }) ||
		o.MaxTokens != model.Facts("googleai").MaxTokens || o.Model != "gemini-test" {
		t.Errorf("the first request: tools %+v, max tokens %d, model %q; want lookup, %d, gemini-test",
			o.Tools, o.MaxTokens, o.Model, model.Facts("googleai").MaxTokens)
	}
	// The second carried the call and its result back, and the server accepted them.
	last := reqs[1].Messages
	if n := len(last); n < 2 || last[n-1].Role != llms.ChatMessageTypeTool || last[n-2].Role != llms.ChatMessageTypeAI {
		t.Errorf("the second request ends with %+v, want the call and its result", last)
	}

	sent.mu.Lock()
	defer sent.mu.Unlock()
	for i, u := range sent.urls {
		if sent.keys[i] != key || strings.Contains(u.RawQuery, key) {
			t.Errorf("request %d: x-goog-api-key %q, URL %s: want the key in the header, never in a URL (URLs end up in logs)", i, sent.keys[i], u)
		}
		if !strings.Contains(u.Path, "gemini-test") {
			t.Errorf("request %d: path %q, want the model's", i, u.Path)
		}
	}
}

func TestUnavailableIsRetried(t *testing.T) {
	t.Parallel()
	s, f, sent := start(t, llmtest.NewScripted(llmtest.Text("Oslo")))
	s.Fault(providertest.Fault{Status: http.StatusServiceUnavailable})
	a := assistant.New[string]("geo", assistant.WithModels(f), assistant.WithInstructions("Answer with a city."))
	res, err := a.Run(ctx(t), assistant.Input{Prompt: "Capital of Norway?"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Output != "Oslo" || s.Attempts() != 2 || res.Usage.Total.Requests != 1 {
		t.Errorf("Output %q after %d attempts, %d requests counted; want Oslo after the 503 and its retry, one request",
			res.Output, s.Attempts(), res.Usage.Total.Requests)
	}
	// The client streams every conversation of more than one message (here the instructions
	// and the prompt): the 503 answered a stream's request.
	sent.mu.Lock()
	defer sent.mu.Unlock()
	for _, u := range sent.urls {
		if !strings.HasSuffix(u.Path, ":streamGenerateContent") {
			t.Errorf("request to %s, want :streamGenerateContent", u.Path)
		}
	}
}

func TestStreamedAnswer(t *testing.T) {
	t.Parallel()
	const text = "Oslo is the capital of Norway, and its largest city."
	_, f, _ := start(t, llmtest.NewScripted(llmtest.Text(text)))
	var mu sync.Mutex
	var chunks []string
	a := assistant.New[string]("geo", assistant.WithModels(f), assistant.WithStream(func(_ context.Context, c assistant.Chunk) error {
		mu.Lock()
		defer mu.Unlock()
		chunks = append(chunks, c.Text)
		return nil
	}))
	res, err := a.Run(ctx(t), assistant.Input{Prompt: "Capital of Norway?"})
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if res.Output != text || strings.Join(chunks, "") != text || len(chunks) < 2 {
		t.Errorf("Output %q, streamed %q; want the answer, in pieces", res.Output, chunks)
	}
}

func TestModelFacts(t *testing.T) {
	t.Parallel()
	_, f, _ := start(t, llmtest.NewScripted())
	m, err := f.Model(context.Background(), "flash")
	if err != nil {
		t.Fatal(err)
	}
	if m.ID != "gemini-test" || m.Provider != "googleai" || m.Shape != model.ShapeSafe || len(m.Options) != 0 {
		t.Errorf("model: ID %q, provider %q, shape %v, %d default options; want gemini-test, googleai, ShapeSafe and none (the limit is the client's)",
			m.ID, m.Provider, m.Shape, len(m.Options))
	}
}

func TestAToolWithoutArguments(t *testing.T) {
	t.Parallel()
	m := llmtest.NewScripted(
		llmtest.Reply{ToolCalls: []llms.ToolCall{llmtest.Call("now", `{}`)}},
		llmtest.Reply{Text: `{"city":"Oslo","total":1}`},
	)
	_, f, _ := start(t, m)
	now := tool.Func("now", "Says the time.", func(context.Context, struct{}) (string, error) { return "noon", nil })
	a := assistant.New[answer]("geo", assistant.WithModels(f), assistant.WithTools(now, lookup()))
	res, err := a.Run(ctx(t), assistant.Input{Prompt: "What time is it?"})
	if err != nil {
		t.Fatalf("err = %v; want a tool without arguments to be sent as the API takes it", err)
	}
	if got := toolResults(res.Messages); len(got) != 1 || got[0] != "noon" {
		t.Errorf("tool results %q, want the call of now answered", got)
	}
}

func toolResults(msgs []llms.MessageContent) []string {
	var out []string
	for _, m := range msgs {
		for _, p := range m.Parts {
			if r, ok := p.(llms.ToolCallResponse); ok {
				out = append(out, r.Content)
			}
		}
	}
	return out
}
