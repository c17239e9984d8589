package rungen

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/tmc/langchaingo/llms"
	"pgregory.net/rapid"
)

func human(text string) llms.MessageContent { return llms.TextParts(llms.ChatMessageTypeHuman, text) }
func ai(text string) llms.MessageContent    { return llms.TextParts(llms.ChatMessageTypeAI, text) }

// TestPlaceFindsTheRunAndTheTurn: a request's place is its run's prompt, the last user's
// message that is one — not a correction, nor an earlier run's prompt in a chat's history —
// and the model's messages since.
func TestPlaceFindsTheRunAndTheTurn(t *testing.T) {
	t.Parallel()
	prompt1, prompt2 := Scenario{}.Prompt(0), Scenario{}.Prompt(1)
	for _, tc := range []struct {
		name string
		msgs []llms.MessageContent
		run  string
		turn int
	}{
		{"the first request", []llms.MessageContent{human(prompt1)}, "run1", 0},
		{"after a correction", []llms.MessageContent{human(prompt1), ai("prose"), human("Your answer could not be used"), ai("prose"), human("Give your best final answer now")}, "run1", 2},
		{"in a chat", []llms.MessageContent{human(prompt1), ai("x"), human(prompt2), ai("y")}, "run2", 1},
		{"delegated", []llms.MessageContent{human(`{"city":"run1-t0-c2"}`)}, "run1-t0-c2", 0},
		{"no prompt", []llms.MessageContent{human("hello")}, "", 0},
	} {
		run, turn := place(tc.msgs)
		if run != tc.run || turn != tc.turn {
			t.Errorf("%s: place = %q, %d; want %q, %d", tc.name, run, turn, tc.run, tc.turn)
		}
	}
}

// TestAModelAnswersARequestSentAgainAlike: whatever the scenario, each model answers a request
// sent again as it answered it the first time, whatever it was asked in between.
func TestAModelAnswersARequestSentAgainAlike(t *testing.T) {
	t.Parallel()
	rapid.Check(t, func(t *rapid.T) {
		s := Draw(t, Features{Chat: true, Deep: rapid.Bool().Draw(t, "deep")})
		w, err := New(s)
		if err != nil {
			t.Fatal(err)
		}
		defer w.Close()
		ctx := context.Background()
		first, second := w.top[0].LLM, w.top[1].LLM
		conv := []llms.MessageContent{human(s.Prompt(len(s.Top) - 1))}
		for range 4 {
			a, aerr := first.GenerateContent(ctx, conv)
			b, berr := second.GenerateContent(ctx, conv)
			again, againErr := first.GenerateContent(ctx, conv)
			if d := cmp.Diff(a, again); d != "" || (aerr == nil) != (againErr == nil) {
				t.Fatalf("the first model answered a request sent again otherwise (%v, then %v):\n%s", aerr, againErr, d)
			}
			if berr != nil {
				t.Fatalf("the second model failed: %v", berr)
			}
			conv = append(conv, llms.MessageContent{Role: llms.ChatMessageTypeAI, Parts: []llms.ContentPart{llms.TextContent{Text: b.Choices[0].Content}}})
		}
	})
}
