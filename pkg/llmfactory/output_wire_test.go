package llmfactory_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/cadrehq/cadre/pkg/llmfactory"
	"github.com/cadrehq/cadre/pkg/model"
	"github.com/google/go-cmp/cmp"
	"github.com/tmc/langchaingo/llms"
)

// The wire tests of native structured output: the request of a model from llm.yaml, through
// langchaingo's real clients, carries the output schema its context holds in its API's own
// field, and the answers the APIs send — an answer in the schema, a refusal, a 400 on the
// schema — reach the caller as model.Read and the assistant expect them. The servers are
// capture servers on 127.0.0.1 that record each request and answer with canned JSON, written
// as the real APIs write theirs.

// capture is a provider's API on 127.0.0.1: it records the requests it gets, and answers
// each with answer.
type capture struct {
	srv    *httptest.Server
	answer func(w http.ResponseWriter, body map[string]any)

	mu     sync.Mutex
	paths  []string
	bodies []map[string]any
}

func newCapture(t *testing.T, answer func(w http.ResponseWriter, body map[string]any)) *capture {
	t.Helper()
	c := &capture{answer: answer}
	c.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		data, _ := io.ReadAll(r.Body)
		var body map[string]any
		if err := json.Unmarshal(data, &body); err != nil {
			http.Error(w, `{"error":{"message":"not JSON"}}`, http.StatusBadRequest)
			return
		}
		c.mu.Lock()
		c.paths, c.bodies = append(c.paths, r.URL.Path), append(c.bodies, body)
		c.mu.Unlock()
		c.answer(w, body)
	}))
	t.Cleanup(c.srv.Close)
	return c
}

// requests returns the bodies of the requests received so far.
func (c *capture) requests() []map[string]any {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]map[string]any(nil), c.bodies...)
}

// model parses an llm.yaml whose provider p, of the keys given (flow style, with
// base_url: ${URL}), serves model m of id, and returns m.
func (c *capture) model(t *testing.T, provider, id string) model.Model {
	t.Helper()
	doc := "providers:\n  p: { " + provider + " }\nmodels:\n  m: { provider: p, model: '" + id + "' }\nretry: { max_attempts: 2, initial_backoff: 1ms, max_backoff: 1ms }\n"
	f, err := llmfactory.Parse([]byte(doc), llmfactory.WithEnv(func(k string) (string, bool) { return c.srv.URL, k == "URL" }))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	m, err := f.Model(context.Background(), "m")
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// cityAnswer is the answer the servers give, in the schema.
const cityAnswer = `{"city":"Oslo","total":4000}`

// citySchema is the output schema of the tests, with its strict form, as the assistant makes
// them.
var citySchema = &model.OutputSchema{
	Name:        "city_answer",
	Description: "A city and its population.",
	Schema:      json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"},"total":{"type":"integer"}},"required":["city"]}`),
	Strict: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"},"total":{"type":["integer","null"]}},` +
		`"required":["city","total"],"additionalProperties":false}`),
}

// openAIAnswer answers a chat request of OpenAI's API with the message (its members as JSON),
// whole or streamed in the deltas given, as the request asks.
func openAIAnswer(message string, deltas ...string) func(http.ResponseWriter, map[string]any) {
	return func(w http.ResponseWriter, body map[string]any) {
		const usage = `{"prompt_tokens":30,"completion_tokens":9,"total_tokens":39}`
		if body["stream"] == true {
			w.Header().Set("Content-Type", "text/event-stream")
			for _, d := range deltas {
				fmt.Fprintf(w, "data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":%s,\"finish_reason\":null}]}\n\n", d)
			}
			fmt.Fprintf(w, "data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n")
			fmt.Fprintf(w, "data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[],\"usage\":%s}\n\n", usage)
			fmt.Fprint(w, "data: [DONE]\n\n")
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":{"role":"assistant",%s},"logprobs":null,"finish_reason":"stop"}],"usage":%s}`,
			message, usage)
	}
}

