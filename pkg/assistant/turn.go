package assistant

import (
	"context"
	"fmt"
	"slices"

	"github.com/tmc/langchaingo/llms"
)

// outcome is how a turn of the run ends.
type outcome int

const (
	goOn   outcome = iota // the loop sends the next request
	done                  // the run has its answer
	paused                // the run waits for decisions: run.turn is the paused turn
)

// turn is a model turn of tool calls while it is answered: each call with its state (see
// PausedCall) and, once answered, its result. It is the one place where a turn's calls are
// decided, run, paused and resumed: a paused run keeps its turn as Paused.Calls, and Resume
// rebuilds it from them.
//
// While the calls run, each goroutine writes only the elements of its own call.
type turn struct {
	calls  []PausedCall
	resume []*Paused // by call, while it runs: the paused delegated run a call resumes

	// While the calls run (see run.execute): which, by whom, and the turn as tool-turn
	// middleware sees it.
	todo []int
	by   turnRunner
	step ToolTurn
}

// turnRunner is the run that runs a turn's calls.
type turnRunner interface {
	call(ctx context.Context, t *turn, i int) string
	toolCall(t *turn, i int) ToolCall
	runParallel(ctx context.Context, t *turn) []string
}

// describe gives the turn's ToolTurn its calls, for the first tool-turn middleware to see
// them: a run without one does not make them.
func (t *turn) describe() {
	if t.step.Calls != nil {
		return
	}
	t.step.Calls = make([]ToolCall, len(t.todo))
	for k, i := range t.todo {
		t.step.Calls[k] = t.by.toolCall(t, i)
	}
}

// callOf runs the turn's k-th call of todo (ToolTurn.Call).
func (t *turn) callOf(ctx context.Context, k int) string {
	if k < 0 || k >= len(t.todo) {
		return fmt.Sprintf("error: no call %d in a turn of %d", k, len(t.todo))
	}
	return t.by.call(ctx, t, t.todo[k])
}

// newTurn makes the turn of a model's tool calls: every call queued.
func newTurn(calls []llms.ToolCall) *turn {
	t := &turn{calls: make([]PausedCall, len(calls))}
	for i, c := range calls {
		t.calls[i] = PausedCall{ID: c.ID, Tool: c.FunctionCall.Name, Arguments: c.FunctionCall.Arguments, State: callQueued}
	}
	return t
}

// resumedTurn rebuilds a paused turn.
func resumedTurn(calls []PausedCall) *turn { return &turn{calls: slices.Clone(calls)} }

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

// decide applies decisions to the calls that wait for one and reports whether any still waits.
func (t *turn) decide(decisions map[string]Decision) bool {
	waiting := false
	for i := range t.calls {
		c := &t.calls[i]
		if c.State != callWaiting {
			continue
		}
		switch d := decisions[c.ID]; d.Verdict {
		case VerdictApprove:
			c.State = callApproved
		case VerdictDeny:
			c.State, c.Reason = callDenied, d.Reason
		default:
			waiting = true
		}
	}
	return waiting
}

// answerDenied answers the denied calls with their reason and returns how many there were.
func (t *turn) answerDenied() int {
	n := 0
	for i := range t.calls {
		if t.calls[i].State == callDenied {
			t.answer(i, denial(t.calls[i].Reason))
			n++
		}
	}
	return n
}

// toRun returns the calls that run now, and how many of them are new: a delegated run that
// paused was reserved when it first ran. The paused delegated runs are moved to resume.
func (t *turn) toRun() (todo []int, fresh int) {
	todo = make([]int, 0, len(t.calls))
	for i := range t.calls {
		switch c := &t.calls[i]; c.State {
		case callQueued, callApproved:
			todo, fresh = append(todo, i), fresh+1
		case callNested:
			if t.resume == nil {
				t.resume = make([]*Paused, len(t.calls))
			}
			t.resume[i], c.Nested = c.Nested, nil
			todo = append(todo, i)
		}
	}
	return todo, fresh
}

