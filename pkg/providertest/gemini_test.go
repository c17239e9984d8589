package providertest_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/cadrehq/cadre/pkg/llmtest"
	"github.com/cadrehq/cadre/pkg/providertest"
	"github.com/cadrehq/cadre/pkg/usage"
	"github.com/google/go-cmp/cmp"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/llms/googleai"
	"google.golang.org/api/option"
)

// geminiClient is langchaingo's googleai client for s. Without an HTTP client of its own, it
// sends the key in the query (key=...); cadre's factory sends it in the x-goog-api-key header.
func geminiClient(t *testing.T, s *providertest.Server, key string) *googleai.GoogleAI {
	t.Helper()
	llm, err := googleai.New(context.Background(), googleai.WithRest(), googleai.WithAPIKey(key),
		googleai.WithDefaultModel("gemini-test"), withEndpoint(s.URL()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { llm.Close() })
	return llm
}

func withEndpoint(url string) googleai.Option {
	return func(o *googleai.Options) { o.ClientOptions = append(o.ClientOptions, option.WithEndpoint(url)) }
}

var gemini = providers[2]

func TestGeminiServerText(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		msgs []llms.MessageContent
		path string // the client sends one user message to :generateContent, others to :streamGenerateContent
	}{
		{"one message", human("Hi"), ":generateContent"},
		{"with a system prompt", []llms.MessageContent{
			llms.TextParts(llms.ChatMessageTypeSystem, "Be brief."),
			llms.TextParts(llms.ChatMessageTypeHuman, "Hi"),
		}, ":streamGenerateContent"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			m := llmtest.NewScripted(llmtest.Reply{Text: "Hello there.",
				Usage: usage.Usage{InputTokens: 1200, OutputTokens: 300, CacheReadTokens: 1000}})
			s := providertest.NewGemini(m)
			defer s.Close()

			resp, err := geminiClient(t, s, "k").GenerateContent(context.Background(), c.msgs, llms.WithMaxTokens(50))
			if err != nil {
				t.Fatal(err)
			}
			ch := resp.Choices[0]
			if ch.Content != "Hello there." || ch.StopReason != "FinishReasonStop" {
				t.Errorf("got %q, stop %q; want %q, FinishReasonStop", ch.Content, ch.StopReason, "Hello there.")
			}
			for key, want := range map[string]int32{"PromptTokens": 1200, "CompletionTokens": 300, "TotalTokens": 1500, "CachedTokens": 1000} {
				if got := ch.GenerationInfo[key]; got != want {
					t.Errorf("GenerationInfo[%s] = %v, want %d", key, got, want)
				}
			}

			req := m.Requests()[0]
			if diff := cmp.Diff(c.msgs, req.Messages); diff != "" {
				t.Errorf("the model's messages (-sent +got):\n%s", diff)
			}
			o := req.Options
			if o.Model != "gemini-test" || o.MaxTokens != 50 || o.TopK != 3 || o.CandidateCount != 1 {
				t.Errorf("the model's options: model %q, max tokens %d, top k %d, candidates %d; want gemini-test, 50, and the client's 3 and 1",
					o.Model, o.MaxTokens, o.TopK, o.CandidateCount)
			}
			if body := string(s.Bodies()[0]); !strings.Contains(body, `"maxOutputTokens":50`) {
				t.Errorf("the request: %s", body)
			}
		})
	}
}

