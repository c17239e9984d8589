package bedrock_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cadrehq/cadre/pkg/assistant"
	"github.com/cadrehq/cadre/pkg/llmfactory"
	"github.com/cadrehq/cadre/pkg/llmfactory/bedrock"
	"github.com/cadrehq/cadre/pkg/model"
	"github.com/cadrehq/cadre/pkg/tool"
	"github.com/cadrehq/cadre/pkg/usage"
	"github.com/google/go-cmp/cmp"
	"github.com/tmc/langchaingo/llms"
)

// The tests run the bedrock provider type, made by the factory from an llm.yaml, against a
// stand-in for Bedrock's runtime API on 127.0.0.1 (standin_test.go), with AWS credentials
// the tests set (fakeAWS): they set the environment, so none runs in parallel.

const sonnet = "anthropic.claude-3-5-sonnet-20241022-v2:0"

// Answers of Anthropic's models on Bedrock.
const (
	lookupOslo = `{"id":"msg_bdrk_01","type":"message","role":"assistant","model":"claude-3-5-sonnet-20241022",` +
		`"content":[{"type":"text","text":"Let me look that up."},` +
		`{"type":"tool_use","id":"toolu_bdrk_01","name":"lookup","input":{"city":"Oslo"}}],` +
		`"stop_reason":"tool_use","stop_sequence":null,"usage":{"input_tokens":40,"output_tokens":7}}`
	oslo = `{"id":"msg_bdrk_02","type":"message","role":"assistant","model":"claude-3-5-sonnet-20241022",` +
		`"content":[{"type":"text","text":"Oslo"}],"stop_reason":"end_turn","stop_sequence":null,` +
		`"usage":{"input_tokens":20,"output_tokens":2}}`
)

