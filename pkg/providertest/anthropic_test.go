package providertest_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/cadrehq/cadre/pkg/llmtest"
	"github.com/cadrehq/cadre/pkg/providertest"
	"github.com/cadrehq/cadre/pkg/usage"
	"github.com/google/go-cmp/cmp"
	"github.com/tmc/langchaingo/llms"
)

func TestAnthropicServerText(t *testing.T) {
	t.Parallel()
	m := llmtest.NewScripted(llmtest.Reply{Text: "Hello there.",
		Usage: usage.Usage{InputTokens: 1200, OutputTokens: 300, CacheReadTokens: 1000}})
	s := providertest.NewAnthropic(m)
	defer s.Close()
	msgs := []llms.MessageContent{
		llms.TextParts(llms.ChatMessageTypeSystem, "Be brief."),
		llms.TextParts(llms.ChatMessageTypeHuman, "Hi"),
	}

	resp, err := anthropicClient(t, s, "k").GenerateContent(context.Background(), msgs)
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Choices) != 1 {
		t.Fatalf("got %d choices, want 1 (one text block)", len(resp.Choices))
	}
	c := resp.Choices[0]
	if c.Content != "Hello there." || c.StopReason != "end_turn" {
		t.Errorf("got %q, stop %q; want %q, %q", c.Content, c.StopReason, "Hello there.", "end_turn")
	}
	// The API's input_tokens do not count cache reads.
	for key, want := range map[string]int{"InputTokens": 200, "OutputTokens": 300,
		"CacheReadInputTokens": 1000, "CacheCreationInputTokens": 0} {
		if got := c.GenerationInfo[key]; got != want {
			t.Errorf("GenerationInfo[%s] = %v, want %d", key, got, want)
		}
	}

	req := m.Requests()[0]
	if diff := cmp.Diff(msgs, req.Messages); diff != "" {
		t.Errorf("the model's messages (-sent +got):\n%s", diff)
	}
	if req.Options.Model != "claude-test" || req.Options.MaxTokens != 2048 {
		t.Errorf("the model's options: model %q, max tokens %d; want %q and the client's default 2048",
			req.Options.Model, req.Options.MaxTokens, "claude-test")
	}
}

func TestAnthropicServerToolRoundTrip(t *testing.T) {
	t.Parallel()
	m := weatherTurn()
	s := providertest.NewAnthropic(m)
	defer s.Close()
	llm := anthropicClient(t, s, "k")
	ctx := context.Background()
	tools := llms.WithTools([]llms.Tool{weatherTool})
	msgs := human("Weather in Oslo and Bergen?")

	resp, err := llm.GenerateContent(ctx, msgs, tools)
	if err != nil {
		t.Fatal(err)
	}
	// The client makes a choice of each content block.
	if len(resp.Choices) != 3 || resp.Choices[0].Content != "Let me look." {
		t.Fatalf("got %d choices, the first %q; want the text and two tool calls", len(resp.Choices), resp.Choices[0].Content)
	}
	call1, call2 := resp.Choices[1].ToolCalls[0], resp.Choices[2].ToolCalls[0]
	if call1.ID != "toolu_call_1" || call2.ID != "toolu_call_2" || call2.FunctionCall.Arguments != `{"city":"Bergen"}` ||
		resp.Choices[1].StopReason != "tool_use" {
		t.Fatalf("tool calls %+v %+v, stop %q", call1, call2, resp.Choices[1].StopReason)
	}

	// The client sends one part per message: the server merges the same-role messages.
	msgs = append(msgs,
		llms.TextParts(llms.ChatMessageTypeAI, "Let me look."),
		llms.MessageContent{Role: llms.ChatMessageTypeAI, Parts: []llms.ContentPart{call1}},
		llms.MessageContent{Role: llms.ChatMessageTypeAI, Parts: []llms.ContentPart{call2}},
		toolResult(call1.ID, "weather", "sunny"),
		toolResult(call2.ID, "weather", "sunny too"),
	)
	resp, err = llm.GenerateContent(ctx, msgs, tools)
	if err != nil {
		t.Fatal(err)
	}
	if got := resp.Choices[0].Content; got != "Sunny in both." {
		t.Errorf("answer = %q", got)
	}
	want := []llms.MessageContent{
		msgs[0],
		{Role: llms.ChatMessageTypeAI, Parts: []llms.ContentPart{
			llms.TextContent{Text: "Let me look."},
			llms.ToolCall{ID: "toolu_call_1", Type: "function", FunctionCall: &llms.FunctionCall{Name: "weather", Arguments: `{"city":"Oslo"}`}},
			llms.ToolCall{ID: "toolu_call_2", Type: "function", FunctionCall: &llms.FunctionCall{Name: "weather", Arguments: `{"city":"Bergen"}`}},
		}},
		toolResult("toolu_call_1", "weather", "sunny"),
		toolResult("toolu_call_2", "weather", "sunny too"),
	}
	if diff := cmp.Diff(want, m.Requests()[1].Messages); diff != "" {
		t.Errorf("the model's second request (-want +got):\n%s", diff)
	}
	if got := m.Requests()[1].Options.Tools; len(got) != 1 || !cmp.Equal(got[0].Function.Parameters, weatherTool.Function.Parameters) {
		t.Errorf("the model was offered %+v, want the weather tool", got)
	}
}

