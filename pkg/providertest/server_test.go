package providertest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptrace"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cadrehq/cadre/pkg/llmtest"
	"github.com/cadrehq/cadre/pkg/providertest"
	"github.com/cadrehq/cadre/pkg/usage"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/llms/anthropic"
	"github.com/tmc/langchaingo/llms/openai"
)

// provider is what the tests that hold for every fake API need of each.
type provider struct {
	name      string
	newServer func(m llms.Model, opts ...providertest.Option) *providertest.Server
	newClient func(t *testing.T, s *providertest.Server, key string) llms.Model
	path      string
	headers   map[string]string // of a valid raw request, but the key
	keyHeader func(key string) (string, string)
	body      string // a valid raw request
	errorType func(body map[string]any) string

	wrongKey, noKey int // the statuses of a request with another key than the one required, and with none
}

var providers = []provider{
	{
		name:      "openai",
		newServer: providertest.NewOpenAI,
		newClient: func(t *testing.T, s *providertest.Server, key string) llms.Model { return openAIClient(t, s, key) },
		path:      "/v1/chat/completions",
		headers:   map[string]string{"Content-Type": "application/json"},
		keyHeader: func(key string) (string, string) { return "Authorization", "Bearer " + key },
		body:      `{"model":"gpt-test","messages":[{"role":"user","content":"hi"}]}`,
		errorType: func(b map[string]any) string { return errorField(b, "type") },
		wrongKey:  401, noKey: 401,
	},
	{
		name:      "anthropic",
		newServer: providertest.NewAnthropic,
		newClient: func(t *testing.T, s *providertest.Server, key string) llms.Model { return anthropicClient(t, s, key) },
		path:      "/v1/messages",
		headers:   map[string]string{"Content-Type": "application/json", "anthropic-version": "2023-06-01"},
		keyHeader: func(key string) (string, string) { return "x-api-key", key },
		body:      `{"model":"claude-test","max_tokens":100,"messages":[{"role":"user","content":"hi"}]}`,
		errorType: func(b map[string]any) string {
			if b["type"] != "error" {
				return ""
			}
			return errorField(b, "type")
		},
		wrongKey: 401, noKey: 401,
	},
	{
		name:      "gemini",
		newServer: providertest.NewGemini,
		newClient: func(t *testing.T, s *providertest.Server, key string) llms.Model { return geminiClient(t, s, key) },
		path:      "/v1beta/models/gemini-test:generateContent",
		headers:   map[string]string{"Content-Type": "application/json"},
		keyHeader: func(key string) (string, string) { return "x-goog-api-key", key },
		body:      `{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}`,
		errorType: func(b map[string]any) string { return errorField(b, "status") },
		wrongKey:  400, noKey: 403,
	},
}

func openAIClient(t *testing.T, s *providertest.Server, key string) *openai.LLM {
	t.Helper()
	llm, err := openai.New(openai.WithBaseURL(s.URL()+"/v1"), openai.WithToken(key),
		openai.WithModel("gpt-test"), openai.WithHTTPClient(s.Client()))
	if err != nil {
		t.Fatal(err)
	}
	return llm
}

func anthropicClient(t *testing.T, s *providertest.Server, key string) *anthropic.LLM {
	t.Helper()
	llm, err := anthropic.New(anthropic.WithBaseURL(s.URL()+"/v1"), anthropic.WithToken(key),
		anthropic.WithModel("claude-test"), anthropic.WithHTTPClient(s.Client()))
	if err != nil {
		t.Fatal(err)
	}
	return llm
}

// human is a conversation of one user message.
func human(text string) []llms.MessageContent {
	return []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, text)}
}

// The answers of streamingScript.
const (
	streamedText = "A fairly long answer, which the server cuts into several pieces."
	streamedArgs = `{"city":"Oslo","days":3,"unit":"celsius"}`
)

// streamingScript answers a long text, which every fake streams in several pieces, then a
// call of the weather tool.
func streamingScript() *llmtest.Scripted {
	return llmtest.NewScripted(
		llmtest.Reply{Text: streamedText, Usage: usage.Usage{InputTokens: 7, OutputTokens: 12}},
		llmtest.Calls(llmtest.Call("weather", streamedArgs)),
	)
}

