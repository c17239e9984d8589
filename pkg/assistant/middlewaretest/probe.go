package middlewaretest

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/cadrehq/cadre/pkg/assistant"
	"github.com/cadrehq/cadre/pkg/model"
)

// A probe watches the steps of one run of a scenario from both sides of the middleware under
// test: around it, where it puts a value of its own in each step's context, keeps a copy of
// each request and sees what the middleware returned; and inside it, in the next the
// middleware is given, where it counts the calls, looks for its value and sees what next
// returned. It is the one middleware of the run's assistant, with the middleware under test
// inside it.
type probe struct {
	scenario string
	failTurn bool // next of a tool turn fails with errTurn instead of running the calls

	mu         sync.Mutex
	found      []violation
	calls      map[callID]*callRecord
	turnFailed bool // next of a tool turn was called, and failed
}

// errTurn is the error of next of a tool turn in the scenario where it fails.
var errTurn = errors.New("middlewaretest: next of the tool turn failed on purpose")

// step is what the probe knows of one step of the middleware under test.
type step struct {
	what  string // the step, as a violation names it
	nexts int    // how many times the middleware called next
	err   error  // what next returned the first time it returned
	back  bool   // next has returned
	// reported marks a context violation reported for a turn, so that its calls do not
	// report it again.
	reported bool
}

type callID struct{ run, id string }

// callRecord is what the probe knows of a tool call of the run.
type callRecord struct {
	turn   *step  // the tool turn it belongs to, when the middleware wraps turns
	runs   int    // how many times the chain ran it
	result string // what the run sends the model, once it ran
	ran    bool
}

// The keys of the probe's values in the steps' contexts.
type (
	runKey      struct{}
	requestKey  struct{}
	turnKey     struct{}
	toolCallKey struct{}
)

func (p *probe) report(r rule, format string, args ...any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.found = append(p.found, violation{rule: r, scenario: p.scenario, detail: fmt.Sprintf(format, args...)})
}

// stepContext returns the context the probe gives the middleware for step s: ctx with s
// under key, and a Done channel whatever ctx is, so that a context that the step's
// cancellation does not reach shows; and the function that cancels it when the step is over.
func stepContext(ctx context.Context, key any, s *step) (context.Context, context.CancelFunc) {
	return context.WithCancel(context.WithValue(ctx, key, s))
}

// next records a call of next for s, in ctx, which must hold s under key.
func (p *probe) next(ctx context.Context, key any, s *step) {
	p.mu.Lock()
	s.nexts++
	p.mu.Unlock()
	if what := lost(ctx, key, s); what != "" {
		p.report(ruleContext, "the %s: next was given a context %s", s.what, what)
	}
}

// lost says what of the step's context, which holds s under key, ctx lost; "" when nothing.
func lost(ctx context.Context, key any, s *step) string {
	switch {
	case ctx == nil || ctx.Value(key) != s:
		return "that is not the step's, nor derived from it: the values the middleware was given are lost"
	case ctx.Done() == nil:
		return "that the step's cancellation does not reach (context.WithoutCancel?): derive it with its cancellation"
	}
	return ""
}

// returned records what next returned for s, the first time it returned.
func (p *probe) returned(s *step, err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !s.back {
		s.back, s.err = true, err
	}
}

// after checks, once the middleware has returned err for s, that it called next at most once
// and gave back next's error.
func (p *probe) after(s *step, err error, copies bool) {
	p.mu.Lock()
	nexts, nerr := s.nexts, s.err
	p.mu.Unlock()
	if nexts > 1 {
		p.report(ruleNextOnce, "the %s: next was called %d times: call it at most once per step", s.what, nexts)
	}
	switch {
	case nexts == 0 || nerr == nil:
	case err == nil:
		p.report(ruleErrors, "the %s: next failed with %q, and the middleware returned no error: it must return next's error", s.what, nerr)
	case !givesBack(err, nerr, copies) && copies:
		p.report(ruleErrors, "the %s: next failed with %q, and the middleware returned %q, which does not wrap it (errors.Is) nor copy it (its text, and the answers of errors.Is, errors.As and model.CanFallback): return next's error, or wrap it with %%w", s.what, nerr, err)
	case !givesBack(err, nerr, copies):
		p.report(ruleErrors, "the %s: next failed with %q, and the middleware returned %q, which does not wrap it (errors.Is): return next's error, or wrap it with %%w", s.what, nerr, err)
	}
}

