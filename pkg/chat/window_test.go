package chat_test

import (
	"strings"
	"testing"

	"github.com/cadrehq/cadre/pkg/chat"
	"github.com/google/go-cmp/cmp"
	"github.com/tmc/langchaingo/llms"
)

func msg(role llms.ChatMessageType, text string) llms.MessageContent {
	return llms.MessageContent{Role: role, Parts: []llms.ContentPart{llms.TextContent{Text: text}}}
}

func call(ids ...string) llms.MessageContent {
	m := llms.MessageContent{Role: llms.ChatMessageTypeAI}
	for _, id := range ids {
		m.Parts = append(m.Parts, llms.ToolCall{ID: id, Type: "function", FunctionCall: &llms.FunctionCall{Name: "f", Arguments: "{}"}})
	}
	return m
}

func result(id string) llms.MessageContent {
	return llms.MessageContent{Role: llms.ChatMessageTypeTool, Parts: []llms.ContentPart{llms.ToolCallResponse{ToolCallID: id, Name: "f"}}}
}

func TestWindowApply(t *testing.T) {
	t.Parallel()
	const (
		h  = llms.ChatMessageTypeHuman
		ai = llms.ChatMessageTypeAI
	)
	turns := []llms.MessageContent{
		msg(h, "q0"), call("a"), result("a"), msg(ai, "a0"), // 0-3
		msg(h, "q1"), msg(ai, "a1"), // 4-5
		msg(h, "q2"), call("b", "c"), result("b"), result("c"), msg(ai, "a2"), // 6-10
	}
	hundred := strings.Repeat("x", 400) // 4 + 100 tokens a message
	big := []llms.MessageContent{msg(h, hundred), msg(ai, hundred), msg(h, hundred), msg(ai, hundred)}
	image := []llms.MessageContent{
		msg(h, "q"), // 4 tokens
		{Role: h, Parts: []llms.ContentPart{llms.ImageURLContent{URL: "u"}}}, // 260
		msg(ai, "a"), // 4
	}
	tests := []struct {
		name      string
		w         chat.Window
		msgs      []llms.MessageContent
		wantStart int // the window is msgs[wantStart:]
	}{
		{"defaults hold a short chat", chat.Window{}, turns, 0},
		{"whole turns within MaxMessages", chat.Window{MaxMessages: 7}, turns, 4},
		{"a cut never lands inside a turn", chat.Window{MaxMessages: 6}, turns, 6},
		{"exactly the last turn", chat.Window{MaxMessages: 5}, turns, 6},
		{"the last turn whole when over MaxMessages", chat.Window{MaxMessages: 1}, turns, 6},
		{"negative MaxMessages is no limit", chat.Window{MaxMessages: -1}, turns, 0},
		{"MaxTokens holds two messages", chat.Window{MaxTokens: 208}, big, 2},
		{"the last turn whole when over MaxTokens", chat.Window{MaxTokens: 207}, big, 2},
		{"MaxTokens holds everything", chat.Window{MaxTokens: 416}, big, 0},
		{"an image costs 256 tokens", chat.Window{MaxTokens: 265}, image, 1},
		{"an image within MaxTokens", chat.Window{MaxTokens: 268}, image, 0},
		{"both limits: MaxMessages the tighter", chat.Window{MaxMessages: 3, MaxTokens: 10_000}, big, 2},
		{"both limits: MaxTokens the tighter", chat.Window{MaxMessages: 100, MaxTokens: 300}, big, 2},
		{"no limits", chat.Window{MaxMessages: -1, MaxTokens: -1}, big, 0},
		{"starts at a user's message", chat.Window{}, []llms.MessageContent{msg(ai, "hello"), msg(h, "q"), msg(ai, "a")}, 1},
		{"no user's message: nothing", chat.Window{}, []llms.MessageContent{msg(ai, "hello"), call("x"), result("x")}, 3},
		{"empty", chat.Window{}, nil, 0},
	}
	for _, tt := range tests {
		got := tt.w.Apply(tt.msgs)
		if len(got) != len(tt.msgs)-tt.wantStart {
			t.Errorf("%s: %+v kept the last %d of %d messages, want from message %d on", tt.name, tt.w, len(got), len(tt.msgs), tt.wantStart)
		}
	}
}