// settle ends the running of the calls of todo with their results: a call whose delegated
// run paused (its Nested set while it ran) stays nested unless the run ends (ending); the
// others are done. It reports whether the turn pauses.
func (t *turn) settle(todo []int, results []string, ending bool) bool {
	pause := false
	for k, i := range todo {
		if c := &t.calls[i]; c.Nested != nil && !ending {
			c.State, c.Result, pause = callNested, "", true
			continue
		}
		t.answer(i, results[k])
	}
	t.resume = nil
	return pause
}

// paused returns the turn as a paused state keeps it.
func (t *turn) paused() []PausedCall { return slices.Clone(t.calls) }

// toolTurn answers a fresh turn of tool calls: a valid final_result ends the run (the other
// calls are skipped); otherwise the calls that need approval are decided, and the turn runs.
func (r *run[O]) toolTurn(ctx context.Context, calls []llms.ToolCall) (outcome, error) {
	t := newTurn(calls)
	final := -1
	if r.mode == OutputTool {
		for i := range t.calls {
			switch {
			case t.calls[i].Tool != finalResult:
			case final < 0:
				final = i
			default:
				t.answer(i, resultSkipped)
			}
		}
	}
	if final >= 0 {
		args := t.calls[final].Arguments
		err := r.parseFinal(ctx, args)
		if err == nil {
			t.answer(final, resultAccepted)
			r.countUnrun(t.answerRest(resultSkipped))
			r.appendResults(t)
			return done, nil
		}
		t.answer(final, "error: your "+finalResult+" arguments could not be used: "+err.Error()+
			"\nCall "+finalResult+" again with arguments that match its JSON Schema: "+string(compact(r.p.out.final.JSON())))
		if ferr := r.failed(args, err); ferr != nil {
			r.countUnrun(t.answerRest("not run: the run ended"))
			r.appendResults(t)
			return goOn, ferr
		}
	}
	if r.p.cfg.approver != nil {
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

// approve asks the approver about the turn's queued calls that need it, before any runs, and
// reports whether any waits for a person.
func (r *run[O]) approve(ctx context.Context, t *turn) (bool, error) {
	waiting := false
	for i := range t.calls {
		c := &t.calls[i]
		if c.State != callQueued || !r.p.needsApproval(c.Tool) {
			continue
		}
		d, err := r.p.cfg.approver.Approve(ctx, r.toolCall(t, i))
		if err != nil {
			return false, fmt.Errorf("assistant %q: approving a call of %q: %w", r.p.name, c.Tool, err)
		}
		switch d.Verdict {
		case VerdictApprove:
			c.State = callApproved
		case VerdictDeny:
			c.State, c.Reason = callDenied, d.Reason
		case VerdictPending:
			c.State, waiting = callWaiting, true
		default:
			return false, fmt.Errorf("assistant %q: the approver gave no verdict for a call of %q (use Approved, Denied or Pending)", r.p.name, c.Tool)
		}
	}
	return waiting, nil
}

// runCalls answers a decided turn: denied calls with their reason, the others by running them,
// after reserving the new ones against the limits. A delegated run that paused pauses this
// one; otherwise the turn's results are appended, in the model's call order.
func (r *run[O]) runCalls(ctx context.Context, t *turn) (outcome, error) {
	denied := t.answerDenied()
	todo, fresh := t.toRun()
	if err := r.state.account.ReserveToolCalls(r.res.Model, fresh); err != nil {
		// Not counted: a report never shows more tool calls than the limit allowed.
		if r.p.cfg.finalOnLimit && !r.final {
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
	if r.p.skills != nil {
		r.state.skills = r.p.skillsFor(t, r.msgs)
	}
	if len(todo) > 0 {
		results, err := r.execute(ctx, t, todo)
		if err != nil {
			t.resume = nil
			t.answerRest("not run: the run ended: " + err.Error())
			r.appendResults(t)
			return goOn, err
		}
		fatal := r.tools.fatal()
		if t.settle(todo, results, fatal != nil) {
			r.turn = t
			return paused, nil
		}
		if fatal != nil {
			r.appendResults(t)
			return goOn, fatal
		}
	}
	r.appendResults(t)
	return goOn, nil
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
