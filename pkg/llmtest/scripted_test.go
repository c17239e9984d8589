package llmtest_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cadrehq/cadre/pkg/llmtest"
	"github.com/cadrehq/cadre/pkg/model"
	"github.com/cadrehq/cadre/pkg/usage"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/tmc/langchaingo/llms"
)

func human(text string) []llms.MessageContent {
	return []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, text)}
}

// generate sends one request to m and returns the only choice of the response.
func generate(t *testing.T, m llms.Model, opts ...llms.CallOption) *llms.ContentChoice {
	t.Helper()
	resp, err := m.GenerateContent(context.Background(), human("hi"), opts...)
	if err != nil {
		t.Fatalf("GenerateContent: %v", err)
	}
	if len(resp.Choices) != 1 {
		t.Fatalf("GenerateContent returned %d choices, want 1", len(resp.Choices))
	}
	return resp.Choices[0]
}

func TestScriptedAnswersInOrder(t *testing.T) {
	t.Parallel()
	m := llmtest.NewScripted(
		llmtest.Text("one"),
		llmtest.Calls(llmtest.Call("search", `{"q":"go"}`), llmtest.Call("fetch", `{}`)),
		llmtest.Reply{Text: "three", StopReason: "length"},
	)

	got := generate(t, m)
	if got.Content != "one" || got.StopReason != "stop" || got.ToolCalls != nil {
		t.Errorf("first reply = %+v, want text %q, stop reason %q, no tool calls", got, "one", "stop")
	}

	got = generate(t, m)
	wantCalls := []llms.ToolCall{
		{ID: "call_1", Type: "function", FunctionCall: &llms.FunctionCall{Name: "search", Arguments: `{"q":"go"}`}},
		{ID: "call_2", Type: "function", FunctionCall: &llms.FunctionCall{Name: "fetch", Arguments: `{}`}},
	}
	if diff := cmp.Diff(wantCalls, got.ToolCalls); diff != "" {
		t.Errorf("second reply's tool calls (-want +got):\n%s", diff)
	}
	if got.StopReason != "tool_calls" {
		t.Errorf("second reply's stop reason = %q, want %q", got.StopReason, "tool_calls")
	}
	if got.FuncCall == nil || got.FuncCall.Name != "search" {
		t.Errorf("second reply's FuncCall = %+v, want the first call", got.FuncCall)
	}

	got = generate(t, m)
	if got.Content != "three" || got.StopReason != "length" {
		t.Errorf("third reply = %+v, want text %q, stop reason %q", got, "three", "length")
	}
}

func TestScriptedExhausted(t *testing.T) {
	t.Parallel()
	m := llmtest.NewScripted(llmtest.Text("only"))
	generate(t, m)
	_, err := m.GenerateContent(context.Background(), human("again"))
	if !errors.Is(err, llmtest.ErrExhausted) {
		t.Fatalf("GenerateContent after the script = %v, want ErrExhausted", err)
	}
	if !strings.Contains(err.Error(), "request 2") || !strings.Contains(err.Error(), "1 replies") {
		t.Errorf("error %q does not say which request and how many replies", err)
	}

	_, err = llmtest.NewScripted().Cycle().GenerateContent(context.Background(), human("hi"))
	if !errors.Is(err, llmtest.ErrExhausted) {
		t.Errorf("empty cycling script: GenerateContent = %v, want ErrExhausted", err)
	}
}

func TestScriptedCycle(t *testing.T) {
	t.Parallel()
	m := llmtest.NewScripted(llmtest.Text("a"), llmtest.Text("b")).Cycle()
	var got []string
	for range 5 {
		got = append(got, generate(t, m).Content)
	}
	if diff := cmp.Diff([]string{"a", "b", "a", "b", "a"}, got); diff != "" {
		t.Errorf("answers (-want +got):\n%s", diff)
	}
}

