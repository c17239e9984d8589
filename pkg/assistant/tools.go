package assistant

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/cadrehq/cadre/pkg/callback"
	"github.com/cadrehq/cadre/pkg/tool"
	"github.com/cadrehq/cadre/pkg/usage"
)

const (
	resultAccepted = "accepted: this is the final answer"
	resultSkipped  = "skipped: the final answer was given in the same turn"
)

// execute runs the calls of todo through the run's tool-turn chain and returns their results,
// in todo's order.
func (r *run[O]) execute(ctx context.Context, t *turn, todo []int) ([]string, error) {
	t.todo, t.by = todo, r
	t.step = ToolTurn{Assistant: r.p.name, RunID: r.state.id, t: t}
	results, err := r.state.mw.toolTurn(ctx, 0, &t.step, t)
	if err == nil && len(results) != len(todo) {
		err = errResultCount(len(results), len(todo))
	}
	if err != nil {
		return nil, within(r.p.name, err, "", "")
	}
	return results, nil
}

// runParallel runs the calls of t.todo, at most maxParallel at once, and returns their results
// in todo's order: the innermost link of the tool-turn chain. The run's goroutine takes its
// share of the calls, so a turn of one call starts no goroutine; runParallel returns when
// every call has.
func (r *run[O]) runParallel(ctx context.Context, t *turn) []string {
	todo := t.todo
	results := make([]string, len(todo))
	if len(todo) == 1 {
		results[0] = r.call(ctx, t, todo[0])
		return results
	}
	var next atomic.Int64
	work := func() {
		for {
			k := int(next.Add(1)) - 1
			if k >= len(todo) {
				return
			}
			results[k] = r.call(ctx, t, todo[k])
		}
	}
	var wg sync.WaitGroup
	for range min(r.p.cfg.maxParallel, len(todo)) - 1 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			work()
		}()
	}
	work()
	wg.Wait()
	return results
}

// call runs the turn's call i through the run's tool-call chain — its events, outermost, then
// the tool-call middleware, then the tool — and returns what goes back to the model: the
// result, or an error the model can act on. A delegated run that pauses in it is noted in the
// call (Nested); an error that ends the run is kept for the turn (see toolShare).
func (r *run[O]) call(ctx context.Context, t *turn, i int) string {
	c := &t.calls[i]
	name := c.Tool
	h := r.state.handler
	var start time.Time
	if h != nil {
		r.emit(ctx, callback.Event{Kind: callback.ToolStart, Tool: name, CallID: c.ID, Args: c.Arguments})
		start = time.Now()
	}
	if t.resume != nil && t.resume[i] != nil {
		ctx = withResume(ctx, &resumeInfo{by: &r.state, paused: t.resume[i], decisions: r.decisions})
	}
	if name == activateSkill && r.state.skills != nil {
		ctx = context.WithValue(ctx, skillCallKey{}, i) // see turnSkills
	}
	out, err := r.callNext(ctx, r.toolCall(t, i))
	if err == nil {
		out = r.capResult(out)
		if h != nil {
			r.emit(ctx, callback.Event{Kind: callback.ToolEnd, Tool: name, CallID: c.ID, Result: out, Duration: time.Since(start)})
		}
		return out
	}
	if pending := (*pendingError)(nil); errors.As(err, &pending) {
		c.Nested = pending.paused
	} else if endsTree(ctx, err) {
		fatal := err
		if !endsTreeCause(err) {
			// The run was cancelled: say so, whatever the tool made of it.
			fatal = within(r.p.name, context.Cause(ctx), "", "")
		}
		r.tools.setFatal(fatal)
	}
	out = r.capResult("error: " + err.Error())
	if h != nil {
		var pe *panicError
		r.emit(ctx, callback.Event{Kind: callback.ToolError, Tool: name, CallID: c.ID, Result: out, Err: err, Panic: errors.As(err, &pe), Duration: time.Since(start)})
	}
	return out
}

// toolCall is call i of t as a tool-call middleware and an approver see it.
func (r *run[O]) toolCall(t *turn, i int) ToolCall {
	c := &t.calls[i]
	return ToolCall{RunID: r.state.id, Assistant: r.p.name, ID: c.ID, Tool: c.Tool, Arguments: c.Arguments, Delegated: r.p.tools.delegates(c.Tool)}
}

// callTool finds, checks and calls the tool: the innermost link of the tool-call chain.
func (p *plan[O]) callTool(ctx context.Context, call ToolCall) (out string, err error) {
	name, args := call.Tool, call.Arguments
	e, ok := p.tools.byName[name]
	if !ok {
		if p.tools.names == "" {
			return "", fmt.Errorf("there is no tool named %q, and no tool is available: answer without tools", name)
		}
		return "", fmt.Errorf("there is no tool named %q; the available tools are: %s", name, p.tools.names)
	}
	if err := ctx.Err(); err != nil {
		return "", fmt.Errorf("not run: %w", err)
	}
	if strings.TrimSpace(args) == "" {
		args = "{}"
	}
	data := []byte(args)
	if err := e.schema.Validate(data); err != nil {
		return "", fmt.Errorf("invalid arguments for %q: %v\nCall %s again with arguments that match its JSON Schema: %s", name, err, name, e.hint)
	}
	defer func() {
		if v := recover(); v != nil {
			out, err = "", &panicError{tool: name, value: v, stack: debug.Stack()}
		}
	}()
	out, err = e.tool.Call(ctx, data)
	if err != nil && errors.Is(err, tool.ErrInvalidArgs) {
		err = fmt.Errorf("%w\nCall %s again with arguments that match its JSON Schema: %s", err, name, e.hint)
	}
	return out, err
}

// panicError is a recovered panic of a tool. The model sees the panic's value; a handler of
// the ToolError event gets the stack from the event's Err through its Stack method:
// errors.As(e.Err, &s) with s an interface{ Stack() []byte }.
type panicError struct {
	tool  string
	value any
	stack []byte
}

// Stack is the stack of the goroutine where the tool panicked.
func (e *panicError) Stack() []byte { return e.stack }

func (e *panicError) Error() string {
	return fmt.Sprintf("tool %q failed unexpectedly (panic: %v)", e.tool, e.value)
}

// capResult cuts a result over the size cap, on a character boundary, and says so.
func (r *run[O]) capResult(out string) string {
	limit := r.p.cfg.maxResultBytes
	if len(out) <= limit {
		return out
	}
	cut := limit
	for cut > 0 && !utf8.RuneStart(out[cut]) {
		cut--
	}
	return out[:cut] + fmt.Sprintf("\n[result cut: it was %d bytes and the limit is %d; ask for less, e.g. narrower arguments]", len(out), limit)
}

// endsTree reports whether a tool's error must end the run instead of going back to the model:
// a limit reached in a run it delegated to, the depth limit, or the run's own cancellation.
func endsTree(ctx context.Context, err error) bool {
	return endsTreeCause(err) || ctx.Err() != nil
}

// endsTreeCause reports whether err ends a whole delegation tree wherever it happens: a limit,
// or the depth limit.
func endsTreeCause(err error) bool {
	var limit *usage.LimitError
	return errors.As(err, &limit) || errors.Is(err, ErrDepthLimit)
}

// toolShare is what the goroutines of a turn's calls share: the first error that ends the run.
type toolShare struct {
	mu  sync.Mutex
	err error
}

// setFatal keeps the first error that ends the run, from any of a turn's tool calls.
func (s *toolShare) setFatal(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err == nil {
		s.err = err
	}
}

// fatal returns the error that ends the run, once the turn's calls have returned.
func (s *toolShare) fatal() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}