func TestAnthropicServerMergesSameRole(t *testing.T) {
	t.Parallel()
	m := llmtest.NewScripted(llmtest.Text("ok"))
	s := providertest.NewAnthropic(m)
	defer s.Close()
	msgs := []llms.MessageContent{
		llms.TextParts(llms.ChatMessageTypeHuman, "first"),
		llms.TextParts(llms.ChatMessageTypeHuman, "second"),
	}
	if _, err := anthropicClient(t, s, "k").GenerateContent(context.Background(), msgs); err != nil {
		t.Fatal(err)
	}
	want := []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, "first", "second")}
	if diff := cmp.Diff(want, m.Requests()[0].Messages); diff != "" {
		t.Errorf("the model's messages (-want +got):\n%s", diff)
	}
}

func TestAnthropicServerStreaming(t *testing.T) {
	t.Parallel()
	s := providertest.NewAnthropic(streamingScript())
	defer s.Close()
	text, calls := streamBoth(t, anthropicClient(t, s, "k"))

	c := text.Choices[0]
	if c.StopReason != "end_turn" || c.GenerationInfo["InputTokens"] != 7 || c.GenerationInfo["OutputTokens"] != 12 {
		t.Errorf("stop %q, usage %v", c.StopReason, c.GenerationInfo)
	}
	want := []llms.ToolCall{{ID: "toolu_call_1", FunctionCall: &llms.FunctionCall{Name: "weather", Arguments: streamedArgs}}}
	if diff := cmp.Diff(want, calls.Choices[0].ToolCalls); diff != "" || calls.Choices[0].StopReason != "tool_use" {
		t.Errorf("stop %q, streamed tool calls (-want +got):\n%s", calls.Choices[0].StopReason, diff)
	}
}