// wrap returns the middleware that puts the probe around mw and inside it. A step mw does not
// wrap is not wrapped, but tool calls always are: the probe sees every call's result, and
// whether a turn the middleware runs itself passes its context to the calls.
func (p *probe) wrap(mw assistant.Middleware) assistant.Middleware {
	out := assistant.Middleware{ToolCall: p.toolCall(mw.ToolCall)}
	if mw.Run != nil {
		out.Run = p.run(mw.Run)
	}
	if mw.Request != nil {
		out.Request = p.request(mw.Request)
	}
	if mw.ToolTurn != nil {
		out.ToolTurn = p.toolTurn(mw.ToolTurn)
	}
	return out
}

type (
	runFunc      = func(context.Context, assistant.RunInfo, assistant.RunNext) (*assistant.Response, error)
	requestFunc  = func(context.Context, *assistant.ModelRequest, assistant.RequestNext) (model.Reply, error)
	toolTurnFunc = func(context.Context, *assistant.ToolTurn, assistant.ToolTurnNext) ([]string, error)
	toolCallFunc = func(context.Context, assistant.ToolCall, assistant.ToolCallNext) (string, error)
)

func (p *probe) run(f runFunc) runFunc {
	return func(ctx context.Context, info assistant.RunInfo, next assistant.RunNext) (*assistant.Response, error) {
		s := &step{what: fmt.Sprintf("Run step of %q's run", info.Assistant)}
		sctx, done := stepContext(ctx, runKey{}, s)
		defer done()
		res, err := f(sctx, info, func(ctx context.Context) (*assistant.Response, error) {
			p.next(ctx, runKey{}, s)
			if ctx == nil {
				ctx = context.Background() // reported: a nil context would panic in the run
			}
			res, err := next(ctx)
			p.returned(s, err)
			return res, err
		})
		p.after(s, err, false)
		return res, err
	}
}

func (p *probe) request(f requestFunc) requestFunc {
	return func(ctx context.Context, req *assistant.ModelRequest, next assistant.RequestNext) (model.Reply, error) {
		s := &step{what: fmt.Sprintf("Request step of %q's request %d to model %q", req.Assistant, req.Attempt, req.Model.Name)}
		given := copyRequest(req)
		reported := false
		sctx, done := stepContext(ctx, requestKey{}, s)
		defer done()
		reply, err := f(sctx, req, func(ctx context.Context, sent *assistant.ModelRequest) (model.Reply, error) {
			p.next(ctx, requestKey{}, s)
			if sent == nil {
				p.report(ruleRequest, "the %s: next was given a nil request", s.what)
				return model.Reply{}, errors.New("middlewaretest: next was given a nil request")
			}
			if sent == req {
				if what := given.changed(sent); what != "" {
					reported = true
					p.report(ruleRequest, "the %s: the middleware changed %s, then passed the request on: pass next a copy", s.what, what)
				}
			}
			if ctx == nil {
				ctx = context.Background()
			}
			reply, err := next(ctx, sent)
			p.returned(s, err)
			return reply, err
		})
		if what := given.changed(req); what != "" && !reported {
			p.report(ruleRequest, "the %s: the middleware changed %s of the request it was given: send a copy instead", s.what, what)
		}
		p.after(s, err, true)
		return reply, err
	}
}

func (p *probe) toolTurn(f toolTurnFunc) toolTurnFunc {
	return func(ctx context.Context, turn *assistant.ToolTurn, next assistant.ToolTurnNext) ([]string, error) {
		s := &step{what: fmt.Sprintf("ToolTurn step of %q's turn of %s", turn.Assistant, callCount(len(turn.Calls)))}
		p.mu.Lock()
		for _, c := range turn.Calls {
			p.record(turn.RunID, c.ID).turn = s
		}
		p.mu.Unlock()
		given := append([]assistant.ToolCall(nil), turn.Calls...)
		sctx, done := stepContext(ctx, turnKey{}, s)
		defer done()
		results, err := f(sctx, turn, func(ctx context.Context, t *assistant.ToolTurn) ([]string, error) {
			p.next(ctx, turnKey{}, s)
			p.mu.Lock()
			s.reported = s.reported || lost(ctx, turnKey{}, s) != ""
			p.mu.Unlock()
			if t == nil {
				p.report(ruleResults, "the %s: next was given a nil turn", s.what)
				return nil, errors.New("middlewaretest: next was given a nil turn")
			}
			if p.failTurn {
				p.mu.Lock()
				p.turnFailed = true
				p.mu.Unlock()
				p.returned(s, errTurn)
				return nil, errTurn
			}
			if ctx == nil {
				ctx = context.Background()
			}
			results, err := next(ctx, t)
			p.returned(s, err)
			return results, err
		})
		p.after(s, err, false)
		if err == nil {
			p.checkResults(s, turn.RunID, given, results)
		}
		return results, err
	}
}

