package providertest_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/cadrehq/cadre/pkg/llmtest"
	"github.com/cadrehq/cadre/pkg/providertest"
	"github.com/cadrehq/cadre/pkg/usage"
	"github.com/google/go-cmp/cmp"
	"github.com/tmc/langchaingo/llms"
)

var weatherTool = llms.Tool{Type: "function", Function: &llms.FunctionDefinition{
	Name:        "weather",
	Description: "The weather in a city.",
	Parameters: map[string]any{
		"type":       "object",
		"properties": map[string]any{"city": map[string]any{"type": "string"}},
	},
}}

// weatherTurn answers with text and two calls of the weather tool, then with text.
func weatherTurn() *llmtest.Scripted {
	return llmtest.NewScripted(
		llmtest.Reply{Text: "Let me look.", ToolCalls: []llms.ToolCall{
			llmtest.Call("weather", `{"city":"Oslo"}`), llmtest.Call("weather", `{"city": "Bergen"}`)}},
		llmtest.Text("Sunny in both."),
	)
}

func TestOpenAIServerText(t *testing.T) {
	t.Parallel()
	m := llmtest.NewScripted(llmtest.Reply{Text: "Hello there.",
		Usage: usage.Usage{InputTokens: 120, OutputTokens: 30, CacheReadTokens: 100, ReasoningTokens: 10}})
	s := providertest.NewOpenAI(m)
	defer s.Close()
	msgs := []llms.MessageContent{
		llms.TextParts(llms.ChatMessageTypeSystem, "Be brief."),
		llms.TextParts(llms.ChatMessageTypeHuman, "Hi"),
	}

	resp, err := openAIClient(t, s, "k").GenerateContent(context.Background(), msgs, llms.WithMaxTokens(50))
	if err != nil {
		t.Fatal(err)
	}
	c := resp.Choices[0]
	if c.Content != "Hello there." || c.StopReason != "stop" {
		t.Errorf("got %q, stop %q; want %q, %q", c.Content, c.StopReason, "Hello there.", "stop")
	}
	for key, want := range map[string]int{"PromptTokens": 120, "CompletionTokens": 30, "TotalTokens": 150,
		"PromptCachedTokens": 100, "ReasoningTokens": 10} {
		if got := c.GenerationInfo[key]; got != want {
			t.Errorf("GenerationInfo[%s] = %v, want %d", key, got, want)
		}
	}

	req := m.Requests()[0]
	if diff := cmp.Diff(msgs, req.Messages); diff != "" {
		t.Errorf("the model's messages (-sent +got):\n%s", diff)
	}
	if req.Options.Model != "gpt-test" || req.Options.MaxTokens != 50 {
		t.Errorf("the model's options: model %q, max tokens %d; want %q, 50", req.Options.Model, req.Options.MaxTokens, "gpt-test")
	}
}

