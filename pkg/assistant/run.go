package assistant

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"time"

	"github.com/cadrehq/cadre/pkg/callback"
	"github.com/tmc/langchaingo/llms"
)

// run is one run of an assistant: its state, grouped by what owns it, and the Result it
// returns. It is allocated once, with room for a short run's messages.
type run[O any] struct {
	p       *plan[O]
	state   runState   // the run in its tree: what the runs it delegates to find in their context
	ownTree tree       // the tree of a top run
	models  models     // how it asks its models (request.go)
	calls   toolRunner // how it runs tool calls (tools.go)
	chat    chatSession
	turn    *turn   // the turn it pauses in, or resumes
	answers answers // what it knows of the answers it asked for (output.go)
	res     Result[O]

	// The conversation: system prompt, examples and history, then the user's turn (first) and
	// what the run adds.
	msgs      []llms.MessageContent
	first     int
	requested bool // a request was sent: errors come with the Result so far
	// Room for a one-turn run's messages (system prompt, user's turn, answer) and the user's
	// turn's part, allocated with the run.
	room struct {
		msgs [4]llms.MessageContent
		user [1]llms.ContentPart
	}
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
	r, err := p.newRun(ctx)
	if err != nil {
		return nil, err
	}
	system, err := p.systemMessage(in.Vars, r.models.mode, "")
	if err != nil {
		return nil, err
	}
	history, stored, err := r.loadChat(ctx)
	if err != nil {
		return nil, err
	}
	r.lay(stored, in.History, in.Prompt)
	if len(p.prompters) > 0 {
		if system, err = r.prompted(ctx, in.Vars, history); err != nil {
			return nil, err
		}
	}
	if system.Parts != nil {
		r.msgs[0] = system
	} else {
		r.msgs, r.first = r.msgs[1:], r.first-1
	}
	if ctx, err = r.open(ctx); err != nil {
		return nil, err
	}
	defer r.closeTree()
	return r.around(ctx, RunInfo{Prompt: in.Prompt})
}

// prompted returns the system message of a run with what its tool sets write in it, from the
// chat's history and the messages the run sends.
func (r *run[O]) prompted(ctx context.Context, vars map[string]any, history []llms.MessageContent) (llms.MessageContent, error) {
	extra, err := r.p.prompt(ctx, history, r.msgs[1:])
	if err != nil {
		return llms.MessageContent{}, err
	}
	return r.p.systemMessage(vars, r.models.mode, extra)
}

// lay lays out the run's messages: room for the system prompt, the examples, the chat's
// history and the caller's, then the user's turn.
func (r *run[O]) lay(stored, history []llms.MessageContent, prompt string) {
	var shots []llms.MessageContent
	if r.p.examples != nil {
		shots = r.p.examples.Messages(r.models.mode == OutputTool)
	}
	if n := len(shots) + len(stored) + len(history) + 2; n <= len(r.room.msgs)-1 {
		r.msgs = r.room.msgs[:1] // room for the answer too; a longer run moves to a slice of 8
	} else {
		r.msgs = make([]llms.MessageContent, 1, n+6)
	}
	r.msgs = append(r.msgs, shots...)
	r.msgs = append(r.msgs, stored...)
	r.msgs = append(r.msgs, history...)
	r.first = len(r.msgs)
	r.room.user[0] = llms.TextContent{Text: prompt}
	r.msgs = append(r.msgs, llms.MessageContent{Role: llms.ChatMessageTypeHuman, Parts: r.room.user[:]})
}

// newRun makes a run of p with its model chain and output mode.
func (p *plan[O]) newRun(ctx context.Context) (*run[O], error) {
	chain, err := p.resolve(ctx)
	if err != nil {
		return nil, err
	}
	mode, err := p.modeFor(chain[0])
	if err != nil {
		return nil, err
	}
	return &run[O]{p: p, models: models{chain: chain, mode: mode}, answers: answers{form: mode}}, nil
}

// around takes the run through its chain: its events, outermost, then its callers' run
// middleware and its own, then the run itself (body). Whatever the middleware does, the run's
// RunStart is closed by a RunEnd or a RunError that says what the run returns.
func (r *run[O]) around(ctx context.Context, info RunInfo) (*Result[O], error) {
	if r.state.handler != nil {
		r.state.start = time.Now()
		r.state.emit(ctx, callback.Event{Kind: callback.RunStart})
	}
	info.Assistant, info.RunID, info.ParentRunID, info.Depth = r.p.name, r.state.id, r.state.parentID, r.state.depth
	info.Provider = r.models.chain[0].Provider
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
	e := callback.Event{Kind: callback.RunEnd, Model: r.res.Model, Duration: time.Since(r.state.start)}
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
	r.state.emit(ctx, e)
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
	if r.p.out.Text {
		reflect.ValueOf(&res.Output).Elem().SetString(resp.Text)
		return res, nil
	}
	if err := json.Unmarshal([]byte(resp.Text), &res.Output); err != nil {
		return res, fmt.Errorf("assistant %q: a run middleware answered with text that does not decode into the output type: %w", r.p.name, err)
	}
	return res, nil
}

// loop sends requests and answers the model's turns until a turn ends the run.
func (r *run[O]) loop(ctx context.Context) (*Result[O], error) {
	for {
		if err := ctx.Err(); err != nil {
			return r.fail(ctx, fmt.Errorf("assistant %q: %w", r.p.name, err))
		}
		if r.p.cfg.finalOnLimit && !r.answers.final && r.state.account.RequestsLeft() == 1 {
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
		case r.answers.final:
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

// finish returns the run's Result.
func (r *run[O]) finish(ctx context.Context) (*Result[O], error) {
	r.res.Stop = StopAnswer
	if r.answers.final {
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