// streamBoth asks llm, a client of a fake answered by streamingScript, for its two answers
// with a streaming function, and checks that the text was streamed in pieces.
func streamBoth(t *testing.T, llm llms.Model) (text, calls *llms.ContentResponse) {
	t.Helper()
	var chunks []string
	stream := llms.WithStreamingFunc(func(_ context.Context, chunk []byte) error {
		chunks = append(chunks, string(chunk))
		return nil
	})
	text, err := llm.GenerateContent(context.Background(), human("hi"), stream)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(chunks, ""); got != streamedText || len(chunks) < 3 || text.Choices[0].Content != streamedText {
		t.Errorf("streamed %d chunks making %q, answered %q; want several making %q", len(chunks), got, text.Choices[0].Content, streamedText)
	}
	calls, err = llm.GenerateContent(context.Background(), human("hi"), stream, llms.WithTools([]llms.Tool{weatherTool}))
	if err != nil {
		t.Fatal(err)
	}
	return text, calls
}

// checkRefused sends msgs with opts through a client of p's fake and checks that the fake
// refuses them, with a 400 saying want.
func checkRefused(t *testing.T, p provider, msgs []llms.MessageContent, opts []llms.CallOption, want string) {
	t.Helper()
	s := p.newServer(llmtest.NewScripted(llmtest.Text("never")))
	defer s.Close()
	_, err := p.newClient(t, s, "k").GenerateContent(context.Background(), msgs, opts...)
	if err == nil || !strings.Contains(err.Error(), "400") || !strings.Contains(err.Error(), want) {
		t.Errorf("error = %v, want a 400 saying %q", err, want)
	}
}

// rawPost sends body to s at path with headers and returns the status, the headers and the
// body of the answer.
func rawPost(t *testing.T, s *providertest.Server, path string, headers map[string]string, body string) (int, http.Header, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, s.URL()+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := s.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, resp.Header, b
}

// validHeaders are p's headers of a valid request, with a key.
func (p provider) validHeaders(key string) map[string]string {
	h := map[string]string{}
	for k, v := range p.headers {
		h[k] = v
	}
	k, v := p.keyHeader(key)
	h[k] = v
	return h
}

// decodeError decodes an error answer, failing the test unless it is p's error JSON, and
// returns its message.
func (p provider) decodeError(t *testing.T, body []byte) string {
	t.Helper()
	var b map[string]any
	if err := json.Unmarshal(body, &b); err != nil {
		t.Fatalf("error body is not JSON: %v: %s", err, body)
	}
	if p.errorType(b) == "" {
		t.Fatalf("error body is not %s's error JSON: %s", p.name, body)
	}
	return errorField(b, "message")
}

func errorField(b map[string]any, key string) string {
	e, _ := b["error"].(map[string]any)
	s, _ := e[key].(string)
	return s
}

func TestServerFaultStatus(t *testing.T) {
	t.Parallel()
	for _, p := range providers {
		t.Run(p.name, func(t *testing.T) {
			t.Parallel()
			m := llmtest.NewScripted(llmtest.Text("fine"))
			s := p.newServer(m)
			defer s.Close()
			s.Fault(providertest.Fault{Status: 429, RetryAfter: "1", Message: "slow down"}, providertest.Fault{Status: 500})
			llm := p.newClient(t, s, "k")
			ctx := context.Background()

			_, err := llm.GenerateContent(ctx, human("hi"))
			if err == nil || !strings.Contains(err.Error(), "429") || !strings.Contains(err.Error(), "slow down") {
				t.Errorf("first request: error = %v, want the 429 with its message", err)
			}
			_, err = llm.GenerateContent(ctx, human("hi"))
			if err == nil || !strings.Contains(err.Error(), "500") {
				t.Errorf("second request: error = %v, want a 500", err)
			}
			resp, err := llm.GenerateContent(ctx, human("hi"))
			if err != nil || resp.Choices[0].Content != "fine" {
				t.Fatalf("third request: %v, %v; want the model's answer once the faults are used", resp, err)
			}
			if got := s.Attempts(); got != 3 {
				t.Errorf("Attempts = %d, want 3", got)
			}
			if got := len(m.Requests()); got != 1 {
				t.Errorf("the model got %d requests, want 1: faulted requests must not reach it", got)
			}
		})
	}
}

func TestServerFaultRetryAfter(t *testing.T) {
	t.Parallel()
	for _, p := range providers {
		t.Run(p.name, func(t *testing.T) {
			t.Parallel()
			s := p.newServer(llmtest.NewScripted())
			defer s.Close()
			s.Fault(providertest.Fault{Status: 429, RetryAfter: "0"})
			status, header, body := rawPost(t, s, p.path, p.validHeaders("k"), p.body)
			if status != 429 || header.Get("Retry-After") != "0" {
				t.Errorf("got status %d, Retry-After %q; want 429, %q", status, header.Get("Retry-After"), "0")
			}
			if msg := p.decodeError(t, body); msg == "" {
				t.Errorf("the 429 has no message: %s", body)
			}
		})
	}
}

