package durable

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/cadrehq/cadre/pkg/assistant"
	"github.com/cadrehq/cadre/pkg/model"
	"github.com/dbos-inc/dbos-transact-golang/dbos"
)

// A step of a workflow is known by its number, given in the order steps start, and is checked
// on replay by its name: a different name at a recorded number fails the workflow rather than
// hand one step's record to another. The names are made from the run's call path — the top
// run's assistant, then the delegating call and its tool for each delegated run below it —
// and from what recorded replies hold (attempts, models, call IDs): never from a run ID, which
// is new in each execution.
//
//	supervisor/req1/fast                     a request: the attempt, the model
//	supervisor/tool/call_7:weather           a tool call: the call's ID, the tool
//	supervisor/call_9:researcher/req1/fast   a request of the run that call_9 delegated to
//	supervisor/approve/call_8                an approver's decision (Engine.Approver)
//
// Steps start from the workflow's goroutine only, in an order the records decide: DBOS numbers
// them with a counter that is not safe for concurrent use.

// scope is a run's place in a durable workflow, put in its context by the run hook.
type scope struct {
	engine *Engine
	runID  string // the run's ID in this execution, to know a run taken already
	path   string
	// run is the context the run was started with (cadre's own cancellations derive from it):
	// done when its workflow is stopped, and when a workflow of the program's own cancels a
	// context it gave the run, which its workflow outlives (see append.go).
	run context.Context
	// legacy is shared by the runs of one top run: the steps that earlier executions recorded
	// under a model's old name.
	legacy *legacySteps
}

// delegation is put by the tool-turn hook in the context of a delegated call that it runs on
// the workflow's goroutine: the path of the run that the call starts.
type delegation struct {
	engine *Engine
	path   string
	legacy *legacySteps
}

type (
	scopeKey      struct{}
	delegationKey struct{}
	stepKey       struct{}
)

// inStep marks ctx as the context of one of the engine's steps: a run inside a step (a tool
// that runs an assistant of its own) is part of the step, and none of its work is a step.
func inStep(ctx context.Context) context.Context { return context.WithValue(ctx, stepKey{}, true) }

// scopeOf returns the durable scope of the run of ctx, or nil when its steps are not the
// engine's to make: outside a workflow, or inside one of the engine's steps.
func (e *Engine) scopeOf(ctx context.Context) *scope {
	if ctx.Value(stepKey{}) != nil {
		return nil
	}
	s, _ := ctx.Value(scopeKey{}).(*scope)
	if s == nil || s.engine != e {
		return nil
	}
	return s
}

// inWorkflow reports whether ctx is the context of a DBOS workflow, or derived from one.
func (e *Engine) inWorkflow(ctx context.Context) bool {
	_, err := dbos.GetWorkflowID(dbos.From(e.root, ctx))
	return err == nil
}

// runHook gives a run in a workflow its scope.
func (e *Engine) runHook(ctx context.Context, run assistant.RunInfo, next assistant.RunNext) (*assistant.Response, error) {
	if ctx.Value(stepKey{}) != nil {
		return next(ctx)
	}
	if s, _ := ctx.Value(scopeKey{}).(*scope); s != nil && s.engine == e && s.runID == run.RunID {
		return next(ctx) // the engine's middleware given twice: the outer one took the run
	}
	var path string
	var legacy *legacySteps
	if d, _ := ctx.Value(delegationKey{}).(*delegation); d != nil && d.engine == e {
		path, legacy = d.path, d.legacy
	} else if e.inWorkflow(ctx) {
		path, legacy = run.Assistant, &legacySteps{}
	} else {
		return next(ctx)
	}
	return next(context.WithValue(ctx, scopeKey{}, &scope{engine: e, runID: run.RunID, path: path, run: ctx, legacy: legacy}))
}

// requestHook makes a model request a step: the reply, or the model's error, is recorded, and
// given back without asking the model again when the workflow is replayed.
func (e *Engine) requestHook(ctx context.Context, req *assistant.ModelRequest, next assistant.RequestNext) (model.Reply, error) {
	s := e.scopeOf(ctx)
	if s == nil {
		return next(ctx, req)
	}
	name, err := e.requestStepName(ctx, s, s.path+"/req"+strconv.Itoa(req.Attempt)+"/", req.Model.Name)
	if err != nil {
		return model.Reply{}, err
	}
	w, err := dbos.RunAsStep(dbos.From(e.root, ctx), func(ctx context.Context) (wireReply, error) {
		reply, err := next(inStep(ctx), req)
		return replyToWire(reply, err), nil
	}, dbos.WithStepName(name))
	if err != nil {
		return model.Reply{}, fmt.Errorf("durable: step %s: %w", name, err)
	}
	return w.reply()
}

