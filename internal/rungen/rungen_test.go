package rungen

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/cadrehq/cadre/pkg/model"
	gocmp "github.com/google/go-cmp/cmp"
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
// sent again as it answered it the first time, whatever it was asked in between, with an
// output schema or without.
func TestAModelAnswersARequestSentAgainAlike(t *testing.T) {
	t.Parallel()
	rapid.Check(t, func(t *rapid.T) {
		s := Draw(t, Features{Chat: true, Deep: rapid.Bool().Draw(t, "deep"), Native: true})
		w, err := New(s)
		if err != nil {
			t.Fatal(err)
		}
		defer w.Close()
		ctx := context.Background()
		if rapid.Bool().Draw(t, "with a schema") {
			ctx = model.WithOutputSchema(ctx, &model.OutputSchema{Name: "city", Schema: json.RawMessage(`{"type":"object"}`)})
		}
		first, second := w.top[0].LLM, w.top[1].LLM
		conv := []llms.MessageContent{human(s.Prompt(len(s.Top) - 1))}
		for range 4 {
			a, aerr := first.GenerateContent(ctx, conv)
			b, berr := second.GenerateContent(ctx, conv)
			again, againErr := first.GenerateContent(ctx, conv)
			if d := gocmp.Diff(a, again); d != "" || (aerr == nil) != (againErr == nil) {
				t.Fatalf("the first model answered a request sent again otherwise (%v, then %v):\n%s", aerr, againErr, d)
			}
			if berr != nil {
				t.Fatalf("the second model failed: %v", berr)
			}
			conv = append(conv, llms.MessageContent{Role: llms.ChatMessageTypeAI, Parts: []llms.ContentPart{llms.TextContent{Text: b.Choices[0].Content}}})
		}
	})
}

// TestAModelAskedWithASchema: a first model whose turn refuses the schema fails a request
// that carries one with a 400 wrapping model.ErrOutputSchema, and answers the same request
// without it; asked with a schema, a model answers in text what it would give final_result,
// and keeps the turn's other calls; a refusal apart from the text comes under
// model.RefusalInfo, with no content.
func TestAModelAskedWithASchema(t *testing.T) {
	t.Parallel()
	s := Scenario{
		Top: [][]Turn{{
			{Kind: TurnCalls, Calls: []Call{{Kind: CallLookup}, {Kind: CallFinalInvalid}, {Kind: CallFinal}}, SchemaRefused: true},
			{Kind: TurnCalls, Calls: []Call{{Kind: CallFinal}}},
			{Kind: TurnRefusal, RefusalApart: true},
		}},
		Native: [2]bool{true, true},
	}
	w, err := New(s)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if w.top[0].Output != model.NativeOutput || w.top[1].Output != model.NativeOutput {
		t.Fatalf("the chain's output forms are %q, %q: want native", w.top[0].Output, w.top[1].Output)
	}
	ctx := context.Background()
	withSchema := model.WithOutputSchema(ctx, &model.OutputSchema{Name: "city", Schema: json.RawMessage(`{"type":"object"}`)})
	conv := []llms.MessageContent{human(s.Prompt(0))}

	_, err = w.top[0].Generate(withSchema, conv)
	var pe *model.ProviderError
	if !errors.Is(err, model.ErrOutputSchema) || !errors.As(err, &pe) || pe.Status != 400 {
		t.Fatalf("the first model asked with a schema: %v; want a 400 wrapping model.ErrOutputSchema", err)
	}
	tool, err := w.top[0].Generate(ctx, conv)
	if err != nil || len(tool.ToolCalls) != 3 || tool.ToolCalls[2].FunctionCall.Name != "final_result" || tool.Text != "" {
		t.Fatalf("the first model asked without a schema: %+v, %v; want the turn's three calls", tool, err)
	}
	native, err := w.top[1].Generate(withSchema, conv)
	if err != nil || len(native.ToolCalls) != 1 || native.ToolCalls[0].FunctionCall.Name != "lookup" || native.Text != `{"name":7}` {
		t.Fatalf("the second model asked with a schema: %+v, %v; want lookup, and the first final call's arguments as text", native, err)
	}

	conv = append(conv, ai("..."))
	answer, err := w.top[0].Generate(withSchema, conv)
	if err != nil || len(answer.ToolCalls) != 0 || answer.Text != answerJSON || answer.Finish() != model.FinishDone {
		t.Fatalf("a turn of one final call asked with a schema: %+v, %v; want the answer as text", answer, err)
	}
	conv = append(conv, ai("..."))
	refusal, err := w.top[0].Generate(withSchema, conv)
	if err != nil || refusal.Refusal != Refusal || refusal.Text != "" || refusal.Finish() != model.FinishRefusal {
		t.Fatalf("a refusal apart from the text: %+v, %v", refusal, err)
	}

	var asks []string
	for _, a := range w.Seen().Asks {
		asks = append(asks, fmt.Sprintf("%s %s/%d schema:%v refused:%v replied:%v", a.Model, a.Run, a.Turn, a.Schema, a.SchemaRefused, a.Replied))
	}
	want := []string{
		"top/first run1/0 schema:true refused:true replied:false",
		"top/first run1/0 schema:false refused:false replied:true",
		"top/second run1/0 schema:true refused:false replied:true",
		"top/first run1/1 schema:true refused:false replied:true",
		"top/first run1/2 schema:true refused:false replied:true",
	}
	if d := gocmp.Diff(want, asks); d != "" {
		t.Errorf("Seen().Asks (-want +got):\n%s", d)
	}
}