func TestGeminiServerToolRoundTrip(t *testing.T) {
	t.Parallel()
	m := weatherTurn()
	s := providertest.NewGemini(m)
	defer s.Close()
	llm := geminiClient(t, s, "k")
	ctx := context.Background()
	tools := llms.WithTools([]llms.Tool{weatherTool})
	msgs := human("Weather in Oslo and Bergen?")

	resp, err := llm.GenerateContent(ctx, msgs, tools)
	if err != nil {
		t.Fatal(err)
	}
	// One candidate: the text and the calls, which the API sends without IDs.
	c := resp.Choices[0]
	want := []llms.ToolCall{
		{FunctionCall: &llms.FunctionCall{Name: "weather", Arguments: `{"city":"Oslo"}`}},
		{FunctionCall: &llms.FunctionCall{Name: "weather", Arguments: `{"city":"Bergen"}`}},
	}
	if diff := cmp.Diff(want, c.ToolCalls); diff != "" || c.Content != "Let me look." || c.StopReason != "FinishReasonStop" {
		t.Fatalf("got %q, stop %q, tool calls (-want +got):\n%s", c.Content, c.StopReason, diff)
	}

	// The turn as cadre's safe shape sends it: one part per message, each call followed by
	// its result, which the client sends as a user turn with a functionResponse.
	msgs = append(msgs,
		llms.TextParts(llms.ChatMessageTypeAI, "Let me look."),
		llms.MessageContent{Role: llms.ChatMessageTypeAI, Parts: []llms.ContentPart{c.ToolCalls[0]}},
		toolResult("", "weather", "sunny"),
		llms.MessageContent{Role: llms.ChatMessageTypeAI, Parts: []llms.ContentPart{c.ToolCalls[1]}},
		toolResult("", "weather", `{"sky":"clear"}`),
	)
	resp, err = llm.GenerateContent(ctx, msgs, tools)
	if err != nil {
		t.Fatal(err)
	}
	if got := resp.Choices[0].Content; got != "Sunny in both." {
		t.Errorf("answer = %q", got)
	}
	call := func(args string) llms.MessageContent {
		return llms.MessageContent{Role: llms.ChatMessageTypeAI, Parts: []llms.ContentPart{
			llms.ToolCall{Type: "function", FunctionCall: &llms.FunctionCall{Name: "weather", Arguments: args}}}}
	}
	wantMsgs := []llms.MessageContent{msgs[0], msgs[1], call(`{"city":"Oslo"}`), msgs[3], call(`{"city":"Bergen"}`), msgs[5]}
	if diff := cmp.Diff(wantMsgs, m.Requests()[1].Messages); diff != "" {
		t.Errorf("the model's second request (-want +got):\n%s", diff)
	}
	if got := m.Requests()[1].Options.Tools; len(got) != 1 || !cmp.Equal(got[0].Function.Parameters, weatherTool.Function.Parameters) {
		t.Errorf("the model was offered %+v, want the weather tool", got)
	}
}

func TestGeminiServerStreaming(t *testing.T) {
	t.Parallel()
	s := providertest.NewGemini(streamingScript())
	defer s.Close()
	text, calls := streamBoth(t, geminiClient(t, s, "k"))

	c := text.Choices[0]
	if c.StopReason != "FinishReasonStop" || c.GenerationInfo["PromptTokens"] != int32(7) {
		t.Errorf("stop %q, usage %v", c.StopReason, c.GenerationInfo)
	}
	// The API sends the output tokens in its last response only, and the client keeps the
	// usage of the first: it reports none, as it does in production.
	if got := c.GenerationInfo["CompletionTokens"]; got != int32(0) {
		t.Errorf("CompletionTokens = %v, want the 0 the client reports of an answer in several pieces", got)
	}
	want := []llms.ToolCall{{FunctionCall: &llms.FunctionCall{Name: "weather", Arguments: streamedArgs}}}
	if diff := cmp.Diff(want, calls.Choices[0].ToolCalls); diff != "" || calls.Choices[0].StopReason != "FinishReasonStop" {
		t.Errorf("stop %q, streamed tool calls (-want +got):\n%s", calls.Choices[0].StopReason, diff)
	}
}

