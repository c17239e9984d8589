package durable

import (
	"context"
	"fmt"

	"github.com/cadrehq/cadre/pkg/assistant"
	"github.com/dbos-inc/dbos-transact-golang/dbos"
)

// Status is where a durable run is, as Engine.Status tells it. DBOS's own tools show a run's
// workflow; they show a run that waits for a person as a workflow that succeeded, since the
// workflow ended with the paused state.
type Status string

const (
	// StatusRunning: the run was started and has not ended — it runs, waits on a queue, or
	// waits for a process of its executor ID and version to take it up.
	StatusRunning Status = "running"
	// StatusPaused: the run ended waiting for a person's decision (assistant.WithApproval), and
	// was not resumed: Engine.Resume continues it.
	StatusPaused Status = "paused"
	// StatusResumed: the run paused and was resumed: it goes on in the continuation whose ID is
	// ContinuationID of the run's.
	StatusResumed Status = "resumed"
	// StatusDone: the run answered.
	StatusDone Status = "done"
	// StatusFailed: the run ended without an answer — with an error, cancelled
	// (dbos.CancelWorkflow), timed out (WithTimeout), or set aside by DBOS after too many
	// recoveries. Await returns why.
	StatusFailed Status = "failed"
)

// Status tells where the run id is — a run, or a continuation of one (see Resume). It fails
// for an ID that is not a run of the engine's: errors.Is(err, dbos.ErrNonExistentWorkflow) for
// an ID of no workflow.
func (e *Engine) Status(ctx context.Context, id string) (Status, error) {
	dctx := dbos.From(e.root, ctx)
	h, err := dbos.RetrieveWorkflow[runOutput](dctx, id)
	if err != nil {
		return "", fmt.Errorf("durable: run %s: %w", id, err)
	}
	st, err := h.GetStatus()
	if err != nil {
		return "", fmt.Errorf("durable: run %s: %w", id, err)
	}
	if st.Name != runWorkflow && st.Name != resumeWorkflow {
		return "", fmt.Errorf("durable: %s is not a run of the engine but a workflow %s", id, st.Name)
	}
	switch st.Status {
	case dbos.WorkflowStatusPending, dbos.WorkflowStatusEnqueued, dbos.WorkflowStatusDelayed:
		return StatusRunning, nil
	case dbos.WorkflowStatusError, dbos.WorkflowStatusCancelled, dbos.WorkflowStatusMaxRecoveryAttemptsExceeded:
		return StatusFailed, nil
	case dbos.WorkflowStatusSuccess:
	default:
		return "", fmt.Errorf("durable: run %s has a status this version does not know: %s", id, st.Status)
	}
	out, err := h.GetResult(dbos.WithHandlePollingInterval(e.poll))
	if err != nil {
		return "", fmt.Errorf("durable: run %s: %w", id, err)
	}
	if out.Stop != assistant.StopPending {
		return StatusDone, nil
	}
	next, err := dbos.ListWorkflows(dctx, dbos.WithFilterWorkflowIDs(ContinuationID(id)),
		dbos.WithFilterLoadInput(false), dbos.WithFilterLoadOutput(false))
	if err != nil {
		return "", fmt.Errorf("durable: run %s: looking for its continuation: %w", id, err)
	}
	if len(next) > 0 {
		return StatusResumed, nil
	}
	return StatusPaused, nil
}
