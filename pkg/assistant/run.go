package assistant

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"time"

	"github.com/cadrehq/cadre/pkg/callback"
	"github.com/cadrehq/cadre/pkg/chat"
	"github.com/cadrehq/cadre/pkg/model"
	"github.com/cadrehq/cadre/pkg/usage"
	"github.com/tmc/langchaingo/llms"
)

// run is one run of an assistant: its state, grouped by what owns it, and, embedded, the
// Result it returns.
type run[O any] struct {
	p        *plan[O]
	state    runState // passed down to delegated runs through the context
	parentID string
	start    time.Time // when the run started, for its handlers' events
	res      Result[O]
	ownTree  tree // the tree of a top run

	// The models: the chain, their call options (by model, made on first use), the output mode.
	chain []model.Model
	opts  [][]llms.CallOption
	mode  OutputMode
	// The middleware chains of the run's requests and tool calls, made once per run (a run
	// without middleware has the steps themselves), and the request they send, which the run
	// reuses: a request costs no allocation of its own.
	sendNext RequestNext
	callNext ToolCallNext
	req      ModelRequest

	// The conversation.
	msgs      []llms.MessageContent
	first     int  // the index of the user's turn in msgs
	requested bool // a request was sent: errors come with the Result so far
	final     bool // the budget is spent: this request is the last, and no tool runs
	strict    bool // the request answered last sent final_result in its strict form

	// The answers that could not be used, and the last of them as written; correcting is the
	// last one's error while the request that corrects it is not answered.
	failures   []error
	raw        string
	correcting error

	chat chatSession

	// The pause: the turn the run pauses in, or resumes, and the decisions it resumes with.
	turn      *turn
	decisions map[string]Decision

	tools toolShare // what the goroutines of a turn's calls share

	// Room for a one-turn run's messages (system prompt, user's turn, answer), allocated with
	// the run: the run fits in 768 bytes.
	msgBuf   [4]llms.MessageContent
	userPart [1]llms.ContentPart
}

// chatSession is the chat a run continues, when it is in one.
type chatSession struct {
	id    chat.ID
	on    bool // the run is in a chat kept by the assistant's store
	saved bool // the run's messages were appended to it (or kept in its paused state)
	// skills are the skills activated anywhere in the chat's history (WithSkills), found
	// before the history window is applied.
	skills map[string]bool
}

// run runs the plan on in: render, then call the model, record its usage, run the tools it
// asks for, and take its answer, until it answers or something stops the run.
func (p *plan[O]) run(ctx context.Context, in Input) (*Result[O], error) {
	if in.Prompt == "" {
		return nil, fmt.Errorf("assistant %q: Input.Prompt is empty: give the user's turn", p.name)
	}
	if p.cfg.parseInput != nil || p.cfg.varsFunc != nil {
		var err error
		if in, err = p.prepare(ctx, in); err != nil {
			return nil, err
		}
	}
	chain, err := p.resolve(ctx)
	if err != nil {
		return nil, err
	}
	mode, err := p.modeFor(chain[0])
	if err != nil {
		return nil, err
	}
	system, err := p.systemMessage(in.Vars, mode)
	if err != nil {
		return nil, err
	}
	r := &run[O]{p: p, chain: chain, mode: mode}
	stored, err := r.loadChat(ctx)
	if err != nil {
		return nil, err
	}
	ctx, err = r.open(ctx)
	if err != nil {
		return nil, err
	}
	defer r.closeTree()
	if p.skills != nil {
		system = r.openSkills(system, r.chat.skills, stored, in.History)
	}
	var shots []llms.MessageContent
	if p.examples != nil {
		shots = p.examples.messages(mode, p.out)
	}
	if n := len(shots) + len(stored) + len(in.History) + 2; n <= len(r.msgBuf)-1 {
		r.msgs = r.msgBuf[:0] // room for the answer too; a longer run moves to a slice of 8
	} else {
		r.msgs = make([]llms.MessageContent, 0, n+6)
	}
	if system.Parts != nil {
		r.msgs = append(r.msgs, system)
	}
	r.msgs = append(r.msgs, shots...)
	r.msgs = append(r.msgs, stored...)
	r.msgs = append(r.msgs, in.History...)
	r.first = len(r.msgs)
	r.userPart[0] = llms.TextContent{Text: in.Prompt}
	r.msgs = append(r.msgs, llms.MessageContent{Role: llms.ChatMessageTypeHuman, Parts: r.userPart[:]})
	return r.around(ctx, RunInfo{Prompt: in.Prompt})
}