// TestGeminiServerStreamFormats reads the stream raw: a JSON array, or server-sent events
// with alt=sse; the usage is whole in the last response only.
func TestGeminiServerStreamFormats(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		query, contentType string
		decode             func(t *testing.T, body []byte) []map[string]any
		finish             any
	}{
		{"", "application/json; charset=UTF-8", decodeJSONArray, "STOP"},
		{"?%24alt=json%3Benum-encoding%3Dint", "application/json; charset=UTF-8", decodeJSONArray, 1.0}, // as Google's Go clients ask
		{"?alt=sse", "text/event-stream", decodeEvents, "STOP"},
	} {
		t.Run(c.query, func(t *testing.T) {
			t.Parallel()
			s := providertest.NewGemini(llmtest.NewScripted(llmtest.Reply{Text: "Thirty-three bytes of plain text.",
				Usage: usage.Usage{InputTokens: 7, OutputTokens: 9}}))
			defer s.Close()
			status, header, body := rawPost(t, s, "/v1beta/models/gemini-test:streamGenerateContent"+c.query, gemini.validHeaders("k"), gemini.body)
			if status != http.StatusOK || header.Get("Content-Type") != c.contentType {
				t.Fatalf("status %d, Content-Type %q: %s", status, header.Get("Content-Type"), body)
			}
			resps := c.decode(t, body)
			if len(resps) != 3 {
				t.Fatalf("%d responses, want 3 (16 bytes of text each): %s", len(resps), body)
			}
			var text strings.Builder
			for i, r := range resps {
				cand := r["candidates"].([]any)[0].(map[string]any)
				text.WriteString(cand["content"].(map[string]any)["parts"].([]any)[0].(map[string]any)["text"].(string))
				wantUsage := map[string]any{"promptTokenCount": 7.0, "totalTokenCount": 7.0}
				var wantFinish any
				if i == len(resps)-1 {
					wantUsage = map[string]any{"promptTokenCount": 7.0, "candidatesTokenCount": 9.0, "totalTokenCount": 16.0}
					wantFinish = c.finish
				}
				if diff := cmp.Diff(wantUsage, r["usageMetadata"]); diff != "" || cand["finishReason"] != wantFinish {
					t.Errorf("response %d: finish reason %v, want %v; usage (-want +got):\n%s", i, cand["finishReason"], wantFinish, diff)
				}
			}
			if text.String() != "Thirty-three bytes of plain text." {
				t.Errorf("text %q", text.String())
			}
		})
	}
}

func decodeJSONArray(t *testing.T, body []byte) []map[string]any {
	t.Helper()
	var out []map[string]any
	if err := json.Unmarshal(body, &out); err != nil {
		t.Fatalf("not a JSON array: %v: %s", err, body)
	}
	return out
}

func decodeEvents(t *testing.T, body []byte) []map[string]any {
	t.Helper()
	var out []map[string]any
	for line := range strings.Lines(string(body)) {
		data, ok := strings.CutPrefix(strings.TrimSpace(line), "data: ")
		if !ok {
			continue
		}
		var r map[string]any
		if err := json.Unmarshal([]byte(data), &r); err != nil {
			t.Fatalf("event %q: %v", data, err)
		}
		out = append(out, r)
	}
	return out
}