// openAIText answers with text, whole or streamed in two pieces.
func openAIText(text string) func(http.ResponseWriter, map[string]any) {
	half := len(text) / 2
	delta := func(s string) string { return fmt.Sprintf(`{"content":%q}`, s) }
	return openAIAnswer(fmt.Sprintf(`"content":%q,"refusal":null`, text),
		`{"role":"assistant","content":"","refusal":null}`, delta(text[:half]), delta(text[half:]))
}

// anthropicAnswer answers a Messages request with the content blocks (JSON) and stop reason,
// whole or streamed, as the request asks.
func anthropicAnswer(stop string, blocks ...string) func(http.ResponseWriter, map[string]any) {
	return func(w http.ResponseWriter, body map[string]any) {
		if body["stream"] != true {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"id":"msg_1","type":"message","role":"assistant","model":"claude","content":[%s],"stop_reason":%q,"stop_sequence":null,`+
				`"usage":{"input_tokens":30,"output_tokens":9}}`, strings.Join(blocks, ","), stop)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		event := func(typ, data string) { fmt.Fprintf(w, "event: %s\ndata: %s\n\n", typ, data) }
		event("message_start", `{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude","content":[],`+
			`"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":30,"output_tokens":1}}}`)
		for i, b := range blocks {
			var block struct{ Text string }
			_ = json.Unmarshal([]byte(b), &block)
			event("content_block_start", fmt.Sprintf(`{"type":"content_block_start","index":%d,"content_block":{"type":"text","text":""}}`, i))
			event("content_block_delta", fmt.Sprintf(`{"type":"content_block_delta","index":%d,"delta":{"type":"text_delta","text":%q}}`, i, block.Text))
			event("content_block_stop", fmt.Sprintf(`{"type":"content_block_stop","index":%d}`, i))
		}
		event("message_delta", fmt.Sprintf(`{"type":"message_delta","delta":{"stop_reason":%q,"stop_sequence":null},"usage":{"output_tokens":9}}`, stop))
		event("message_stop", `{"type":"message_stop"}`)
	}
}

// textBlock is an Anthropic text block.
func textBlock(text string) string { return fmt.Sprintf(`{"type":"text","text":%q}`, text) }

// errorAnswer answers every request with status and an error body of OpenAI's and
// Anthropic's shape.
func errorAnswer(status int, message string) func(http.ResponseWriter, map[string]any) {
	return func(w http.ResponseWriter, _ map[string]any) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		fmt.Fprintf(w, `{"error":{"message":%q,"type":"invalid_request_error","param":null,"code":null}}`, message)
	}
}

// cityPrompt is the conversation of the tests.
var cityPrompt = []llms.MessageContent{
	llms.TextParts(llms.ChatMessageTypeSystem, "Answer in JSON."),
	llms.TextParts(llms.ChatMessageTypeHuman, "Population of Oslo?"),
}

// decode decodes v, a value of a decoded JSON body, as JSON into a value of any.
func asJSON(t *testing.T, v any) any {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func parseJSON(t *testing.T, s string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("%v: %s", err, s)
	}
	return v
}