// around takes the run through its chain: its events, outermost, then its callers' run
// middleware and its own, then the run itself (body). Whatever the middleware does, the run's
// RunStart is closed by a RunEnd or a RunError that says what the run returns.
func (r *run[O]) around(ctx context.Context, info RunInfo) (*Result[O], error) {
	if r.state.handler != nil {
		r.start = time.Now()
		r.emit(ctx, callback.Event{Kind: callback.RunStart})
	}
	info.Assistant, info.RunID, info.ParentRunID, info.Depth = r.p.name, r.state.id, r.parentID, r.state.depth
	info.Provider = r.chain[0].Provider
	resp, err := r.state.mw.run(ctx, 0, info, r)
	var res *Result[O]
	switch {
	case resp == nil && err == nil:
		err = fmt.Errorf("assistant %q: a run middleware returned no Response and no error: return next's, or a Response of its own", r.p.name)
	case resp == nil:
	case resp == &r.res.Response:
		res = &r.res
	default:
		res, err = r.answered(resp, err)
	}
	if r.state.handler != nil {
		r.ended(ctx, res, err)
	}
	return res, err
}

// body is the innermost link of the run's chain: the run itself, from its first request, or
// from the turn it resumes. Its Response is the run's Result's, or nil.
func (r *run[O]) body(ctx context.Context) (*Response, error) {
	var res *Result[O]
	var err error
	if r.turn != nil {
		res, err = r.resumeTurn(ctx)
	} else {
		res, err = r.loop(ctx)
	}
	if res == nil {
		return nil, err
	}
	return &res.Response, err
}

// ended emits the event that closes the run: RunError with err, or RunEnd.
func (r *run[O]) ended(ctx context.Context, res *Result[O], err error) {
	e := callback.Event{Kind: callback.RunEnd, Model: r.res.Model, Duration: time.Since(r.start)}
	if res != nil {
		e.Model, e.Result, e.Usage = res.Model, res.Text, res.Usage.Total
	} else {
		e.Usage = r.state.account.Report().Total
	}
	switch {
	case err != nil:
		e.Kind, e.Result, e.Err = callback.RunError, "", err
	case res.Stop == StopPending:
		e.Result = "(waiting for a person's decision)"
	}
	r.emit(ctx, e)
}

// answered makes the Result of a Response a run middleware gave without running the run. A
// Response without a Stop is an answer; one whose Stop it does not bear out is refused.
func (r *run[O]) answered(resp *Response, err error) (*Result[O], error) {
	res := &Result[O]{Response: *resp}
	if err != nil {
		return res, err
	}
	switch resp.Stop {
	case "":
		res.Stop = StopAnswer
	case StopAnswer, StopLimitAnswer:
	case StopPending:
		if resp.Paused == nil {
			return res, fmt.Errorf("assistant %q: a run middleware answered with Stop %q and no Paused state: a pause must carry the state to resume from", r.p.name, resp.Stop)
		}
		return res, nil
	case StopError:
		return res, fmt.Errorf("assistant %q: a run middleware answered with Stop %q and no error: return the error with the Response", r.p.name, resp.Stop)
	default:
		return res, fmt.Errorf("assistant %q: a run middleware answered with Stop %q, which is none of %q, %q, %q, %q", r.p.name, resp.Stop, StopAnswer, StopLimitAnswer, StopPending, StopError)
	}
	if r.p.out.text {
		reflect.ValueOf(&res.Output).Elem().SetString(resp.Text)
		return res, nil
	}
	if err := json.Unmarshal([]byte(resp.Text), &res.Output); err != nil {
		return res, fmt.Errorf("assistant %q: a run middleware answered with text that does not decode into the output type: %w", r.p.name, err)
	}
	return res, nil
}

// treeContext returns the context of a top run's tool calls: one the runs they delegate to
// can cancel, with a cause, for the whole tree. It is made once, with the first tool turn, so
// that a run without tool calls does not pay for it.
func (r *run[O]) treeContext(ctx context.Context) context.Context {
	if r.state.depth > 0 || r.ownTree.cancel != nil {
		return ctx
	}
	ctx, r.ownTree.cancel = context.WithCancelCause(ctx)
	return ctx
}

