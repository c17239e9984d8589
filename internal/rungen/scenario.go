// Package rungen generates runs of cadre's run loop for property tests: rapid draws a
// scenario — what each model answers turn by turn, the provider the supervisor sits behind,
// the models that take the output schema natively, the limits, the decisions on approvals, a
// specialist the supervisor delegates to (and one below it), runs one after the other in a
// chat, a cancellation at the n-th model request — and a World plays it, with models and
// tools that record what they saw. The run loop's property test (package assistant) and the
// durable replays' (package durable) both play these scenarios.
//
// Every model answers by the request alone: its answer is a function of the conversation it
// is sent — of the run's prompt and of how many turns the model took since — and of whether
// the request carries an output schema (model.OutputSchemaOf), never of the order of the
// calls, so that a request sent again gets the same answer, as a durable replay needs. Every
// tool answers by its arguments alone and keeps no state a run reads back: what
// a World counts (requests, tokens, executions) is for the tests' assertions only.
package rungen

import (
	"fmt"
	"slices"
	"strings"

	"github.com/cadrehq/cadre/pkg/assistant"
	"github.com/cadrehq/cadre/pkg/usage"
	"pgregory.net/rapid"
)

// What a model does in one turn.
const (
	TurnAnswer    = iota // a valid text answer
	TurnProse            // an answer with no usable JSON
	TurnCalls            // a turn of tool calls
	TurnLength           // cut at the output token limit
	TurnRefusal          // a refusal, in the text (see Turn.RefusalApart)
	turnKindCount        // the number of kinds
)

// What one call of a turn is.
const (
	CallLookup       = iota // a tool that answers
	CallBadArgs             // lookup with arguments its schema refuses
	CallFails               // a tool that returns an error
	CallPanics              // a tool that panics
	CallUnknown             // a tool that does not exist
	CallSend                // a tool that waits for a person's approval
	CallFinal               // a valid final_result; the answer as text in a request with a schema
	CallFinalInvalid        // a final_result its schema refuses; as text, likewise
	CallSkill               // activate_skill, of one of the skills (Skills)
	CallDelegate            // the assistant one level down; last, since the lowest has none
	callKindCount
)

// Skills are the names of the skills every assistant of a World has.
var Skills = []string{"triage", "billing"}

// Call is one tool call of a turn.
type Call struct {
	Kind  int
	Skill string // the skill a CallSkill activates
}

// Turn is what a model answers in one turn of a run.
type Turn struct {
	Kind  int
	Calls []Call
	// Fail: the first model of the chain fails the request first, with this HTTP status —
	// 429 and 500 fall back to the second model, 400 ends the run; 0 never.
	Fail int
	// SchemaRefused: the first model of the chain fails a request that carries an output
	// schema with a 400 that wraps model.ErrOutputSchema, as a provider that does not take
	// the schema does, before it fails as Fail says; the same request without the schema gets
	// the turn's answer.
	SchemaRefused bool
	// RefusalApart: a TurnRefusal gives the refusal apart from the text, as OpenAI's API does
	// (message.refusal, with no content): under model.RefusalInfo in the choice's
	// GenerationInfo, the stop reason "stop".
	RefusalApart bool
	In, Out      int  // the tokens the reply reports
	Reasoning    bool // the reply carries reasoning (model.Reasoning, signed), as Anthropic's do
}

// Refusal is what a model says when it refuses (TurnRefusal), in the text or apart from it.
const Refusal = "I cannot help with that."

// Scenario is one generated scenario.
type Scenario struct {
	Wire string // "", "openai" or "anthropic": the supervisor's model behind a fake API
	// Native tells which models of the supervisor's chain take the output schema in their
	// provider's own field (model.Model.Output is model.NativeOutput, so that OutputAuto asks
	// them natively): the first, the second. Behind a fake API the one model is the first,
	// made by llmfactory (its transport writes the schema, and reads OpenAI's refusals).
	Native [2]bool
	// SpecNative: the specialist's two models take the output schema natively too.
	SpecNative bool
	// Top are the supervisor's turns in each of its runs: one run, or, with Chat, the runs of
	// one chat one after the other.
	Top        [][]Turn
	Chat       bool
	Specialist []Turn // nil: no specialist
	Sub        []Turn // nil: the specialist delegates to no one
	Limits     usage.Limits
	// FinalOnLimit gives the supervisor assistant.WithFinalAnswerOnLimit.
	FinalOnLimit bool
	Approvals    []bool // the decisions of each resume, cycled over the waiting calls
	CancelAt     int    // cancel the run at this model request of it (1-based); 0 never
}

