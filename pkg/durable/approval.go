package durable

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/cadrehq/cadre/pkg/assistant"
	"github.com/cadrehq/cadre/pkg/usage"
	"github.com/dbos-inc/dbos-transact-golang/dbos"
)

// A durable run that pauses for a person's decision (assistant.WithApproval) ends its workflow
// with the paused state, and holds nothing while it waits: no goroutine, no memory, no slot of
// a queue, for as long as the person takes, across any number of restarts and deployments.
// Resume starts a continuation workflow, cadre.resume, with the decisions. Its ID is derived
// from the paused run's, so that of several Resumes of one pause exactly one starts it.

// resumeInput is the input of the workflow cadre.resume.
type resumeInput struct {
	Assistant string                        `json:"assistant"`
	Paused    *assistant.Paused             `json:"paused"`
	Decisions map[string]assistant.Decision `json:"decisions"`
	Limits    *usage.Limits                 `json:"limits,omitempty"`
	Meta      map[string]string             `json:"meta,omitempty"`
}

// Resume continues the paused run pausedID — a run, or a continuation, whose Result has Stop
// assistant.StopPending — with decisions on its waiting calls, by call ID (see
// assistant.Paused.Waiting), and returns the ID of the continuation: Await it for the run's
// Result. A call left without a decision pauses the run again, in a continuation that Resume
// continues in turn.
//
// Resume may be called from any process of the application, and any number of times: exactly
// one Resume of a pause starts its continuation, and the others return an error wrapping
// assistant.ErrNotPaused, as assistant.Assistant.Resume does. The continuation's ID is the
// paused run's with "#2" (then "#3", ...) at its end, ContinuationID(pausedID): a caller that
// lost Resume's answer can Await it. The decisions are checked before anything starts, so that a mistaken decision does
// not use up the pause. The continuation runs with the paused run's Limits and Meta.
func (e *Engine) Resume(ctx context.Context, pausedID string, decisions map[string]assistant.Decision) (string, error) {
	out, err := e.paused(ctx, pausedID)
	if err != nil {
		return "", err
	}
	if err := checkDecisions(out.Paused, decisions); err != nil {
		return "", fmt.Errorf("durable: run %s: %w", pausedID, err)
	}
	if _, err := e.entry(out.Assistant); err != nil {
		return "", err
	}
	in := resumeInput{Assistant: out.Assistant, Paused: out.Paused, Decisions: decisions, Limits: out.Limits, Meta: out.Meta}
	next := ContinuationID(pausedID)
	id, err := start(e, e.resumeWorkflow, in, startConfig{id: next, queue: e.queue},
		dbos.WithWorkflowIDReusePolicy(dbos.WorkflowIDReusePolicyReject))
	if errors.Is(err, dbos.ErrWorkflowIDInUse) {
		return "", &resumedError{paused: pausedID, next: next}
	}
	return id, err
}

// resumedError is the error of a Resume of a pause that was resumed already: it is
// assistant.ErrNotPaused, and says so once, with the continuation to Await.
type resumedError struct{ paused, next string }

func (e *resumedError) Error() string {
	return "durable: run " + e.paused + " was resumed already, as " + e.next
}

func (e *resumedError) Is(target error) bool { return target == assistant.ErrNotPaused }

// paused returns the output of the run id, which must have ended paused.
func (e *Engine) paused(ctx context.Context, id string) (runOutput, error) {
	h, err := dbos.RetrieveWorkflow[runOutput](dbos.From(e.root, ctx), id)
	if err != nil {
		return runOutput{}, fmt.Errorf("durable: run %s: %w", id, err)
	}
	st, err := h.GetStatus()
	if err != nil {
		return runOutput{}, fmt.Errorf("durable: run %s: %w", id, err)
	}
	if st.Status != dbos.WorkflowStatusSuccess {
		return runOutput{}, fmt.Errorf("durable: run %s is %s: %w", id, st.Status, assistant.ErrNotPaused)
	}
	out, err := h.GetResult(dbos.WithHandlePollingInterval(e.poll))
	if err != nil {
		return runOutput{}, fmt.Errorf("durable: run %s: %w", id, err)
	}
	if !out.Ran || out.Stop != assistant.StopPending || out.Paused == nil {
		return runOutput{}, fmt.Errorf("durable: run %s ended with stop %q: %w", id, out.Stop, assistant.ErrNotPaused)
	}
	return out, nil
}

