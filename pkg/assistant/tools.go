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
	"github.com/tmc/langchaingo/llms"
)

const (
	resultAccepted = "accepted: this is the final answer"
	resultSkipped  = "skipped: the final answer was given in the same turn"
)

// toolTurn answers a turn of tool calls: a valid final_result ends the run (the other calls
// are skipped), and otherwise the whole batch is reserved against the limits and run in
// parallel, with one result per call appended in the model's call order.
func (r *run[O]) toolTurn(ctx context.Context, calls []llms.ToolCall) (bool, error) {
	results := make([]string, len(calls))
	final := -1
	if r.mode == OutputTool {
		for i, c := range calls {
			if c.FunctionCall.Name == finalResult {
				final = i
				break
			}
		}
	}
	todo := make([]int, 0, len(calls))
	for i, c := range calls {
		if c.FunctionCall.Name == finalResult && r.mode == OutputTool {
			if i != final {
				results[i] = resultSkipped
			}
			continue
		}
		todo = append(todo, i)
	}
	if final >= 0 {
		args := calls[final].FunctionCall.Arguments
		err := r.parseFinal(ctx, args)
		if err == nil {
			results[final] = resultAccepted
			for _, i := range todo {
				results[i] = resultSkipped
			}
			r.countCalls(len(todo))
			r.appendResults(calls, results)
			return true, nil
		}
		results[final] = "error: your " + finalResult + " arguments could not be used: " + err.Error() +
			"\nCall " + finalResult + " again with arguments that match its JSON Schema: " + string(compact(r.p.out.final.JSON()))
		if ferr := r.failed(ctx, args, err); ferr != nil {
			r.notRun(results, todo, "not run: the run ended")
			r.countCalls(len(todo))
			r.appendResults(calls, results)
			return false, ferr
		}
	}
	denied := 0
	if len(todo) > 0 && r.p.approver != nil {
		var err error
		if todo, denied, r.paused, err = r.approve(ctx, calls, todo, results); err != nil {
			r.notRun(results, todo, "not run: the run ended: "+err.Error())
			r.appendResults(calls, results)
			return false, err
		}
		if r.paused != nil {
			return false, errPaused
		}
	}
	return r.runTurn(ctx, calls, todo, results, len(todo), denied)
}

// runTurn reserves reserve calls against the limits, counts the turn's unrun calls that did
// not run (see countCalls), runs the calls of todo, and appends the turn's results; a delegated
// run that paused pauses this one.
func (r *run[O]) runTurn(ctx context.Context, calls []llms.ToolCall, todo []int, results []string, reserve, unrun int) (bool, error) {
	if len(todo) > 0 {
		if err := r.state.account.ReserveToolCalls(r.res.Model, reserve); err != nil {
			// Not counted: a report never shows more tool calls than the limit allowed.
			if r.p.finalOnLimit && !r.last {
				r.notRun(results, todo, "not run: the budget for tool calls is spent")
				r.appendResults(calls, results)
				r.lastRequest()
				return false, nil
			}
			r.notRun(results, todo, "not run: "+err.Error())
			r.appendResults(calls, results)
			return false, err
		}
	}
	r.countCalls(unrun)
	if len(todo) > 0 {
		r.execute(ctx, calls, todo, results)
	}
	if r.fatal == nil {
		if r.paused = r.nestedPause(calls, results); r.paused != nil {
			return false, errPaused
		}
	}
	r.appendResults(calls, results)
	return false, r.fatal
}

func (r *run[O]) notRun(results []string, todo []int, why string) {
	for _, i := range todo {
		results[i] = why
	}
}

// answerAll answers every call of a turn with the same text, so that the conversation stays
// one a provider accepts.
func (r *run[O]) answerAll(calls []llms.ToolCall, text string) {
	if len(calls) == 0 {
		return
	}
	results := make([]string, len(calls))
	for i := range results {
		results[i] = text
	}
	r.appendResults(calls, results)
}

// appendResults appends one tool message per call, in call order.
func (r *run[O]) appendResults(calls []llms.ToolCall, results []string) {
	parts := make([]llms.ContentPart, len(calls))
	for i, c := range calls {
		parts[i] = llms.ToolCallResponse{ToolCallID: c.ID, Name: c.FunctionCall.Name, Content: results[i]}
		r.msgs = append(r.msgs, llms.MessageContent{Role: llms.ChatMessageTypeTool, Parts: parts[i : i+1 : i+1]})
	}
}

