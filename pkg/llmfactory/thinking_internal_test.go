package llmfactory

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/cadrehq/cadre/pkg/model"
	"github.com/google/go-cmp/cmp"
	"github.com/tmc/langchaingo/llms"
)

func reasoning(text, sig string) model.Reasoning {
	return model.Reasoning{TextContent: llms.TextContent{Text: text}, Provider: "anthropic", Signature: sig}
}

func call(id, args string) llms.ToolCall {
	return llms.ToolCall{ID: id, Type: "function", FunctionCall: &llms.FunctionCall{Name: "f", Arguments: args}}
}

func result(id string) llms.ToolCallResponse {
	return llms.ToolCallResponse{ToolCallID: id, Name: "f", Content: "ok " + id}
}

// A turn of parallel calls goes as one assistant message, its thinking first, and its results
// as one user message: the shape the API wants back in a tool loop.
func TestAnthropicMessagesKeepATurnTogether(t *testing.T) {
	t.Parallel()
	msgs := []llms.MessageContent{
		llms.TextParts(llms.ChatMessageTypeSystem, "be brief"),
		llms.TextParts(llms.ChatMessageTypeHuman, "go"),
		{Role: llms.ChatMessageTypeAI, Parts: []llms.ContentPart{
			reasoning("plan", "s1"), model.Reasoning{Provider: "anthropic", Redacted: "opaque"},
			model.Reasoning{TextContent: llms.TextContent{Text: "another's"}, Provider: "googleai"},
			llms.TextContent{Text: "calling"}, call("a", `{"x":1}`), call("b", "not JSON"),
		}},
		{Role: llms.ChatMessageTypeTool, Parts: []llms.ContentPart{result("a")}},
		{Role: llms.ChatMessageTypeTool, Parts: []llms.ContentPart{result("b")}},
	}
	got, continued := anthropicMessages(msgs, "anthropic")
	if !continued {
		t.Error("continued = false, want true: the loop's turn has its thinking")
	}
	raw, err := json.Marshal(got)
	if err != nil {
		t.Fatal(err)
	}
	want := `[{"role":"user","content":[{"type":"text","text":"go"}]},` +
		`{"role":"assistant","content":[{"type":"thinking","thinking":"plan","signature":"s1"},{"type":"redacted_thinking","data":"opaque"},` +
		`{"type":"text","text":"calling"},{"type":"tool_use","id":"a","name":"f","input":{"x":1}},{"type":"tool_use","id":"b","name":"f","input":{}}]},` +
		`{"role":"user","content":[{"type":"tool_result","tool_use_id":"a","content":"ok a"},{"type":"tool_result","tool_use_id":"b","content":"ok b"}]}]`
	if string(raw) != want {
		t.Errorf("messages:\n got %s\nwant %s", raw, want)
	}
}

// A loop whose turn has no thinking (another provider of the chain answered it) goes on
// without thinking; a request that continues no loop keeps it.
func TestThinkingRequestDropsThinkingForALoopWithoutIt(t *testing.T) {
	t.Parallel()
	body := []byte(`{"model":"claude","max_tokens":9000,"thinking":{"type":"enabled","budget_tokens":2048},"messages":[]}`)
	for _, tc := range []struct {
		name     string
		msgs     []llms.MessageContent
		thinking bool
	}{
		{"first request", []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, "go")}, true},
		{"loop with thinking", []llms.MessageContent{
			llms.TextParts(llms.ChatMessageTypeHuman, "go"),
			{Role: llms.ChatMessageTypeAI, Parts: []llms.ContentPart{reasoning("p", "s"), call("a", "{}")}},
			{Role: llms.ChatMessageTypeTool, Parts: []llms.ContentPart{result("a")}},
		}, true},
		{"loop with thinking, its turn the first message", []llms.MessageContent{
			{Role: llms.ChatMessageTypeAI, Parts: []llms.ContentPart{reasoning("p", "s"), call("a", "{}")}},
			{Role: llms.ChatMessageTypeTool, Parts: []llms.ContentPart{result("a")}},
		}, true},
		{"instructions only", []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeSystem, "be brief")}, true},
		{"loop without", []llms.MessageContent{
			llms.TextParts(llms.ChatMessageTypeHuman, "go"),
			{Role: llms.ChatMessageTypeAI, Parts: []llms.ContentPart{call("a", "{}")}},
			{Role: llms.ChatMessageTypeTool, Parts: []llms.ContentPart{result("a")}},
		}, false},
		{"a new question after a loop without", []llms.MessageContent{
			llms.TextParts(llms.ChatMessageTypeHuman, "go"),
			{Role: llms.ChatMessageTypeAI, Parts: []llms.ContentPart{call("a", "{}")}},
			{Role: llms.ChatMessageTypeTool, Parts: []llms.ContentPart{result("a")}},
			llms.TextParts(llms.ChatMessageTypeAI, "done"),
			llms.TextParts(llms.ChatMessageTypeHuman, "more"),
		}, true},
	} {
		edit := &bodyEdit{api: AnthropicAPI, thinkingBudget: 2048}
		out, err := edit.apply(body, &thinkingCall{msgs: tc.msgs}, nil)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		var req map[string]json.RawMessage
		if err := json.Unmarshal(out, &req); err != nil {
			t.Fatal(err)
		}
		if _, ok := req["thinking"]; ok != tc.thinking {
			t.Errorf("%s: thinking sent = %v, want %v", tc.name, ok, tc.thinking)
		}
		if string(req["model"]) != `"claude"` || string(req["max_tokens"]) != "9000" {
			t.Errorf("%s: other fields changed: %s", tc.name, out)
		}
	}
}