// The output schema goes in each API's own field, beside the tools, streamed or not, and the
// answer in the schema comes back as the reply's text, in one request. A model the table
// knows takes one is NativeOutput.
func TestOutputSchemaOnTheWire(t *testing.T) {
	t.Parallel()
	openAIField := `{"type":"json_schema","json_schema":{"name":"city_answer","description":"A city and its population.",` +
		`"schema":` + string(citySchema.Strict) + `,"strict":true}}`
	anthropicField := `{"format":{"type":"json_schema","schema":{"type":"object","properties":{"city":{"type":"string"},"total":{"type":"integer"}},` +
		`"required":["city"],"additionalProperties":false}}}`
	tests := []struct {
		name     string
		provider string
		id       string
		path     string // where the request goes
		answer   func(http.ResponseWriter, map[string]any)
		field    string // the member of the body the schema goes in
		want     string // its value
	}{
		{"openai", "type: openai, api_key: k, base_url: '${URL}/v1'", "gpt-4o-2024-08-06", "/v1/chat/completions",
			openAIText(cityAnswer), "response_format", openAIField},
		{"azure", "type: azure, api_key: k, base_url: '${URL}', api_version: 2024-10-21", "gpt-4.1-mini", "/openai/deployments/gpt-4.1-mini/chat/completions",
			openAIText(cityAnswer), "response_format", openAIField},
		{"mistral", "type: mistral, api_key: k, base_url: '${URL}/v1'", "mistral-small-latest", "/v1/chat/completions",
			openAIText(cityAnswer), "response_format", openAIField},
		{"ollama", "type: ollama, base_url: '${URL}/v1'", "qwen3:8b", "/v1/chat/completions",
			openAIText(cityAnswer), "response_format", openAIField},
		{"groq", "type: groq, api_key: k, base_url: '${URL}/openai/v1'", "openai/gpt-oss-20b", "/openai/v1/chat/completions",
			openAIText(cityAnswer), "response_format", openAIField},
		{"anthropic", "type: anthropic, api_key: k, base_url: '${URL}/v1'", "claude-sonnet-4-5", "/v1/messages",
			anthropicAnswer("end_turn", textBlock(cityAnswer)), "output_config", anthropicField},
	}
	for _, tc := range tests {
		for _, streamed := range []bool{false, true} {
			t.Run(named(tc.name, streamed), func(t *testing.T) {
				t.Parallel()
				c := newCapture(t, tc.answer)
				m := c.model(t, tc.provider, tc.id)
				// The table knows the model, except OpenAI's at another address than OpenAI's: a
				// server that copies its API (see TestModelOutputForm).
				if want := model.NativeOutput; m.Output != want && tc.name != "openai" {
					t.Errorf("Output = %q; want %q, from the table", m.Output, want)
				}
				opts := []llms.CallOption{llms.WithTools(cityTools)}
				if streamed {
					opts = append(opts, streaming)
				}
				reply, err := m.Generate(model.WithOutputSchema(ctx(t), citySchema), cityPrompt, opts...)
				if err != nil {
					t.Fatal(err)
				}
				var got answer
				if err := json.Unmarshal([]byte(reply.Text), &got); err != nil || got != (answer{City: "Oslo", Total: 4000}) {
					t.Errorf("reply %q decodes to %+v (%v); want the answer", reply.Text, got, err)
				}
				if reply.Finish() != model.FinishDone || reply.Usage.OutputTokens != 9 {
					t.Errorf("reply finishes %v with %d output tokens; want done, and 9", reply.Finish(), reply.Usage.OutputTokens)
				}
				bodies := c.requests()
				c.mu.Lock()
				paths := c.paths
				c.mu.Unlock()
				if len(bodies) != 1 || paths[0] != tc.path {
					t.Fatalf("%d requests, to %v; want one to %s", len(bodies), paths, tc.path)
				}
				if diff := cmp.Diff(parseJSON(t, tc.want), asJSON(t, bodies[0][tc.field])); diff != "" {
					t.Errorf("%s (-want +got):\n%s", tc.field, diff)
				}
				if tools, _ := bodies[0]["tools"].([]any); len(tools) != 2 {
					t.Errorf("tools %v; want both, beside the schema", bodies[0]["tools"])
				}
				if streamed != (bodies[0]["stream"] == true) {
					t.Errorf("stream %v; want %v", bodies[0]["stream"], streamed)
				}
			})
		}
	}
}

// A request without a schema carries none of the fields, and llm.yaml's JSON mode stays as
// the client writes it.
func TestNoOutputSchemaNoField(t *testing.T) {
	t.Parallel()
	c := newCapture(t, openAIText(cityAnswer))
	m := c.model(t, "type: openai, api_key: k, base_url: '${URL}/v1'", "gpt-4o")
	if _, err := m.Generate(ctx(t), cityPrompt, llms.WithJSONMode()); err != nil {
		t.Fatal(err)
	}
	a := newCapture(t, anthropicAnswer("end_turn", textBlock("hi")))
	if _, err := a.model(t, "type: anthropic, api_key: k, base_url: '${URL}/v1'", "claude-sonnet-4-5").Generate(ctx(t), cityPrompt); err != nil {
		t.Fatal(err)
	}
	if got := asJSON(t, c.requests()[0]["response_format"]); !cmp.Equal(got, parseJSON(t, `{"type":"json_object"}`)) {
		t.Errorf("response_format %v; want JSON mode, as the client wrote it", got)
	}
	if v, ok := a.requests()[0]["output_config"]; ok {
		t.Errorf("output_config %v in a request without a schema", v)
	}
}

