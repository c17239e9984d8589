package llmfactory_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cadrehq/cadre/pkg/assistant"
	"github.com/cadrehq/cadre/pkg/callback"
	"github.com/cadrehq/cadre/pkg/callback/callbacktest"
	"github.com/cadrehq/cadre/pkg/llmfactory"
	"github.com/cadrehq/cadre/pkg/llmtest"
	"github.com/cadrehq/cadre/pkg/model"
	"github.com/cadrehq/cadre/pkg/providertest"
	"github.com/cadrehq/cadre/pkg/tool"
	"github.com/cadrehq/cadre/pkg/usage"
	"github.com/tmc/langchaingo/llms"
)

// The wire tests run langchaingo's real clients, made by the factory from an llm.yaml,
// against providertest's fake OpenAI and Anthropic servers on 127.0.0.1.

const sentinelKey = "sk-SENTINEL-0123456789abcdef"

type answer struct {
	City  string `json:"city"`
	Total int    `json:"total"`
}

type lookupArgs struct {
	City string `json:"city"`
}

func lookup() tool.Tool {
	return tool.Func("lookup", "Population of a city.", func(_ context.Context, in lookupArgs) (int, error) {
		return len(in.City) * 1000, nil
	})
}

// servers are the fake providers of one test.
type servers struct {
	openai, anthropic, ollama *providertest.Server
}

func start(t *testing.T, oa, an, ol llms.Model) servers {
	t.Helper()
	s := servers{
		openai:    providertest.NewOpenAI(oa, providertest.WithAPIKey(sentinelKey)),
		anthropic: providertest.NewAnthropic(an, providertest.WithAPIKey(sentinelKey)),
		ollama:    providertest.NewOpenAI(ol),
	}
	t.Cleanup(func() { s.openai.Close(); s.anthropic.Close(); s.ollama.Close() })
	return s
}

// factory parses an llm.yaml naming the servers, with extra lines appended.
func (s servers) factory(t *testing.T, env map[string]string, extra string) *llmfactory.Factory {
	t.Helper()
	return s.parse(t, env, "", "", extra)
}

// factoryWith is factory with lines added to the anthropic provider.
func (s servers) factoryWith(t *testing.T, anthropic, extra string) *llmfactory.Factory {
	t.Helper()
	return s.parse(t, nil, anthropic, "", extra)
}