// closeTree releases a top run's tree context.
func (r *run[O]) closeTree() {
	if r.ownTree.cancel != nil {
		r.ownTree.cancel(nil)
	}
}

// open opens the run's account in the tree's ledger (creating the ledger for a top run) and
// puts the run's state in the context for the runs it delegates to. A top run's context can
// be cancelled for the whole tree, with a cause.
func (r *run[O]) open(ctx context.Context) (context.Context, error) {
	p := r.p
	var parent *usage.Account
	ledger := usage.LedgerFrom(ctx)
	handler := p.handler
	mw := chain(p.cfg.middleware)
	up := runFrom(ctx)
	if up != nil {
		if up.depth+1 > up.tree.maxDepth {
			return ctx, fmt.Errorf("assistant %q: %w: %d runs deep, the most is %d: does an assistant reach itself through its tools? (WithMaxDepth raises the limit)", p.name, ErrDepthLimit, up.depth+1, up.tree.maxDepth)
		}
		parent, ledger, r.parentID = up.account, up.account.Ledger(), up.id
		handler = callback.Multi(up.handler, handler)
		mw = joinChains(up.mw, mw)
	}
	stream := joinStreams(up, p.cfg.stream)
	var account *usage.Account
	switch own := p.cfg.limits; {
	case ledger != nil:
		account = ledger.Open(parent, p.name, own)
	case own != nil:
		account = usage.NewAccount(p.name, *own)
	default:
		account = usage.NewAccount(p.name, usage.Limits{})
	}
	r.state = runState{account: account, handler: handler, stream: stream, mw: mw}
	if up != nil {
		r.state.depth, r.state.tree = up.depth+1, up.tree
	} else {
		r.ownTree.maxDepth = p.cfg.maxDepth
		r.state.tree = &r.ownTree // its context is made with the first tool turn (treeContext)
	}
	if handler != nil || stream != nil || len(mw) > 0 {
		r.state.id = rand.Text()
	}
	r.sendNext, r.callNext = mw.requests(), mw.toolCalls(p.toolNext)
	return context.WithValue(ctx, runKey{}, &r.state), nil
}

// loop sends requests and answers the model's turns until a turn ends the run.
func (r *run[O]) loop(ctx context.Context) (*Result[O], error) {
	for {
		if err := ctx.Err(); err != nil {
			return r.fail(ctx, fmt.Errorf("assistant %q: %w", r.p.name, err))
		}
		if r.p.cfg.finalOnLimit && !r.final && r.state.account.RequestsLeft() == 1 {
			r.lastRequest()
		}
		if err := r.state.account.ReserveRequest(); err != nil {
			return r.fail(ctx, err)
		}
		reply, m, err := r.generate(ctx)
		if err != nil {
			return r.fail(ctx, err)
		}
		r.msgs = append(r.msgs, reply.Message())
		if err := r.stopped(reply, m); err != nil {
			r.answerAll(reply.ToolCalls, "not run: the model's turn was cut short")
			r.countUnrun(r.made(reply.ToolCalls))
			return r.fail(ctx, err)
		}
		var out outcome
		switch {
		case r.final:
			out, err = r.lastAnswer(ctx, reply)
		case len(reply.ToolCalls) > 0:
			ctx = r.treeContext(ctx)
			out, err = r.toolTurn(ctx, reply.ToolCalls)
		default:
			out, err = r.textAnswer(ctx, reply.Text)
		}
		if err != nil || out != goOn {
			return r.after(ctx, out, err)
		}
	}
}

// after ends the run as a turn's outcome says, or goes on with the loop.
func (r *run[O]) after(ctx context.Context, out outcome, err error) (*Result[O], error) {
	switch {
	case err != nil:
		return r.fail(ctx, err)
	case out == done:
		return r.finish(ctx)
	case out == paused:
		return r.pause(ctx)
	}
	return r.loop(ctx)
}