func TestScriptedCallIDs(t *testing.T) {
	t.Parallel()
	preset := llmtest.Call("keep", "{}")
	preset.ID = "mine"
	preset.Type = ""
	script := []llmtest.Reply{llmtest.Calls(llmtest.Call("a", "{}"), preset, llmtest.Call("b", "{}"))}
	m := llmtest.NewScripted(script...).Cycle()

	const goroutines = 100
	ids := make(chan string, goroutines*2)
	var wg sync.WaitGroup
	for range goroutines {
		wg.Go(func() {
			resp, err := m.GenerateContent(context.Background(), human("hi"))
			if err != nil {
				t.Error(err)
				return
			}
			calls := resp.Choices[0].ToolCalls
			if calls[1].ID != "mine" || calls[1].Type != "function" {
				t.Errorf("preset call = %+v, want its ID kept and type function", calls[1])
			}
			ids <- calls[0].ID
			ids <- calls[2].ID
			calls[0].FunctionCall.Name = "changed by the caller"
		})
	}
	wg.Wait()
	close(ids)

	seen := map[string]bool{}
	for id := range ids {
		if seen[id] {
			t.Errorf("call ID %q given twice", id)
		}
		seen[id] = true
	}
	if len(seen) != goroutines*2 {
		t.Errorf("got %d unique IDs, want %d", len(seen), goroutines*2)
	}
	if c := script[0].ToolCalls[0]; c.ID != "" || c.FunctionCall.Name != "a" || script[0].ToolCalls[1].Type != "" {
		t.Errorf("the script was modified: %+v", script[0].ToolCalls)
	}
}

func TestLatencyHonoursContext(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, latency := range []time.Duration{0, time.Hour} {
		m := llmtest.NewScripted(llmtest.Reply{Text: "late", Latency: latency})
		resp, err := m.GenerateContent(ctx, human("hi"))
		if !errors.Is(err, context.Canceled) || resp != nil {
			t.Errorf("latency %v, cancelled context: GenerateContent = %v, %v; want nil, context.Canceled", latency, resp, err)
		}
	}

	// Cancelled while waiting: the function cancels the context the model then waits on.
	ctx, cancel = context.WithCancel(context.Background())
	defer cancel()
	m := llmtest.NewFunc(func(context.Context, llmtest.Request) llmtest.Reply {
		cancel()
		return llmtest.Reply{Text: "late", Latency: time.Hour}
	})
	if _, err := m.GenerateContent(ctx, human("hi")); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled during latency: GenerateContent = %v, want context.Canceled", err)
	}
}

func TestLatencyElapses(t *testing.T) {
	t.Parallel()
	m := llmtest.NewScripted(llmtest.Reply{Text: "soon", Latency: time.Millisecond})
	if got := generate(t, m).Content; got != "soon" {
		t.Errorf("answer = %q, want %q", got, "soon")
	}
}

func TestFailReturnsError(t *testing.T) {
	t.Parallel()
	boom := errors.New("boom")
	m := llmtest.NewScripted(llmtest.Fail(boom), llmtest.Text("after"))
	if _, err := m.GenerateContent(context.Background(), human("hi")); !errors.Is(err, boom) {
		t.Errorf("GenerateContent = %v, want %v", err, boom)
	}
	if got := generate(t, m).Content; got != "after" {
		t.Errorf("answer after the failure = %q, want %q", got, "after")
	}
}

func TestRequestsRecorded(t *testing.T) {
	t.Parallel()
	m := llmtest.NewScripted(llmtest.Text("a"), llmtest.Text("b"))
	tool := llms.Tool{Type: "function", Function: &llms.FunctionDefinition{
		Name: "search", Parameters: map[string]any{"type": "object"},
	}}
	msgs := []llms.MessageContent{
		llms.TextParts(llms.ChatMessageTypeSystem, "be brief"),
		llms.TextParts(llms.ChatMessageTypeHuman, "hi"),
	}
	if _, err := m.GenerateContent(context.Background(), msgs,
		llms.WithTools([]llms.Tool{tool}), llms.WithToolChoice("required"), llms.WithMaxTokens(64)); err != nil {
		t.Fatal(err)
	}
	msgs[1] = llms.TextParts(llms.ChatMessageTypeHuman, "changed after the call")
	if _, err := m.GenerateContent(context.Background(), human("second")); err != nil {
		t.Fatal(err)
	}

	want := []llmtest.Request{{
		Messages: []llms.MessageContent{
			llms.TextParts(llms.ChatMessageTypeSystem, "be brief"),
			llms.TextParts(llms.ChatMessageTypeHuman, "hi"),
		},
		Options: llms.CallOptions{Tools: []llms.Tool{tool}, ToolChoice: "required", MaxTokens: 64},
	}, {
		Messages: human("second"),
	}}
	if diff := cmp.Diff(want, m.Requests(), cmpopts.IgnoreFields(llms.CallOptions{}, "StreamingFunc", "StreamingReasoningFunc")); diff != "" {
		t.Errorf("Requests (-want +got):\n%s", diff)
	}
}