// TestAnthropicServerRejects sends raw requests that the real API rejects.
func TestAnthropicServerRejects(t *testing.T) {
	t.Parallel()
	const (
		user    = `{"role":"user","content":"hi"}`
		useA    = `{"role":"assistant","content":[{"type":"tool_use","id":"toolu_a","name":"f","input":{}}]}`
		useB    = `{"role":"assistant","content":[{"type":"tool_use","id":"toolu_b","name":"f","input":{}}]}`
		resultA = `{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_a","content":"ok"}]}`
		tool    = `{"name":"f","input_schema":{"type":"object"}}`
	)
	req := func(ms ...string) string {
		return `{"model":"m","max_tokens":10,"messages":[` + strings.Join(ms, ",") + `]}`
	}
	withTool := func(t string) string {
		return `{"model":"m","max_tokens":10,"tools":[` + t + `],"messages":[` + user + `]}`
	}
	// with is a valid request with the members extra, and 4096 max_tokens.
	with := func(extra string) string {
		return `{"model":"m","max_tokens":4096,` + extra + `,"messages":[` + user + `]}`
	}
	const (
		thinking = `"thinking":{"type":"enabled","budget_tokens":2048}`
		cached   = `{"type":"text","text":"S","cache_control":{"type":"ephemeral"}}`
	)
	for _, c := range []struct {
		name, body, want string
	}{
		{"no model", `{"max_tokens":10,"messages":[` + user + `]}`, "model: Field required"},
		{"no max_tokens", `{"model":"m","messages":[` + user + `]}`, "max_tokens: Field required"},
		{"no messages", req(), "messages: at least one message is required"},
		{"first message from the assistant", req(`{"role":"assistant","content":"hi"}`, user),
			`messages: first message must use the "user" role`},
		{"system role in messages", req(`{"role":"system","content":"hi"}`), "messages.0.role: Input should be 'user' or 'assistant'"},
		{"tool_use not answered in the next message", req(user, useA, user),
			"messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_a. " +
				"Each `tool_use` block must have a corresponding `tool_result` block in the next message."},
		{"tool_use not answered at the end", req(user, useA), "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_a"},
		{"merged tool_use blocks answered in part", req(user, useA, useB, resultA),
			"messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_b"},
		{"tool_result of an unknown id", req(user, useA, resultA, `{"role":"assistant","content":"so"}`,
			`{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_9","content":"ok"}]}`),
			"messages.4.content.0: unexpected `tool_use_id` found in `tool_result` blocks: toolu_9. " +
				"Each `tool_result` block must have a corresponding `tool_use` block in the previous message."},
		{"empty text block", req(`{"role":"user","content":[{"type":"text","text":""}]}`), "text content blocks must be non-empty"},
		{"blank text block", req(`{"role":"user","content":[{"type":"text","text":" \n"}]}`), "text content blocks must contain non-whitespace text"},
		{"empty content", req(`{"role":"user","content":""}`), "messages.0: all messages must have non-empty content"},
		{"tool_use input a string", req(user, `{"role":"assistant","content":[{"type":"tool_use","id":"toolu_a","name":"f","input":"{}"}]}`, resultA),
			"messages.1.content.0.tool_use.input: Input should be a valid dictionary"},
		{"tool_use input an array", req(user, `{"role":"assistant","content":[{"type":"tool_use","id":"toolu_a","name":"f","input":[1]}]}`, resultA),
			"Input should be a valid dictionary"},
		{"input_schema not an object", withTool(`{"name":"f","input_schema":{"type":"string"}}`),
			"tools.0.custom.input_schema.type: Input should be 'object'"},
		{"no input_schema", withTool(`{"name":"f"}`), "tools.0.custom.input_schema: Field required"},
		{"tool name with a space", withTool(`{"name":"get weather","input_schema":{"type":"object"}}`),
			"tools.0.custom.name: String should match pattern"},
		{"tool choice of an unknown tool", `{"model":"m","max_tokens":10,"tools":[` + tool + `],"tool_choice":{"type":"tool","name":"g"},"messages":[` + user + `]}`,
			`no tool named "g"`},
		{"thinking budget under 1024", with(`"thinking":{"type":"enabled","budget_tokens":1000}`),
			"thinking.enabled.budget_tokens: Input should be greater than or equal to 1024"},
		{"thinking budget missing", with(`"thinking":{"type":"enabled"}`), "thinking.enabled.budget_tokens: Field required"},
		{"thinking budget not under max_tokens", with(`"thinking":{"type":"enabled","budget_tokens":4096}`),
			"`max_tokens` must be greater than `thinking.budget_tokens`."},
		{"thinking of an unknown type", with(`"thinking":{"type":"on","budget_tokens":2048}`),
			"thinking: Input tag 'on' found using 'type' does not match any of the expected tags: 'disabled', 'enabled'"},
		{"thinking with temperature 0", with(thinking + `,"temperature":0`), "`temperature` may only be set to 1 when thinking is enabled."},
		{"thinking with top_k", with(thinking + `,"top_k":40`), "`top_k` must be unset when thinking is enabled."},
		{"thinking with top_p 0.9", with(thinking + `,"top_p":0.9`), "`top_p` must be greater than or equal to 0.95 or unset when thinking is enabled."},
		{"thinking with a forced tool", with(thinking + `,"tools":[` + tool + `],"tool_choice":{"type":"any"}`),
			"Thinking may not be enabled when tool_choice forces tool use."},
		{"five cache breakpoints", with(`"system":[` + strings.Repeat(cached+",", 4) + cached + `]`),
			"A maximum of 4 blocks with cache_control may be provided. Found 5."},
		{"five cache breakpoints across tools, system and messages", `{"model":"m","max_tokens":10,` +
			`"tools":[{"name":"f","input_schema":{"type":"object"},"cache_control":{"type":"ephemeral"}},{"name":"g","input_schema":{"type":"object"},"cache_control":{"type":"ephemeral"}}],` +
			`"system":[` + cached + `,` + cached + `],"messages":[{"role":"user","content":[` + cached + `]}]}`,
			"A maximum of 4 blocks with cache_control may be provided. Found 5."},
		{"cache breakpoint of another type", with(`"system":[{"type":"text","text":"S","cache_control":{"type":"persistent"}}]`),
			"system.0.cache_control: Input tag 'persistent' found using 'type' does not match any of the expected tags: 'ephemeral'"},
		{"cache breakpoint with a ttl of 2h", with(`"tools":[{"name":"f","input_schema":{"type":"object"},"cache_control":{"type":"ephemeral","ttl":"2h"}}]`),
			"tools.0.custom.cache_control.ephemeral.ttl: Input should be '5m' or '1h'"},
		{"cache breakpoint of another type on a message block", req(`{"role":"user","content":[{"type":"text","text":"hi","cache_control":{"type":"x"}}]}`),
			"messages.0.content.0.cache_control: Input tag 'x'"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			m := llmtest.NewScripted(llmtest.Text("never"))
			s := providertest.NewAnthropic(m)
			defer s.Close()
			status, _, body := rawPost(t, s, "/v1/messages", providers[1].validHeaders("k"), c.body)
			if status != http.StatusBadRequest {
				t.Errorf("status %d, want 400: %s", status, body)
			}
			if msg := providers[1].decodeError(t, body); !strings.Contains(msg, c.want) {
				t.Errorf("message %q does not contain %q", msg, c.want)
			}
			if n := len(m.Requests()); n != 0 {
				t.Errorf("the model got %d requests, want 0", n)
			}
		})
	}
}