// generate sends the conversation to the chain's models in order, moving to the next only on
// an error another model could fix, and records the usage of the answer.
func (r *run[O]) generate(ctx context.Context) (model.Reply, *model.Model, error) {
	var err error
	for i := range r.chain {
		m := &r.chain[i]
		opts, oerr := r.options(i)
		if oerr != nil {
			return model.Reply{}, nil, r.modelError(m, oerr)
		}
		var s *streamer
		if r.state.stream != nil {
			s = r.streamer(m.Name, m.Shape == model.ShapeOpenAI)
			opts = append(opts[:len(opts):len(opts)], llms.WithStreamingFunc(s.write))
		}
		var reply model.Reply
		if reply, err = r.request(ctx, m, opts, err, s); err == nil {
			return reply, m, nil
		}
		if ctx.Err() != nil {
			return model.Reply{}, nil, fmt.Errorf("assistant %q: %w", r.p.name, ctx.Err())
		}
		if i+1 == len(r.chain) || !model.CanFallback(err) || s != nil && s.err != nil {
			return model.Reply{}, nil, r.modelError(m, err)
		}
		if r.state.handler != nil {
			r.emit(ctx, callback.Event{Kind: callback.ModelFallback, Model: m.Name, Err: err})
		}
	}
	return model.Reply{}, nil, err // not reached: the chain is never empty
}

// request sends one request to model m through the run's chain — its events, outermost, then
// the request middleware, then the model — and records the reply's usage. A request that asks
// again for an answer that could not be used is announced first (OutputCorrection), now that
// it goes: fallback is the error of the model tried before m in the same attempt.
func (r *run[O]) request(ctx context.Context, m *model.Model, opts []llms.CallOption, fallback error, s *streamer) (model.Reply, error) {
	r.req = ModelRequest{Assistant: r.p.name, RunID: r.state.id, Model: *m, Messages: r.msgs, Options: opts, Attempt: r.attempt(),
		Fallback: fallback, Correction: r.correcting}
	var start time.Time
	if r.state.handler != nil {
		if r.correcting != nil && fallback == nil {
			r.emit(ctx, callback.Event{Kind: callback.OutputCorrection, Model: r.res.Model, Result: r.raw, Err: r.correcting})
		}
		r.emit(ctx, callback.Event{Kind: callback.ModelRequest, Model: m.Name, Attempt: r.req.Attempt})
		start = time.Now()
	}
	r.requested = true
	reply, err := r.sendNext(ctx, &r.req)
	reply.Usage.Requests = 1 // a reply a middleware gave counts as the request it answers, whatever it says
	if s != nil && s.err != nil {
		err = s.err // the stream function's, not a failure of the model
	}
	if err == nil && s != nil {
		err = s.finish(ctx, reply.Text)
	}
	if err != nil {
		if r.state.handler != nil {
			r.emit(ctx, callback.Event{Kind: callback.ModelError, Model: m.Name, Duration: time.Since(start), Err: err})
		}
		return reply, err
	}
	r.res.Model, r.strict, r.correcting = m.Name, r.p.out.sendsStrict(*m), nil
	r.state.account.Record(m.Name, reply.Usage)
	if r.state.handler != nil {
		r.emit(ctx, callback.Event{Kind: callback.ModelResponse, Model: m.Name, Duration: time.Since(start), Usage: reply.Usage})
	}
	return reply, nil
}

// modelError is err of model m, as the run says it: always naming m as the chain names it,
// which a provider's error, naming the provider's model id, does not.
func (r *run[O]) modelError(m *model.Model, err error) error {
	return within(r.p.name, err, fmt.Sprintf("model %q", m.Name), "")
}

func (r *run[O]) attempt() int {
	n := 1
	for _, m := range r.msgs[r.first:] {
		if m.Role == llms.ChatMessageTypeAI {
			n++
		}
	}
	return n
}

// options returns the call options for the chain's model i, prepared once per assistant for
// a fixed model and once per run otherwise. The tools stay in the last request at a limit:
// a provider may reject a conversation with tool calls in it but no tool defined.
func (r *run[O]) options(i int) ([]llms.CallOption, error) {
	if r.p.reqOpts != nil { // a chain of one model
		return r.p.reqOpts, nil
	}
	if r.opts == nil {
		r.opts = make([][]llms.CallOption, len(r.chain))
	}
	if r.opts[i] == nil {
		opts, err := r.p.requestOptions(r.chain[i], r.mode)
		if err != nil {
			return nil, err
		}
		r.opts[i] = opts
	}
	return r.opts[i], nil
}