// parse parses the servers' llm.yaml with lines added to the anthropic provider, to the
// models, and at the end.
func (s servers) parse(t *testing.T, env map[string]string, anthropic, models, extra string) *llmfactory.Factory {
	t.Helper()
	doc := fmt.Sprintf(`
providers:
  oa:
    type: openai
    api_key: ${OA_KEY}
    base_url: %s/v1
  an:
    type: anthropic
    api_key: ${AN_KEY}
    base_url: %s/v1
%s  local:
    type: ollama
    base_url: %s/v1
    api_key: ollama   # the fake wants one; Ollama takes none (see TestCompatibleTypesOnTheWire)
models:
  fast:  { provider: oa, model: gpt-test }
  deep:  { provider: an, model: claude-test, max_tokens: 1000 }
  small: { provider: local, model: qwen-test }
%sdefault: fast
retry: { max_attempts: 3, initial_backoff: 1ms, max_backoff: 5ms }
`, s.openai.URL(), s.anthropic.URL(), anthropic, s.ollama.URL(), models) + extra
	if env == nil {
		env = map[string]string{"OA_KEY": sentinelKey, "AN_KEY": sentinelKey}
	}
	f, err := llmfactory.Parse([]byte(doc), llmfactory.WithEnv(func(k string) (string, bool) {
		v, ok := env[k]
		return v, ok
	}))
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func ctx(t *testing.T) context.Context {
	t.Helper()
	c, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return c
}

// toolTurn is a turn with text and three tool calls, then the answer.
func toolTurn() *llmtest.Scripted {
	return llmtest.NewScripted(
		llmtest.Reply{
			Text: "Let me look these up.",
			ToolCalls: []llms.ToolCall{
				llmtest.Call("lookup", `{"city":"Oslo"}`),
				llmtest.Call("lookup", `{"city":"Rome"}`),
				llmtest.Call("lookup", `{"city":"Lima"}`),
			},
			Usage: usage.Usage{InputTokens: 100, OutputTokens: 20},
		},
		llmtest.Reply{Text: `{"city":"Oslo","total":12000}`, Usage: usage.Usage{InputTokens: 180, OutputTokens: 10}},
	)
}

func TestAssistantsReachTheirModels(t *testing.T) {
	t.Parallel()
	oa := llmtest.NewScripted(llmtest.Text("from openai"))
	an := llmtest.NewScripted(llmtest.Text("from anthropic"))
	s := start(t, oa, an, llmtest.NewScripted())
	f := s.factory(t, nil, "assistants:\n  analyst: deep\n")

	for _, tc := range []struct{ assistant, model, text string }{
		{"analyst", "deep", "from anthropic"}, // listed
		{"anyone", "fast", "from openai"},     // the default
	} {
		a := assistant.New[string](tc.assistant, assistant.WithModels(f))
		res, err := a.Run(ctx(t), assistant.Input{Prompt: "hi"})
		if err != nil {
			t.Fatalf("%s: %v", tc.assistant, err)
		}
		if res.Output != tc.text || res.Model != tc.model {
			t.Errorf("%s: answer %q from %q, want %q from %q", tc.assistant, res.Output, res.Model, tc.text, tc.model)
		}
	}
}

func TestUnknownModelIsAnError(t *testing.T) {
	t.Parallel()
	s := start(t, llmtest.NewScripted(), llmtest.NewScripted(), llmtest.NewScripted())
	f := s.factory(t, nil, "")
	if _, err := f.Model(ctx(t), "fastt"); err == nil || !strings.Contains(err.Error(), `"fastt"`) {
		t.Errorf("err = %v, want one naming the unknown model", err)
	}
}

func TestToolTurnRoundTrips(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"fast", "deep", "small"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			m := toolTurn()
			var s servers
			switch name {
			case "fast":
				s = start(t, m, llmtest.NewScripted(), llmtest.NewScripted())
			case "deep":
				s = start(t, llmtest.NewScripted(), m, llmtest.NewScripted())
			case "small":
				s = start(t, llmtest.NewScripted(), llmtest.NewScripted(), m)
			}
			f := s.factory(t, nil, "assistants:\n  counter: "+name+"\n")
			a := assistant.New[answer]("counter", assistant.WithModels(f), assistant.WithTools(lookup()))
			res, err := a.Run(ctx(t), assistant.Input{Prompt: "Populations?"})
			if err != nil {
				t.Fatal(err)
			}
			if res.Output != (answer{City: "Oslo", Total: 12000}) {
				t.Errorf("Output = %+v", res.Output)
			}
			want := usage.Usage{Requests: 2, ToolCalls: 3, InputTokens: 280, OutputTokens: 30}
			if res.Usage.Total != want {
				t.Errorf("Usage.Total = %+v, want %+v: usage counted once per response", res.Usage.Total, want)
			}
			// The second request carried the three results back, and the server accepted it.
			reqs := m.Requests()
			if len(reqs) != 2 {
				t.Fatalf("the model got %d requests, want 2", len(reqs))
			}
			results := 0
			for _, msg := range reqs[1].Messages {
				for _, p := range msg.Parts {
					if _, ok := p.(llms.ToolCallResponse); ok {
						results++
					}
				}
			}
			if results != 3 {
				t.Errorf("the second request carried %d tool results, want 3", results)
			}
		})
	}
}

func TestRetryAfter429(t *testing.T) {
	t.Parallel()
	oa := llmtest.NewScripted(llmtest.Reply{Text: "ok", Usage: usage.Usage{InputTokens: 5, OutputTokens: 1}})
	s := start(t, oa, llmtest.NewScripted(), llmtest.NewScripted())
	s.openai.Fault(providertest.Fault{Status: 429, RetryAfter: "0"}, providertest.Fault{Status: 429, RetryAfter: "0"})
	a := assistant.New[string]("a", assistant.WithModels(s.factory(t, nil, "")))
	res, err := a.Run(ctx(t), assistant.Input{Prompt: "hi"})
	if err != nil {
		t.Fatal(err)
	}
	if got := s.openai.Attempts(); got != 3 {
		t.Errorf("HTTP attempts = %d, want 3", got)
	}
	if got := res.Usage.Total.Requests; got != 1 {
		t.Errorf("Usage.Total.Requests = %d, want 1: a retried attempt is the same request", got)
	}
}

