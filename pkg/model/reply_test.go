package model_test

import (
	"errors"
	"testing"

	"github.com/cadrehq/cadre/pkg/model"
	"github.com/cadrehq/cadre/pkg/usage"
	"github.com/google/go-cmp/cmp"
	"github.com/tmc/langchaingo/llms"
)

// anthropicInfo is the GenerationInfo langchaingo's anthropic client copies into every choice.
func anthropicInfo() map[string]any {
	return map[string]any{
		"InputTokens":              20,
		"OutputTokens":             15,
		"CacheCreationInputTokens": 0,
		"CacheReadInputTokens":     100,
	}
}

// anthropicResponse is a response as langchaingo's anthropic client builds it for a turn with
// text and two tool uses: one choice per content block, each with the whole response's usage,
// tool calls without a type.
func anthropicResponse() *llms.ContentResponse {
	return &llms.ContentResponse{Choices: []*llms.ContentChoice{
		{Content: "Let me look both up.", StopReason: "tool_use", GenerationInfo: anthropicInfo()},
		{
			ToolCalls:      []llms.ToolCall{{ID: "toolu_1", FunctionCall: &llms.FunctionCall{Name: "weather", Arguments: `{"city":"Paris"}`}}},
			StopReason:     "tool_use",
			GenerationInfo: anthropicInfo(),
		},
		{
			ToolCalls:      []llms.ToolCall{{ID: "toolu_2", FunctionCall: &llms.FunctionCall{Name: "weather", Arguments: `{"city":"Oslo"}`}}},
			StopReason:     "tool_use",
			GenerationInfo: anthropicInfo(),
		},
	}}
}

func TestReadMergesChoicesAndCountsUsageOnce(t *testing.T) {
	t.Parallel()
	resp := anthropicResponse()
	got, err := model.Read(resp)
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	want := model.Reply{
		Text: "Let me look both up.",
		ToolCalls: []llms.ToolCall{
			{ID: "toolu_1", Type: "function", FunctionCall: &llms.FunctionCall{Name: "weather", Arguments: `{"city":"Paris"}`}},
			{ID: "toolu_2", Type: "function", FunctionCall: &llms.FunctionCall{Name: "weather", Arguments: `{"city":"Oslo"}`}},
		},
		StopReason: "tool_use",
		Usage:      usage.Usage{Requests: 1, InputTokens: 120, OutputTokens: 15, CacheReadTokens: 100},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Read mismatch (-want +got):\n%s", diff)
	}
	// The response may be shared (a recorded fixture, a cache): Read leaves it as it was.
	if diff := cmp.Diff(anthropicResponse(), resp); diff != "" {
		t.Errorf("Read modified the response (-before +after):\n%s", diff)
	}
}

func TestReadThinkingChoice(t *testing.T) {
	t.Parallel()
	// anthropic's thinking block comes first, as an empty choice that carries usage too.
	thinking := anthropicInfo()
	thinking["ThinkingContent"] = "hmm"
	resp := &llms.ContentResponse{Choices: []*llms.ContentChoice{
		{StopReason: "end_turn", GenerationInfo: thinking},
		{Content: "Paris.", StopReason: "end_turn", GenerationInfo: anthropicInfo()},
	}}
	got, err := model.Read(resp)
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	want := model.Reply{
		Text:       "Paris.",
		StopReason: "end_turn",
		Usage:      usage.Usage{Requests: 1, InputTokens: 120, OutputTokens: 15, CacheReadTokens: 100},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Read mismatch (-want +got):\n%s", diff)
	}
}

func TestReadSingleChoice(t *testing.T) {
	t.Parallel()
	resp := &llms.ContentResponse{Choices: []*llms.ContentChoice{{
		Content:    "",
		StopReason: "tool_calls",
		ToolCalls: []llms.ToolCall{
			{ID: "call_1", Type: "function", FunctionCall: &llms.FunctionCall{Name: "search", Arguments: `{"q":"go"}`}},
		},
		GenerationInfo: map[string]any{"PromptTokens": 30, "CompletionTokens": 5},
	}}}
	got, err := model.Read(resp)
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	want := model.Reply{
		ToolCalls: []llms.ToolCall{
			{ID: "call_1", Type: "function", FunctionCall: &llms.FunctionCall{Name: "search", Arguments: `{"q":"go"}`}},
		},
		StopReason: "tool_calls",
		Usage:      usage.Usage{Requests: 1, InputTokens: 30, OutputTokens: 5},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Read mismatch (-want +got):\n%s", diff)
	}
}