func TestAnthropicServerVersionHeader(t *testing.T) {
	t.Parallel()
	s := providertest.NewAnthropic(llmtest.NewScripted(llmtest.Text("never")))
	defer s.Close()
	headers := providers[1].validHeaders("k")
	delete(headers, "anthropic-version")
	status, _, body := rawPost(t, s, "/v1/messages", headers, providers[1].body)
	if msg := providers[1].decodeError(t, body); status != http.StatusBadRequest || !strings.Contains(msg, "anthropic-version") {
		t.Errorf("without anthropic-version: status %d, message %q; want a 400 naming the header", status, msg)
	}
}

// TestAnthropicServerAcceptsMergedResults checks that tool results in consecutive user
// messages, as the client sends them, answer the assistant message before them.
func TestAnthropicServerAcceptsMergedResults(t *testing.T) {
	t.Parallel()
	m := llmtest.NewScripted(llmtest.Text("done"))
	s := providertest.NewAnthropic(m)
	defer s.Close()
	body := `{"model":"m","max_tokens":10,"messages":[{"role":"user","content":"hi"},
		{"role":"assistant","content":[{"type":"text","text":"Looking."},{"type":"tool_use","id":"toolu_a","name":"f","input":{"x":1}}]},
		{"role":"assistant","content":[{"type":"tool_use","id":"toolu_b","name":"g","input":{}}]},
		{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_a","content":[{"type":"text","text":"A"}]}]},
		{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_b","content":"B"},{"type":"text","text":"Go on."}]}]}`
	status, _, resp := rawPost(t, s, "/v1/messages", providers[1].validHeaders("k"), body)
	if status != http.StatusOK {
		t.Fatalf("status %d: %s", status, resp)
	}
	want := []llms.MessageContent{
		llms.TextParts(llms.ChatMessageTypeHuman, "hi"),
		{Role: llms.ChatMessageTypeAI, Parts: []llms.ContentPart{
			llms.TextContent{Text: "Looking."},
			llms.ToolCall{ID: "toolu_a", Type: "function", FunctionCall: &llms.FunctionCall{Name: "f", Arguments: `{"x":1}`}},
			llms.ToolCall{ID: "toolu_b", Type: "function", FunctionCall: &llms.FunctionCall{Name: "g", Arguments: `{}`}},
		}},
		toolResult("toolu_a", "f", "A"),
		toolResult("toolu_b", "g", "B"),
		{Role: llms.ChatMessageTypeHuman, Parts: []llms.ContentPart{llms.TextContent{Text: "Go on."}}},
	}
	if diff := cmp.Diff(want, m.Requests()[0].Messages); diff != "" {
		t.Errorf("the model's messages (-want +got):\n%s", diff)
	}
}