// TestRetryAfterIsWaitedFor checks that a 429 or 503 is retried no sooner than its
// Retry-After says, in seconds or as an HTTP date, however short the backoff (1 to 5 ms here).
func TestRetryAfterIsWaitedFor(t *testing.T) {
	t.Parallel()
	date := time.Now().Add(1500 * time.Millisecond).Truncate(time.Second) // 0.5 to 1.5 s from now
	for _, tc := range []struct {
		name       string
		status     int
		retryAfter string
		notBefore  func(first time.Time) time.Time // the earliest the retry may arrive
	}{
		{"429 in seconds", http.StatusTooManyRequests, "1", func(first time.Time) time.Time { return first.Add(time.Second) }},
		{"503 as an HTTP date", http.StatusServiceUnavailable, date.UTC().Format(http.TimeFormat), func(time.Time) time.Time { return date }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := start(t, llmtest.NewScripted(llmtest.Text("ok")), llmtest.NewScripted(), llmtest.NewScripted())
			s.openai.Fault(providertest.Fault{Status: tc.status, RetryAfter: tc.retryAfter})
			a := assistant.New[string]("a", assistant.WithModels(s.factory(t, nil, "")))
			if _, err := a.Run(ctx(t), assistant.Input{Prompt: "hi"}); err != nil {
				t.Fatal(err)
			}
			arrived := s.openai.Arrivals()
			if len(arrived) != 2 {
				t.Fatalf("HTTP attempts = %d, want 2", len(arrived))
			}
			earliest := tc.notBefore(arrived[0])
			if arrived[1].Before(earliest) {
				t.Errorf("the retry arrived %v after the first attempt, %v before Retry-After: %s allowed it",
					arrived[1].Sub(arrived[0]), earliest.Sub(arrived[1]), tc.retryAfter)
			}
			if late := arrived[1].Sub(earliest); late > 5*time.Second {
				t.Errorf("the retry arrived %v after Retry-After: %s allowed it, want it soon after", late, tc.retryAfter)
			}
		})
	}
}

// TestRetryAfterOverTheCapFallsBack checks that a Retry-After longer than the transport waits
// for (a minute) is not waited for: the 429 comes back at once, and the next model answers.
func TestRetryAfterOverTheCapFallsBack(t *testing.T) {
	t.Parallel()
	s := start(t, llmtest.NewScripted(llmtest.Text("never")), llmtest.NewScripted(llmtest.Text("from deep")), llmtest.NewScripted())
	s.openai.Fault(providertest.Fault{Status: http.StatusTooManyRequests, RetryAfter: "3600"})
	f := s.factory(t, nil, "assistants:\n  a: [fast, deep]\n")
	// A transport that waited for the hour would be cut short here, failing the run.
	c, cancel := context.WithTimeout(ctx(t), 10*time.Second)
	defer cancel()
	res, err := assistant.New[string]("a", assistant.WithModels(f)).Run(c, assistant.Input{Prompt: "hi"})
	if err != nil {
		t.Fatalf("err = %v, want deep's answer: a Retry-After of an hour is not waited for", err)
	}
	if res.Model != "deep" || res.Output != "from deep" {
		t.Errorf("answered by %q with %q, want deep's answer", res.Model, res.Output)
	}
	if got := s.openai.Attempts(); got != 1 {
		t.Errorf("openai attempts = %d, want 1: a Retry-After over the cap is not retried", got)
	}
}

