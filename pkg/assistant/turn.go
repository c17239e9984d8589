package assistant

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/cadrehq/cadre/internal/answer"
	"github.com/cadrehq/cadre/pkg/tool"
	"github.com/tmc/langchaingo/llms"
)

// outcome is how a turn of the run ends.
type outcome int

const (
	goOn   outcome = iota // the loop sends the next request
	done                  // the run has its answer
	paused                // the run waits for decisions: run.turn is the paused turn
)

// turn is a model turn of tool calls while it is answered. It is the one place where a turn's
// calls are decided, run (by the run's toolRunner, tools.go), paused and resumed: a paused run
// keeps its turn as Paused.Calls, and Resume rebuilds it from them.
type turn struct {
	calls     []call
	decisions map[string]Decision // a resumed turn's: the delegated runs its calls resume take theirs

	// While its calls run: which (indexes of calls), by what, in which messages, the turn as
	// tool-turn middleware sees it, and the helpers of runAll with the count of the calls they
	// took.
	todo    []int
	by      *toolRunner
	msgs    []llms.MessageContent
	step    ToolTurn
	helpers sync.WaitGroup
	taken   atomic.Int64
}

// call is one call of a turn: its state as a paused run keeps it, and while it runs, the
// paused delegated run it resumes, what its context holds of it, and the error of its that
// ends the run. While a turn's calls run, each goroutine writes only its own call.
type call struct {
	PausedCall
	resume *Paused
	ctx    tool.Call
	fatal  error
}

// newTurn makes the turn of a model's tool calls: every call queued.
func newTurn(calls []llms.ToolCall) *turn {
	t := &turn{calls: make([]call, len(calls))}
	for i, c := range calls {
		t.calls[i].PausedCall = PausedCall{ID: c.ID, Tool: c.FunctionCall.Name, Arguments: c.FunctionCall.Arguments, State: callQueued}
	}
	return t
}

// resumedTurn rebuilds a paused turn, to resume it with decisions.
func resumedTurn(calls []PausedCall, decisions map[string]Decision) *turn {
	t := &turn{calls: make([]call, len(calls)), decisions: decisions}
	for i, c := range calls {
		t.calls[i].PausedCall = c
	}
	return t
}

// paused returns the turn as a paused state keeps it.
func (t *turn) paused() []PausedCall {
	calls := make([]PausedCall, len(t.calls))
	for i, c := range t.calls {
		calls[i] = c.PausedCall
	}
	return calls
}

// answer gives call i its result: it is done.
func (t *turn) answer(i int, result string) {
	t.calls[i].State, t.calls[i].Result, t.calls[i].Nested = callDone, result, nil
}

// answerRest answers every call that is not done with result and returns how many it
// answered.
func (t *turn) answerRest(result string) int {
	n := 0
	for i := range t.calls {
		if t.calls[i].State != callDone {
			t.answer(i, result)
			n++
		}
	}
	return n
}

// take applies d to a call that waits for a decision and reports whether it still waits.
func (c *call) take(d Decision) bool {
	switch d.Verdict {
	case VerdictApprove:
		c.State = callApproved
	case VerdictDeny:
		c.State, c.Reason = callDenied, d.Reason
	case VerdictAnswer:
		c.State, c.Result = callAnswered, d.Result
	default:
		c.State = callWaiting
		return true
	}
	return false
}

// decide applies the turn's decisions to the calls that wait for one and reports whether any
// still waits.
func (t *turn) decide() bool {
	waiting := false
	for i := range t.calls {
		if c := &t.calls[i]; c.State == callWaiting && c.take(t.decisions[c.ID]) {
			waiting = true
		}
	}
	return waiting
}

// answerDecided answers the denied calls with their reason and those answered elsewhere with
// their result, and returns how many there were.
func (t *turn) answerDecided() int {
	n := 0
	for i := range t.calls {
		switch c := &t.calls[i]; c.State {
		case callDenied:
			t.answer(i, denial(c.Reason))
			n++
		case callAnswered:
			t.answer(i, c.Result)
			n++
		}
	}
	return n
}