// TestANativeModelBehindAFakeAPI: behind a fake OpenAI or Anthropic API, a native supervisor's
// model is llmfactory's: it takes the output schema natively, its transport writes the schema
// in the API's field, where the fake finds it and gives it to the World's model, and a refusal
// apart from the text comes back as the API gives it: OpenAI's message.refusal, read back
// into Reply.Refusal; Anthropic's stop reason refusal, with the words as the text.
func TestANativeModelBehindAFakeAPI(t *testing.T) {
	t.Parallel()
	for _, wire := range []string{"openai", "anthropic"} {
		s := Scenario{Wire: wire, Native: [2]bool{true, false}, Top: [][]Turn{{
			{Kind: TurnAnswer, In: 3, Out: 2},
			{Kind: TurnRefusal, RefusalApart: true, In: 3, Out: 2},
		}}}
		w, err := New(s)
		if err != nil {
			t.Fatalf("%s: %v", wire, err)
		}
		defer w.Close()
		m := w.top[0]
		if len(w.top) != 1 || m.Output != model.NativeOutput || m.Name != "wire" {
			t.Fatalf("%s: the chain %+v: want one native model named wire", wire, w.top)
		}
		ctx := model.WithOutputSchema(context.Background(), &model.OutputSchema{Name: "city",
			Schema: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}},"required":["name"],"additionalProperties":false}`)})
		conv := []llms.MessageContent{human(s.Prompt(0))}
		answer, err := m.Generate(ctx, conv)
		if err != nil || answer.Text != answerJSON {
			t.Fatalf("%s: the answer %+v, %v", wire, answer, err)
		}
		conv = append(conv, ai(answer.Text), human("Again?"))
		refusal, err := m.Generate(ctx, conv)
		if err != nil || refusal.Finish() != model.FinishRefusal {
			t.Fatalf("%s: the refusal %+v, %v: want a reply that finishes refused", wire, refusal, err)
		}
		want := model.Reply{Refusal: Refusal} // OpenAI's, apart from the text
		if wire == "anthropic" {
			want = model.Reply{Text: Refusal}
		}
		if refusal.Refusal != want.Refusal || refusal.Text != want.Text {
			t.Errorf("%s: the refusal has Refusal %q and Text %q; want %q and %q", wire, refusal.Refusal, refusal.Text, want.Refusal, want.Text)
		}
		for i, a := range w.Seen().Asks {
			if !a.Schema || !a.Replied {
				t.Errorf("%s: request %d, %+v: want it to carry the schema, and answered", wire, i+1, a)
			}
		}
	}
}

// TestRefusedIsTheSupervisorsLastReply: a run ends refused when the supervisor's last reply
// was a refusal — not a reply of the models below, not a request that got no reply — unless
// it was given apart from the text to langchaingo's own OpenAI client, which drops it.
func TestRefusedIsTheSupervisorsLastReply(t *testing.T) {
	t.Parallel()
	top := [][]Turn{{{Kind: TurnCalls}, {Kind: TurnRefusal}, {Kind: TurnRefusal, RefusalApart: true}}}
	refusal := Ask{Model: "top/first", Run: "run1", Turn: 1, Replied: true, Refusal: true}
	apart := Ask{Model: "top/first", Run: "run1", Turn: 2, Replied: true, Refusal: true}
	answer := Ask{Model: "top/second", Run: "run1", Turn: 0, Replied: true}
	below := Ask{Model: "spec/first", Run: "run1-t0-c0", Replied: true, Refusal: true}
	failed := Ask{Model: "top/first", Run: "run1", Turn: 2, Schema: true, SchemaRefused: true}
	for _, tc := range []struct {
		name string
		s    Scenario
		asks []Ask
		want bool
	}{
		{"a refusal last", Scenario{Top: top}, []Ask{answer, refusal}, true},
		{"an answer last", Scenario{Top: top}, []Ask{refusal, answer}, false},
		{"a refusal below", Scenario{Top: top}, []Ask{answer, below}, false},
		{"a failure after a refusal", Scenario{Top: top}, []Ask{refusal, failed}, true},
		{"apart, in process", Scenario{Top: top}, []Ask{apart}, true},
		{"apart, to langchaingo's OpenAI client", Scenario{Top: top, Wire: "openai"}, []Ask{apart}, false},
		{"apart, to llmfactory's OpenAI client", Scenario{Top: top, Wire: "openai", Native: [2]bool{true, false}}, []Ask{apart}, true},
		{"apart, behind Anthropic's API", Scenario{Top: top, Wire: "anthropic"}, []Ask{apart}, true},
		{"no request", Scenario{Top: top}, nil, false},
	} {
		if got := tc.s.Refused(tc.asks); got != tc.want {
			t.Errorf("%s: Refused = %v; want %v", tc.name, got, tc.want)
		}
	}
}