func TestServerErrorsFallBackAlongTheChain(t *testing.T) {
	t.Parallel()
	// Claude answers the first turn with tool calls, then fails for good: OpenAI takes the
	// conversation over, tool calls and all.
	an := llmtest.NewFunc(func(_ context.Context, req llmtest.Request) llmtest.Reply {
		return llmtest.Reply{Text: "Checking.", ToolCalls: []llms.ToolCall{
			llmtest.Call("lookup", `{"city":"Oslo"}`), llmtest.Call("lookup", `{"city":"Rome"}`),
		}}
	})
	oa := llmtest.NewScripted(llmtest.Text(`{"city":"Oslo","total":8000}`))
	s := start(t, oa, an, llmtest.NewScripted())
	f := s.factory(t, nil, "assistants:\n  counter: [deep, fast]\n")
	rec := callbacktest.NewRecorder()
	// The first request goes to Claude; once the tools have run, a storm of 500s begins.
	fail := providertest.Fault{Status: 500, Message: "overloaded"}
	var once sync.Once
	a := assistant.New[answer]("counter", assistant.WithModels(f), assistant.WithTools(lookup()), assistant.WithCallback(callback.HandlerFunc(func(c context.Context, e callback.Event) {
		rec.Handle(c, e)
		if e.Kind == callback.ToolEnd {
			once.Do(func() { s.anthropic.Fault(fail, fail, fail) })
		}
	})))
	res, err := a.Run(ctx(t), assistant.Input{Prompt: "Populations?"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Model != "fast" || res.Output.Total != 8000 {
		t.Errorf("answered by %q with %+v, want fast's answer", res.Model, res.Output)
	}
	if got := s.anthropic.Attempts(); got != 4 {
		t.Errorf("anthropic attempts = %d, want 1 answered + 3 failed", got)
	}
	if fb := rec.Of(callback.ModelFallback); len(fb) != 1 || fb[0].Model != "deep" {
		t.Errorf("fallback events = %+v, want one from deep", fb)
	}
	var pe *model.ProviderError
	if fb := rec.Of(callback.ModelFallback); len(fb) == 1 && (!errors.As(fb[0].Err, &pe) || pe.Status != 500 || pe.Message != "overloaded") {
		t.Errorf("fallback error = %v, want a ProviderError with status 500 and the provider's message", fb[0].Err)
	}
	if got := res.Usage.ByModel; got["deep"].Requests != 1 || got["fast"].Requests != 1 {
		t.Errorf("ByModel = %+v, want one request each", got)
	}
}

func TestBadRequestNeitherRetriesNorFallsBack(t *testing.T) {
	t.Parallel()
	oa := llmtest.NewScripted(llmtest.Text("never"))
	an := llmtest.NewScripted(llmtest.Text("never"))
	s := start(t, oa, an, llmtest.NewScripted())
	s.anthropic.Fault(providertest.Fault{Status: 400, Message: "messages: roles must alternate"})
	f := s.factory(t, nil, "assistants:\n  a: [deep, fast]\n")
	_, err := assistant.New[string]("a", assistant.WithModels(f)).Run(ctx(t), assistant.Input{Prompt: "hi"})
	var pe *model.ProviderError
	if !errors.As(err, &pe) || pe.Status != 400 || !strings.Contains(pe.Message, "roles must alternate") {
		t.Fatalf("err = %v, want a ProviderError with status 400 and the provider's message", err)
	}
	if got := s.anthropic.Attempts(); got != 1 {
		t.Errorf("anthropic attempts = %d, want 1: a 400 is not retried", got)
	}
	if got := s.openai.Attempts(); got != 0 {
		t.Errorf("openai attempts = %d, want 0: a 400 does not fall back", got)
	}
}

func TestUnauthorizedNeverShowsTheKey(t *testing.T) {
	t.Parallel()
	s := start(t, llmtest.NewScripted(llmtest.Text("never")), llmtest.NewScripted(llmtest.Text("never")), llmtest.NewScripted())
	// The servers expect the sentinel; the file's keys are wrong ones that contain it, as a
	// careless provider message might echo them.
	wrong := sentinelKey + "-wrong"
	f := s.factory(t, map[string]string{"OA_KEY": wrong, "AN_KEY": wrong}, "assistants:\n  b: deep\n")
	var logs bytes.Buffer
	rec := callbacktest.NewRecorder()
	for _, name := range []string{"a", "b"} {
		a := assistant.New[string](name, assistant.WithModels(f), assistant.WithCallback(callback.Multi(rec,
			callback.NewSlogHandler(slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug})), callback.WithContent(0)))))
		_, err := a.Run(ctx(t), assistant.Input{Prompt: "hi"})
		var pe *model.ProviderError
		if !errors.As(err, &pe) || pe.Status != 401 {
			t.Fatalf("%s: err = %v, want a ProviderError with status 401", name, err)
		}
		if strings.Contains(err.Error(), sentinelKey) || strings.Contains(fmt.Sprintf("%+v %#v", err, pe), sentinelKey) {
			t.Errorf("%s: the error shows the key: %v", name, err)
		}
	}
	if strings.Contains(logs.String(), sentinelKey) {
		t.Errorf("the logs show the key:\n%s", logs.String())
	}
	for _, e := range rec.Events() {
		if strings.Contains(fmt.Sprintf("%+v %v", e, e.Err), sentinelKey) {
			t.Errorf("an event shows the key: %+v", e)
		}
	}
}

