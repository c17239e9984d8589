package llmfactory

import (
	"bytes"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// The edits byte for byte: the members an edit does not name keep their place and their
// bytes (escapes and spacing included), and the members it adds go last.
func TestBodyEditApply(t *testing.T) {
	t.Parallel()
	const (
		anthropicBody = `{"model":"claude-test","messages":[{"role":"user","content":[{"type":"text","text":"hi \u003c3"}]}],` +
			`"system":"Be brief.","max_tokens":8192,"temperature":0,"tools":[{"name":"a","input_schema":{"type":"object"}},` +
			`{"name":"b","description":"B.","input_schema":{"type":"object"}}],"stream":true}`
		bare = `{"model":"claude-test","messages":[],"max_tokens":100,"temperature":0.5}`
	)
	tests := []struct {
		name string
		edit bodyEdit
		in   string
		want string
	}{{
		name: "reasoning effort",
		edit: bodyEdit{api: OpenAIAPI, reasoningEffort: "low"},
		in:   `{"model":"gpt-5-mini", "messages":[{"role":"user","content":"hi"}],"stream":true}`,
		want: `{"model":"gpt-5-mini","messages":[{"role":"user","content":"hi"}],"stream":true,"reasoning_effort":"low"}`,
	}, {
		name: "reasoning effort replaces one written",
		edit: bodyEdit{api: OpenAIAPI, reasoningEffort: "high"},
		in:   `{"model":"m","reasoning_effort":"low","messages":[]}`,
		want: `{"model":"m","reasoning_effort":"high","messages":[]}`,
	}, {
		name: "thinking: the temperature goes",
		edit: bodyEdit{api: AnthropicAPI, thinkingBudget: 2048},
		in:   anthropicBody,
		want: `{"model":"claude-test","messages":[{"role":"user","content":[{"type":"text","text":"hi \u003c3"}]}],` +
			`"system":"Be brief.","max_tokens":8192,"tools":[{"name":"a","input_schema":{"type":"object"}},` +
			`{"name":"b","description":"B.","input_schema":{"type":"object"}}],"stream":true,"thinking":{"type":"enabled","budget_tokens":2048}}`,
	}, {
		name: "prompt cache: the system prompt and the last tool",
		edit: bodyEdit{api: AnthropicAPI, promptCache: true},
		in:   anthropicBody,
		want: `{"model":"claude-test","messages":[{"role":"user","content":[{"type":"text","text":"hi \u003c3"}]}],` +
			`"system":[{"type":"text","text":"Be brief.","cache_control":{"type":"ephemeral"}}],"max_tokens":8192,"temperature":0,` +
			`"tools":[{"name":"a","input_schema":{"type":"object"}},` +
			`{"name":"b","description":"B.","input_schema":{"type":"object"},"cache_control":{"type":"ephemeral"}}],"stream":true}`,
	}, {
		name: "prompt cache: nothing to mark",
		edit: bodyEdit{api: AnthropicAPI, promptCache: true},
		in:   bare,
		want: bare,
	}, {
		name: "prompt cache: an empty system prompt and no tools",
		edit: bodyEdit{api: AnthropicAPI, promptCache: true},
		in:   `{"system":"","tools":[],"x":null}`,
		want: `{"system":"","tools":[],"x":null}`,
	}, {
		name: "prompt cache: system blocks",
		edit: bodyEdit{api: AnthropicAPI, promptCache: true},
		in:   `{"system":[{"type":"text","text":"a"},{"type":"text","text":"b"}]}`,
		want: `{"system":[{"type":"text","text":"a"},{"type":"text","text":"b","cache_control":{"type":"ephemeral"}}]}`,
	}, {
		name: "thinking and prompt cache",
		edit: bodyEdit{api: AnthropicAPI, thinkingBudget: 1024, promptCache: true},
		in:   `{"system":"S","temperature":0,"tools":[{"name":"a"}]}`,
		want: `{"system":[{"type":"text","text":"S","cache_control":{"type":"ephemeral"}}],"tools":[{"name":"a","cache_control":{"type":"ephemeral"}}],` +
			`"thinking":{"type":"enabled","budget_tokens":1024}}`,
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := tc.edit.apply([]byte(tc.in), nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Errorf("apply(%s)\n= %s\nwant %s", tc.in, got, tc.want)
			}
		})
	}
}