// Features are what Draw may put in a scenario beyond what every scenario may have (tools,
// skills, approvals, delegation, fallback, reasoning, limits).
type Features struct {
	Wire   bool // the supervisor's model behind a fake OpenAI or Anthropic API over HTTP
	Chat   bool // runs one after the other in one chat
	Cancel bool // a cancellation at the n-th model request
	// Deep runs go on: their turns are mostly tool calls, which delegate more often, and fewer
	// of them end the run (a cut answer, a refusal, a failure no fallback takes up).
	Deep bool
	// Native structured output: models that take the output schema natively (Scenario.Native,
	// SpecNative), first models that refuse it (Turn.SchemaRefused), refusals apart from the
	// text (Turn.RefusalApart).
	Native bool
}

// Draw draws a scenario with the features f allows.
func Draw(t *rapid.T, f Features) Scenario {
	var s Scenario
	if f.Wire {
		s.Wire = rapid.SampledFrom([]string{"", "", "openai", "anthropic"}).Draw(t, "wire")
	}
	delegate := rapid.Bool().Draw(t, "delegate")
	if f.Native {
		s.Native = [2]bool{rapid.Bool().Draw(t, "first native"), rapid.Bool().Draw(t, "second native")}
	}
	runs := 1
	if f.Chat {
		if s.Chat = rapid.Bool().Draw(t, "chat"); s.Chat {
			runs = rapid.IntRange(1, 3).Draw(t, "runs in the chat")
		}
	}
	for r := range runs {
		var turns []Turn
		for i := range rapid.IntRange(1, 5).Draw(t, fmt.Sprintf("run%d top turns", r+1)) {
			turns = append(turns, drawTurn(t, fmt.Sprintf("run%d top%d ", r+1, i), f, delegate, s.Wire != ""))
		}
		s.Top = append(s.Top, turns)
	}
	if delegate {
		deeper := rapid.Bool().Draw(t, "deeper")
		if f.Native {
			s.SpecNative = rapid.Bool().Draw(t, "specialist native")
		}
		for i := range rapid.IntRange(1, 3).Draw(t, "specialist turns") {
			s.Specialist = append(s.Specialist, drawTurn(t, fmt.Sprintf("spec%d ", i), f, deeper, false))
		}
		if deeper {
			sub := f
			sub.Native = false // the models below take no schema natively
			for i := range rapid.IntRange(1, 2).Draw(t, "sub turns") {
				s.Sub = append(s.Sub, drawTurn(t, fmt.Sprintf("sub%d ", i), sub, false, false))
			}
		}
	}
	s.Limits = usage.Limits{
		MaxRequests:  rapid.SampledFrom([]int{0, 2, 3, 5, 8}).Draw(t, "max requests"),
		MaxToolCalls: rapid.SampledFrom([]int{0, 1, 2, 4, 7}).Draw(t, "max tool calls"),
	}
	s.FinalOnLimit = rapid.Bool().Draw(t, "final on limit")
	s.Approvals = rapid.SliceOfN(rapid.Bool(), 1, 4).Draw(t, "approvals")
	if f.Cancel {
		s.CancelAt = rapid.SampledFrom([]int{0, 0, 0, 1, 2, 3, 5}).Draw(t, "cancel at")
	}
	return s
}