// TestAnthropicServerRejectsClientMistakes provokes rejections through the client.
func TestAnthropicServerRejectsClientMistakes(t *testing.T) {
	t.Parallel()
	call := llms.ToolCall{ID: "toolu_1", FunctionCall: &llms.FunctionCall{Name: "weather", Arguments: "{}"}}
	for _, c := range []struct {
		name string
		msgs []llms.MessageContent
		want string
	}{
		{"call not answered", append(human("hi"),
			llms.MessageContent{Role: llms.ChatMessageTypeAI, Parts: []llms.ContentPart{call}},
			llms.TextParts(llms.ChatMessageTypeHuman, "and?")),
			"messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_1"},
		{"result of an unknown call", append(human("hi"), toolResult("toolu_9", "weather", "sunny")),
			"unexpected `tool_use_id` found in `tool_result` blocks: toolu_9"},
		{"empty text", human(""), "text content blocks must be non-empty"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			checkRefused(t, providers[1], c.msgs, nil, c.want)
		})
	}
}

func TestAnthropicServerArgumentsNotAnObject(t *testing.T) {
	t.Parallel()
	s := providertest.NewAnthropic(llmtest.NewScripted(llmtest.Calls(llmtest.Call("weather", "Oslo"))))
	defer s.Close()
	_, err := anthropicClient(t, s, "k").GenerateContent(context.Background(), human("hi"))
	if err == nil || !strings.Contains(err.Error(), "500") || !strings.Contains(err.Error(), "not a JSON object") {
		t.Errorf("error = %v, want a 500 saying the arguments are not a JSON object", err)
	}
}

// TestAnthropicServerAcceptsThinkingAndCaching checks the requests with extended thinking and
// cache breakpoints that the API takes.
func TestAnthropicServerAcceptsThinkingAndCaching(t *testing.T) {
	t.Parallel()
	const user = `{"role":"user","content":[{"type":"text","text":"hi","cache_control":{"type":"ephemeral"}}]}`
	tool := func(name, cache string) string {
		return `{"name":"` + name + `","input_schema":{"type":"object"}` + cache + `}`
	}
	for _, c := range []struct{ name, members string }{
		{"system as a string", `"system":"Be brief."`},
		{"system as blocks with breakpoints", `"system":[{"type":"text","text":"A"},{"type":"text","text":"B","cache_control":{"type":"ephemeral","ttl":"1h"}}]`},
		{"four breakpoints", `"tools":[` + tool("f", "") + `,` + tool("g", `,"cache_control":{"type":"ephemeral"}`) + `],` +
			`"system":[{"type":"text","text":"A","cache_control":{"type":"ephemeral"}},{"type":"text","text":"B","cache_control":{"type":"ephemeral","ttl":"5m"}}]`},
		{"thinking", `"thinking":{"type":"enabled","budget_tokens":1024}`},
		{"thinking with temperature 1 and top_p 0.95", `"thinking":{"type":"enabled","budget_tokens":4095},"temperature":1,"top_p":0.95`},
		{"thinking with tool_choice auto", `"thinking":{"type":"enabled","budget_tokens":2048},"tools":[` + tool("f", "") + `],"tool_choice":{"type":"auto"}`},
		{"thinking disabled, with a temperature", `"thinking":{"type":"disabled"},"temperature":0,"top_k":5`},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			s := providertest.NewAnthropic(llmtest.NewScripted(llmtest.Text("ok")))
			defer s.Close()
			body := `{"model":"m","max_tokens":4096,` + c.members + `,"messages":[` + user + `]}`
			if status, _, resp := rawPost(t, s, "/v1/messages", providers[1].validHeaders("k"), body); status != http.StatusOK {
				t.Errorf("status %d: %s", status, resp)
			}
		})
	}
}

// thinkingReply is a model's answer with reasoning, usage and cache counts, in the
// GenerationInfo of langchaingo's anthropic client.
func thinkingReply() *llmtest.Scripted {
	return llmtest.NewScripted(llmtest.Reply{Response: &llms.ContentResponse{Choices: []*llms.ContentChoice{{
		Content:          "Oslo has 709,000 people.",
		ReasoningContent: "The user asks about Oslo. I recall its population from the 2024 census.",
		StopReason:       "end_turn",
		GenerationInfo: map[string]any{"InputTokens": 50, "OutputTokens": 120,
			"CacheReadInputTokens": 1000, "CacheCreationInputTokens": 300},
	}}}})
}