func TestBodyEditApplyErrors(t *testing.T) {
	t.Parallel()
	cache := bodyEdit{api: AnthropicAPI, promptCache: true}
	for _, tc := range []struct {
		in, want string
	}{
		{`[1]`, "not a JSON object"},
		{`{"a":1} {}`, "data after the object"},
		{`{"a":`, "not a JSON object: unexpected EOF"},
		{`{"tools":{"name":"a"}}`, "tools: not a list"},
		{`{"tools":[1]}`, "tools: item 0 is not an object"},
		{`{"system":3}`, "system: not a list"},
	} {
		if _, err := cache.apply([]byte(tc.in), nil, nil); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("apply(%s) error = %v; want one saying %q", tc.in, err, tc.want)
		}
	}
}

func TestNewBodyEdit(t *testing.T) {
	t.Parallel()
	budget := 2048
	full := &modelSpec{reasoningEffort: "low", thinkingBudget: &budget, promptCache: true}
	for _, tc := range []struct {
		api  API
		spec *modelSpec
		want *bodyEdit
	}{
		// A type of an API gets an edit without settings, for the requests that carry an
		// output schema; a type without one gets none.
		{OpenAIAPI, &modelSpec{}, &bodyEdit{api: OpenAIAPI}},
		{AnthropicAPI, &modelSpec{}, &bodyEdit{api: AnthropicAPI}},
		{GeminiAPI, full, &bodyEdit{api: GeminiAPI}},
		{"", full, nil},
		{OpenAIAPI, full, &bodyEdit{api: OpenAIAPI, reasoningEffort: "low"}},
		{AnthropicAPI, full, &bodyEdit{api: AnthropicAPI, thinkingBudget: 2048, promptCache: true}},
		{AnthropicAPI, &modelSpec{promptCache: true}, &bodyEdit{api: AnthropicAPI, promptCache: true}},
	} {
		got := newBodyEdit(ProviderType{API: tc.api}, tc.spec)
		if (got == nil) != (tc.want == nil) || got != nil && (got.api != tc.want.api || got.reasoningEffort != tc.want.reasoningEffort ||
			got.thinkingBudget != tc.want.thinkingBudget || got.promptCache != tc.want.promptCache || got.service != nil) {
			t.Errorf("newBodyEdit(%q, %+v) = %+v; want %+v", tc.api, tc.spec, got, tc.want)
		}
	}
}

func TestBodyEditApplies(t *testing.T) {
	t.Parallel()
	oa := &bodyEdit{api: OpenAIAPI, reasoningEffort: "low"}
	an := &bodyEdit{api: AnthropicAPI, promptCache: true}
	req := func(method, url, contentType string) *http.Request {
		r, err := http.NewRequest(method, url, strings.NewReader("{}"))
		if err != nil {
			t.Fatal(err)
		}
		if contentType != "" {
			r.Header.Set("Content-Type", contentType)
		}
		return r
	}
	for _, tc := range []struct {
		edit *bodyEdit
		req  *http.Request
		want bool
	}{
		{oa, req("POST", "http://h/v1/chat/completions", "application/json"), true},
		{oa, req("POST", "http://h/openai/deployments/d/chat/completions?api-version=1", "application/json; charset=utf-8"), true},
		{oa, req("POST", "http://h/v1/embeddings", "application/json"), false},
		{oa, req("POST", "http://h/v1/messages", "application/json"), false},
		{oa, req("GET", "http://h/v1/chat/completions", "application/json"), false},
		{oa, req("POST", "http://h/v1/chat/completions", "multipart/form-data"), false},
		{oa, req("POST", "http://h/v1/chat/completions", ""), false},
		{an, req("POST", "http://h/v1/messages", "application/json"), true},
		{an, req("POST", "http://h/v1/messages/count_tokens", "application/json"), false},
		{an, req("POST", "http://h/v1/complete", "application/json"), false},
		{nil, req("POST", "http://h/v1/messages", "application/json"), false},
	} {
		if got := tc.edit.applies(tc.req); got != tc.want {
			t.Errorf("%+v applies to %s %s (%s) = %v; want %v", tc.edit, tc.req.Method, tc.req.URL, tc.req.Header.Get("Content-Type"), got, tc.want)
		}
	}
	get, _ := http.NewRequest("GET", "http://h/v1/chat/completions", nil)
	if oa.applies(get) {
		t.Error("applies to a GET without a body")
	}
}

// recorder is a base transport that records what it is sent and answers with the statuses
// given, then 200s.
type recorder struct {
	mu       sync.Mutex
	reqs     []*http.Request
	bodies   []string
	statuses []int
}