func TestReadEmptyResponse(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		resp *llms.ContentResponse
	}{
		{"nil", nil},
		{"no choices", &llms.ContentResponse{}},
		{"nil choice", &llms.ContentResponse{Choices: []*llms.ContentChoice{nil}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if _, err := model.Read(tt.resp); !errors.Is(err, model.ErrEmptyResponse) {
				t.Errorf("Read error = %v, want ErrEmptyResponse", err)
			}
		})
	}
}

func TestReplyFinish(t *testing.T) {
	t.Parallel()
	tests := []struct {
		reason string
		want   model.Finish
	}{
		{"", model.FinishDone},
		{"stop", model.FinishDone},
		{"tool_calls", model.FinishDone},
		{"end_turn", model.FinishDone},
		{"tool_use", model.FinishDone},
		{"stop_sequence", model.FinishDone},
		{"STOP", model.FinishDone},
		{"FinishReasonStop", model.FinishDone},
		{"OTHER", model.FinishDone},

		{"length", model.FinishLength},
		{"max_tokens", model.FinishLength},
		{"MAX_TOKENS", model.FinishLength},
		{"FinishReasonMaxTokens", model.FinishLength},

		{"content_filter", model.FinishRefusal},
		{"refusal", model.FinishRefusal},
		{"SAFETY", model.FinishRefusal},
		{"FinishReasonSafety", model.FinishRefusal},
		{"RECITATION", model.FinishRefusal},
		{"BLOCKLIST", model.FinishRefusal},
		{"PROHIBITED_CONTENT", model.FinishRefusal},
		{"SPII", model.FinishRefusal},
		{"IMAGE_SAFETY", model.FinishRefusal},
	}
	for _, tt := range tests {
		if got := (model.Reply{StopReason: tt.reason}).Finish(); got != tt.want {
			t.Errorf("Reply{StopReason: %q}.Finish() = %d, want %d", tt.reason, got, tt.want)
		}
	}
}

func TestReplyMessage(t *testing.T) {
	t.Parallel()
	call := llms.ToolCall{ID: "c1", Type: "function", FunctionCall: &llms.FunctionCall{Name: "search", Arguments: `{}`}}
	tests := []struct {
		name  string
		reply model.Reply
		want  llms.MessageContent
	}{
		{
			name:  "text and calls",
			reply: model.Reply{Text: "Looking.", ToolCalls: []llms.ToolCall{call}},
			want:  llms.MessageContent{Role: llms.ChatMessageTypeAI, Parts: []llms.ContentPart{llms.TextContent{Text: "Looking."}, call}},
		},
		{
			name:  "calls only",
			reply: model.Reply{ToolCalls: []llms.ToolCall{call}},
			want:  llms.MessageContent{Role: llms.ChatMessageTypeAI, Parts: []llms.ContentPart{call}},
		},
		{
			name:  "text only",
			reply: model.Reply{Text: "Done."},
			want:  llms.MessageContent{Role: llms.ChatMessageTypeAI, Parts: []llms.ContentPart{llms.TextContent{Text: "Done."}}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tt.want, tt.reply.Message()); diff != "" {
				t.Errorf("Message mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// A call typed "function" still gets what it lacks: an ID (results are matched to calls by
// it) and a FunctionCall.
func TestReadCompletesTypedCalls(t *testing.T) {
	t.Parallel()
	resp := &llms.ContentResponse{Choices: []*llms.ContentChoice{{ToolCalls: []llms.ToolCall{
		{Type: "function", FunctionCall: &llms.FunctionCall{Name: "lookup", Arguments: `{"city":"Oslo"}`}},
		{ID: "c2", Type: "function"},
	}}}}
	r, err := model.Read(resp)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.ToolCalls) != 2 || r.ToolCalls[0].ID == "" || r.ToolCalls[1].FunctionCall == nil || r.ToolCalls[1].ID != "c2" {
		t.Errorf("calls = %+v, want the first given an ID and the second a FunctionCall", r.ToolCalls)
	}
}