// drawTurn draws a turn with the features f allows; delegate allows CallDelegate, and wire (a
// model behind a fake API, alone in its chain) leaves out the failures of the first model,
// the refused schema among them: the fake API answers a model's failure with a 500.
func drawTurn(t *rapid.T, label string, f Features, delegate, wire bool) Turn {
	deep := f.Deep
	kinds := make([]int, 0, callKindCount+2)
	for k := range callKindCount - 1 {
		kinds = append(kinds, k)
	}
	if delegate {
		kinds = append(kinds, CallDelegate)
		if deep {
			kinds = append(kinds, CallDelegate, CallDelegate)
		}
	}
	turn := Turn{
		In:        rapid.IntRange(0, 50).Draw(t, label+"in"),
		Out:       rapid.IntRange(0, 20).Draw(t, label+"out"),
		Reasoning: rapid.IntRange(0, 3).Draw(t, label+"reasoning") == 0,
	}
	if deep {
		turn.Kind = rapid.SampledFrom([]int{TurnCalls, TurnCalls, TurnCalls, TurnCalls, TurnCalls, TurnCalls,
			TurnAnswer, TurnAnswer, TurnProse, TurnProse, TurnLength, TurnRefusal}).Draw(t, label+"kind")
	} else {
		turn.Kind = rapid.IntRange(0, turnKindCount-1).Draw(t, label+"kind")
	}
	if turn.Kind == TurnCalls {
		for i := range rapid.IntRange(1, 4).Draw(t, label+"calls") {
			c := Call{Kind: rapid.SampledFrom(kinds).Draw(t, fmt.Sprintf("%scall%d", label, i))}
			if c.Kind == CallSkill {
				c.Skill = rapid.SampledFrom(Skills).Draw(t, fmt.Sprintf("%scall%d skill", label, i))
			}
			turn.Calls = append(turn.Calls, c)
		}
	}
	if f.Native && turn.Kind == TurnRefusal {
		turn.RefusalApart = rapid.Bool().Draw(t, label+"refusal apart")
	}
	if f.Native && !wire {
		turn.SchemaRefused = rapid.IntRange(0, 3).Draw(t, label+"schema refused") == 0
	}
	switch {
	case wire:
	case deep:
		turn.Fail = rapid.SampledFrom([]int{0, 0, 0, 0, 0, 0, 429, 500, 400}).Draw(t, label+"fail")
	default:
		turn.Fail = rapid.SampledFrom([]int{0, 0, 0, 429, 500, 400}).Draw(t, label+"fail")
	}
	return turn
}

// NativeModel reports whether the World's model named name (as Ask.Model names it: "top/first",
// "spec/second", ...) takes the output schema natively (Native, SpecNative); behind a fake
// API, the supervisor's one model is "top/first".
func (s Scenario) NativeModel(name string) bool {
	switch name {
	case "top/first":
		return s.Native[0]
	case "top/second":
		return s.Native[1]
	case "spec/first", "spec/second":
		return s.SpecNative
	}
	return false
}

// Refused reports whether the last reply of the supervisor's models among asks (the requests
// of one run or resume, in order) was a refusal that reaches the run: a run whose last reply
// was one ends with assistant.ErrRefusal, quoting Refusal, and no other run does. A refusal
// apart from the text (RefusalApart) behind the fake OpenAI API does not reach the run through
// langchaingo's own client, which drops the API's message.refusal: it reaches it through
// llmfactory's only (a native Wire model).
func (s Scenario) Refused(asks []Ask) bool {
	for _, a := range slices.Backward(asks) {
		if !strings.HasPrefix(a.Model, "top/") || !a.Replied {
			continue
		}
		if !a.Refusal {
			return false
		}
		turns := s.Top[runIndex(s, a.Run)]
		apart := a.Turn < len(turns) && turns[a.Turn].RefusalApart
		return !apart || s.Wire != "openai" || s.Native[0]
	}
	return false
}

// Prompt is the prompt of the supervisor's run i (from 0): a JSON object, as the prompts of
// delegated runs are, so that a model finds the run a request is of (see place).
func (s Scenario) Prompt(i int) string { return fmt.Sprintf(`{"city":"run%d"}`, i+1) }

// Decisions are the decisions of the resume round (from 0) on the calls waiting: the
// scenario's Approvals, cycled; a call not approved is answered elsewhere with
// AnsweredElsewhere, or, every other one, denied.
func (s Scenario) Decisions(round int, waiting []assistant.ToolCall) map[string]assistant.Decision {
	decisions := make(map[string]assistant.Decision, len(waiting))
	for i, c := range waiting {
		decisions[c.ID] = assistant.Denied("no")
		switch {
		case s.Approvals[(round+i)%len(s.Approvals)]:
			decisions[c.ID] = assistant.Approved()
		case (round+i)%2 == 0:
			decisions[c.ID] = assistant.Answered(AnsweredElsewhere)
		}
	}
	return decisions
}

// AnsweredElsewhere is the result of a call that a scenario's decisions answer elsewhere
// (assistant.Answered).
const AnsweredElsewhere = "sent by a person"