func TestMissingVariableNamesItAndTheProvider(t *testing.T) {
	t.Parallel()
	s := start(t, llmtest.NewScripted(), llmtest.NewScripted(), llmtest.NewScripted())
	f := s.factory(t, map[string]string{"OA_KEY": sentinelKey}, "assistants:\n  a: deep\n")
	_, err := assistant.New[string]("a", assistant.WithModels(f)).Run(ctx(t), assistant.Input{Prompt: "hi"})
	if err == nil || !strings.Contains(err.Error(), "AN_KEY") || !strings.Contains(err.Error(), `"an"`) {
		t.Errorf("err = %v, want one naming AN_KEY and provider an", err)
	}
	// The providers that have their keys still work.
	if _, err := f.Model(ctx(t), "fast"); err != nil {
		t.Errorf("fast: %v", err)
	}
}

func TestModelSettingsAreDefaultCallOptions(t *testing.T) {
	t.Parallel()
	oa := llmtest.NewScripted(llmtest.Text("a"), llmtest.Text("b"), llmtest.Text("c")).Cycle()
	s := start(t, oa, llmtest.NewScripted(), llmtest.NewScripted())
	f := s.parse(t, nil, "", "  tuned: { provider: oa, model: gpt-tuned, temperature: 0.3, max_tokens: 300 }\n",
		"assistants:\n  plain: tuned\n  warm: tuned\n")
	doc := func(i int) map[string]any {
		var body map[string]any
		if err := json.Unmarshal(s.openai.Bodies()[i], &body); err != nil {
			t.Fatal(err)
		}
		return body
	}
	if _, err := assistant.New[string]("plain", assistant.WithModels(f)).Run(ctx(t), assistant.Input{Prompt: "hi"}); err != nil {
		t.Fatal(err)
	}
	if b := doc(0); b["temperature"] != 0.3 || b["max_completion_tokens"] != 300.0 && b["max_tokens"] != 300.0 || b["model"] != "gpt-tuned" {
		t.Errorf("request = %v, want llm.yaml's model, temperature 0.3 and 300 max tokens", b)
	}
	warm := assistant.New[string]("warm", assistant.WithModels(f), assistant.WithCallOptions(llms.WithTemperature(0.9)))
	if _, err := warm.Run(ctx(t), assistant.Input{Prompt: "hi"}); err != nil {
		t.Fatal(err)
	}
	if b := doc(1); b["temperature"] != 0.9 {
		t.Errorf("temperature = %v, want the assistant's 0.9 over llm.yaml's 0.3", b["temperature"])
	}
	if _, err := warm.Run(ctx(t), assistant.Input{Prompt: "hi", Options: []assistant.Option{assistant.WithCallOptions(llms.WithTemperature(1.5))}}); err != nil {
		t.Fatal(err)
	}
	if b := doc(2); b["temperature"] != 1.5 {
		t.Errorf("temperature = %v, want the run's 1.5 over the assistant's", b["temperature"])
	}
}