// toRun returns the calls that run now, and how many of them are new: a delegated run that
// paused was reserved when it first ran, and its call now resumes it.
func (t *turn) toRun() (todo []int, fresh int) {
	todo = make([]int, 0, len(t.calls))
	for i := range t.calls {
		switch c := &t.calls[i]; c.State {
		case callQueued, callApproved:
			todo, fresh = append(todo, i), fresh+1
		case callNested:
			c.resume, c.Nested = c.Nested, nil
			todo = append(todo, i)
		}
	}
	return todo, fresh
}

// settle ends the running of the calls of todo with their results and returns the first
// error of theirs, in the model's order, that ends the run. A call whose delegated run paused
// (its Nested set while it ran) stays nested unless the run ends; the others are done.
func (t *turn) settle(todo []int, results []string) (pause bool, fatal error) {
	for _, i := range todo {
		if fatal == nil {
			fatal = t.calls[i].fatal
		}
	}
	for k, i := range todo {
		c := &t.calls[i]
		c.resume, c.fatal = nil, nil
		if c.Nested != nil && fatal == nil {
			c.State, c.Result, pause = callNested, "", true
			continue
		}
		t.answer(i, results[k])
	}
	return pause, fatal
}

// describe gives the turn's ToolTurn its calls, for the first tool-turn middleware to see.
func (t *turn) describe() {
	if t.step.Calls != nil {
		return
	}
	t.step.Calls = make([]ToolCall, len(t.todo))
	for k, i := range t.todo {
		t.step.Calls[k] = t.by.toolCall(t, i)
	}
}

// callOf runs the k-th of the calls that run now (ToolTurn.Call).
func (t *turn) callOf(ctx context.Context, k int) string {
	if k < 0 || k >= len(t.todo) {
		return fmt.Sprintf("error: no call %d in a turn of %d", k, len(t.todo))
	}
	return t.by.call(ctx, t, t.todo[k])
}

// toolTurn answers a fresh turn of tool calls: a valid final_result ends the run (the other
// calls are skipped); otherwise the calls that need approval are decided, and the turn runs.
func (r *run[O]) toolTurn(ctx context.Context, calls []llms.ToolCall) (outcome, error) {
	t := newTurn(calls)
	if out, err := r.finalCall(ctx, t); err != nil || out == done {
		return out, err
	}
	if len(r.p.cfg.approvals) > 0 {
		waiting, err := r.approve(ctx, t)
		if err != nil {
			t.answerRest("not run: the run ended: " + err.Error())
			r.appendResults(t)
			return goOn, err
		}
		if waiting {
			r.turn = t
			return paused, nil
		}
	}
	return r.runCalls(ctx, t)
}

// finalCall takes the first final_result call of t in tool mode (a later one is skipped): a
// valid one ends the run, the other calls skipped; an invalid one is answered with its error,
// and the turn goes on, unless it was the second answer that could not be used.
func (r *run[O]) finalCall(ctx context.Context, t *turn) (outcome, error) {
	final := -1
	for i := range t.calls {
		switch {
		case t.calls[i].Tool != answer.Tool || r.answers.form != OutputTool:
		case final < 0:
			final = i
		default:
			t.answer(i, answer.Skipped)
		}
	}
	if final < 0 {
		return goOn, nil
	}
	args := t.calls[final].Arguments
	err := r.parseFinal(ctx, args)
	if err == nil {
		t.answer(final, answer.Accepted)
		r.countUnrun(t.answerRest(answer.Skipped))
		r.appendResults(t)
		return done, nil
	}
	t.answer(final, r.p.out.CallCorrection(err))
	if err := r.failed(args, err); err != nil {
		r.countUnrun(t.answerRest("not run: the run ended"))
		r.appendResults(t)
		return goOn, err
	}
	return goOn, nil
}