type answerOut struct {
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

// llmYAML is an llm.yaml with a bedrock provider "aws" at base_url and its model "sonnet";
// provider adds lines to the provider, e.g. "    api_key: k\n".
func llmYAML(baseURL, provider, modelID string) string {
	return "providers:\n  aws:\n    type: bedrock\n    base_url: " + baseURL + "\n" + provider +
		"models:\n  sonnet:\n    provider: aws\n    model: " + modelID + "\n" +
		"default: sonnet\n" +
		"retry: { max_attempts: 3, initial_backoff: 1ms, max_backoff: 5ms }\n"
}

// factory parses doc with the bedrock type, and closes the factory with the test.
func factory(t *testing.T, doc string, opts ...llmfactory.Option) *llmfactory.Factory {
	t.Helper()
	f, err := llmfactory.Parse([]byte(doc), append([]llmfactory.Option{llmfactory.WithProviderType("bedrock", bedrock.Type())}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

func ctx(t *testing.T) context.Context {
	t.Helper()
	c, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return c
}

func lookupDef() llms.Tool {
	return llms.Tool{Type: "function", Function: &llms.FunctionDefinition{Name: "lookup", Description: "Population of a city.",
		Parameters: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`)}}
}

var sigV4 = regexp.MustCompile(`^AWS4-HMAC-SHA256 Credential=` + accessKey + `/(\d{8})/` + region +
	`/bedrock/aws4_request, SignedHeaders=([a-z0-9;-]+), Signature=[0-9a-f]{64}$`)

func TestInvokeModelOnTheWire(t *testing.T) {
	for _, session := range []bool{false, true} {
		t.Run(map[bool]string{false: "long-term keys", true: "session credentials"}[session], func(t *testing.T) {
			fakeAWS(t, session)
			s := newStandIn(t, false, answer{body: lookupOslo})
			f := factory(t, llmYAML(s.URL, "    region: "+region+"\n", sonnet))
			m, err := f.Model(ctx(t), "sonnet")
			if err != nil {
				t.Fatal(err)
			}
			msgs := []llms.MessageContent{
				llms.TextParts(llms.ChatMessageTypeSystem, "Answer from the tools."),
				llms.TextParts(llms.ChatMessageTypeHuman, "Population of Oslo?"),
			}
			reply, err := m.Generate(ctx(t), msgs, llms.WithTools([]llms.Tool{lookupDef()}))
			if err != nil {
				t.Fatal(err)
			}
			want := model.Reply{
				Text: "Let me look that up.",
				ToolCalls: []llms.ToolCall{{ID: "toolu_bdrk_01", Type: "function",
					FunctionCall: &llms.FunctionCall{Name: "lookup", Arguments: `{"city":"Oslo"}`}}},
				StopReason: "tool_use",
				Usage:      usage.Usage{Requests: 1, InputTokens: 40, OutputTokens: 7},
			}
			if diff := cmp.Diff(want, reply); diff != "" {
				t.Errorf("reply (-want +got):\n%s", diff)
			}

			reqs := s.requests()
			if len(reqs) != 1 {
				t.Fatalf("%d requests, want 1", len(reqs))
			}
			r := reqs[0]
			if r.Path != "/model/"+sonnet+"/invoke" {
				t.Errorf("path %q, want InvokeModel's with the model id", r.Path)
			}
			wantBody := map[string]any{
				"anthropic_version": "bedrock-2023-05-31",
				"max_tokens":        float64(model.Facts("bedrock").MaxTokens), // not the client's 2048
				"system":            "Answer from the tools.",
				"messages": []any{map[string]any{"role": "user", "content": []any{
					map[string]any{"type": "text", "text": "Population of Oslo?"}}}},
				"tools": []any{map[string]any{"name": "lookup", "description": "Population of a city.", "input_schema": map[string]any{
					"type": "object", "properties": map[string]any{"city": map[string]any{"type": "string"}}, "required": []any{"city"}}}},
			}
			if diff := cmp.Diff(wantBody, r.JSON(t)); diff != "" {
				t.Errorf("body (-want +got):\n%s", diff)
			}

			auth := r.Header.Get("Authorization")
			match := sigV4.FindStringSubmatch(auth)
			if match == nil {
				t.Fatalf("Authorization %q, want SigV4 with the test's key id and region, for bedrock", auth)
			}
			date := r.Header.Get("X-Amz-Date")
			if !strings.HasPrefix(date, match[1]+"T") || len(date) != len("20060102T150405Z") {
				t.Errorf("X-Amz-Date %q, want the credential's date %s and a time", date, match[1])
			}
			signed := strings.Split(match[2], ";")
			for _, h := range []string{"host", "x-amz-date", "content-type"} {
				if !contains(signed, h) {
					t.Errorf("SignedHeaders %q lacks %s", match[2], h)
				}
			}
			if tok := r.Header.Get("X-Amz-Security-Token"); session && (tok != sessionToken || !contains(signed, "x-amz-security-token")) ||
				!session && tok != "" {
				t.Errorf("X-Amz-Security-Token %q, signed %v; want the session token, signed, only with session credentials", tok, signed)
			}
			if r.SignatureErr != nil {
				t.Error(r.SignatureErr)
			}
			for k, vs := range r.Header {
				if strings.Contains(strings.Join(vs, " "), secretKey) {
					t.Errorf("header %s holds the secret access key", k)
				}
			}
		})
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func TestAnAssistantRunsTools(t *testing.T) {
	fakeAWS(t, false)
	// Two calls in one turn, then the answer through cadre's final_result tool.
	s := newStandIn(t, false,
		answer{body: `{"type":"message","role":"assistant","content":[{"type":"text","text":"Looking up both."},` +
			`{"type":"tool_use","id":"toolu_1","name":"lookup","input":{"city":"Oslo"}},` +
			`{"type":"tool_use","id":"toolu_2","name":"lookup","input":{"city":"Bergen"}}],` +
			`"stop_reason":"tool_use","usage":{"input_tokens":40,"output_tokens":12}}`},
		answer{body: `{"type":"message","role":"assistant","content":[` +
			`{"type":"tool_use","id":"toolu_3","name":"final_result","input":{"city":"Oslo","total":10000}}],` +
			`"stop_reason":"tool_use","usage":{"input_tokens":90,"output_tokens":9}}`})
	f := factory(t, llmYAML(s.URL, "    region: "+region+"\n", sonnet))
	a := assistant.New[answerOut]("geo", assistant.WithModels(f), assistant.WithTools(lookup()),
		assistant.WithInstructions("Answer from the tools."))
	res, err := a.Run(ctx(t), assistant.Input{Prompt: "How many people live in Oslo and Bergen?"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Output != (answerOut{City: "Oslo", Total: 10000}) {
		t.Errorf("Output = %+v", res.Output)
	}
	if got, want := res.Usage.Total, (usage.Usage{Requests: 2, ToolCalls: 2, InputTokens: 130, OutputTokens: 21}); got != want {
		t.Errorf("Usage.Total = %+v, want %+v", got, want)
	}

	reqs := s.requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	first := reqs[0].JSON(t)
	var names []string
	for _, tl := range first["tools"].([]any) {
		names = append(names, tl.(map[string]any)["name"].(string))
	}
	if !contains(names, "lookup") || !contains(names, "final_result") {
		t.Errorf("tools %v, want lookup and final_result", names)
	}
	if sys, _ := first["system"].(string); !strings.Contains(sys, "Answer from the tools.") {
		t.Errorf("system %q, want the instructions", sys)
	}
	// The turn goes back as Anthropic's models take it: its text and both calls in one
	// assistant message, both results in the next user message.
	want := []any{
		map[string]any{"role": "user", "content": []any{map[string]any{"type": "text", "text": "How many people live in Oslo and Bergen?"}}},
		map[string]any{"role": "assistant", "content": []any{
			map[string]any{"type": "text", "text": "Looking up both."},
			map[string]any{"type": "tool_use", "id": "toolu_1", "name": "lookup", "input": map[string]any{"city": "Oslo"}},
			map[string]any{"type": "tool_use", "id": "toolu_2", "name": "lookup", "input": map[string]any{"city": "Bergen"}},
		}},
		map[string]any{"role": "user", "content": []any{
			map[string]any{"type": "tool_result", "tool_use_id": "toolu_1", "content": "4000"},
			map[string]any{"type": "tool_result", "tool_use_id": "toolu_2", "content": "6000"},
		}},
	}
	if diff := cmp.Diff(want, reqs[1].JSON(t)["messages"]); diff != "" {
		t.Errorf("the second request's messages (-want +got):\n%s", diff)
	}
}

func TestStreaming(t *testing.T) {
	t.Run("a turn without tools streams", func(t *testing.T) {
		fakeAWS(t, false)
		s := newStandIn(t, false, answer{stream: []string{
			`{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","content":[],"usage":{"input_tokens":25,"output_tokens":1}}}`,
			`{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`,
			`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Oslo is the capital"}}`,
			`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":" of Norway."}}`,
			`{"type":"content_block_stop","index":0}`,
			`{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":8}}`,
			`{"type":"message_stop","amazon-bedrock-invocationMetrics":{"inputTokenCount":25,"outputTokenCount":8,"invocationLatency":300,"firstByteLatency":100}}`,
		}})
		f := factory(t, llmYAML(s.URL, "    region: "+region+"\n", sonnet))
		chunks, stream := collect()
		a := assistant.New[string]("geo", assistant.WithModels(f), assistant.WithStream(stream))
		res, err := a.Run(ctx(t), assistant.Input{Prompt: "Capital of Norway?"})
		if err != nil {
			t.Fatal(err)
		}
		if got := chunks(); res.Output != "Oslo is the capital of Norway." || len(got) != 2 {
			t.Errorf("Output %q, chunks %q; want the answer in two chunks", res.Output, got)
		}
		if got, want := res.Usage.Total, (usage.Usage{Requests: 1, InputTokens: 25, OutputTokens: 8}); got != want {
			t.Errorf("Usage.Total = %+v, want %+v", got, want)
		}
		if reqs := s.requests(); len(reqs) != 1 || reqs[0].Path != "/model/"+sonnet+"/invoke-with-response-stream" || reqs[0].SignatureErr != nil {
			t.Errorf("requests %+v, want one signed InvokeModelWithResponseStream", reqs)
		}
	})
	t.Run("a turn with tools is asked for whole", func(t *testing.T) {
		fakeAWS(t, false)
		s := newStandIn(t, false, answer{body: lookupOslo}, answer{body: oslo})
		f := factory(t, llmYAML(s.URL, "    region: "+region+"\n", sonnet))
		chunks, stream := collect()
		a := assistant.New[string]("geo", assistant.WithModels(f), assistant.WithTools(lookup()), assistant.WithStream(stream))
		res, err := a.Run(ctx(t), assistant.Input{Prompt: "Which city has 4000 people?"})
		if err != nil {
			t.Fatal(err)
		}
		// The client's stream would have lost the call: the tool ran, and the answer came whole.
		if got := chunks(); res.Output != "Oslo" || res.Usage.Total.ToolCalls != 1 || !cmp.Equal(got, []string{"Let me look that up.", "Oslo"}) {
			t.Errorf("Output %q, %d tool calls, chunks %q; want Oslo after one call, each turn's text as one chunk", res.Output, res.Usage.Total.ToolCalls, got)
		}
		for _, r := range s.requests() {
			if r.Path != "/model/"+sonnet+"/invoke" {
				t.Errorf("request to %s, want InvokeModel", r.Path)
			}
		}
	})
}

// collect returns a stream function that keeps the chunks, and a function that returns them.
func collect() (func() []string, assistant.StreamFunc) {
	var mu sync.Mutex
	var chunks []string
	return func() []string {
			mu.Lock()
			defer mu.Unlock()
			return append([]string(nil), chunks...)
		}, func(_ context.Context, c assistant.Chunk) error {
			mu.Lock()
			defer mu.Unlock()
			chunks = append(chunks, c.Text)
			return nil
		}
}

func TestProviderErrors(t *testing.T) {
	tests := []struct {
		name     string
		script   []answer
		status   int // of the ProviderError; 0 for success
		message  string
		attempts int
	}{
		{name: "a 4xx is not retried", script: []answer{{status: 400, body: "Malformed input request: #: extraneous key [foo] is not permitted"}},
			status: 400, message: "Malformed input request", attempts: 1},
		{name: "a refused key", script: []answer{{status: 403, body: "The security token included in the request is invalid."}},
			status: 403, message: "security token", attempts: 1},
		{name: "a 5xx is retried", script: []answer{{status: 503, body: "Bedrock is unable to process your request."}, {body: oslo}},
			attempts: 2},
		{name: "a 429 is retried", script: []answer{{status: 429, body: "Too many requests, please wait before trying again."}, {body: oslo}},
			attempts: 2},
		{name: "a 5xx that lasts", script: []answer{{status: 500, body: "internal"}, {status: 503, body: "busy"}, {status: 503, body: "Bedrock is unable to process your request."}},
			status: 503, message: "Bedrock is unable to process your request.", attempts: 3},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fakeAWS(t, true)
			s := newStandIn(t, false, tc.script...)
			f := factory(t, llmYAML(s.URL, "    region: "+region+"\n", sonnet))
			m, err := f.Model(ctx(t), "sonnet")
			if err != nil {
				t.Fatal(err)
			}
			reply, err := m.Generate(ctx(t), []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, "Capital of Norway?")})
			if n := len(s.requests()); n != tc.attempts {
				t.Errorf("%d attempts, want %d", n, tc.attempts)
			}
			if tc.status == 0 {
				if err != nil || reply.Text != "Oslo" {
					t.Errorf("reply %q, err %v; want Oslo after the retry", reply.Text, err)
				}
				return
			}
			var pe *model.ProviderError
			if !errors.As(err, &pe) || pe.Status != tc.status || !strings.Contains(pe.Message, tc.message) || pe.Provider != "aws" || pe.Model != "sonnet" {
				t.Fatalf("err = %#v (%v); want a *model.ProviderError of aws's sonnet, status %d, saying %q", err, err, tc.status, tc.message)
			}
			noSecret(t, err)
		})
	}
}