func TestServerAPIKey(t *testing.T) {
	t.Parallel()
	const right, wrong = "sk-right-secret-key", "sk-wrong-secret-key"
	for _, p := range providers {
		t.Run(p.name, func(t *testing.T) {
			t.Parallel()
			s := p.newServer(llmtest.NewScripted(llmtest.Text("ok")), providertest.WithAPIKey(right))
			defer s.Close()

			_, err := p.newClient(t, s, wrong).GenerateContent(context.Background(), human("hi"))
			if err == nil || !strings.Contains(err.Error(), strconv.Itoa(p.wrongKey)) {
				t.Errorf("wrong key: error = %v, want a %d", err, p.wrongKey)
			}
			for key, want := range map[string]int{wrong: p.wrongKey, "": p.noKey} {
				headers := p.validHeaders(key)
				if key == "" {
					k, _ := p.keyHeader("")
					delete(headers, k)
				}
				status, _, body := rawPost(t, s, p.path, headers, p.body)
				if status != want {
					t.Errorf("key %q: status %d, want %d", key, status, want)
				}
				p.decodeError(t, body)
				if bytes.Contains(body, []byte("secret")) {
					t.Errorf("key %q: the error shows a key: %s", key, body)
				}
			}
			resp, err := p.newClient(t, s, right).GenerateContent(context.Background(), human("hi"))
			if err != nil || resp.Choices[0].Content != "ok" {
				t.Errorf("right key: %v, %v; want the answer", resp, err)
			}
		})
	}
}

func TestServerTruncate(t *testing.T) {
	t.Parallel()
	for _, p := range providers {
		t.Run(p.name, func(t *testing.T) {
			t.Parallel()
			s := p.newServer(llmtest.NewScripted(llmtest.Text("whole")))
			defer s.Close()
			s.Fault(providertest.Fault{Truncate: true})
			llm := p.newClient(t, s, "k")
			if _, err := llm.GenerateContent(context.Background(), human("hi")); err == nil {
				t.Error("a truncated answer gave no error")
			}
			resp, err := llm.GenerateContent(context.Background(), human("hi"))
			if err != nil || resp.Choices[0].Content != "whole" {
				t.Errorf("after the fault: %v, %v; want the answer", resp, err)
			}
		})
	}
}

func TestServerDelay(t *testing.T) {
	t.Parallel()
	for _, p := range providers {
		t.Run(p.name, func(t *testing.T) {
			t.Parallel()
			m := llmtest.NewScripted(llmtest.Text("late"))
			s := p.newServer(m)
			defer s.Close()
			s.Fault(providertest.Fault{Delay: time.Millisecond})
			resp, err := p.newClient(t, s, "k").GenerateContent(context.Background(), human("hi"))
			if err != nil || resp.Choices[0].Content != "late" {
				t.Errorf("a delay alone: %v, %v; want a slow answer", resp, err)
			}
		})
	}
}

func TestServerDelayCancelled(t *testing.T) {
	t.Parallel()
	for _, p := range providers {
		t.Run(p.name, func(t *testing.T) {
			t.Parallel()
			m := llmtest.NewScripted(llmtest.Text("never"))
			s := p.newServer(m)
			// Close waits for the handler: it must end with the request, not after the delay.
			defer s.Close()
			s.Fault(providertest.Fault{Delay: time.Hour})
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			// Give up once the request is sent.
			ctx = httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{WroteRequest: func(httptrace.WroteRequestInfo) { cancel() }})
			if _, err := p.newClient(t, s, "k").GenerateContent(ctx, human("hi")); err == nil {
				t.Error("no error from a request cancelled during the delay")
			}
			if n := len(m.Requests()); n != 0 {
				t.Errorf("the model got %d requests, want 0", n)
			}
		})
	}
}

func TestServerModelError(t *testing.T) {
	t.Parallel()
	for _, p := range providers {
		t.Run(p.name, func(t *testing.T) {
			t.Parallel()
			s := p.newServer(llmtest.NewScripted(llmtest.Fail(errors.New("boom"))))
			defer s.Close()
			_, err := p.newClient(t, s, "k").GenerateContent(context.Background(), human("hi"))
			if err == nil || !strings.Contains(err.Error(), "500") || !strings.Contains(err.Error(), "boom") {
				t.Errorf("error = %v, want a 500 with the model's error", err)
			}
		})
	}
}