func (r *recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	body, err := io.ReadAll(req.Body)
	if err != nil {
		return nil, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if int64(len(body)) != req.ContentLength {
		return nil, io.ErrShortWrite
	}
	r.reqs = append(r.reqs, req)
	r.bodies = append(r.bodies, string(body))
	status := http.StatusOK
	if len(r.statuses) > 0 {
		status, r.statuses = r.statuses[0], r.statuses[1:]
	}
	return &http.Response{StatusCode: status, Header: http.Header{"Retry-After": {"0"}}, Body: io.NopCloser(strings.NewReader("{}")), Request: req}, nil
}

// The transport edits a chat request once, sends the edited body on every attempt with its
// length, and leaves the caller's request as it was.
func TestTransportEditsOnceAndRetriesTheEditedBody(t *testing.T) {
	t.Parallel()
	base := &recorder{statuses: []int{503, 503}}
	tr := &transport{base: base, retry: RetryPolicy{MaxAttempts: 3, InitialBackoff: time.Millisecond, MaxBackoff: time.Millisecond},
		edit: &bodyEdit{api: OpenAIAPI, reasoningEffort: "medium"}}
	const in = `{"model":"m","messages":[]}`
	req, err := http.NewRequest("POST", "http://h/v1/chat/completions", bytes.NewReader([]byte(in)))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := tr.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	const want = `{"model":"m","messages":[],"reasoning_effort":"medium"}`
	if len(base.bodies) != 3 {
		t.Fatalf("%d attempts, want 3", len(base.bodies))
	}
	for i, b := range base.bodies {
		if b != want {
			t.Errorf("attempt %d sent %s; want %s", i+1, b, want)
		}
	}
	if req.ContentLength != int64(len(in)) {
		t.Errorf("the caller's request changed: ContentLength %d", req.ContentLength)
	}
}

// Without an edit, a request whose body can be had again goes to the base transport as it
// is: its body is neither read nor copied.
func TestTransportWithoutEditPassesTheRequestOn(t *testing.T) {
	t.Parallel()
	base := &recorder{}
	tr := &transport{base: base, retry: RetryPolicy{MaxAttempts: 3, InitialBackoff: time.Millisecond, MaxBackoff: time.Millisecond}}
	req, err := http.NewRequest("POST", "http://h/v1/chat/completions", bytes.NewReader([]byte(`{"model":"m"}`)))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := tr.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if len(base.reqs) != 1 || base.reqs[0] != req || base.bodies[0] != `{"model":"m"}` {
		t.Errorf("the base transport got %d requests, the first the caller's: %v; want the caller's request itself",
			len(base.reqs), len(base.reqs) > 0 && base.reqs[0] == req)
	}
}

// A body that is not a JSON object cannot be edited: the request fails, and nothing is sent.
func TestTransportEditOfABodyThatIsNotJSON(t *testing.T) {
	t.Parallel()
	base := &recorder{}
	tr := &transport{base: base, retry: RetryPolicy{MaxAttempts: 1, InitialBackoff: time.Millisecond, MaxBackoff: time.Millisecond},
		edit: &bodyEdit{api: AnthropicAPI, thinkingBudget: 1024}}
	req, _ := http.NewRequest("POST", "http://h/v1/messages", strings.NewReader("not json"))
	req.Header.Set("Content-Type", "application/json")
	if _, err := tr.RoundTrip(req); err == nil || !strings.Contains(err.Error(), "writing the model's settings into the request") {
		t.Errorf("err = %v; want one saying the settings could not be written", err)
	}
	if len(base.reqs) != 0 {
		t.Errorf("%d requests sent; want none", len(base.reqs))
	}
}

// BenchmarkBodyEdit measures the edit of a typical Anthropic request: a system prompt, two
// tools and a short conversation.
func BenchmarkBodyEdit(b *testing.B) {
	body := []byte(`{"model":"claude-sonnet-4-6","messages":[{"role":"user","content":[{"type":"text","text":"What is the population of Oslo?"}]},` +
		`{"role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"lookup","input":{"city":"Oslo"}}]},` +
		`{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"709000"}]}],` +
		`"system":"You answer questions about cities.","max_tokens":8192,"temperature":0,` +
		`"tools":[{"name":"lookup","description":"Population of a city.","input_schema":{"type":"object","properties":{"city":{"type":"string"}}}},` +
		`{"name":"area","description":"Area of a city.","input_schema":{"type":"object","properties":{"city":{"type":"string"}}}}]}`)
	e := &bodyEdit{api: AnthropicAPI, thinkingBudget: 2048, promptCache: true}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := e.apply(body, nil, nil); err != nil {
			b.Fatal(err)
		}
	}
}