const thinkingRequest = `{"model":"claude-test","max_tokens":4096,"thinking":{"type":"enabled","budget_tokens":2048},` +
	`"system":[{"type":"text","text":"Be brief.","cache_control":{"type":"ephemeral"}}],"messages":[{"role":"user","content":"Oslo?"}]`

// TestAnthropicServerThinkingBlock checks that an answer with thinking on starts with a
// thinking block, signed by the server, and that the usage carries the cache counts.
func TestAnthropicServerThinkingBlock(t *testing.T) {
	t.Parallel()
	s := providertest.NewAnthropic(thinkingReply())
	defer s.Close()
	status, _, body := rawPost(t, s, "/v1/messages", providers[1].validHeaders("k"), thinkingRequest+"}")
	if status != http.StatusOK {
		t.Fatalf("status %d: %s", status, body)
	}
	var resp struct {
		Content []map[string]any
		Usage   map[string]int
	}
	if err := json.Unmarshal(body, &resp); err != nil {
		t.Fatal(err)
	}
	if len(resp.Content) != 2 || resp.Content[0]["type"] != "thinking" || resp.Content[1]["type"] != "text" {
		t.Fatalf("content %v; want a thinking block, then the text", resp.Content)
	}
	thinking, _ := resp.Content[0]["thinking"].(string)
	signature, _ := resp.Content[0]["signature"].(string)
	if thinking != "The user asks about Oslo. I recall its population from the 2024 census." {
		t.Errorf("thinking %q; want the model's reasoning", thinking)
	}
	checkSignature(t, s, thinking, signature)
	want := map[string]int{"input_tokens": 50, "output_tokens": 120, "cache_read_input_tokens": 1000, "cache_creation_input_tokens": 300}
	if diff := cmp.Diff(want, resp.Usage); diff != "" {
		t.Errorf("usage (-want +got):\n%s", diff)
	}

	// Without reasoning from the model, the block has a text of its own.
	s2 := providertest.NewAnthropic(llmtest.NewScripted(llmtest.Text("ok")))
	defer s2.Close()
	_, _, body = rawPost(t, s2, "/v1/messages", providers[1].validHeaders("k"), thinkingRequest+"}")
	if err := json.Unmarshal(body, &resp); err != nil || len(resp.Content) != 2 || resp.Content[0]["thinking"] == "" {
		t.Errorf("content %v (%v); want a thinking block with a text", resp.Content, err)
	}
}

// checkSignature checks that signature is s's of thinking, and of nothing else.
func checkSignature(t *testing.T, s *providertest.Server, thinking, signature string) {
	t.Helper()
	if signature == "" || !providertest.ThinkingSigned(s, thinking, signature) {
		t.Errorf("signature %q of %q does not verify", signature, thinking)
	}
	if providertest.ThinkingSigned(s, thinking+" Or not.", signature) {
		t.Error("the signature verifies an edited thinking text")
	}
	other := providertest.NewAnthropic(llmtest.NewScripted())
	defer other.Close()
	if providertest.ThinkingSigned(other, thinking, signature) {
		t.Error("another server's secret verifies the signature")
	}
}

