package assistant_test

import (
	"sync/atomic"
	"testing"

	"github.com/cadrehq/cadre/pkg/assistant"
	"github.com/cadrehq/cadre/pkg/chat"
	"github.com/cadrehq/cadre/pkg/llmtest"
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