func TestOpenAIServerToolRoundTrip(t *testing.T) {
	t.Parallel()
	m := llmtest.NewScripted(
		llmtest.Calls(llmtest.Call("weather", `{"city":"Oslo"}`), llmtest.Call("weather", `{"city":"Bergen"}`)),
		llmtest.Text("Sunny in both."),
	)
	s := providertest.NewOpenAI(m)
	defer s.Close()
	llm := openAIClient(t, s, "k")
	ctx := context.Background()
	msgs := human("Weather in Oslo and Bergen?")

	resp, err := llm.GenerateContent(ctx, msgs, llms.WithTools([]llms.Tool{weatherTool}))
	if err != nil {
		t.Fatal(err)
	}
	c := resp.Choices[0]
	want := []llms.ToolCall{
		{ID: "call_1", Type: "function", FunctionCall: &llms.FunctionCall{Name: "weather", Arguments: `{"city":"Oslo"}`}},
		{ID: "call_2", Type: "function", FunctionCall: &llms.FunctionCall{Name: "weather", Arguments: `{"city":"Bergen"}`}},
	}
	if diff := cmp.Diff(want, c.ToolCalls); diff != "" || c.StopReason != "tool_calls" {
		t.Fatalf("stop %q, tool calls (-want +got):\n%s", c.StopReason, diff)
	}
	if got := m.Requests()[0].Options.Tools; len(got) != 1 || got[0].Function.Name != "weather" ||
		!cmp.Equal(got[0].Function.Parameters, weatherTool.Function.Parameters) {
		t.Errorf("the model was offered %+v, want the weather tool", got)
	}

	msgs = append(msgs,
		llms.MessageContent{Role: llms.ChatMessageTypeAI, Parts: []llms.ContentPart{c.ToolCalls[0], c.ToolCalls[1]}},
		toolResult(c.ToolCalls[0].ID, "weather", "sunny"),
		toolResult(c.ToolCalls[1].ID, "weather", "sunny too"),
	)
	resp, err = llm.GenerateContent(ctx, msgs, llms.WithTools([]llms.Tool{weatherTool}))
	if err != nil {
		t.Fatal(err)
	}
	if got := resp.Choices[0].Content; got != "Sunny in both." {
		t.Errorf("answer = %q", got)
	}
	if diff := cmp.Diff(msgs, m.Requests()[1].Messages); diff != "" {
		t.Errorf("the model's second request (-sent +got):\n%s", diff)
	}
}

func toolResult(id, name, content string) llms.MessageContent {
	return llms.MessageContent{Role: llms.ChatMessageTypeTool, Parts: []llms.ContentPart{
		llms.ToolCallResponse{ToolCallID: id, Name: name, Content: content}}}
}

func TestOpenAIServerStreaming(t *testing.T) {
	t.Parallel()
	s := providertest.NewOpenAI(streamingScript())
	defer s.Close()
	text, calls := streamBoth(t, openAIClient(t, s, "k"))

	c := text.Choices[0]
	if c.StopReason != "stop" || c.GenerationInfo["PromptTokens"] != 7 || c.GenerationInfo["CompletionTokens"] != 12 {
		t.Errorf("stop %q, usage %v", c.StopReason, c.GenerationInfo)
	}
	want := []llms.ToolCall{{ID: "call_1", Type: "function", FunctionCall: &llms.FunctionCall{Name: "weather", Arguments: streamedArgs}}}
	if diff := cmp.Diff(want, calls.Choices[0].ToolCalls); diff != "" || calls.Choices[0].StopReason != "tool_calls" {
		t.Errorf("stop %q, streamed tool calls (-want +got):\n%s", calls.Choices[0].StopReason, diff)
	}
}

