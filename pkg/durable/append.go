package durable

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"

	"github.com/cadrehq/cadre/pkg/chat"
	"github.com/dbos-inc/dbos-transact-golang/dbos"
	"github.com/tmc/langchaingo/llms"
)

// A run in a chat appends its messages when it ends, failed too: in a durable run, as the step
// chat/append. How a run whose workflow is stopped appends depends on what stopped it.
//
//   - DBOS shutting down (its process stopping) leaves the workflow pending: the next process
//     of its executor and version takes it up, and that execution appends, once. The stopped
//     one appends nothing: its append could not be recorded, and would be made twice.
//   - A cancellation (dbos.CancelWorkflow) or a timeout (WithTimeout) ends the workflow for
//     good, unless someone resumes it (dbos.ResumeWorkflow), and DBOS records none of its
//     steps any more. The run appends what it got to all the same, outside the workflow, and
//     marks that it did with a workflow of its own, cadre.appended, whose ID is the run's
//     workflow's with "#appended-" and the append's number in the workflow: an execution that
//     resumes the run finds the mark, in its step chat/append, and does not append again. The
//     mark is made before the append, so that of two stopped executions the first appends; a
//     cancelled one whose workflow was resumed meanwhile leaves the append to the resumed one.
//     Only DBOS tells that a workflow was stopped for good, by not recording the step: the
//     run's own context may be done while its workflow goes on (a workflow of the program's
//     own can give a run a context of its own, and cancel it), and that run appends in its
//     step as any other. A timed-out workflow that DBOS has not marked cancelled yet runs the
//     step's append before DBOS refuses to record it; the mark follows.
//
// The append's number counts the chat appends recorded in the workflow before it: a workflow
// of the program's own may run several runs in a chat, and each appends once.

// appendedWorkflow is the workflow cadre.appended, the mark of a stopped run's append: it does
// nothing, and its ID says which append it marks.
func (e *Engine) appendedWorkflow(_ dbos.Context, run string) (string, error) { return run, nil }

// appendedID is the ID of the mark of the append numbered n of the workflow wf.
func appendedID(wf string, n int) string { return wf + "#appended-" + strconv.Itoa(n) }

// stopping reports whether run, the context a run in a workflow started with, is done because
// DBOS is shutting down — its root context is cancelled, with the cause the run's has — rather
// than not done, or done because its workflow was cancelled or timed out.
func (e *Engine) stopping(run context.Context) bool {
	return run.Err() != nil && errors.Is(context.Cause(run), context.Cause(e.root))
}

// appendStep appends msgs in the step chat/append of the run of ctx, unless the append was made
// by an execution that was stopped for good, and reports whether it appended.
func (st *store) appendStep(ctx context.Context, id chat.ID, msgs []llms.MessageContent) (appended bool, err error) {
	_, err = st.step(ctx, "chat/append", func(ctx context.Context) wireChat {
		dctx := dbos.From(st.e.root, ctx)
		wf, err := dbos.GetWorkflowID(dctx)
		if err != nil {
			return wireChat{Err: recordError(err)}
		}
		step, err := dbos.GetStepID(dctx)
		if err != nil {
			return wireChat{Err: recordError(err)}
		}
		marked, err := st.e.marked(wf, step)
		if err != nil || marked {
			return wireChat{Err: recordError(err)}
		}
		err = st.s.Append(ctx, id, msgs)
		appended = err == nil
		return wireChat{Err: recordError(err)}
	})
	return appended, err
}

// marked reports whether the append of the workflow wf that its step before makes was made, and
// marked, by an execution of wf that was stopped for good.
func (e *Engine) marked(wf string, before int) (bool, error) {
	n, err := e.appendsBefore(wf, before)
	if err != nil {
		return false, err
	}
	found, err := dbos.ListWorkflows(e.root, dbos.WithFilterWorkflowIDs(appendedID(wf, n)),
		dbos.WithFilterLoadInput(false), dbos.WithFilterLoadOutput(false))
	if err != nil {
		return false, fmt.Errorf("durable: looking for the mark of an append of run %s: %w", wf, err)
	}
	return len(found) > 0, nil
}

// appendsBefore counts the chat appends recorded in the workflow wf before its step before (all
// of them for math.MaxInt).
func (e *Engine) appendsBefore(wf string, before int) (int, error) {
	steps, err := dbos.GetWorkflowSteps(e.root, wf, dbos.WithStepsLoadOutput(false))
	if err != nil {
		return 0, fmt.Errorf("durable: reading the steps of run %s: %w", wf, err)
	}
	n := 0
	for _, s := range steps {
		if s.StepName == "chat/append" && s.StepID < before {
			n++
		}
	}
	return n, nil
}

// appendStopped appends msgs for the run of ctx, whose workflow DBOS stopped for good, once: it
// marks the append first, and appends unless the mark was there or appended says the append
// was made already (in a step that ran but could not be recorded). A run whose workflow DBOS
// cancelled that another execution runs now (the workflow was resumed, or taken over) leaves
// the append to that execution; a timed-out run is not asked, since its workflow may not be
// marked cancelled yet.
func (st *store) appendStopped(ctx context.Context, id chat.ID, msgs []llms.MessageContent, appended, timedOut bool) error {
	wf, err := dbos.GetWorkflowID(dbos.From(st.e.root, ctx))
	if err != nil {
		return fmt.Errorf("durable: appending to chat %s: %w", id, err)
	}
	if !timedOut {
		found, err := dbos.ListWorkflows(st.e.root, dbos.WithFilterWorkflowIDs(wf),
			dbos.WithFilterLoadInput(false), dbos.WithFilterLoadOutput(false))
		if err != nil {
			return fmt.Errorf("durable: run %s: appending to chat %s: %w", wf, id, err)
		}
		if len(found) != 1 || found[0].Status != dbos.WorkflowStatusCancelled {
			return nil
		}
	}
	n, err := st.e.appendsBefore(wf, math.MaxInt)
	if err != nil {
		return err
	}
	_, err = start(st.e, st.e.appendedWorkflow, wf, startConfig{id: appendedID(wf, n)},
		dbos.WithWorkflowIDReusePolicy(dbos.WorkflowIDReusePolicyReject))
	if errors.Is(err, dbos.ErrWorkflowIDInUse) || appended {
		return nil
	}
	if err != nil {
		return fmt.Errorf("durable: run %s: marking its append to chat %s: %w", wf, id, err)
	}
	return st.s.Append(ctx, id, msgs)
}