// noSecret fails the test if err shows the secret access key or the session token.
func noSecret(t *testing.T, err error) {
	t.Helper()
	if err != nil && (strings.Contains(err.Error(), secretKey) || strings.Contains(err.Error(), sessionToken)) {
		t.Errorf("the error shows a secret: %v", err)
	}
}

func TestConfigurationErrorsSayWhatToDo(t *testing.T) {
	tests := []struct {
		name    string
		doc     func(url string) string
		env     map[string]string // the AWS SDK's, set over fakeAWS's
		profile string            // written to the AWS config file
		want    []string          // each in the error; none for a model that works
	}{{
		name: "no region anywhere",
		doc:  func(url string) string { return llmYAML(url, "", sonnet) },
		want: []string{`model "sonnet" of provider "aws"`, "no AWS region", "region: us-east-1", "AWS_REGION"},
	}, {
		name: "the region from AWS_REGION",
		doc:  func(url string) string { return llmYAML(url, "", sonnet) },
		env:  map[string]string{"AWS_REGION": region},
	}, {
		name:    "the region from the profile",
		doc:     func(url string) string { return llmYAML(url, "", sonnet) },
		profile: "[default]\nregion = " + region + "\n",
	}, {
		name: "the region from the file over AWS_REGION",
		doc:  func(url string) string { return llmYAML(url, "    region: "+region+"\n", sonnet) },
		env:  map[string]string{"AWS_REGION": "us-east-1"},
	}, {
		name: "a region variable that is not set",
		doc:  func(url string) string { return llmYAML(url, "    region: ${AWS_REGION}\n", sonnet) },
		want: []string{`provider "aws" (llm.yaml:2)`, "AWS_REGION is not set"},
	}, {
		name: "a profile that does not exist",
		doc:  func(url string) string { return llmYAML(url, "    region: "+region+"\n", sonnet) },
		env:  map[string]string{"AWS_PROFILE": "nosuch"},
		want: []string{"loading the AWS configuration", "nosuch"},
	}, {
		name: "a model of a family the client does not know",
		doc: func(url string) string {
			return llmYAML(url, "    region: "+region+"\n", "mistral.mistral-large-2402-v1:0")
		},
		want: []string{`"mistral.mistral-large-2402-v1:0"`, "anthropic", "e.g. anthropic.claude"},
	}, {
		name: "a region for a type that takes none",
		doc: func(string) string {
			return "providers:\n  openai:\n    api_key: sk-test\n    region: " + region + "\n" +
				"models:\n  sonnet: { provider: openai, model: gpt-5-mini }\n"
		},
		want: []string{`provider "openai" (llm.yaml:2) has a region`, "type openai does not take", "remove it"},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			configFile := fakeAWS(t, true)
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			if tc.profile != "" {
				if err := writeFile(configFile, tc.profile); err != nil {
					t.Fatal(err)
				}
			}
			s := newStandIn(t, false, answer{body: oslo})
			f := factory(t, tc.doc(s.URL), llmfactory.WithEnv(func(string) (string, bool) { return "", false }))
			m, err := f.Model(ctx(t), "sonnet")
			if err == nil {
				_, err = m.Generate(ctx(t), []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, "Capital of Norway?")})
			}
			noSecret(t, err)
			if len(tc.want) == 0 {
				if err != nil {
					t.Fatal(err)
				}
				if r := s.requests(); len(r) != 1 || r[0].SignatureErr != nil {
					t.Errorf("requests %+v, want one signed for %s", r, region)
				}
				return
			}
			if err == nil {
				t.Fatalf("no error; want one saying %q", tc.want)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("the error %q does not say %q", err, w)
				}
			}
			if n := len(s.requests()); n != 0 {
				t.Errorf("%d requests were sent, want none", n)
			}
		})
	}
}

