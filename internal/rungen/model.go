package rungen

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/cadrehq/cadre/pkg/model"
	"github.com/tmc/langchaingo/llms"
)

// llm is one model of a scenario: it answers each request with the turn of its script that
// the request is at (see place). first tells the first model of a chain, which fails as the
// turn says.
type llm struct {
	w        *World
	name     string
	script   func(run string) []Turn // the script of the run named run
	first    bool
	delegate string // the tool that delegates one level down
}

func (m llm) Call(ctx context.Context, prompt string, opts ...llms.CallOption) (string, error) {
	return llms.GenerateFromSinglePrompt(ctx, m, prompt, opts...)
}

// GenerateContent answers under the World's lock, where the cancellation happens too: a reply
// is counted as reported exactly when it is returned.
func (m llm) GenerateContent(ctx context.Context, msgs []llms.MessageContent, _ ...llms.CallOption) (*llms.ContentResponse, error) {
	w := m.w
	run, k := place(msgs)
	schema := model.OutputSchemaOf(ctx) != nil
	what := fmt.Sprintf("%s: %s turn %d", m.name, run, k)
	if schema {
		what += " with the schema"
	}
	w.note(ctx, what)
	w.mu.Lock()
	defer w.mu.Unlock()
	w.seen.Requests++
	w.seen.CalledAny = true
	w.seen.Convs = append(w.seen.Convs, slices.Clone(msgs))
	w.seen.Asks = append(w.seen.Asks, Ask{Model: m.name, Run: run, Turn: k, Schema: schema})
	ask := &w.seen.Asks[len(w.seen.Asks)-1]
	if w.s.CancelAt == w.seen.Requests && w.cancel != nil {
		w.cancel() // the run's context; behind a fake API, ctx is the server's
		return nil, context.Canceled
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	turn := Turn{Kind: TurnAnswer, In: 1, Out: 1}
	if script := m.script(run); k < len(script) {
		turn = script[k]
	}
	if m.first && schema && turn.SchemaRefused {
		ask.SchemaRefused = true
		return nil, &model.ProviderError{Provider: "test", Model: "first", Status: 400,
			Message: "response_format: the schema is not supported", Err: model.ErrOutputSchema}
	}
	if m.first && turn.Fail != 0 {
		return nil, &model.ProviderError{Provider: "test", Model: "first", Status: turn.Fail, Message: "the provider is down"}
	}
	choice := m.answer(run, k, turn, schema)
	if turn.Reasoning {
		choice.GenerationInfo["ReasoningTokens"] = turn.Out / 2
		choice.GenerationInfo[model.ReasoningInfo] = []model.Reasoning{{
			TextContent: llms.TextContent{Text: "Thinking about " + run},
			Provider:    "anthropic",
			Signature:   fmt.Sprintf("sig-%s-t%d", run, k),
		}}
	}
	ask.Replied, ask.Refusal = true, turn.Kind == TurnRefusal
	w.seen.Replies++
	w.seen.In += turn.In
	w.seen.Out += turn.Out
	return &llms.ContentResponse{Choices: []*llms.ContentChoice{choice}}, nil
}

// answer is the choice of turn k of the run, to a request that carries an output schema or
// not. Asked with a schema, a model answers in text what it would give final_result (a model
// asked natively is offered no final_result): a turn's final calls become its text — the
// first of them — and the other calls stay.
func (m llm) answer(run string, k int, turn Turn, schema bool) *llms.ContentChoice {
	choice := &llms.ContentChoice{StopReason: "stop", GenerationInfo: map[string]any{
		"PromptTokens": turn.In, "CompletionTokens": turn.Out, "TotalTokens": turn.In + turn.Out,
	}}
	switch turn.Kind {
	case TurnAnswer:
		choice.Content = answerJSON
	case TurnProse:
		choice.Content = "I think it is a large city."
	case TurnLength:
		choice.Content, choice.StopReason = `{"name":"Os`, "length"
	case TurnRefusal:
		if turn.RefusalApart {
			choice.GenerationInfo[model.RefusalInfo] = Refusal
			break
		}
		// With its text: langchaingo's anthropic client fails a response without content
		// ("no response"), and the tokens it reported are lost with it.
		choice.Content, choice.StopReason = Refusal, "content_filter"
	case TurnCalls:
		for i, c := range turn.Calls {
			q := fmt.Sprintf("%s-t%d-c%d", run, k, i)
			call := m.call(q, c)
			if schema && call.FunctionCall.Name == "final_result" {
				if choice.Content == "" {
					choice.Content = call.FunctionCall.Arguments
				}
				continue
			}
			choice.ToolCalls = append(choice.ToolCalls, call)
		}
		if len(choice.ToolCalls) > 0 {
			choice.StopReason = "tool_calls"
		}
	}
	return choice
}

// answerJSON is a valid answer: a City.
const answerJSON = `{"name":"Oslo","population":700000}`

// call is the tool call c, its ID q, which its arguments carry too: a fake API may give calls
// IDs of its own.
func (m llm) call(q string, c Call) llms.ToolCall {
	name, args := "lookup", `{"q":"`+q+`"}`
	switch c.Kind {
	case CallBadArgs:
		args = `{"q":5}`
	case CallFails:
		name = "fails"
	case CallPanics:
		name = "panics"
	case CallUnknown:
		name = "nosuch"
	case CallSend:
		name = "send"
	case CallFinal:
		name, args = "final_result", answerJSON
	case CallFinalInvalid:
		name, args = "final_result", `{"name":7}`
	case CallSkill:
		name, args = "activate_skill", `{"name":"`+c.Skill+`"}`
	case CallDelegate:
		name, args = m.delegate, `{"city":"`+q+`"}`
	}
	return llms.ToolCall{ID: q, Type: "function", FunctionCall: &llms.FunctionCall{Name: name, Arguments: args}}
}

// place returns the run a request is of and the turn of the model in it: the run's name is
// the city of its prompt — the last user's message that is a prompt (Args as JSON; a run's
// corrections and last-request notes are not) — and the turn, from 0, is the number of the
// model's messages after it. A request sent again, by a fallback or a durable replay, is at
// the same place.
func place(msgs []llms.MessageContent) (run string, turn int) {
	for i, m := range slices.Backward(msgs) {
		if m.Role != llms.ChatMessageTypeHuman {
			continue
		}
		var a Args
		if json.Unmarshal([]byte(textOf(m)), &a) != nil || a.City == "" {
			continue
		}
		for _, after := range msgs[i+1:] {
			if after.Role == llms.ChatMessageTypeAI {
				turn++
			}
		}
		return a.City, turn
	}
	return "", 0
}

// textOf returns the text parts of m, joined.
func textOf(m llms.MessageContent) string {
	var text string
	for _, p := range m.Parts {
		if tc, ok := p.(llms.TextContent); ok {
			text += tc.Text
		}
	}
	return text
}