// OpenAI's refusal, which langchaingo's client drops, reaches model.Read as the reply's
// Refusal, whole or streamed in pieces: the reply finishes with FinishRefusal, its usage
// counted.
func TestOpenAIRefusal(t *testing.T) {
	t.Parallel()
	const refusal = "I'm sorry, I can't help with that request."
	answer := openAIAnswer(fmt.Sprintf(`"content":null,"refusal":%q`, refusal),
		`{"role":"assistant","content":null,"refusal":""}`, `{"refusal":"I'm sorry, I can't "}`, `{"refusal":"help with that request."}`)
	for _, streamed := range []bool{false, true} {
		t.Run(named("refusal", streamed), func(t *testing.T) {
			t.Parallel()
			c := newCapture(t, answer)
			m := c.model(t, "type: openai, api_key: k, base_url: '${URL}/v1'", "gpt-4o")
			var opts []llms.CallOption
			if streamed {
				opts = append(opts, streaming)
			}
			reply, err := m.Generate(model.WithOutputSchema(ctx(t), citySchema), cityPrompt, opts...)
			if err != nil {
				t.Fatal(err)
			}
			if reply.Refusal != refusal || reply.Text != "" || reply.Finish() != model.FinishRefusal {
				t.Errorf("reply: refusal %q, text %q, finish %v; want the refusal, no text, FinishRefusal", reply.Refusal, reply.Text, reply.Finish())
			}
			if reply.Usage.InputTokens != 30 || reply.Usage.OutputTokens != 9 {
				t.Errorf("usage %+v; want the refusal's, 30 and 9", reply.Usage)
			}
		})
	}
	// An answer with "refusal": null has none.
	c := newCapture(t, openAIText(cityAnswer))
	for _, opts := range [][]llms.CallOption{nil, {streaming}} {
		reply, err := c.model(t, "type: openai, api_key: k, base_url: '${URL}/v1'", "gpt-4o").Generate(ctx(t), cityPrompt, opts...)
		if err != nil || reply.Refusal != "" || reply.Text != cityAnswer {
			t.Errorf("reply %+v, %v; want the answer without a refusal", reply, err)
		}
	}
}

// Anthropic's refusal stop reason reaches model.Read, with the text before it, and an answer
// refused before any text is a refusal too, not an answer that could not be read.
func TestAnthropicRefusal(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		blocks []string
		text   string
	}{
		{"without content", nil, ""},
		{"with text", []string{textBlock("I can't help with")}, "I can't help with"},
	} {
		for _, streamed := range []bool{false, true} {
			t.Run(named(tc.name, streamed), func(t *testing.T) {
				t.Parallel()
				c := newCapture(t, anthropicAnswer("refusal", tc.blocks...))
				m := c.model(t, "type: anthropic, api_key: k, base_url: '${URL}/v1'", "claude-sonnet-4-5")
				var opts []llms.CallOption
				if streamed {
					opts = append(opts, streaming)
				}
				reply, err := m.Generate(model.WithOutputSchema(ctx(t), citySchema), cityPrompt, opts...)
				if err != nil {
					t.Fatal(err)
				}
				if reply.Finish() != model.FinishRefusal || reply.StopReason != "refusal" || reply.Text != tc.text {
					t.Errorf("reply: finish %v, stop reason %q, text %q; want FinishRefusal, refusal, %q", reply.Finish(), reply.StopReason, reply.Text, tc.text)
				}
				if reply.Usage.OutputTokens != 9 {
					t.Errorf("usage %+v; want the refusal's 9 output tokens", reply.Usage)
				}
			})
		}
	}
}