// TestGeminiServerRejects sends raw requests that the real API rejects.
func TestGeminiServerRejects(t *testing.T) {
	t.Parallel()
	const (
		user   = `{"role":"user","parts":[{"text":"hi"}]}`
		call   = `{"role":"model","parts":[{"functionCall":{"name":"f","args":{}}}]}`
		calls  = `{"role":"model","parts":[{"functionCall":{"name":"f"}},{"functionCall":{"name":"f"}}]}`
		answer = `{"role":"user","parts":[{"functionResponse":{"name":"f","response":{"ok":true}}}]}`
		text   = `{"role":"model","parts":[{"text":"so"}]}`
	)
	req := func(cs ...string) string { return `{"contents":[` + strings.Join(cs, ",") + `]}` }
	withTool := func(decl string) string {
		return `{"tools":[{"functionDeclarations":[` + decl + `]}],"contents":[` + user + `]}`
	}
	withParams := func(schema string) string { return withTool(`{"name":"f","parameters":` + schema + `}`) }
	for _, c := range []struct {
		name, body, want string
	}{
		{"no contents", `{}`, "* GenerateContentRequest.contents: contents is not specified"},
		{"role assistant", req(`{"role":"assistant","parts":[{"text":"hi"}]}`), "Please use a valid role: user, model."},
		{"role system", req(`{"role":"system","parts":[{"text":"hi"}]}`), "Please use a valid role: user, model."},
		{"no parts", req(`{"role":"user","parts":[]}`), "* GenerateContentRequest.contents[0].parts: contents.parts must not be empty."},
		{"empty text", req(`{"role":"user","parts":[{"text":""}]}`),
			"* GenerateContentRequest.contents[0].parts[0].data: required oneof field 'data' must have one initialized field"},
		{"empty part", req(user, text, `{"role":"user","parts":[{}]}`), "contents[2].parts[0].data: required oneof field 'data'"},
		{"two kinds of data", req(`{"role":"user","parts":[{"text":"a","inlineData":{"mimeType":"image/png","data":"AA=="}}]}`),
			"Oneof field 'data'"},
		{"empty system instruction", `{"systemInstruction":{"parts":[]},"contents":[` + user + `]}`,
			"system_instruction.parts: contents.parts must not be empty."},
		{"function call first", req(call, answer),
			"Please ensure that function call turn comes immediately after a user turn or after a function response turn."},
		{"function call answered by text", req(user, call, user),
			"Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn."},
		{"function call not answered at the end", req(user, call), "the number of function response parts is equal"},
		{"answers split over two contents", req(user, calls, answer, answer), "the number of function response parts is equal"},
		{"function response after text", req(user, text, answer),
			"Please ensure that function response turn comes immediately after a function call turn."},
		{"function response first", req(answer), "function response turn comes immediately after a function call turn"},
		{"function response to another function", req(user, call, `{"role":"user","parts":[{"functionResponse":{"name":"g","response":{}}}]}`),
			`contents[2].parts[0].function_response: answers no function call of contents[1] left unanswered (name "g"`},
		{"function response to another id", req(user, `{"role":"model","parts":[{"functionCall":{"id":"a","name":"f"}}]}`,
			`{"role":"user","parts":[{"functionResponse":{"id":"b","name":"f","response":{}}}]}`), `(name "f", id "b")`},
		{"function response not an object", req(user, call, `{"role":"user","parts":[{"functionResponse":{"name":"f","response":"ok"}}]}`),
			"Invalid value at 'contents[2].parts[0].function_response.response' (type.googleapis.com/google.protobuf.Struct)"},
		{"function call arguments not an object", req(user, `{"role":"model","parts":[{"functionCall":{"name":"f","args":[1]}}]}`, answer),
			"Invalid value at 'contents[1].parts[0].function_call.args'"},
		{"function call without a name", req(user, `{"role":"model","parts":[{"functionCall":{"args":{}}}]}`, answer),
			"contents[1].parts[0].function_call.name"},
		{"a snake_case name", `{"system_instruction":{"parts":[{"text":"x"}]},"contents":[` + user + `]}`,
			`Unknown name "system_instruction": Cannot find field.`},
		{"an unknown name in a part", req(`{"role":"user","parts":[{"text":"hi","cache":true}]}`), `Unknown name "cache"`},
		{"function name with a space", withTool(`{"name":"get weather","parameters":{"type":"OBJECT","properties":{"x":{"type":"STRING"}}}}`),
			"* GenerateContentRequest.tools[0].function_declarations[0].name: Invalid function name. Must start with a letter or an underscore."},
		{"function name starting with a digit", withTool(`{"name":"2f"}`), "Invalid function name"},
		{"parameters not an object", withParams(`{"type":"STRING"}`), "tools[0].function_declarations[0].parameters.type: must be OBJECT"},
		{"parameters without a type", withParams(`{"properties":{"x":{"type":"STRING"}}}`),
			"* GenerateContentRequest.tools[0].function_declarations[0].parameters.type: must be specified"},
		{"parameters without properties", withParams(`{"type":6}`),
			"* GenerateContentRequest.tools[0].function_declarations[0].parameters.properties: should be non-empty for OBJECT type"},
		{"nested object without properties", withParams(`{"type":"object","properties":{"x":{"type":"array","items":{"type":"object"}}}}`),
			"parameters.properties[x].items.properties: should be non-empty for OBJECT type"},
		{"property without a type", withParams(`{"type":"object","properties":{"x":{"description":"d"}}}`),
			"parameters.properties[x].type: must be specified"},
		{"properties on a string", withParams(`{"type":"object","properties":{"x":{"type":"string","properties":{"y":{"type":"string"}}}}}`),
			"parameters.properties[x].properties: only allowed for OBJECT type"},
		{"additionalProperties", withParams(`{"type":"object","properties":{"x":{"type":"string"}},"additionalProperties":false}`),
			`Unknown name "additionalProperties" at 'tools[0].function_declarations[0].parameters': Cannot find field.`},
		{"an unknown type", withParams(`{"type":"objekt"}`), "Invalid value at 'tools[0].function_declarations[0].parameters.type'"},
		{"parameters and parametersJsonSchema", withTool(`{"name":"f","parameters":{"type":"object","properties":{"x":{"type":"string"}}},"parametersJsonSchema":{"type":"object"}}`),
			"mutually exclusive"},
		{"parametersJsonSchema not an object", withTool(`{"name":"f","parametersJsonSchema":{"type":"string"}}`),
			"parameters_json_schema: the schema must describe an object"},
		{"an unknown function calling mode", `{"toolConfig":{"functionCallingConfig":{"mode":"SOMETIMES"}},"contents":[` + user + `]}`,
			"Invalid value at 'tool_config.function_calling_config.mode'"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			m := llmtest.NewScripted(llmtest.Text("never"))
			s := providertest.NewGemini(m)
			defer s.Close()
			status, _, body := rawPost(t, s, gemini.path, gemini.validHeaders("k"), c.body)
			if status != http.StatusBadRequest {
				t.Errorf("status %d, want 400: %s", status, body)
			}
			if msg := gemini.decodeError(t, body); !strings.Contains(msg, c.want) {
				t.Errorf("message %q does not contain %q", msg, c.want)
			}
			if n := len(m.Requests()); n != 0 {
				t.Errorf("the model got %d requests, want 0", n)
			}
		})
	}
}