func TestNoCredentials(t *testing.T) {
	fakeAWS(t, false)
	t.Setenv("AWS_ACCESS_KEY_ID", "")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "")
	s := newStandIn(t, false)
	f := factory(t, llmYAML(s.URL, "    region: "+region+"\n", sonnet))
	m, err := f.Model(ctx(t), "sonnet")
	if err != nil {
		t.Fatal(err)
	}
	_, err = m.Generate(ctx(t), []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, "Capital of Norway?")})
	if err == nil || !strings.Contains(err.Error(), "found no credentials") || !strings.Contains(err.Error(), "AWS_ACCESS_KEY_ID") {
		t.Errorf("err = %v, want one about the missing credentials, saying where they go", err)
	}
	var pe *model.ProviderError
	if errors.As(err, &pe) {
		t.Errorf("err = %v is a ProviderError: another provider could not fix our configuration", err)
	}
	if n := len(s.requests()); n != 0 {
		t.Errorf("%d requests were sent without credentials", n)
	}
}

func TestAPIKeyIsABedrockAPIKey(t *testing.T) {
	fakeAWS(t, true)
	const key = "ABSKQmVkcm9ja0FQSUtleS1TRU5USU5FTC0wMTIz"
	s := newStandIn(t, true, answer{body: oslo}, answer{status: 403, body: "Invalid API key " + key})
	f := factory(t, llmYAML(s.URL, "    region: "+region+"\n    api_key: ${AWS_BEARER_TOKEN_BEDROCK}\n", sonnet),
		llmfactory.WithHTTPClient(s.Client()),
		llmfactory.WithEnv(func(k string) (string, bool) { return key, k == "AWS_BEARER_TOKEN_BEDROCK" }))
	m, err := f.Model(ctx(t), "sonnet")
	if err != nil {
		t.Fatal(err)
	}
	msgs := []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, "Capital of Norway?")}
	if reply, err := m.Generate(ctx(t), msgs); err != nil || reply.Text != "Oslo" {
		t.Fatalf("reply %q, err %v", reply.Text, err)
	}
	_, err = m.Generate(ctx(t), msgs)
	var pe *model.ProviderError
	if !errors.As(err, &pe) || pe.Status != http.StatusForbidden || strings.Contains(err.Error(), key) || !strings.Contains(err.Error(), "[redacted]") {
		t.Errorf("err = %v; want a 403 with the key redacted", err)
	}
	for i, r := range s.requests() {
		if got := r.Header.Get("Authorization"); got != "Bearer "+key {
			t.Errorf("request %d: Authorization %q, want the key as a bearer token", i, got)
		}
		if r.Header.Get("X-Amz-Security-Token") != "" {
			t.Errorf("request %d carries the session token: the chain's credentials are not for a provider with a key", i)
		}
	}
}