// stopped returns the error for a turn the model did not finish: cut at its token limit, or
// refused.
func (r *run[O]) stopped(reply model.Reply, m *model.Model) error {
	switch reply.Finish() {
	case model.FinishLength:
		return &ModelStopError{Assistant: r.p.name, Model: m.Name, Reason: reply.StopReason, Err: ErrTokenLimit}
	case model.FinishRefusal:
		return &ModelStopError{Assistant: r.p.name, Model: m.Name, Reason: reply.StopReason, Err: ErrRefusal}
	}
	return nil
}

// lastRequest makes the next request the last: without tools, with a user message saying
// the budget is spent and asking for the best answer now (WithFinalAnswerOnLimit).
func (r *run[O]) lastRequest() {
	r.final = true
	text := "Your budget for this task is spent: this is your last reply, and no tool will run any more. Give your best final answer now, from what you have."
	switch {
	case r.mode == OutputTool:
		text += " Give it by calling " + finalResult + "."
	case !r.p.out.text:
		text += " Answer with only a JSON value that matches this JSON Schema, without any other text:\n" + r.p.out.hint
	}
	r.msgs = append(r.msgs, llms.MessageContent{Role: llms.ChatMessageTypeHuman, Parts: []llms.ContentPart{llms.TextContent{Text: text}}})
}

// lastAnswer takes the answer of the last request at a limit, in a final_result call or in
// its text: there is no request left to correct it. Other calls are not run, and not counted:
// a limit refused them.
func (r *run[O]) lastAnswer(ctx context.Context, reply model.Reply) (outcome, error) {
	err := errors.New("the model gave no answer in its last request")
	t := newTurn(reply.ToolCalls)
	answered := false
	for i, c := range t.calls {
		result := "not run: the budget is spent"
		if c.Tool == finalResult && r.mode == OutputTool && !answered {
			if err = r.parseFinal(ctx, c.Arguments); err == nil {
				result, answered = resultAccepted, true
			} else {
				result = "error: " + err.Error()
			}
		}
		t.answer(i, result)
	}
	r.appendResults(t)
	if !answered && strings.TrimSpace(reply.Text) != "" {
		err = r.parse(ctx, reply.Text)
	}
	if err == nil {
		return done, nil
	}
	r.failures = append(r.failures, err)
	return goOn, &OutputError{Assistant: r.p.name, Raw: reply.Text, Attempts: r.failures}
}

// finish returns the run's Result.
func (r *run[O]) finish(ctx context.Context) (*Result[O], error) {
	r.res.Stop = StopAnswer
	if r.final {
		r.res.Stop = StopLimitAnswer
	}
	r.res.Messages = r.msgs[r.first:len(r.msgs):len(r.msgs)]
	r.res.Usage = r.state.account.Report()
	// An error saving the chat comes with the answer: it is the caller's to use or to retry saving.
	return &r.res, r.saveChat(ctx)
}

// fail ends the run with err, with the Result so far once a request was sent. A limit or the
// depth limit reached anywhere ends the whole tree; the top run then returns that error,
// whichever run met it.
func (r *run[O]) fail(ctx context.Context, err error) (*Result[O], error) {
	if endsTreeCause(err) && r.state.tree.cancel != nil {
		r.state.tree.cancel(err)
	} else if cause := context.Cause(ctx); r.state.depth == 0 && endsTreeCause(cause) {
		err = cause
	}
	if serr := r.saveChat(ctx); serr != nil {
		err = errors.Join(err, serr)
	}
	if !r.requested {
		return nil, err
	}
	var zero O
	r.res.Output, r.res.Text, r.res.Stop = zero, "", StopError
	r.res.Messages = r.msgs[r.first:len(r.msgs):len(r.msgs)]
	r.res.Usage = r.state.account.Report()
	return &r.res, err
}

// emit sends e to the run's handlers; callers check that there are any first.
func (r *run[O]) emit(ctx context.Context, e callback.Event) {
	e.Time = time.Now()
	e.RunID, e.ParentRunID, e.Assistant = r.state.id, r.parentID, r.p.name
	r.state.handler.Handle(ctx, e)
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
		if c.FunctionCall.Name != finalResult || r.mode != OutputTool {
			n++
		}
	}
	return n
}