// A whole answer: the blocks are read with their signatures, and a redacted one reaches the
// client as an empty thinking block, which it can read.
func TestThinkingResponseWhole(t *testing.T) {
	t.Parallel()
	body := `{"id":"m","content":[{"type":"thinking","thinking":"plan","signature":"s1"},` +
		`{"type":"redacted_thinking","data":"opaque"},{"type":"text","text":"hi"}],"usage":{"input_tokens":1,"output_tokens":2}}`
	resp := &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"application/json"}}, Body: io.NopCloser(strings.NewReader(body))}
	c := &thinkingCall{}
	thinkingResponse(resp, c)
	got, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(got), "redacted_thinking") || !strings.Contains(string(got), `"text":"hi"`) {
		t.Errorf("the client reads %s", got)
	}
	want := []model.Reasoning{reasoning("plan", "s1"), {Provider: "anthropic", Redacted: "opaque"}}
	if diff := cmp.Diff(want, c.reasoning()); diff != "" {
		t.Errorf("reasoning (-want +got):\n%s", diff)
	}
}

// A streamed answer: the thinking deltas and the signature delta (which langchaingo's client
// drops) make the block; a redacted block starts as an empty thinking block for the client.
func TestThinkingResponseStreamed(t *testing.T) {
	t.Parallel()
	events := []string{
		`{"type":"message_start","message":{"id":"m","usage":{"input_tokens":3}}}`,
		`{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":""}}`,
		`{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"pl"}}`,
		`{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"an"}}`,
		`{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"s1"}}`,
		`{"type":"content_block_stop","index":0}`,
		`{"type":"content_block_start","index":1,"content_block":{"type":"redacted_thinking","data":"opaque"}}`,
		`{"type":"content_block_stop","index":1}`,
		`{"type":"content_block_start","index":2,"content_block":{"type":"text","text":""}}`,
		`{"type":"content_block_delta","index":2,"delta":{"type":"text_delta","text":"hi"}}`,
		`{"type":"message_stop"}`,
	}
	var sse strings.Builder
	for _, e := range events {
		sse.WriteString("event: x\ndata: " + e + "\n\n")
	}
	resp := &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"text/event-stream; charset=utf-8"}}, Body: io.NopCloser(strings.NewReader(sse.String()))}
	c := &thinkingCall{}
	thinkingResponse(resp, c)
	got, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(got), "redacted_thinking") || !strings.Contains(string(got), `"text":"hi"`) || !strings.Contains(string(got), `"signature":"s1"`) {
		t.Errorf("the client reads %s", got)
	}
	want := []model.Reasoning{reasoning("plan", "s1"), {Provider: "anthropic", Redacted: "opaque"}}
	if diff := cmp.Diff(want, c.reasoning()); diff != "" {
		t.Errorf("reasoning (-want +got):\n%s", diff)
	}
}