func TestOtherFamiliesTakeNoTools(t *testing.T) {
	fakeAWS(t, false)
	const llama = "meta.llama3-70b-instruct-v1:0"
	s := newStandIn(t, false, answer{body: `{"generation":" Oslo","prompt_token_count":12,"generation_token_count":3,"stop_reason":"stop"}`})
	f := factory(t, llmYAML(s.URL, "    region: "+region+"\n", llama))
	m, err := f.Model(ctx(t), "sonnet")
	if err != nil {
		t.Fatal(err)
	}
	if !m.NoTools || m.Provider != "bedrock" || m.ID != llama {
		t.Errorf("model: NoTools %v, provider %q, ID %q; want NoTools, bedrock, %s", m.NoTools, m.Provider, m.ID, llama)
	}
	msgs := []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, "Capital of Norway?")}
	if _, err := m.Generate(ctx(t), msgs, llms.WithTools([]llms.Tool{lookupDef()})); err == nil || !strings.Contains(err.Error(), "takes no tools") {
		t.Errorf("err = %v; want tools refused, not dropped", err)
	}
	a := assistant.New[string]("geo", assistant.WithModels(f))
	res, err := a.Run(ctx(t), assistant.Input{Prompt: "Capital of Norway?"})
	if err != nil {
		t.Fatal(err)
	}
	if strings.TrimSpace(res.Output) != "Oslo" || res.Usage.Total != (usage.Usage{Requests: 1, InputTokens: 12, OutputTokens: 3}) {
		t.Errorf("Output %q, usage %+v", res.Output, res.Usage.Total)
	}
	reqs := s.requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests, want 1", len(reqs))
	}
	body := reqs[0].JSON(t)
	if p, _ := body["prompt"].(string); !strings.Contains(p, "Capital of Norway?") || body["max_gen_len"] != 512.0 {
		t.Errorf("body %v; want Meta's, with the prompt and the family's own output limit", body)
	}
}