// TestAnthropicServerStreamedThinking checks the events of a streamed answer with thinking
// on, as the API sends them: the thinking block's start, its text in thinking_delta events,
// its signature in a signature_delta, its stop; then the text block; the cache counts in
// message_start.
func TestAnthropicServerStreamedThinking(t *testing.T) {
	t.Parallel()
	s := providertest.NewAnthropic(thinkingReply())
	defer s.Close()
	status, header, body := rawPost(t, s, "/v1/messages", providers[1].validHeaders("k"), thinkingRequest+`,"stream":true}`)
	if status != http.StatusOK || !strings.HasPrefix(header.Get("Content-Type"), "text/event-stream") {
		t.Fatalf("status %d, %s: %s", status, header.Get("Content-Type"), body)
	}
	var (
		kinds               []string
		thinking, signature string
		start               map[string]any
	)
	for _, block := range strings.Split(strings.TrimSpace(string(body)), "\n\n") {
		_, data, _ := strings.Cut(block, "data: ")
		var e map[string]any
		if err := json.Unmarshal([]byte(data), &e); err != nil {
			t.Fatalf("event %q: %v", block, err)
		}
		kind, _ := e["type"].(string)
		switch kind {
		case "message_start":
			start, _ = e["message"].(map[string]any)
		case "content_block_start":
			cb, _ := e["content_block"].(map[string]any)
			kind += ":" + cb["type"].(string)
			if cb["type"] == "thinking" && (cb["thinking"] != "" || cb["signature"] != "") {
				t.Errorf("thinking block starts with %v; want empty thinking and signature", cb)
			}
		case "content_block_delta":
			d, _ := e["delta"].(map[string]any)
			kind += ":" + d["type"].(string)
			if e["index"] == 0.0 {
				t, _ := d["thinking"].(string)
				sig, _ := d["signature"].(string)
				thinking, signature = thinking+t, signature+sig
			}
		}
		if n := len(kinds); n == 0 || kinds[n-1] != kind {
			kinds = append(kinds, kind) // runs of the same event once
		}
	}
	want := []string{"message_start", "content_block_start:thinking", "content_block_delta:thinking_delta", "content_block_delta:signature_delta",
		"content_block_stop", "content_block_start:text", "content_block_delta:text_delta", "content_block_stop", "message_delta", "message_stop"}
	if diff := cmp.Diff(want, kinds); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	if thinking != "The user asks about Oslo. I recall its population from the 2024 census." {
		t.Errorf("streamed thinking %q", thinking)
	}
	checkSignature(t, s, thinking, signature)
	u, _ := start["usage"].(map[string]any)
	if u["cache_read_input_tokens"] != 1000.0 || u["cache_creation_input_tokens"] != 300.0 || u["input_tokens"] != 50.0 {
		t.Errorf("message_start usage %v; want the cache counts", u)
	}
}

// TestAnthropicServerChecksThinkingSentBack: a tool loop's next request with thinking on must
// bring back the turn's thinking block first and unchanged, as the API requires.
func TestAnthropicServerChecksThinkingSentBack(t *testing.T) {
	t.Parallel()
	s := providertest.NewAnthropic(llmtest.NewScripted(llmtest.Calls(llmtest.Call("f", `{}`)), llmtest.Text("done"), llmtest.Text("done"), llmtest.Text("done")))
	defer s.Close()
	_, _, body := rawPost(t, s, "/v1/messages", providers[1].validHeaders("k"), thinkingRequest+`,"tools":[{"name":"f","input_schema":{"type":"object"}}]}`)
	var first struct{ Content []json.RawMessage }
	if err := json.Unmarshal(body, &first); err != nil || len(first.Content) != 2 {
		t.Fatalf("first answer %s (%v); want thinking and a tool_use", body, err)
	}
	thinkingBlock, toolUse := string(first.Content[0]), string(first.Content[1])
	var use struct{ ID string }
	_ = json.Unmarshal(first.Content[1], &use)
	loop := func(turn ...string) string {
		return strings.TrimSuffix(thinkingRequest, `"messages":[{"role":"user","content":"Oslo?"}]`) +
			`"tools":[{"name":"f","input_schema":{"type":"object"}}],"messages":[{"role":"user","content":"Oslo?"},` +
			`{"role":"assistant","content":[` + strings.Join(turn, ",") + `]},` +
			`{"role":"user","content":[{"type":"tool_result","tool_use_id":"` + use.ID + `","content":"709000"}]}]}`
	}
	tampered := strings.Replace(thinkingBlock, `"thinking":"`, `"thinking":"Not `, 1)
	for _, c := range []struct {
		name, body, want string
	}{
		{"without its thinking block", loop(toolUse), "Expected `thinking` or `redacted_thinking`, but found `tool_use`"},
		{"an edited thinking block", loop(tampered, toolUse), "Invalid `signature` in `thinking` block"},
		{"the thinking block after the call", loop(toolUse, thinkingBlock), "thinking blocks must come first"},
		{"as it came", loop(thinkingBlock, toolUse), ""},
		{"a redacted block", loop(`{"type":"redacted_thinking","data":"opaque"}`, toolUse), ""},
		{"without thinking, no block needed", strings.Replace(loop(toolUse), `"thinking":{"type":"enabled","budget_tokens":2048},`, "", 1), ""},
	} {
		status, _, got := rawPost(t, s, "/v1/messages", providers[1].validHeaders("k"), c.body)
		switch {
		case c.want == "" && status != http.StatusOK:
			t.Errorf("%s: status %d: %s", c.name, status, got)
		case c.want != "" && (status != http.StatusBadRequest || !strings.Contains(string(got), c.want)):
			t.Errorf("%s: status %d: %s; want a 400 saying %q", c.name, status, got, c.want)
		}
	}
}
