package chattest

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/cadrehq/cadre/pkg/chat"
	"github.com/google/go-cmp/cmp"
	"github.com/tmc/langchaingo/llms"
)

// windowOfLoadedHistory stores 30 turns with tool rounds, appended a turn a call as an
// assistant does, and checks random windows of the loaded history: each is a suffix that
// starts at a user's message, keeps the last turn whole, never holds a tool call without its
// result or a result without its call, and keeps its limits when it holds more than one turn.
func windowOfLoadedHistory(t *testing.T, s chat.Store) {
	rng := rand.New(rand.NewPCG(6, 30)) // fixed: a failure is reproducible
	id := chat.ID{Tenant: "t", User: "u", Chat: "tools"}
	for turn := range 30 {
		mustAppend(t, s, id, toolTurn(rng, turn)...)
	}
	history := mustLoad(t, s, id)
	lastUser := -1
	for i, m := range history {
		if m.Role == llms.ChatMessageTypeHuman {
			lastUser = i
		}
	}
	if lastUser < 0 {
		t.Fatalf("the loaded history of %d messages has no user message", len(history))
	}
	for range 300 {
		w := chat.Window{MaxMessages: rng.IntN(len(history)+2) - 1, MaxTokens: rng.IntN(6000) - 1}
		got := w.Apply(history)
		if len(got) < len(history)-lastUser {
			t.Fatalf("%+v kept %d messages: less than the last turn's %d", w, len(got), len(history)-lastUser)
		}
		start := len(history) - len(got)
		if diff := cmp.Diff(history[start:], got); diff != "" {
			t.Fatalf("%+v is not a suffix of the history (-suffix +window):\n%s", w, diff)
		}
		if got[0].Role != llms.ChatMessageTypeHuman {
			t.Fatalf("%+v starts at a %q message, not a user's", w, got[0].Role)
		}
		if err := pairedToolCalls(got); err != nil {
			t.Fatalf("%+v: %v", w, err)
		}
		if start < lastUser {
			checkWindowLimits(t, w, got)
		}
	}
}

// toolTurn is one turn of a chat: the user's question, zero to two rounds of one to three tool
// calls each followed by their results, and the answer.
func toolTurn(rng *rand.Rand, turn int) []llms.MessageContent {
	msgs := []llms.MessageContent{text(llms.ChatMessageTypeHuman, fmt.Sprintf("question %d", turn))}
	for round := range rng.IntN(3) {
		call := llms.MessageContent{Role: llms.ChatMessageTypeAI}
		var results []llms.MessageContent
		for c := range 1 + rng.IntN(3) {
			callID := fmt.Sprintf("call-%d-%d-%d", turn, round, c)
			call.Parts = append(call.Parts, llms.ToolCall{ID: callID, Type: "function", FunctionCall: &llms.FunctionCall{
				Name: "lookup", Arguments: `{"q":"` + strings.Repeat("x", rng.IntN(400)) + `"}`,
			}})
			results = append(results, llms.MessageContent{Role: llms.ChatMessageTypeTool, Parts: []llms.ContentPart{
				llms.ToolCallResponse{ToolCallID: callID, Name: "lookup", Content: strings.Repeat("y", rng.IntN(2000))},
			}})
		}
		msgs = append(append(msgs, call), results...)
	}
	return append(msgs, text(llms.ChatMessageTypeAI, strings.Repeat("answer ", rng.IntN(100))))
}

// pairedToolCalls reports a tool result whose call is not before it in msgs, or a tool call
// whose result is not after it.
func pairedToolCalls(msgs []llms.MessageContent) error {
	open := map[string]bool{}
	for i, m := range msgs {
		for _, p := range m.Parts {
			switch p := p.(type) {
			case llms.ToolCall:
				open[p.ID] = true
			case llms.ToolCallResponse:
				if !open[p.ToolCallID] {
					return fmt.Errorf("message %d answers tool call %q, which is not before it", i, p.ToolCallID)
				}
				delete(open, p.ToolCallID)
			}
		}
	}
	if len(open) > 0 {
		return fmt.Errorf("tool calls %q have no result after them", slices.Sorted(maps.Keys(open)))
	}
	return nil
}

// checkWindowLimits checks a window of more than one turn keeps w's limits: only the last
// turn alone may be over them.
func checkWindowLimits(t *testing.T, w chat.Window, got []llms.MessageContent) {
	t.Helper()
	maxMsgs, maxTokens := w.MaxMessages, w.MaxTokens
	if maxMsgs == 0 {
		maxMsgs = chat.DefaultWindowMessages
	}
	if maxTokens == 0 {
		maxTokens = chat.DefaultWindowTokens
	}
	tokens := 0
	for _, m := range got {
		tokens += chat.EstimateTokens(m)
	}
	if maxMsgs > 0 && len(got) > maxMsgs || maxTokens > 0 && tokens > maxTokens {
		t.Fatalf("%+v kept several turns of %d messages and %d tokens: over its limits", w, len(got), tokens)
	}
}