// TestOpenAIServerRejects sends raw requests that the real API rejects.
func TestOpenAIServerRejects(t *testing.T) {
	t.Parallel()
	const (
		user     = `{"role":"user","content":"hi"}`
		callsAB  = `{"role":"assistant","content":null,"tool_calls":[{"id":"call_a","type":"function","function":{"name":"f","arguments":"{}"}},{"id":"call_b","type":"function","function":{"name":"f","arguments":"{}"}}]}`
		answerA  = `{"role":"tool","tool_call_id":"call_a","content":"ok"}`
		answerB  = `{"role":"tool","tool_call_id":"call_b","content":"ok"}`
		badTools = `{"model":"m","messages":[` + user + `],"tools":[`
	)
	msgs := func(ms ...string) string { return `{"model":"m","messages":[` + strings.Join(ms, ",") + `]}` }
	for _, c := range []struct {
		name, body, want string
	}{
		{"no model", `{"messages":[` + user + `]}`, "you must provide a model parameter"},
		{"no messages", `{"model":"m","messages":[]}`, "Invalid 'messages': empty array"},
		{"call not answered before the next message", msgs(user, callsAB, answerA, user),
			"An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: call_b"},
		{"call not answered at the end", msgs(user, callsAB, answerB),
			"The following tool_call_ids did not have response messages: call_a"},
		{"tool message after a user message", msgs(user, answerA),
			"Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'."},
		{"tool message for another call", msgs(user, callsAB, answerA, answerB, `{"role":"tool","tool_call_id":"call_c","content":"ok"}`),
			"must be a response to a preceeding message with 'tool_calls'"},
		{"tool message with several results", msgs(user, callsAB, answerA,
			`{"role":"tool","tool_call_id":"call_b","content":[{"type":"text","text":"1"},{"type":"text","text":"2"}]}`),
			"a message with role 'tool' holds one result"},
		{"tool message with an image", msgs(user, callsAB, answerA,
			`{"role":"tool","tool_call_id":"call_b","content":[{"type":"image_url","image_url":{"url":"http://x"}}]}`),
			"Invalid value: 'image_url'. Supported values are: 'text'."},
		{"tool call of another type", msgs(user,
			`{"role":"assistant","tool_calls":[{"id":"call_a","type":"code","function":{"name":"f","arguments":"{}"}}]}`, answerA),
			"Invalid value: 'code'. Supported values are: 'function'."},
		{"parameters not an object schema", badTools + `{"type":"function","function":{"name":"f","parameters":{"type":"string"}}}]}`,
			`Invalid schema for function 'f': schema must be a JSON Schema of 'type: "object"', got 'type: "string"'.`},
		{"parameters without a type", badTools + `{"type":"function","function":{"name":"f","parameters":{"properties":{}}}}]}`,
			`got 'type: "None"'`},
		{"parameters null", badTools + `{"type":"function","function":{"name":"f","parameters":null}}]}`,
			"Invalid schema for function 'f': None is not of type 'object', 'boolean'."},
		{"tool of another type", badTools + `{"type":"retrieval","function":{"name":"f"}}]}`,
			"Invalid value: 'retrieval'. Supported values are: 'function'."},
		{"tool name with a space", badTools + `{"type":"function","function":{"name":"get weather"}}]}`,
			"string does not match pattern"},
		{"tool name too long", badTools + `{"type":"function","function":{"name":"` + strings.Repeat("a", 65) + `"}}]}`,
			"string does not match pattern"},
		{"tool choice without tools", `{"model":"m","messages":[` + user + `],"tool_choice":"auto"}`,
			"'tool_choice' is only allowed when 'tools' are specified"},
		{"user message without content", msgs(`{"role":"user"}`), "expected a string, got null"},
		{"unknown role", msgs(`{"role":"robot","content":"hi"}`), "Invalid value: 'robot'."},
		{"reasoning effort not a level", `{"model":"m","messages":[` + user + `],"reasoning_effort":"extreme"}`,
			"Invalid value: 'extreme'. Supported values are: 'none', 'minimal', 'low', 'medium', 'high', and 'xhigh'."},
		{"reasoning effort in capitals", `{"model":"m","messages":[` + user + `],"reasoning_effort":"LOW"}`, "Invalid value: 'LOW'."},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			m := llmtest.NewScripted(llmtest.Text("never"))
			s := providertest.NewOpenAI(m)
			defer s.Close()
			status, _, body := rawPost(t, s, "/v1/chat/completions", providers[0].validHeaders("k"), c.body)
			if status != http.StatusBadRequest {
				t.Errorf("status %d, want 400: %s", status, body)
			}
			if msg := providers[0].decodeError(t, body); !strings.Contains(msg, c.want) {
				t.Errorf("message %q does not contain %q", msg, c.want)
			}
			if !strings.Contains(string(body), `"param":`) || !strings.Contains(string(body), `"code":`) {
				t.Errorf("the error JSON lacks param or code: %s", body)
			}
			if n := len(m.Requests()); n != 0 {
				t.Errorf("the model got %d requests, want 0", n)
			}
		})
	}
}