func TestWindowDefaultLimits(t *testing.T) {
	t.Parallel()
	var many []llms.MessageContent
	for range 80 {
		many = append(many, msg(llms.ChatMessageTypeHuman, "q"), msg(llms.ChatMessageTypeAI, "a"))
	}
	if got := (chat.Window{}).Apply(many); len(got) != chat.DefaultWindowMessages {
		t.Errorf("the default window kept %d of %d short messages, want %d", len(got), len(many), chat.DefaultWindowMessages)
	}
	long := strings.Repeat("x", 4*1000) // 1,004 tokens a message
	var heavy []llms.MessageContent
	for range 40 {
		heavy = append(heavy, msg(llms.ChatMessageTypeHuman, long))
	}
	if got := (chat.Window{}).Apply(heavy); len(got) != chat.DefaultWindowTokens/1004 {
		t.Errorf("the default window kept %d messages of 1,004 tokens, want %d", len(got), chat.DefaultWindowTokens/1004)
	}
}

func TestEstimateTokens(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		part llms.ContentPart
		want int
	}{
		{"text, 4 bytes a token", llms.TextContent{Text: strings.Repeat("x", 400)}, 104},
		{"tool call: name and arguments", llms.ToolCall{FunctionCall: &llms.FunctionCall{Name: "abcd", Arguments: "{\"\":1}"}}, 6},
		{"tool call without a function", llms.ToolCall{ID: "x"}, 4},
		{"tool result: content", llms.ToolCallResponse{Content: strings.Repeat("x", 40)}, 14},
		{"image", llms.ImageURLContent{URL: "u"}, 260},
		{"binary", llms.BinaryContent{Data: make([]byte, 1<<20)}, 260},
	}
	for _, tt := range tests {
		m := llms.MessageContent{Role: llms.ChatMessageTypeHuman, Parts: []llms.ContentPart{tt.part}}
		if got := chat.EstimateTokens(m); got != tt.want {
			t.Errorf("%s: EstimateTokens = %d, want %d", tt.name, got, tt.want)
		}
	}
	if got := chat.EstimateTokens(llms.MessageContent{}); got != 4 {
		t.Errorf("EstimateTokens of an empty message = %d, want 4 (its overhead)", got)
	}
}

// TestTextOnly: the users' turns and the assistant's text stay, each run of assistant texts as
// one message; tool calls and results go, but for the calls keep turns into text.
func TestTextOnly(t *testing.T) {
	t.Parallel()
	toolCall := func(name, args string) llms.ToolCall {
		return llms.ToolCall{ID: name, Type: "function", FunctionCall: &llms.FunctionCall{Name: name, Arguments: args}}
	}
	msgs := []llms.MessageContent{
		llms.TextParts(llms.ChatMessageTypeHuman, "one"),
		{Role: llms.ChatMessageTypeAI, Parts: []llms.ContentPart{llms.TextContent{Text: "looking"}, toolCall("look", `{}`)}},
		{Role: llms.ChatMessageTypeTool, Parts: []llms.ContentPart{llms.ToolCallResponse{ToolCallID: "look", Name: "look", Content: "seen"}}},
		{Role: llms.ChatMessageTypeAI, Parts: []llms.ContentPart{llms.TextContent{Text: " "}, toolCall("answer", `{"a":1}`)}},
		llms.TextParts(llms.ChatMessageTypeHuman, "two"),
	}
	keep := func(c llms.FunctionCall) (string, bool) { return c.Arguments, c.Name == "answer" }
	want := []llms.MessageContent{
		llms.TextParts(llms.ChatMessageTypeHuman, "one"),
		llms.TextParts(llms.ChatMessageTypeAI, "looking\n\n{\"a\":1}"),
		llms.TextParts(llms.ChatMessageTypeHuman, "two"),
	}
	if diff := cmp.Diff(want, chat.TextOnly(msgs, keep)); diff != "" {
		t.Errorf("TextOnly (-want +got):\n%s", diff)
	}
	if got := chat.TextOnly(msgs, nil); len(got) != 3 || got[1].Parts[0] != (llms.TextContent{Text: "looking"}) {
		t.Errorf("TextOnly without keep = %+v; want the calls left out", got)
	}
}