// TestGeminiServerAccepts sends raw requests that the real API accepts, in shapes that
// langchaingo's client does not send.
func TestGeminiServerAccepts(t *testing.T) {
	t.Parallel()
	m := llmtest.NewScripted(llmtest.Text("done"))
	s := providertest.NewGemini(m)
	defer s.Close()
	// A role left out is the user's; a model turn's text and its calls may come in contents of
	// their own; responses answer calls by id; types and modes are names in any case, or numbers.
	body := `{
		"contents":[
			{"parts":[{"text":"hi"}]},
			{"role":"model","parts":[{"text":"Looking."}]},
			{"role":"model","parts":[{"functionCall":{"id":"a","name":"f","args":{"x":1}}},{"functionCall":{"id":"b","name":"f"}}]},
			{"role":"user","parts":[
				{"functionResponse":{"id":"b","name":"f","response":{"output":"B"}}},
				{"functionResponse":{"id":"a","name":"f","response":{"response":"A"}}},
				{"text":"Go on."}]}],
		"tools":[{"functionDeclarations":[
			{"name":"f","description":"F.","parameters":{"type":"object","properties":{"x":{"type":"INTEGER"},"tags":{"type":5,"items":{"type":"string"}}}}},
			{"name":"g.v2:run","parametersJsonSchema":{"type":"object","additionalProperties":false}},
			{"name":"_h"}]}],
		"toolConfig":{"functionCallingConfig":{"mode":2,"allowedFunctionNames":["f"]}},
		"generationConfig":{"temperature":0.2,"thinkingConfig":{"thinkingBudget":0}}}`
	status, _, resp := rawPost(t, s, "/v1beta/models/gemini-2.5-flash:generateContent", gemini.validHeaders("k"), body)
	if status != http.StatusOK {
		t.Fatalf("status %d: %s", status, resp)
	}
	want := []llms.MessageContent{
		llms.TextParts(llms.ChatMessageTypeHuman, "hi"),
		llms.TextParts(llms.ChatMessageTypeAI, "Looking."),
		{Role: llms.ChatMessageTypeAI, Parts: []llms.ContentPart{
			llms.ToolCall{ID: "a", Type: "function", FunctionCall: &llms.FunctionCall{Name: "f", Arguments: `{"x":1}`}},
			llms.ToolCall{ID: "b", Type: "function", FunctionCall: &llms.FunctionCall{Name: "f", Arguments: `{}`}},
		}},
		toolResult("b", "f", `{"output":"B"}`),
		toolResult("a", "f", "A"),
		llms.TextParts(llms.ChatMessageTypeHuman, "Go on."),
	}
	req := m.Requests()[0]
	if diff := cmp.Diff(want, req.Messages); diff != "" {
		t.Errorf("the model's messages (-want +got):\n%s", diff)
	}
	wantTools := []llms.Tool{
		{Type: "function", Function: &llms.FunctionDefinition{Name: "f", Description: "F.", Parameters: map[string]any{"type": "object",
			"properties": map[string]any{"x": map[string]any{"type": "integer"},
				"tags": map[string]any{"type": "array", "items": map[string]any{"type": "string"}}}}}},
		{Type: "function", Function: &llms.FunctionDefinition{Name: "g.v2:run", Parameters: map[string]any{"type": "object", "additionalProperties": false}}},
		{Type: "function", Function: &llms.FunctionDefinition{Name: "_h"}},
	}
	if diff := cmp.Diff(wantTools, req.Options.Tools); diff != "" {
		t.Errorf("the model's tools (-want +got):\n%s", diff)
	}
	wantChoice := llms.ToolChoice{Type: "function", Function: &llms.FunctionReference{Name: "f"}}
	if diff := cmp.Diff(wantChoice, req.Options.ToolChoice); diff != "" || req.Options.Model != "gemini-2.5-flash" {
		t.Errorf("model %q, tool choice (-want +got):\n%s", req.Options.Model, diff)
	}
}