// toolTurnHook runs a turn's calls as steps, in parallel: it starts a step for each call, in
// the model's order, from the workflow's goroutine, so that the steps' numbers are the same in
// every execution whichever finishes first. A delegated call (assistant.AsTool) is not a step:
// its run is run on the workflow's goroutine, and its own requests and calls are steps of the
// workflow. It runs once the others have ended: a delegated run that reaches a limit ends the
// whole tree, cancelling the calls still running, and a replay, which gets the delegated run's
// steps back from their records at once, would end them otherwise than the run did.
func (e *Engine) toolTurnHook(ctx context.Context, turn *assistant.ToolTurn, next assistant.ToolTurnNext) ([]string, error) {
	s := e.scopeOf(ctx)
	if s == nil {
		return next(ctx, turn)
	}
	dctx := dbos.From(e.root, ctx)
	results := make([]string, len(turn.Calls))
	outcomes := make([]<-chan dbos.StepOutcome[string], len(turn.Calls))
	var slots chan struct{} // nil: no bound is needed
	if n := len(turn.Calls); n > e.maxParallel {
		slots = make(chan struct{}, e.maxParallel)
	}
	var err error
	started := false
	for k, c := range turn.Calls {
		if c.Delegated {
			continue
		}
		name := s.path + "/tool/" + c.ID + ":" + c.Tool
		outcomes[k], err = dbos.Go(dctx, func(ctx context.Context) (string, error) {
			defer take(ctx, slots)()
			return turn.Call(inStep(ctx), k), nil
		}, dbos.WithStepName(name))
		if de := (*dbos.Error)(nil); !started && errors.As(err, &de) && de.Code == dbos.ErrorCodeStepExecution {
			// The run runs inside a step of a workflow of the program's own, where DBOS starts
			// no step: the run is part of that step.
			return next(ctx, turn)
		}
		if err != nil {
			err = fmt.Errorf("durable: step %s: %w", name, err)
			break
		}
		started = true
	}
	for k, ch := range outcomes {
		if ch == nil {
			continue
		}
		out := <-ch
		if out.Err != nil && err == nil {
			err = fmt.Errorf("durable: step %s/tool/%s:%s: %w", s.path, turn.Calls[k].ID, turn.Calls[k].Tool, out.Err)
		}
		results[k] = out.Result
	}
	if err != nil {
		return nil, err
	}
	for k, c := range turn.Calls {
		if c.Delegated {
			d := &delegation{engine: e, path: s.path + "/" + c.ID + ":" + c.Tool, legacy: s.legacy}
			results[k] = turn.Call(context.WithValue(ctx, delegationKey{}, d), k)
		}
	}
	return results, nil
}

// take takes a slot of a turn's bound, waiting for one, and returns the function that gives it
// back. With ctx done it takes none: the call then finds ctx done and does not run.
func take(ctx context.Context, slots chan struct{}) (release func()) {
	if slots == nil {
		return func() {}
	}
	select {
	case slots <- struct{}{}:
		return func() { <-slots }
	case <-ctx.Done():
		return func() {}
	}
}

// IdempotencyKey returns a key for the tool call of ctx — a tool's context, inside one of the
// engine's steps — that is the same in every execution of the call and different for every
// other call: the run's workflow ID and the step's number. A tool with effects outside the
// process (a payment, an e-mail) passes it on (an Idempotency-Key header, a unique column), so
// that the call run again after a crash does not do its work twice. A fork of the run
// (dbos.ForkWorkflow) is another run, with keys of its own. It returns false outside a step of a
// durable run.
func (e *Engine) IdempotencyKey(ctx context.Context) (string, bool) {
	if ctx.Value(stepKey{}) == nil {
		return "", false
	}
	dctx := dbos.From(e.root, ctx)
	wf, err := dbos.GetWorkflowID(dctx)
	if err != nil {
		return "", false
	}
	step, err := dbos.GetStepID(dctx)
	if err != nil {
		return "", false
	}
	return wf + "/" + strconv.Itoa(step), true
}