// execute runs calls[i] for each i in todo, at most maxParallel at once, and writes each
// result to results[i]. The run's goroutine takes its share of the calls, so a turn of one
// call starts no goroutine; execute returns when every call has.
func (r *run[O]) execute(ctx context.Context, calls []llms.ToolCall, todo []int, results []string) {
	if len(todo) == 1 {
		results[todo[0]] = r.call(ctx, calls[todo[0]])
		return
	}
	var next atomic.Int64
	work := func() {
		for {
			k := int(next.Add(1)) - 1
			if k >= len(todo) {
				return
			}
			i := todo[k]
			results[i] = r.call(ctx, calls[i])
		}
	}
	var wg sync.WaitGroup
	for range min(r.p.maxParallel, len(todo)) - 1 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			work()
		}()
	}
	work()
	wg.Wait()
}

// call runs one tool call and returns what goes back to the model: the result, or an error
// the model can act on.
func (r *run[O]) call(ctx context.Context, c llms.ToolCall) string {
	name, args := c.FunctionCall.Name, c.FunctionCall.Arguments
	h := r.state.handler
	if h != nil {
		r.emit(ctx, callback.Event{Kind: callback.ToolStart, Tool: name, CallID: c.ID, Args: args})
	}
	start := time.Now()
	if p, ok := r.resumes[c.ID]; ok {
		ctx = withResume(ctx, &resumeInfo{by: &r.state, paused: p, decisions: r.decisions})
	}
	out, err, panicked := r.callTool(ctx, name, args)
	var pending *pendingError
	if errors.As(err, &pending) {
		r.noteNested(c.ID, pending.paused)
	} else if err != nil && endsTree(ctx, err) {
		fatal := err
		if !endsTreeCause(err) {
			// The run was cancelled: say so, whatever the tool made of it.
			fatal = fmt.Errorf("assistant %q: %w", r.p.name, context.Cause(ctx))
		}
		r.setFatal(fatal)
	}
	if err != nil {
		out = r.capResult("error: " + err.Error())
		if h != nil {
			r.emit(ctx, callback.Event{Kind: callback.ToolError, Tool: name, CallID: c.ID, Result: out, Err: err, Panic: panicked, Duration: time.Since(start)})
		}
		return out
	}
	out = r.capResult(out)
	if h != nil {
		r.emit(ctx, callback.Event{Kind: callback.ToolEnd, Tool: name, CallID: c.ID, Result: out, Duration: time.Since(start)})
	}
	return out
}

// callTool finds, checks and calls the tool.
func (r *run[O]) callTool(ctx context.Context, name, args string) (out string, err error, panicked bool) {
	e, ok := r.p.tools.byName[name]
	if !ok {
		if r.p.tools.names == "" {
			return "", fmt.Errorf("there is no tool named %q, and no tool is available: answer without tools", name), false
		}
		return "", fmt.Errorf("there is no tool named %q; the available tools are: %s", name, r.p.tools.names), false
	}
	if err := ctx.Err(); err != nil {
		return "", fmt.Errorf("not run: %w", err), false
	}
	if strings.TrimSpace(args) == "" {
		args = "{}"
	}
	if err := e.schema.Validate([]byte(args)); err != nil {
		return "", fmt.Errorf("invalid arguments for %q: %v\nCall %s again with arguments that match its JSON Schema: %s", name, err, name, e.hint), false
	}
	defer func() {
		if v := recover(); v != nil {
			out, panicked = "", true
			err = &panicError{tool: name, value: v, stack: debug.Stack()}
		}
	}()
	out, err = e.tool.Call(ctx, []byte(args))
	if err != nil && errors.Is(err, tool.ErrInvalidArgs) {
		err = fmt.Errorf("%w\nCall %s again with arguments that match its JSON Schema: %s", err, name, e.hint)
	}
	return out, err, false
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
	limit := r.p.maxResultBytes
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

// setFatal keeps the first error that ends the run, from any of a turn's tool calls.
func (r *run[O]) setFatal(err error) {
	r.fatalMu.Lock()
	defer r.fatalMu.Unlock()
	if r.fatal == nil {
		r.fatal = err
	}
}