func TestServerRejectsRequests(t *testing.T) {
	t.Parallel()
	for _, p := range providers {
		t.Run(p.name, func(t *testing.T) {
			t.Parallel()
			m := llmtest.NewScripted()
			s := p.newServer(m)
			defer s.Close()
			for _, c := range []struct {
				name, path string
				headers    map[string]string
				body       string
				status     int
			}{
				{"unknown path", "/v1/embeddings", p.validHeaders("k"), p.body, 404},
				{"no content type", p.path, func() map[string]string {
					h := p.validHeaders("k")
					delete(h, "Content-Type")
					return h
				}(), p.body, 400},
				{"no key", p.path, p.headers, p.body, p.noKey},
				{"not JSON", p.path, p.validHeaders("k"), `{"model":`, 400},
			} {
				status, _, body := rawPost(t, s, c.path, c.headers, c.body)
				if status != c.status {
					t.Errorf("%s: status %d, want %d: %s", c.name, status, c.status, body)
				}
				if msg := p.decodeError(t, body); msg == "" {
					t.Errorf("%s: no message: %s", c.name, body)
				}
			}
			if n := len(m.Requests()); n != 0 {
				t.Errorf("the model got %d requests, want 0", n)
			}
			if got := s.Attempts(); got != 4 {
				t.Errorf("Attempts = %d, want 4: rejected requests count", got)
			}
		})
	}
}

func TestServerBodies(t *testing.T) {
	t.Parallel()
	for _, p := range providers {
		t.Run(p.name, func(t *testing.T) {
			t.Parallel()
			s := p.newServer(llmtest.NewScripted(llmtest.Text("a"), llmtest.Text("b")))
			defer s.Close()
			llm := p.newClient(t, s, "k")
			var sent []time.Time // before each request
			for _, prompt := range []string{"first prompt", "second prompt"} {
				sent = append(sent, time.Now())
				if _, err := llm.GenerateContent(context.Background(), human(prompt)); err != nil {
					t.Fatal(err)
				}
			}
			if got := s.Arrivals(); len(got) != 2 || got[0].Before(sent[0]) || got[1].Before(sent[1]) || got[0].After(sent[1]) {
				t.Errorf("Arrivals = %v, want one time a request, each after it was sent and before the next was (sent at %v)", got, sent)
			}
			bodies := s.Bodies()
			if len(bodies) != 2 || !bytes.Contains(bodies[0], []byte("first prompt")) || !bytes.Contains(bodies[1], []byte("second prompt")) {
				t.Fatalf("Bodies = %q, want the two requests in order", bodies)
			}
			bodies[0][0] = 'X'
			if s.Bodies()[0][0] == 'X' {
				t.Error("Bodies returned the server's own slice, not a copy")
			}
		})
	}
}

func TestServerConcurrent(t *testing.T) {
	t.Parallel()
	for _, p := range providers {
		t.Run(p.name, func(t *testing.T) {
			t.Parallel()
			const n = 20
			s := p.newServer(llmtest.NewScripted(llmtest.Text("same")).Cycle())
			defer s.Close()
			s.Fault(providertest.Fault{Status: 500}, providertest.Fault{Status: 500})
			llm := p.newClient(t, s, "k")
			var (
				wg     sync.WaitGroup
				mu     sync.Mutex
				failed int
			)
			for range n {
				wg.Go(func() {
					if _, err := llm.GenerateContent(context.Background(), human("hi")); err != nil {
						mu.Lock()
						failed++
						mu.Unlock()
					}
				})
			}
			wg.Wait()
			if failed != 2 || s.Attempts() != n {
				t.Errorf("%d failed of %d attempts; want 2 of %d: each fault answers exactly one request", failed, s.Attempts(), n)
			}
		})
	}
}

func TestServerFaultResetAndBody(t *testing.T) {
	t.Parallel()
	for _, p := range providers {
		t.Run(p.name, func(t *testing.T) {
			t.Parallel()
			m := llmtest.NewScripted(llmtest.Text("fine"))
			s := p.newServer(m)
			defer s.Close()
			s.Fault(providertest.Fault{Reset: true}, providertest.Fault{Body: `{"not json`})
			llm := p.newClient(t, s, "k")
			ctx := context.Background()
			if _, err := llm.GenerateContent(ctx, human("hi")); err == nil {
				t.Error("a reset connection gave no error")
			}
			if _, err := llm.GenerateContent(ctx, human("hi")); err == nil {
				t.Error("a body that does not parse gave no error")
			}
			if resp, err := llm.GenerateContent(ctx, human("hi")); err != nil || resp.Choices[0].Content != "fine" {
				t.Fatalf("third request: %v, %v; want the model's answer once the faults are used", resp, err)
			}
			if got := len(m.Requests()); got != 1 {
				t.Errorf("the model got %d requests, want 1: faulted requests must not reach it", got)
			}
		})
	}
}