func TestModelFacts(t *testing.T) {
	fakeAWS(t, false)
	f := factory(t, llmYAML("http://127.0.0.1:1", "    region: "+region+"\n", "us."+sonnet))
	m, err := f.Model(ctx(t), "sonnet")
	if err != nil {
		t.Fatal(err)
	}
	if m.ID != "us."+sonnet || m.Provider != "bedrock" || m.Shape != model.ShapeOpenAI || m.NoTools || m.StrictTools || len(m.Options) != 0 {
		t.Errorf("model: ID %q, provider %q, shape %v, NoTools %v, StrictTools %v, %d default options; "+
			"want the inference profile, bedrock, ShapeOpenAI, tools, no strict tools and none (the limit is the client's)",
			m.ID, m.Provider, m.Shape, m.NoTools, m.StrictTools, len(m.Options))
	}
}

// An answer cut at its output limit comes back as a cut answer, with its text and usage, as
// from the anthropic type: langchaingo's client alone would fail it and lose both.
func TestACutAnswer(t *testing.T) {
	fakeAWS(t, false)
	const cut = `{"type":"message","role":"assistant","content":[{"type":"text","text":"Oslo is the capital of"}],` +
		`"stop_reason":"max_tokens","stop_sequence":null,"usage":{"input_tokens":20,"output_tokens":5}}`
	s := newStandIn(t, false, answer{body: cut}, answer{body: cut})
	f := factory(t, llmYAML(s.URL, "    region: "+region+"\n", sonnet))
	m, err := f.Model(ctx(t), "sonnet")
	if err != nil {
		t.Fatal(err)
	}
	reply, err := m.Generate(ctx(t), []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, "Capital of Norway?")}, llms.WithMaxTokens(5))
	if err != nil {
		t.Fatal(err)
	}
	want := model.Reply{Text: "Oslo is the capital of", StopReason: "max_tokens", Usage: usage.Usage{Requests: 1, InputTokens: 20, OutputTokens: 5}}
	if diff := cmp.Diff(want, reply); diff != "" || reply.Finish() != model.FinishLength {
		t.Errorf("reply (-want +got):\n%s", diff)
	}
	if got := s.requests()[0].JSON(t)["max_tokens"]; got != 5.0 {
		t.Errorf("max_tokens %v, want the call's 5", got)
	}

	a := assistant.New[string]("geo", assistant.WithModels(f))
	res, err := a.Run(ctx(t), assistant.Input{Prompt: "Capital of Norway?"})
	var stop *assistant.ModelStopError
	if !errors.As(err, &stop) || !errors.Is(err, assistant.ErrTokenLimit) {
		t.Errorf("err = %v; want the assistant's ErrTokenLimit", err)
	}
	if res == nil || res.Usage.Total.OutputTokens != 5 {
		t.Errorf("result %+v; want the cut answer's tokens counted", res)
	}
}

// llm.yaml.example's bedrock provider and model, commented out there for programs without
// the type, are a file that works once uncommented.
func TestTheExampleFile(t *testing.T) {
	fakeAWS(t, false)
	data, err := os.ReadFile(filepath.Join("..", "..", "..", "llm.yaml.example"))
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	block := false
	for _, l := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(l, "  # aws:") || strings.HasPrefix(l, "  # claude-on-aws:") {
			block = true
		}
		if rest, ok := strings.CutPrefix(l, "  # "); block && ok {
			l = "  " + rest
		} else {
			block = false
		}
		lines = append(lines, l)
	}
	f := factory(t, strings.Join(lines, "\n"), llmfactory.WithEnv(func(string) (string, bool) { return "", false }))
	m, err := f.Model(ctx(t), "claude-on-aws")
	if err != nil {
		t.Fatal(err)
	}
	if m.Provider != "bedrock" || m.ID != "us."+sonnet || m.NoTools {
		t.Errorf("model: provider %q, ID %q, NoTools %v; want an Anthropic model on bedrock", m.Provider, m.ID, m.NoTools)
	}
}