// TestGeminiServerRejectsClientMistakes provokes rejections through the client.
func TestGeminiServerRejectsClientMistakes(t *testing.T) {
	t.Parallel()
	call := llms.ToolCall{ID: "call_1", FunctionCall: &llms.FunctionCall{Name: "weather", Arguments: "{}"}}
	call2 := llms.ToolCall{ID: "call_2", FunctionCall: &llms.FunctionCall{Name: "weather", Arguments: `{"city":"Rome"}`}}
	tool := func(params map[string]any) llms.CallOption {
		return llms.WithTools([]llms.Tool{{Type: "function", Function: &llms.FunctionDefinition{Name: "f", Parameters: params}}})
	}
	for _, c := range []struct {
		name string
		msgs []llms.MessageContent
		opts []llms.CallOption
		want string
	}{
		{"call not answered", append(human("hi"),
			llms.MessageContent{Role: llms.ChatMessageTypeAI, Parts: []llms.ContentPart{call}},
			llms.TextParts(llms.ChatMessageTypeHuman, "and?")), nil,
			"the number of function response parts is equal to the number of function call parts"},
		// The shape OpenAI takes: a turn's calls in one message, then a message per result.
		{"results of a turn in messages of their own", append(human("hi"),
			llms.MessageContent{Role: llms.ChatMessageTypeAI, Parts: []llms.ContentPart{call, call2}},
			toolResult("call_1", "weather", "sunny"), toolResult("call_2", "weather", "rain")), nil,
			"the number of function response parts is equal to the number of function call parts"},
		{"result of no call", append(human("hi"), toolResult("call_9", "weather", "sunny")), nil,
			"function response turn comes immediately after a function call turn"},
		{"empty text", human(""), nil, "required oneof field 'data' must have one initialized field"},
		// A tool without arguments: the client drops the empty properties.
		{"tool without parameters", human("hi"), []llms.CallOption{tool(map[string]any{"type": "object", "properties": map[string]any{}})},
			"parameters.properties: should be non-empty for OBJECT type"},
		// A nullable field as JSON Schema writes it: the client drops anyOf, and the type with it.
		{"property of two types", human("hi"), []llms.CallOption{tool(map[string]any{"type": "object", "properties": map[string]any{
			"x": map[string]any{"anyOf": []any{map[string]any{"type": "string"}, map[string]any{"type": "null"}}}}})},
			"parameters.properties[x].type: must be specified"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			checkRefused(t, gemini, c.msgs, c.opts, c.want)
		})
	}
}

func TestGeminiServerKeyInTheQuery(t *testing.T) {
	t.Parallel()
	const right = "AIza-right-secret"
	s := providertest.NewGemini(llmtest.NewScripted(llmtest.Text("ok")), providertest.WithAPIKey(right))
	defer s.Close()
	headers := map[string]string{"Content-Type": "application/json"}
	if status, _, body := rawPost(t, s, gemini.path+"?key="+right, headers, gemini.body); status != http.StatusOK {
		t.Errorf("the right key in the query: status %d: %s", status, body)
	}
	status, _, body := rawPost(t, s, gemini.path+"?key=AIza-wrong-secret", headers, gemini.body)
	var e struct {
		Error struct {
			Status  string
			Details []struct{ Reason string }
		}
	}
	if err := json.Unmarshal(body, &e); err != nil || status != http.StatusBadRequest || e.Error.Status != "INVALID_ARGUMENT" ||
		len(e.Error.Details) != 1 || e.Error.Details[0].Reason != "API_KEY_INVALID" {
		t.Errorf("another key: status %d, %s; want a 400 INVALID_ARGUMENT with the reason API_KEY_INVALID", status, body)
	}
	if strings.Contains(string(body), "secret") {
		t.Errorf("the error shows a key: %s", body)
	}
}