// checkDecisions checks decisions as assistant.Assistant.Resume does: each for a call that
// waits, with a verdict.
func checkDecisions(p *assistant.Paused, decisions map[string]assistant.Decision) error {
	waiting := p.Waiting()
	for id, d := range decisions {
		if !slices.ContainsFunc(waiting, func(c assistant.ToolCall) bool { return c.ID == id }) {
			ids := make([]string, len(waiting))
			for i, c := range waiting {
				ids[i] = c.ID
			}
			return fmt.Errorf("no call %q waits for a decision (waiting: %s)", id, strings.Join(ids, ", "))
		}
		switch d.Verdict {
		case assistant.VerdictApprove, assistant.VerdictDeny, assistant.VerdictPending, assistant.VerdictAnswer:
		default:
			return fmt.Errorf("the decision for call %q has no verdict (use assistant.Approved, Denied, Answered or Pending)", id)
		}
	}
	return nil
}

// ContinuationID returns the ID that Engine.Resume gives the continuation of the paused run id:
// id#2 for a run, id#3 for the continuation id#2, and so on. It is the same in every process,
// whether or not the run was resumed: Await it to follow a run that a Resume of another process
// (or one whose answer was lost) continued, or give it to Status.
func ContinuationID(id string) string {
	if i := strings.LastIndexByte(id, '#'); i >= 0 {
		if n, err := strconv.Atoi(id[i+1:]); err == nil && n >= 2 && strconv.Itoa(n) == id[i+1:] {
			return id[:i] + "#" + strconv.Itoa(n+1)
		}
	}
	return id + "#2"
}

// resumeWorkflow is the workflow cadre.resume: the continuation of a paused run.
func (e *Engine) resumeWorkflow(ctx dbos.Context, in resumeInput) (runOutput, error) {
	out := runOutput{Ran: true, Assistant: in.Assistant, Limits: in.Limits, Meta: in.Meta}
	ent, err := e.entry(in.Assistant)
	if err != nil {
		return out.end(nil, err)
	}
	if in.Paused == nil {
		return out.end(nil, errors.New("durable: the continuation has no paused state"))
	}
	rctx, err := e.restored(ctx, in.Meta)
	if err != nil {
		return out.end(nil, err)
	}
	return out.end(ent.resume(rctx, in.Paused, in.Decisions, runOptions(in.Limits)))
}

// Approver returns an approver that asks a, and records its decision as a step of the run's
// workflow: a replayed run gets the decision from the record instead of asking again. Give it
// to assistant.WithApproval in place of a when a asks something outside the process — a
// person, a service — rather than deciding from the call alone.
func (e *Engine) Approver(a assistant.Approver) assistant.Approver {
	return assistant.ApproverFunc(func(ctx context.Context, call assistant.ToolCall) (assistant.Decision, error) {
		s := e.scopeOf(ctx)
		if s == nil {
			return a.Approve(ctx, call)
		}
		name := s.path + "/approve/" + call.ID
		w, err := dbos.RunAsStep(dbos.From(e.root, ctx), func(ctx context.Context) (wireDecision, error) {
			d, err := a.Approve(inStep(ctx), call)
			return wireDecision{Decision: d, Err: recordError(err)}, nil
		}, dbos.WithStepName(name))
		if err != nil {
			return assistant.Decision{}, fmt.Errorf("durable: step %s: %w", name, err)
		}
		if w.Err != nil {
			return w.Decision, w.Err.rebuild()
		}
		return w.Decision, nil
	})
}