func TestProviderTimeoutFallsBack(t *testing.T) {
	t.Parallel()
	oa := llmtest.NewScripted(llmtest.Text("from openai"))
	an := llmtest.NewScripted(llmtest.Text("too late"))
	s := start(t, oa, an, llmtest.NewScripted())
	slow := providertest.Fault{Delay: time.Hour}
	s.anthropic.Fault(slow, slow, slow)
	// Claude answers within 50ms or not at all.
	f := s.factoryWith(t, "    timeout: 50ms\n", "assistants:\n  a: [deep, fast]\n")
	res, err := assistant.New[string]("a", assistant.WithModels(f)).Run(ctx(t), assistant.Input{Prompt: "hi"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Model != "fast" || res.Output != "from openai" {
		t.Errorf("answered by %q: %q, want fast after deep timed out", res.Model, res.Output)
	}
}

func TestRetriesNeverRunAToolAgain(t *testing.T) {
	t.Parallel()
	oa := llmtest.NewScripted(
		llmtest.Calls(llmtest.Call("count", `{}`), llmtest.Call("count", `{}`)),
		llmtest.Text("done"),
	)
	s := start(t, oa, llmtest.NewScripted(), llmtest.NewScripted())
	var runs atomic.Int64
	counter := tool.Func("count", "Counts.", func(context.Context, struct{}) (string, error) {
		if runs.Add(1) == 2 {
			// The next request (with the results) meets two 503s before it goes through.
			s.openai.Fault(providertest.Fault{Status: 503, RetryAfter: "0"}, providertest.Fault{Status: 503, RetryAfter: "0"})
		}
		return "ok", nil
	})
	res, err := assistant.New[string]("a", assistant.WithModels(s.factory(t, nil, "")), assistant.WithTools(counter)).Run(ctx(t), assistant.Input{Prompt: "count"})
	if err != nil {
		t.Fatal(err)
	}
	if got := runs.Load(); got != 2 {
		t.Errorf("the tool ran %d times, want 2 (once per call): a retry never runs a tool again", got)
	}
	if got := s.openai.Attempts(); got != 4 {
		t.Errorf("HTTP attempts = %d, want 4 (1 + 1 answered after 2 retried)", got)
	}
	if got := res.Usage.Total.Requests; got != 2 {
		t.Errorf("Usage.Total.Requests = %d, want 2", got)
	}
}

func TestClientsAreMadeOnceAndShared(t *testing.T) {
	t.Parallel()
	s := start(t, llmtest.NewScripted(), llmtest.NewScripted(), llmtest.NewScripted())
	f := s.factory(t, nil, "assistants:\n  a: [deep, fast]\n")
	var wg sync.WaitGroup
	chains := make([][]model.Model, 50)
	for i := range chains {
		wg.Go(func() {
			c, err := f.Resolve(ctx(t), "a")
			if err != nil {
				t.Error(err)
			}
			chains[i] = c
		})
	}
	wg.Wait()
	for _, c := range chains[1:] {
		if len(c) != 2 || c[0].LLM != chains[0][0].LLM || c[1].LLM != chains[0][1].LLM {
			t.Fatal("Resolve made a client twice: clients are made on first use and shared")
		}
	}
	if chains[0][0].Provider != "anthropic" || chains[0][1].Provider != "openai" || chains[0][1].Shape != model.ShapeOpenAI {
		t.Errorf("chain = %+v, want the providers' facts", chains[0])
	}
}

func TestCancelledRunDoesNotFallBack(t *testing.T) {
	t.Parallel()
	oa := llmtest.NewScripted(llmtest.Text("never"))
	s := start(t, oa, llmtest.NewScripted(), llmtest.NewScripted())
	s.anthropic.Fault(providertest.Fault{Delay: time.Hour})
	f := s.factory(t, nil, "assistants:\n  a: [deep, fast]\n")
	c, cancel := context.WithCancel(ctx(t))
	go func() {
		defer cancel()
		for s.anthropic.Attempts() == 0 && c.Err() == nil {
			time.Sleep(time.Millisecond) // until the request is in flight
		}
	}()
	_, err := assistant.New[string]("a", assistant.WithModels(f)).Run(c, assistant.Input{Prompt: "hi"})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if got := s.openai.Attempts(); got != 0 {
		t.Errorf("openai attempts = %d, want 0: a cancelled run does not fall back", got)
	}
}

func TestHistoryWithBrokenArgumentsReachesAnthropic(t *testing.T) {
	t.Parallel()
	an := llmtest.NewScripted(llmtest.Text("fine"))
	s := start(t, llmtest.NewScripted(), an, llmtest.NewScripted())
	f := s.factory(t, nil, "assistants:\n  a: deep\n")
	// An earlier turn in which a model wrote arguments that are not JSON, with its answer.
	history := []llms.MessageContent{
		{Role: llms.ChatMessageTypeHuman, Parts: []llms.ContentPart{llms.TextContent{Text: "look Oslo up"}}},
		{Role: llms.ChatMessageTypeAI, Parts: []llms.ContentPart{
			llms.TextContent{Text: "Looking."},
			llms.ToolCall{ID: "call_9", FunctionCall: &llms.FunctionCall{Name: "lookup", Arguments: `{"city": "Oslo"`}},
		}},
		{Role: llms.ChatMessageTypeTool, Parts: []llms.ContentPart{llms.ToolCallResponse{ToolCallID: "call_9", Name: "lookup", Content: "error: invalid arguments"}}},
		{Role: llms.ChatMessageTypeAI, Parts: []llms.ContentPart{llms.TextContent{Text: "Sorry, try again?"}}},
	}
	res, err := assistant.New[string]("a", assistant.WithModels(f), assistant.WithTools(lookup())).Run(ctx(t), assistant.Input{Prompt: "again", History: history})
	if err != nil {
		t.Fatalf("Anthropic refused the conversation: %v", err)
	}
	if res.Output != "fine" {
		t.Errorf("Output = %q", res.Output)
	}
	// The arguments went out as {} and stay as written in the caller's history.
	if !strings.Contains(string(s.anthropic.Bodies()[0]), `"input":{}`) {
		t.Errorf("request body does not carry the broken call as {}: %s", s.anthropic.Bodies()[0])
	}
	if got := history[1].Parts[1].(llms.ToolCall).FunctionCall.Arguments; got != `{"city": "Oslo"` {
		t.Errorf("history changed: %q", got)
	}
}

func TestTruncatedAnswerFallsBack(t *testing.T) {
	t.Parallel()
	oa := llmtest.NewScripted(llmtest.Text("never whole"))
	an := llmtest.NewScripted(llmtest.Text("from anthropic"))
	s := start(t, oa, an, llmtest.NewScripted())
	s.openai.Fault(providertest.Fault{Truncate: true})
	f := s.factory(t, nil, "assistants:\n  a: [fast, deep]\n")
	res, err := assistant.New[string]("a", assistant.WithModels(f)).Run(ctx(t), assistant.Input{Prompt: "hi"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Model != "deep" {
		t.Errorf("answered by %q, want deep after fast's answer was cut short", res.Model)
	}
}

func TestUnknownHostNeitherRetriesNorFallsBack(t *testing.T) {
	t.Parallel()
	an := llmtest.NewScripted(llmtest.Text("never"))
	s := start(t, llmtest.NewScripted(), an, llmtest.NewScripted())
	doc := `
providers:
  typo: { type: openai, api_key: k, base_url: "http://no-such-host.invalid/v1" }
  an: { type: anthropic, api_key: k, base_url: "` + s.anthropic.URL() + `/v1" }
models:
  fast: { provider: typo, model: gpt-test }
  deep: { provider: an, model: claude-test }
assistants:
  a: [fast, deep]
`
	// The lookup fails here, without asking any DNS server.
	var d net.Dialer
	hc := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		if strings.HasPrefix(addr, "no-such-host.invalid:") {
			return nil, &net.DNSError{Err: "no such host", Name: "no-such-host.invalid", IsNotFound: true}
		}
		return d.DialContext(ctx, network, addr)
	}}}
	f, err := llmfactory.Parse([]byte(doc), llmfactory.WithHTTPClient(hc))
	if err != nil {
		t.Fatal(err)
	}
	_, err = assistant.New[string]("a", assistant.WithModels(f)).Run(ctx(t), assistant.Input{Prompt: "hi"})
	if err == nil || !strings.Contains(err.Error(), "base_url") {
		t.Fatalf("err = %v, want one pointing at the base_url", err)
	}
	if model.CanFallback(err) || s.anthropic.Attempts() != 0 {
		t.Errorf("a host that does not exist fell back (%d attempts on deep): it is a configuration error", s.anthropic.Attempts())
	}
}

func TestStreamedTextEqualsTheAnswers(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"fast", "deep"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			m := llmtest.NewScripted(
				llmtest.Reply{Text: "Let me look these up.", ToolCalls: []llms.ToolCall{
					llmtest.Call("lookup", `{"city":"Oslo"}`), llmtest.Call("lookup", `{"city":"Rome"}`)}},
				llmtest.Text(`{"city":"Oslo","total":8000}`),
			)
			var s servers
			if name == "fast" {
				s = start(t, m, llmtest.NewScripted(), llmtest.NewScripted())
			} else {
				s = start(t, llmtest.NewScripted(), m, llmtest.NewScripted())
			}
			f := s.factory(t, nil, "assistants:\n  counter: "+name+"\n")
			var mu sync.Mutex
			var streamed []string // one entry per request
			var last string
			a := assistant.New[answer]("counter", assistant.WithModels(f), assistant.WithTools(lookup()),
				assistant.WithCallback(callback.HandlerFunc(func(_ context.Context, e callback.Event) {
					if e.Kind == callback.ModelRequest {
						mu.Lock()
						streamed = append(streamed, "")
						mu.Unlock()
					}
				})),
				assistant.WithStream(func(_ context.Context, c assistant.Chunk) error {
					mu.Lock()
					defer mu.Unlock()
					streamed[len(streamed)-1] += c.Text
					last = c.RunID
					return nil
				}))
			res, err := a.Run(ctx(t), assistant.Input{Prompt: "Populations?"})
			if err != nil {
				t.Fatal(err)
			}
			want := []string{"Let me look these up.", `{"city":"Oslo","total":8000}`}
			if len(streamed) != 2 || streamed[0] != want[0] || streamed[1] != want[1] {
				t.Errorf("streamed %q, want the text of each answer %q, tool calls left out", streamed, want)
			}
			if res.Text != want[1] || last == "" {
				t.Errorf("Text = %q, run id %q", res.Text, last)
			}
			srv := s.openai
			if name == "deep" {
				srv = s.anthropic
			}
			if body := string(srv.Bodies()[0]); !strings.Contains(body, `"stream":true`) {
				t.Errorf("the client did not stream: %s", body)
			}
		})
	}
}