// A 400 that names the schema, on a request that carried one, is a *model.ProviderError that
// wraps model.ErrOutputSchema, sent once; any other 400, or the same on a request without a
// schema, is not.
func TestSchemaRefusedWithA400(t *testing.T) {
	t.Parallel()
	const (
		openAI    = "type: openai, api_key: k, base_url: '${URL}/v1'"
		anthropic = "type: anthropic, api_key: k, base_url: '${URL}/v1'"
		mistral   = "type: mistral, api_key: k, base_url: '${URL}/v1'"
	)
	tests := []struct {
		name     string
		provider string
		status   int
		message  string
		schema   bool
		want     bool
	}{
		{"openai names response_format", openAI, 400, "Invalid schema for response_format 'city_answer': In context=(), 'required' is required to be supplied.", true, true},
		{"openai: the same without a schema", openAI, 400, "Invalid schema for response_format 'city_answer'.", false, false},
		{"openai: another 400", openAI, 400, "Invalid 'messages[1].content': string too long.", true, false},
		{"anthropic names output_config", anthropic, 400, "output_config.format.schema: For 'object' type, 'additionalProperties' must be explicitly set to false", true, true},
		{"anthropic: a model without structured outputs", anthropic, 400, "'claude-3-haiku-20240307' does not support output format", true, true},
		{"mistral answers 422", mistral, 422, "response_format.json_schema.schema: Input should be a valid dictionary", true, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := newCapture(t, errorAnswer(tc.status, tc.message))
			m := c.model(t, tc.provider, "claude-sonnet-4-5")
			ctx := ctx(t)
			if tc.schema {
				ctx = model.WithOutputSchema(ctx, citySchema)
			}
			_, err := m.Generate(ctx, cityPrompt)
			var pe *model.ProviderError
			if !errors.As(err, &pe) || pe.Status != tc.status || !strings.Contains(pe.Message, tc.message[:20]) {
				t.Fatalf("err = %v; want a ProviderError with the %d and the provider's message", err, tc.status)
			}
			if got := errors.Is(err, model.ErrOutputSchema); got != tc.want {
				t.Errorf("errors.Is(%v, model.ErrOutputSchema) = %v; want %v", err, got, tc.want)
			}
			if n := len(c.requests()); n != 1 {
				t.Errorf("%d requests; want 1: a 4xx is not retried", n)
			}
		})
	}
}

// A schema outside what Anthropic takes is refused before any request: the error wraps
// model.ErrOutputSchema and says what and where. The same schema goes to OpenAI (in its strict
// form or not), whose limits are its own.
func TestAnthropicRefusesASchemaOutsideItsSubset(t *testing.T) {
	t.Parallel()
	bounded := &model.OutputSchema{Name: "bounded", Schema: json.RawMessage(`{"type":"object","properties":{"total":{"type":"integer","minimum":0}}}`)}
	c := newCapture(t, anthropicAnswer("end_turn", textBlock(cityAnswer)))
	m := c.model(t, "type: anthropic, api_key: k, base_url: '${URL}/v1'", "claude-sonnet-4-5")
	_, err := m.Generate(model.WithOutputSchema(ctx(t), bounded), cityPrompt)
	if !errors.Is(err, model.ErrOutputSchema) || !strings.Contains(err.Error(), `"minimum" (at properties.total)`) ||
		!strings.Contains(err.Error(), `provider "p", model "m"`) {
		t.Errorf("err = %v; want model.ErrOutputSchema, naming the model, the keyword and where it is", err)
	}
	if model.CanFallback(err) {
		t.Errorf("CanFallback(%v): the schema is the request's, not the provider's failure", err)
	}
	if n := len(c.requests()); n != 0 {
		t.Errorf("%d requests sent; want none", n)
	}
	o := newCapture(t, openAIText(cityAnswer))
	if _, err := o.model(t, "type: openai, api_key: k, base_url: '${URL}/v1'", "gpt-4o").Generate(model.WithOutputSchema(ctx(t), bounded), cityPrompt); err != nil {
		t.Errorf("openai: %v", err)
	}
}