func TestGeminiServerFaultRetryInfo(t *testing.T) {
	t.Parallel()
	s := providertest.NewGemini(llmtest.NewScripted())
	defer s.Close()
	s.Fault(providertest.Fault{Status: 429, RetryAfter: "2"})
	status, header, body := rawPost(t, s, gemini.path, gemini.validHeaders("k"), gemini.body)
	var e map[string]map[string]any
	if err := json.Unmarshal(body, &e); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"code": 429.0, "status": "RESOURCE_EXHAUSTED", "message": "Resource has been exhausted (e.g. check quota).",
		"details": []any{map[string]any{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "2s"}}}
	if diff := cmp.Diff(want, e["error"]); diff != "" || status != 429 || header.Get("Retry-After") != "2" {
		t.Errorf("status %d, Retry-After %q; error (-want +got):\n%s", status, header.Get("Retry-After"), diff)
	}
}

// TestGeminiServerTruncatedStream cuts a stream in the middle: the client reads its first
// response, then fails.
func TestGeminiServerTruncatedStream(t *testing.T) {
	t.Parallel()
	s := providertest.NewGemini(llmtest.NewScripted(llmtest.Text("whole")))
	defer s.Close()
	s.Fault(providertest.Fault{Truncate: true}, providertest.Fault{Truncate: true})
	req, err := http.NewRequest(http.MethodPost, s.URL()+"/v1beta/models/gemini-test:streamGenerateContent?key=k", strings.NewReader(gemini.body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	raw, err := s.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(raw.Body)
	raw.Body.Close()
	if !errors.Is(err, io.ErrUnexpectedEOF) || raw.StatusCode != http.StatusOK || !strings.HasPrefix(string(body), "[{") {
		t.Errorf("status %d, body %s, %v; want the start of a JSON array, cut", raw.StatusCode, body, err)
	}
	llm := geminiClient(t, s, "k")
	msgs := []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeSystem, "Be brief."), llms.TextParts(llms.ChatMessageTypeHuman, "Hi")}
	if _, err := llm.GenerateContent(context.Background(), msgs); err == nil {
		t.Error("a truncated stream gave no error")
	}
	resp, err := llm.GenerateContent(context.Background(), msgs)
	if err != nil || resp.Choices[0].Content != "whole" {
		t.Errorf("after the fault: %v, %v; want the answer", resp, err)
	}
}

func TestGeminiServerFinishReasons(t *testing.T) {
	t.Parallel()
	s := providertest.NewGemini(llmtest.NewScripted(
		llmtest.Reply{Text: "Cut sh", StopReason: "length"},
		llmtest.Reply{Text: "No.", StopReason: "SAFETY"},
	))
	defer s.Close()
	llm := geminiClient(t, s, "k")
	resp, err := llm.GenerateContent(context.Background(), human("hi"))
	if err != nil || resp.Choices[0].StopReason != "FinishReasonMaxTokens" {
		t.Errorf("length: %v, %v; want FinishReasonMaxTokens", resp, err)
	}
	// The client refuses a candidate that the API blocked.
	if _, err := llm.GenerateContent(context.Background(), human("hi")); err == nil || !strings.Contains(err.Error(), "blocked") {
		t.Errorf("SAFETY: error = %v, want the client's blocked error", err)
	}
}

func TestGeminiServerArgumentsNotAnObject(t *testing.T) {
	t.Parallel()
	s := providertest.NewGemini(llmtest.NewScripted(llmtest.Calls(llmtest.Call("weather", "Oslo"))))
	defer s.Close()
	_, err := geminiClient(t, s, "k").GenerateContent(context.Background(), human("hi"))
	if err == nil || !strings.Contains(err.Error(), "500") || !strings.Contains(err.Error(), "not a JSON object") {
		t.Errorf("error = %v, want a 500 saying the arguments are not a JSON object", err)
	}
}