func TestAnAnswerThatCannotBeReadFallsBack(t *testing.T) {
	t.Parallel()
	for _, body := range []string{`{"choices": [`, `{"id":"x","object":"chat.completion","choices":[]}`} {
		t.Run(body, func(t *testing.T) {
			t.Parallel()
			oa := llmtest.NewScripted(llmtest.Text(`{"city":"Oslo","total":1}`))
			an := llmtest.NewScripted(llmtest.Text(`{"city":"Oslo","total":2}`))
			s := start(t, oa, an, llmtest.NewScripted())
			s.openai.Fault(providertest.Fault{Body: body})
			f := s.factory(t, nil, "assistants:\n  counter: [fast, deep]\n")
			rec := callbacktest.NewRecorder()
			a := assistant.New[answer]("counter", assistant.WithModels(f), assistant.WithCallback(rec))
			res, err := a.Run(ctx(t), assistant.Input{Prompt: "Populations?"})
			if err != nil {
				t.Fatalf("err = %v; want deep to answer when fast's answer cannot be read", err)
			}
			if res.Model != "deep" || res.Output.Total != 2 {
				t.Errorf("answered by %q with %+v, want deep's answer", res.Model, res.Output)
			}
			var pe *model.ProviderError
			fb := rec.Of(callback.ModelFallback)
			if len(fb) != 1 || !errors.As(fb[0].Err, &pe) || pe.Status != 200 || !strings.Contains(pe.Message, "could not be read") || strings.Contains(pe.Message, sentinelKey) {
				t.Errorf("fallback events = %+v; want one from fast with a ProviderError of status 200 saying its answer could not be read", fb)
			}
		})
	}
}

func TestCloseReleasesTheClients(t *testing.T) {
	t.Parallel()
	s := start(t, llmtest.NewScripted(llmtest.Text("hi")), llmtest.NewScripted(), llmtest.NewScripted())
	f := s.factory(t, nil, "")
	if _, err := f.Model(ctx(t), "fast"); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Errorf("Close = %v", err)
	}
	if err := f.Close(); err != nil {
		t.Errorf("a second Close = %v, want nil", err)
	}
}