// approve asks the approver about the turn's queued calls that need it, before any runs, and
// reports whether any waits for a person.
func (r *run[O]) approve(ctx context.Context, t *turn) (bool, error) {
	waiting := false
	for i := range t.calls {
		c := &t.calls[i]
		if c.State != callQueued {
			continue
		}
		approver := r.p.approverOf(c.Tool)
		if approver == nil {
			continue
		}
		d, err := approver.Approve(ctx, r.calls.toolCall(t, i))
		if err != nil {
			return false, fmt.Errorf("assistant %q: approving a call of %q: %w", r.p.name, c.Tool, err)
		}
		if !d.valid() {
			return false, fmt.Errorf("assistant %q: the approver gave no verdict for a call of %q (use Approved, Denied, Answered or Pending)", r.p.name, c.Tool)
		}
		if c.take(d) {
			waiting = true
		}
	}
	return waiting, nil
}

// runCalls answers a decided turn: denied calls with their reason, the others by running them,
// after reserving the new ones against the limits. A delegated run that paused pauses this
// one; otherwise the turn's results are appended, in the model's call order.
func (r *run[O]) runCalls(ctx context.Context, t *turn) (outcome, error) {
	denied := t.answerDecided()
	todo, fresh := t.toRun()
	if err := r.state.account.ReserveToolCalls(r.res.Model, fresh); err != nil {
		// Not counted: a report never shows more tool calls than the limit allowed.
		if r.p.cfg.finalOnLimit && !r.answers.final {
			t.answerRest("not run: the budget for tool calls is spent")
			r.appendResults(t)
			r.lastRequest()
			return goOn, nil
		}
		t.answerRest("not run: " + err.Error())
		r.appendResults(t)
		return goOn, err
	}
	r.countUnrun(denied)
	var err error
	if len(todo) > 0 {
		var results []string
		if results, err = r.calls.execute(ctx, t, todo, r.msgs); err != nil {
			t.answerRest("not run: the run ended: " + err.Error())
		} else if pause, fatal := t.settle(todo, results); pause {
			r.turn = t
			return paused, nil
		} else {
			err = fatal
		}
	}
	r.appendResults(t)
	return goOn, err
}

// appendResults appends one tool message per call of t, in call order.
func (r *run[O]) appendResults(t *turn) {
	parts := make([]llms.ContentPart, len(t.calls))
	for i, c := range t.calls {
		parts[i] = llms.ToolCallResponse{ToolCallID: c.ID, Name: c.Tool, Content: c.Result}
		r.msgs = append(r.msgs, llms.MessageContent{Role: llms.ChatMessageTypeTool, Parts: parts[i : i+1 : i+1]})
	}
}

// answerAll answers every call of a turn with the same text, so that the conversation stays
// one a provider accepts.
func (r *run[O]) answerAll(calls []llms.ToolCall, text string) {
	if len(calls) == 0 {
		return
	}
	t := newTurn(calls)
	t.answerRest(text)
	r.appendResults(t)
}

// countUnrun counts n calls the model made that did not run (skipped beside the answer, denied,
// or in a turn cut short), so that Usage.ToolCalls counts every call but final_result — where
// MaxToolCalls has room for all n: like calls a limit refused, calls it has no room for are not
// counted, and a report never shows more tool calls than the limits allowed.
func (r *run[O]) countUnrun(n int) {
	_ = r.state.account.ReserveToolCalls(r.res.Model, n) // no room: not counted
}

// made returns how many of calls count as tool calls: all but final_result in tool mode.
func (r *run[O]) made(calls []llms.ToolCall) int {
	n := 0
	for _, c := range calls {
		if c.FunctionCall.Name != answer.Tool || r.answers.form != OutputTool {
			n++
		}
	}
	return n
}
