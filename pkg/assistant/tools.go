package assistant

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/cadrehq/cadre/internal/toolbox"
	"github.com/cadrehq/cadre/pkg/callback"
	"github.com/cadrehq/cadre/pkg/tool"
	"github.com/tmc/langchaingo/llms"
)

// toolRunner runs the calls of a run's turns (turn.go decides which): each through the run's
// tool-turn chain, then in parallel, each inside its events and through the tool-call chain,
// down to the tool. Nothing in it depends on the run's output type.
type toolRunner struct {
	run       *runState
	next      ToolCallNext // the tool-call middleware, then toolTable.call
	tools     *toolTable
	parallel  int // calls at once, at most (WithMaxParallelTools)
	maxResult int // bytes of a result, at most (WithMaxToolResult)
}

// execute runs the calls todo of t, made in the run's messages so far msgs, through the run's
// tool-turn chain and returns their results, in todo's order. An error of a call that ends the
// run is left in the call (fatal).
func (x *toolRunner) execute(ctx context.Context, t *turn, todo []int, msgs []llms.MessageContent) ([]string, error) {
	t.todo, t.by, t.msgs = todo, x, msgs[:len(msgs):len(msgs)]
	t.step = ToolTurn{Assistant: x.run.assistant, RunID: x.run.id, t: t}
	results, err := x.run.mw.toolTurn(ctx, 0, &t.step, t)
	if err == nil && len(results) != len(todo) {
		err = fmt.Errorf("a tool-turn middleware returned %d results for %d calls: it must return one per call, in order", len(results), len(todo))
	}
	if err != nil {
		return nil, within(x.run.assistant, err, "", "")
	}
	return results, nil
}

// toolTurn calls the tool-turn middleware from i on, then runs the calls of t: whatever turn
// a middleware passes on, the calls that run are t's. The calls of the ToolTurn are made for
// the first middleware to see them: a run without one does not pay for them.
func (c chain) toolTurn(ctx context.Context, i int, turn *ToolTurn, t *turn) ([]string, error) {
	for ; i < len(c); i++ {
		if f := c[i].ToolTurn; f != nil {
			t.describe()
			rest := i + 1 // declared here, so that a run without tool-turn middleware allocates nothing
			return f(ctx, turn, func(ctx context.Context, turn *ToolTurn) ([]string, error) { return c.toolTurn(ctx, rest, turn, t) })
		}
	}
	return t.by.runAll(ctx, t), nil
}

// runAll runs the calls todo of t, at most x.parallel at once, and returns their results in
// todo's order. Helpers take the calls in order as they become free; the run's goroutine is
// one of them, so that a turn of one call starts no goroutine and the goroutine whose stack
// has grown does the work. It returns when every call has.
//
// It is not an errgroup.Group with SetLimit: that starts a fresh goroutine for each call and
// keeps the run's goroutine waiting (BenchmarkRunToolRound: 101 allocations and twice the time,
// against 95), and an error that ends the run is the call's to keep (call.fatal) anyway, since
// a tool-turn middleware may run the calls itself with ToolTurn.Call.
func (x *toolRunner) runAll(ctx context.Context, t *turn) []string {
	results := make([]string, len(t.todo))
	t.taken.Store(0)
	work := func() {
		for k := int(t.taken.Add(1)) - 1; k < len(results); k = int(t.taken.Add(1)) - 1 {
			results[k] = x.call(ctx, t, t.todo[k])
		}
	}
	for range min(x.parallel, len(results)) - 1 {
		t.helpers.Go(work)
	}
	work()
	t.helpers.Wait()
	return results
}

// call runs call i of t inside its events (outermost) and through the run's tool-call chain,
// with the call in its context (tool.CallOf), and returns what goes back to the model: the
// tool's result, or an error the model can act on, cut to the cap. A delegated run that pauses in it is kept in the call (Nested), and so
// is an error that ends the run (fatal).
func (x *toolRunner) call(ctx context.Context, t *turn, i int) string {
	c := &t.calls[i]
	var start time.Time
	if x.run.handler != nil {
		x.run.emit(ctx, callback.Event{Kind: callback.ToolStart, Tool: c.Tool, CallID: c.ID, Args: c.Arguments})
		start = time.Now()
	}
	if c.resume != nil {
		ctx = withResume(ctx, &resumeInfo{by: x.run, paused: c.resume, decisions: t.decisions})
	}
	c.ctx = tool.Call{ID: c.ID, Messages: t.msgs}
	out, err := x.next(tool.WithCall(ctx, &c.ctx), x.toolCall(t, i))
	if err != nil {
		out = "error: " + err.Error()
		c.Nested, c.fatal = x.failed(ctx, err)
	}
	out = toolbox.Cut(out, x.maxResult)
	if x.run.handler != nil {
		e := callback.Event{Kind: callback.ToolEnd, Tool: c.Tool, CallID: c.ID, Result: out, Duration: time.Since(start)}
		if err != nil {
			var pe *toolbox.PanicError
			e.Kind, e.Err, e.Panic = callback.ToolError, err, errors.As(err, &pe)
		}
		x.run.emit(ctx, e)
	}
	return out
}

// failed returns what a call's error means beyond its text: the state of a delegated run that
// paused, or the error that ends the run — a limit or the depth limit reached below, or the
// run's cancellation, said as such whatever the tool made of it.
func (x *toolRunner) failed(ctx context.Context, err error) (nested *Paused, fatal error) {
	if pending := (*pendingError)(nil); errors.As(err, &pending) {
		return pending.paused, nil
	}
	switch {
	case endsTreeCause(err):
		return nil, err
	case ctx.Err() != nil:
		return nil, within(x.run.assistant, context.Cause(ctx), "", "")
	}
	return nil, nil
}

// toolCall is call i of t as a tool-call middleware and an approver see it.
func (x *toolRunner) toolCall(t *turn, i int) ToolCall {
	c := &t.calls[i]
	return ToolCall{RunID: x.run.id, Assistant: x.run.assistant, ID: c.ID, Tool: c.Tool, Arguments: c.Arguments, Delegated: x.tools.delegates(c.Tool)}
}

// toolCalls returns the chain's tool-call middleware, outermost first, ending in last: made
// once per run.
func (c chain) toolCalls(last ToolCallNext) ToolCallNext {
	next := last
	for i := len(c) - 1; i >= 0; i-- {
		if f := c[i].ToolCall; f != nil {
			inner := next
			next = func(ctx context.Context, call ToolCall) (string, error) { return f(ctx, call, inner) }
		}
	}
	return next
}

// resumeInfo is what a delegated run's tool call needs to resume it instead of starting it.
// It is addressed to the tool called by the run whose state is by: the runs that tool starts
// see it in their context too, and ignore it.
type resumeInfo struct {
	by        *runState
	paused    *Paused
	decisions map[string]Decision
}

type resumeKey struct{}

func withResume(ctx context.Context, info *resumeInfo) context.Context {
	return context.WithValue(ctx, resumeKey{}, info)
}

// resumeFrom returns the resume addressed to the tool called by the run of ctx, or nil.
func resumeFrom(ctx context.Context) *resumeInfo {
	info, _ := ctx.Value(resumeKey{}).(*resumeInfo)
	if info == nil || info.by != runFrom(ctx) {
		return nil
	}
	return info
}