// checkResults checks that the results a turn's middleware returned are one per call, each
// the one the run made of its call, in the turn's order. A result that is no call's is the
// middleware's own answer, which the contract allows.
func (p *probe) checkResults(s *step, runID string, calls []assistant.ToolCall, results []string) {
	if len(results) != len(calls) {
		p.report(ruleResults, "the %s: the middleware returned %d results: return one per call, in the turn's order", s.what, len(results))
		return
	}
	p.mu.Lock()
	want := make([]string, len(calls))
	ran := make([]bool, len(calls))
	for i, c := range calls {
		if r := p.calls[callID{runID, c.ID}]; r != nil && r.ran {
			want[i], ran[i] = r.result, true
		}
	}
	p.mu.Unlock()
	for i, got := range results {
		if ran[i] && got == want[i] {
			continue
		}
		for j := range calls {
			if j != i && ran[j] && got == want[j] {
				p.report(ruleResults, "the %s: result %d is the result of call %d (%s): return the results in the turn's order", s.what, i, j, calls[j].ID)
				break
			}
		}
	}
}

// record returns the record of a call, made on first sight; p.mu is held.
func (p *probe) record(runID, id string) *callRecord {
	k := callID{runID, id}
	r := p.calls[k]
	if r == nil {
		if p.calls == nil {
			p.calls = map[callID]*callRecord{}
		}
		r = &callRecord{}
		p.calls[k] = r
	}
	return r
}

func (p *probe) toolCall(f toolCallFunc) toolCallFunc {
	return func(ctx context.Context, call assistant.ToolCall, next assistant.ToolCallNext) (string, error) {
		p.mu.Lock()
		r := p.record(call.RunID, call.ID)
		r.runs++
		runs, turn := r.runs, r.turn
		var what string
		if turn != nil && !turn.reported {
			if what = lost(ctx, turnKey{}, turn); what != "" {
				turn.reported = true
			}
		}
		p.mu.Unlock()
		if runs == 2 {
			p.report(ruleNextOnce, "call %s of %q by %q ran twice in its turn: run each call of a turn at most once", call.ID, call.Tool, call.Assistant)
		}
		if what != "" {
			p.report(ruleContext, "the %s: its calls ran with a context %s; pass ToolTurn.Call the context given to the step, or one derived from it", turn.what, what)
		}
		out, err := p.callThrough(ctx, f, call, next)
		result := out
		if err != nil {
			result = "error: " + err.Error()
		}
		p.mu.Lock()
		r.result, r.ran = result, true
		p.mu.Unlock()
		return out, err
	}
}

// callThrough runs a tool call through f, the middleware's, when it has one.
func (p *probe) callThrough(ctx context.Context, f toolCallFunc, call assistant.ToolCall, next assistant.ToolCallNext) (string, error) {
	if f == nil {
		return next(ctx, call)
	}
	s := &step{what: fmt.Sprintf("ToolCall step of call %s of %q by %q", call.ID, call.Tool, call.Assistant)}
	sctx, done := stepContext(ctx, toolCallKey{}, s)
	defer done()
	out, err := f(sctx, call, func(ctx context.Context, call assistant.ToolCall) (string, error) {
		p.next(ctx, toolCallKey{}, s)
		if ctx == nil {
			ctx = context.Background()
		}
		out, err := next(ctx, call)
		p.returned(s, err)
		return out, err
	})
	p.after(s, err, false)
	return out, err
}

// ended checks that the run of sc, which returned res and err, ended as it does without the
// middleware.
func (p *probe) ended(sc scenario, res *assistant.Response, err error) {
	p.mu.Lock()
	fails := sc.answer == "" || sc.failTurn && p.turnFailed
	p.mu.Unlock()
	switch {
	case fails && err == nil:
		p.report(ruleRuns, "the run answered %q: without the middleware it fails", textOf(res))
	case !fails && err != nil:
		p.report(ruleRuns, "the run failed (%v): without the middleware it answers %q; the kit checks a middleware that lets its runs through", err, sc.answer)
	case !fails && textOf(res) != sc.answer:
		p.report(ruleRuns, "the run answered %q: without the middleware it answers %q; the kit checks a middleware that lets its runs through", textOf(res), sc.answer)
	}
}

func textOf(res *assistant.Response) string {
	if res == nil {
		return ""
	}
	return res.Text
}

// callCount is "1 call", "2 calls", ...
func callCount(n int) string {
	if n == 1 {
		return "1 call"
	}
	return fmt.Sprintf("%d calls", n)
}