func TestNoRecord(t *testing.T) {
	t.Parallel()
	m := llmtest.NewScripted(llmtest.Text("a")).NoRecord()
	generate(t, m)
	if got := m.Requests(); got != nil {
		t.Errorf("Requests = %v, want nil for a model built with NoRecord", got)
	}
}

func TestSupportsTools(t *testing.T) {
	t.Parallel()
	noop := func(context.Context, llmtest.Request) llmtest.Reply { return llmtest.Reply{} }
	tests := []struct {
		name  string
		model interface{ SupportsTools() bool }
		want  bool
	}{
		{"scripted", llmtest.NewScripted(), true},
		{"scripted without tools", llmtest.NewScripted().WithoutTools(), false},
		{"func", llmtest.NewFunc(noop), true},
		{"func without tools", llmtest.NewFunc(noop).WithoutTools(), false},
	}
	for _, tt := range tests {
		if got := tt.model.SupportsTools(); got != tt.want {
			t.Errorf("%s: SupportsTools() = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestUsageInGenerationInfo(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		usage usage.Usage
		want  map[string]any
	}{{
		name: "none",
		want: map[string]any{"PromptTokens": 0, "CompletionTokens": 0, "TotalTokens": 0},
	}, {
		name:  "input and output",
		usage: usage.Usage{InputTokens: 1000, OutputTokens: 300, CacheWriteTokens: 7, Requests: 1},
		want:  map[string]any{"PromptTokens": 1000, "CompletionTokens": 300, "TotalTokens": 1300},
	}, {
		name:  "cached and reasoning",
		usage: usage.Usage{InputTokens: 1000, OutputTokens: 300, CacheReadTokens: 800, ReasoningTokens: 200},
		want: map[string]any{
			"PromptTokens": 1000, "CompletionTokens": 300, "TotalTokens": 1300,
			"PromptCachedTokens": 800, "ReasoningTokens": 200,
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := generate(t, llmtest.NewScripted(llmtest.Reply{Text: "x", Usage: tt.usage})).GenerationInfo
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("GenerationInfo (-want +got):\n%s", diff)
			}
		})
	}
}

func TestResponsePassthrough(t *testing.T) {
	t.Parallel()
	// Shaped as langchaingo's anthropic client answers: one choice per content block.
	want := &llms.ContentResponse{Choices: []*llms.ContentChoice{
		{Content: "thinking aloud", GenerationInfo: map[string]any{"InputTokens": 10}},
		{ToolCalls: []llms.ToolCall{{ID: "toolu_1", FunctionCall: &llms.FunctionCall{Name: "search"}}}},
	}}
	m := llmtest.NewScripted(llmtest.Reply{Response: want, Text: "ignored"})
	got, err := m.GenerateContent(context.Background(), human("hi"))
	if err != nil || got != want {
		t.Errorf("GenerateContent = %p, %v; want the reply's response %p", got, err, want)
	}
}

func TestCallReturnsText(t *testing.T) {
	t.Parallel()
	m := llmtest.NewScripted(llmtest.Text("pong"), llmtest.Fail(errors.New("down")))
	got, err := m.Call(context.Background(), "ping", llms.WithTemperature(0.5))
	if err != nil || got != "pong" {
		t.Errorf("Call = %q, %v; want %q, nil", got, err, "pong")
	}
	req := m.Requests()[0]
	if diff := cmp.Diff(human("ping"), req.Messages); diff != "" || req.Options.Temperature != 0.5 {
		t.Errorf("Call sent %+v (messages -want +got:\n%s)", req, diff)
	}
	if _, err := m.Call(context.Background(), "ping"); err == nil || err.Error() != "down" {
		t.Errorf("Call = %v, want the reply's error", err)
	}
}

func TestAScriptedRefusalReachesTheReply(t *testing.T) {
	m := llmtest.NewScripted(llmtest.Reply{Refusal: "I can't help with that."})
	resp, err := m.GenerateContent(context.Background(), []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, "hi")})
	if err != nil {
		t.Fatal(err)
	}
	r, err := model.Read(resp)
	if err != nil || r.Refusal != "I can't help with that." || r.Finish() != model.FinishRefusal {
		t.Fatalf("reply %+v, %v", r, err)
	}
}
