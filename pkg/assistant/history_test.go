package assistant_test

import (
	"sync/atomic"
	"testing"

	"github.com/cadrehq/cadre/pkg/assistant"
	"github.com/cadrehq/cadre/pkg/chat"
	"github.com/cadrehq/cadre/pkg/llmtest"
	"github.com/cadrehq/cadre/pkg/model"
	"github.com/google/go-cmp/cmp"
	"github.com/tmc/langchaingo/llms"
)

// TestTextOnlyHistory: with HistoryTextOnly a run loads its chat's users' turns and assistant
// text: tool calls go with their results, a final_result call becomes the answer's JSON, and
// the assistant's texts of one turn become one message; the store keeps everything.
func TestTextOnlyHistory(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		script   []llmtest.Reply
		answered string // the first run's answer, as the history's text shows it
	}{
		{
			name: "an object output",
			script: []llmtest.Reply{
				{Text: "Let me look.", ToolCalls: llmtest.Calls(llmtest.Call("lookup", `{}`)).ToolCalls},
				llmtest.Calls(llmtest.Call("final_result", `{"name":"Oslo","population":700000}`)),
			},
			answered: `{"name":"Oslo","population":700000}`,
		},
		{
			name: "a wrapped output",
			script: []llmtest.Reply{
				{Text: "Let me look.", ToolCalls: llmtest.Calls(llmtest.Call("lookup", `{}`)).ToolCalls},
				llmtest.Calls(llmtest.Call("final_result", `{"output":["Oslo","Bergen"]}`)),
			},
			answered: `["Oslo","Bergen"]`,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			store := chat.NewMemory()
			ctx := chat.WithID(testContext(t), chat.ID{Chat: "c"})
			m := llmtest.NewScripted(append(tc.script, llmtest.Text("second answer"))...)
			var n atomic.Int64
			opts := []assistant.Option{assistant.WithModel(m), assistant.WithStore(store), assistant.WithOutputMode(assistant.OutputTool),
				assistant.WithTools(countingTool("lookup", &n)), assistant.WithHistoryShape(assistant.HistoryTextOnly)}
			run := func(prompt string) {
				t.Helper()
				var err error
				if tc.name == "a wrapped output" {
					_, err = assistant.New[[]string]("geo", opts...).Run(ctx, assistant.Input{Prompt: prompt})
				} else {
					_, err = assistant.New[city]("geo", opts...).Run(ctx, assistant.Input{Prompt: prompt})
				}
				if err != nil && prompt == "first" {
					t.Fatal(err)
				}
			}
			run("first")
			run("second")
			reqs := m.Requests()
			got := reqs[len(tc.script)].Messages // the second run's first request
			if got[0].Role == llms.ChatMessageTypeSystem {
				got = got[1:]
			}
			want := []llms.MessageContent{
				llms.TextParts(llms.ChatMessageTypeHuman, "first"),
				llms.TextParts(llms.ChatMessageTypeAI, "Let me look.\n\n"+tc.answered),
				llms.TextParts(llms.ChatMessageTypeHuman, "second"),
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("the second run's request (-want +got):\n%s", diff)
			}
			if err := replayError(got); err != nil {
				t.Errorf("the text-only history is not a conversation providers accept: %v", err)
			}
			stored, _ := store.Load(testContext(t), chat.ID{Chat: "c"})
			if calls := toolCallsIn(stored); len(calls) < 2 {
				t.Errorf("the store keeps %d tool calls; want every message kept", len(calls))
			}
		})
	}
}

// TestReasoningInAChat: a thinking model's reasoning is stored with its turn, loaded back for a
// model that takes it (model.ShapeKeep), and left out of text-only history.
func TestReasoningInAChat(t *testing.T) {
	t.Parallel()
	// As langchaingo's anthropic client answers: a choice for the thinking block, then one for
	// the text.
	info := map[string]any{"ThinkingContent": "they asked for a greeting", "ThinkingSignature": "sig", "InputTokens": 3, "OutputTokens": 2}
	thinking := &llms.ContentResponse{Choices: []*llms.ContentChoice{
		{GenerationInfo: info},
		{Content: "Hello!", StopReason: "end_turn", GenerationInfo: map[string]any{"InputTokens": 3, "OutputTokens": 2}},
	}}
	m := llmtest.NewScripted(llmtest.Reply{Response: thinking}, llmtest.Text("again"), llmtest.Text("and again"))
	store := chat.NewMemory()
	ctx := chat.WithID(testContext(t), chat.ID{Chat: "c"})
	keep := model.Model{Name: "thinker", Provider: "anthropic", LLM: m, Shape: model.ShapeKeep}
	run := func(opts ...assistant.Option) {
		t.Helper()
		opts = append(opts, assistant.WithModels(model.Fixed(keep)), assistant.WithStore(store))
		if _, err := assistant.New[string]("greeter", opts...).Run(ctx, assistant.Input{Prompt: "hi"}); err != nil {
			t.Fatal(err)
		}
	}
	run()
	want := model.Reasoning{TextContent: llms.TextContent{Text: "they asked for a greeting"}, Provider: "anthropic", Signature: "sig"}
	stored, err := store.Load(testContext(t), chat.ID{Chat: "c"})
	if err != nil {
		t.Fatal(err)
	}
	if len(stored) < 2 || len(stored[1].Parts) != 2 || stored[1].Parts[0] != llms.ContentPart(want) {
		t.Fatalf("stored turn = %#v, want the reasoning, then the text", stored[1:])
	}
	run()
	run(assistant.WithHistoryShape(assistant.HistoryTextOnly))
	reqs := m.Requests()
	if got := reqs[1].Messages[1].Parts; len(got) != 2 || got[0] != llms.ContentPart(want) {
		t.Errorf("the full history sends %#v, want the reasoning first", got)
	}
	for _, msg := range reqs[2].Messages {
		for _, p := range msg.Parts {
			if _, ok := p.(model.Reasoning); ok {
				t.Errorf("text-only history sends reasoning: %#v", msg)
			}
		}
	}
}