// TestOpenAIServerRejectsClientMistakes provokes rejections through the client.
func TestOpenAIServerRejectsClientMistakes(t *testing.T) {
	t.Parallel()
	call := llms.ToolCall{ID: "call_1", Type: "function", FunctionCall: &llms.FunctionCall{Name: "weather", Arguments: "{}"}}
	notObject := llms.Tool{Type: "function", Function: &llms.FunctionDefinition{Name: "weather", Parameters: map[string]any{"type": "array"}}}
	for _, c := range []struct {
		name string
		msgs []llms.MessageContent
		opts []llms.CallOption
		want string
	}{
		{"call not answered", append(human("hi"),
			llms.MessageContent{Role: llms.ChatMessageTypeAI, Parts: []llms.ContentPart{call}},
			llms.TextParts(llms.ChatMessageTypeHuman, "and?")), nil,
			"did not have response messages: call_1"},
		{"result of an unknown call", append(human("hi"), toolResult("call_9", "weather", "sunny")), nil,
			"must be a response to a preceeding message with 'tool_calls'"},
		{"schema not an object", human("hi"), []llms.CallOption{llms.WithTools([]llms.Tool{notObject})},
			`Invalid schema for function 'weather': schema must be a JSON Schema of 'type: "object"', got 'type: "array"'.`},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			checkRefused(t, providers[0], c.msgs, c.opts, c.want)
		})
	}
}

func TestOpenAIServerToolChoice(t *testing.T) {
	t.Parallel()
	m := llmtest.NewScripted(llmtest.Text("a"), llmtest.Text("b"))
	s := providertest.NewOpenAI(m)
	defer s.Close()
	llm := openAIClient(t, s, "k")
	named := llms.ToolChoice{Type: "function", Function: &llms.FunctionReference{Name: "weather"}}
	for _, choice := range []any{"required", named} {
		if _, err := llm.GenerateContent(context.Background(), human("hi"),
			llms.WithTools([]llms.Tool{weatherTool}), llms.WithToolChoice(choice)); err != nil {
			t.Fatal(err)
		}
	}
	reqs := m.Requests()
	if reqs[0].Options.ToolChoice != "required" || !cmp.Equal(reqs[1].Options.ToolChoice, named) {
		t.Errorf("the model's tool choices: %#v, %#v; want %q, %#v", reqs[0].Options.ToolChoice, reqs[1].Options.ToolChoice, "required", named)
	}
}

// TestOpenAIServerReasoningEffort checks that the levels the API takes are accepted, and
// null as none.
func TestOpenAIServerReasoningEffort(t *testing.T) {
	t.Parallel()
	s := providertest.NewOpenAI(llmtest.NewScripted(llmtest.Text("ok")).Cycle())
	defer s.Close()
	for _, effort := range []string{`"none"`, `"minimal"`, `"low"`, `"medium"`, `"high"`, `"xhigh"`, `null`} {
		body := `{"model":"gpt-5-mini","messages":[{"role":"user","content":"hi"}],"reasoning_effort":` + effort + `}`
		if status, _, resp := rawPost(t, s, "/v1/chat/completions", providers[0].validHeaders("k"), body); status != http.StatusOK {
			t.Errorf("reasoning_effort %s: status %d: %s", effort, status, resp)
		}
	}
}

// TestOpenAIServerStreamedUsageDetails checks that the usage chunk of a stream carries the
// cached and reasoning tokens, which the client reads.
func TestOpenAIServerStreamedUsageDetails(t *testing.T) {
	t.Parallel()
	m := llmtest.NewScripted(llmtest.Reply{Text: "Hello there.",
		Usage: usage.Usage{InputTokens: 120, OutputTokens: 30, CacheReadTokens: 100, ReasoningTokens: 10}})
	s := providertest.NewOpenAI(m)
	defer s.Close()
	stream := llms.WithStreamingFunc(func(context.Context, []byte) error { return nil })
	resp, err := openAIClient(t, s, "k").GenerateContent(context.Background(), human("hi"), stream)
	if err != nil {
		t.Fatal(err)
	}
	for key, want := range map[string]int{"PromptTokens": 120, "CompletionTokens": 30, "PromptCachedTokens": 100, "ReasoningTokens": 10} {
		if got := resp.Choices[0].GenerationInfo[key]; got != want {
			t.Errorf("GenerationInfo[%s] = %v, want %d", key, got, want)
		}
	}
}
