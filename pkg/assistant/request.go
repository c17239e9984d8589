package assistant

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/cadrehq/cadre/pkg/callback"
	"github.com/cadrehq/cadre/pkg/model"
	"github.com/tmc/langchaingo/llms"
)

// models is how a run asks its models.
type models struct {
	chain []model.Model
	opts  [][]llms.CallOption // by model of the chain, made on first use
	forms []OutputMode        // by model of the chain, with opts
	mode  OutputMode          // the first model's form: the system prompt's and the examples'
	next  RequestNext         // the request middleware, then send: made once per run
	// req is the request next is given, reused: a request costs no allocation of its own.
	req ModelRequest
}

// generate sends the conversation to the chain's models in order, moving to the next only on
// an error another model could fix, and records the usage of the answer.
//
// A model asked in native form that does not take the output schema (model.ErrOutputSchema) is
// asked again at once with a tool, and with a tool for the rest of the run (OutputFallback).
func (r *run[O]) generate(ctx context.Context) (model.Reply, *model.Model, error) {
	var err error
	for i := 0; i < len(r.models.chain); i++ {
		m := &r.models.chain[i]
		opts, form, oerr := r.options(i)
		if oerr != nil {
			return model.Reply{}, nil, r.modelError(m, oerr)
		}
		s := r.streamer(m, form)
		if s != nil {
			opts = append(opts[:len(opts):len(opts)], llms.WithStreamingFunc(s.write))
		}
		var reply model.Reply
		if reply, err = r.request(ctx, m, opts, form, err, s); err == nil {
			return reply, m, nil
		}
		if ctx.Err() != nil {
			return model.Reply{}, nil, fmt.Errorf("assistant %q: %w", r.p.name, ctx.Err())
		}
		if form == OutputNative && errors.Is(err, model.ErrOutputSchema) && (s == nil || s.err == nil) {
			if _, ferr := r.ask(i, r.p.toolForm(*m)); ferr != nil {
				return model.Reply{}, nil, r.modelError(m, ferr)
			}
			if r.state.handler != nil {
				r.state.emit(ctx, callback.Event{Kind: callback.OutputFallback, Model: m.Name, Err: err})
			}
			i-- // the same model, in its new form
			continue
		}
		if i+1 == len(r.models.chain) || !model.CanFallback(err) || s != nil && s.err != nil {
			return model.Reply{}, nil, r.modelError(m, err)
		}
		if r.state.handler != nil {
			r.state.emit(ctx, callback.Event{Kind: callback.ModelFallback, Model: m.Name, Err: err})
		}
	}
	return model.Reply{}, nil, err // not reached: the chain is never empty
}

// request sends one request to model m through the run's chain — its events, outermost, then
// the request middleware, then the model — and records the reply's usage. A request that asks
// again for an answer that could not be used is announced first (OutputCorrection), now that
// it goes: fallback is the error of the request tried before this one in the same attempt.
// form is how the output is asked of m.
func (r *run[O]) request(ctx context.Context, m *model.Model, opts []llms.CallOption, form OutputMode, fallback error, s *streamer) (model.Reply, error) {
	req := &r.models.req
	*req = ModelRequest{Assistant: r.p.name, RunID: r.state.id, Model: *m, Messages: r.msgs, Options: opts, Attempt: r.attempt(),
		Fallback: fallback, Correction: r.answers.correcting}
	if form == OutputNative {
		req.Output = r.p.out.Native
	}
	var start time.Time
	if r.state.handler != nil {
		if req.Correction != nil && fallback == nil {
			r.state.emit(ctx, callback.Event{Kind: callback.OutputCorrection, Model: r.res.Model, Result: r.answers.raw, Err: req.Correction})
		}
		r.state.emit(ctx, callback.Event{Kind: callback.ModelRequest, Model: m.Name, Attempt: req.Attempt})
		start = time.Now()
	}
	r.requested = true
	reply, err := r.models.next(ctx, req)
	reply.Usage.Requests = 1 // a reply a middleware gave counts as the request it answers, whatever it says
	if s != nil && s.err != nil {
		err = s.err // the stream function's, not a failure of the model
	}
	if err == nil && s != nil {
		err = s.finish(ctx, reply.Text)
	}
	if err != nil {
		if r.state.handler != nil {
			r.state.emit(ctx, callback.Event{Kind: callback.ModelError, Model: m.Name, Duration: time.Since(start), Err: err})
		}
		return reply, err
	}
	r.res.Model, r.answers.correcting = m.Name, nil
	r.answers.form, r.answers.strict = form, form == OutputTool && r.p.out.SendsStrict(*m)
	r.state.account.Record(m.Name, reply.Usage)
	if r.state.handler != nil {
		r.state.emit(ctx, callback.Event{Kind: callback.ModelResponse, Model: m.Name, Duration: time.Since(start), Usage: reply.Usage})
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

// options returns the call options for the chain's model i and the form its output is asked
// in, prepared once per assistant for a fixed model and once per run otherwise. The tools
// stay in the last request at a limit: a provider may reject a conversation with tool calls
// in it but no tool defined.
func (r *run[O]) options(i int) ([]llms.CallOption, OutputMode, error) {
	ms := &r.models
	if ms.opts != nil && ms.opts[i] != nil {
		return ms.opts[i], ms.forms[i], nil
	}
	if r.p.reqOpts != nil { // a chain of one model, in its form
		return r.p.reqOpts, ms.mode, nil
	}
	form := r.firstForm(i)
	opts, err := r.ask(i, form)
	return opts, form, err
}

// firstForm is how the output is asked of the chain's model i until the run changes it.
func (r *run[O]) firstForm(i int) OutputMode {
	if i == 0 {
		return r.models.mode
	}
	return r.p.formFor(r.models.chain[i])
}

// form is how the output is asked of the chain's model i now, before its first request too.
func (r *run[O]) form(i int) OutputMode {
	if ms := &r.models; ms.opts != nil && ms.opts[i] != nil {
		return ms.forms[i]
	}
	return r.firstForm(i)
}

// refusedSchema names the models of the chain that refused the output schema in the run:
// those first asked natively, now asked in another form.
func (r *run[O]) refusedSchema() []string {
	var names []string
	for i, m := range r.models.chain {
		if r.form(i) != OutputNative && r.firstForm(i) == OutputNative {
			names = append(names, m.Name)
		}
	}
	return names
}

// ask makes the chain's model i asked in form from now on in the run, and returns the call
// options of its requests.
func (r *run[O]) ask(i int, form OutputMode) ([]llms.CallOption, error) {
	ms := &r.models
	opts, err := r.p.requestOptions(ms.chain[i], form)
	if err != nil {
		return nil, err
	}
	if ms.opts == nil {
		ms.opts, ms.forms = make([][]llms.CallOption, len(ms.chain)), make([]OutputMode, len(ms.chain))
	}
	ms.opts[i], ms.forms[i] = opts, form
	return opts, nil
}

// stopped returns the error for a turn the model did not finish: cut at its token limit, or
// refused.
func (r *run[O]) stopped(reply model.Reply, m *model.Model) error {
	switch reply.Finish() {
	case model.FinishLength:
		return &ModelStopError{Assistant: r.p.name, Model: m.Name, Reason: reply.StopReason, Err: ErrTokenLimit}
	case model.FinishRefusal:
		said := reply.Refusal
		if said == "" {
			said = strings.TrimSpace(reply.Text)
		}
		return &ModelStopError{Assistant: r.p.name, Model: m.Name, Reason: reply.StopReason, Err: ErrRefusal, Refusal: said}
	}
	return nil
}

// lastRequest makes the next request the last: without tools, with a user message saying
// the budget is spent and asking for the best answer now (WithFinalAnswerOnLimit).
func (r *run[O]) lastRequest() {
	r.answers.final = true
	text := r.p.out.LastRequest(r.models.mode == OutputTool)
	r.msgs = append(r.msgs, llms.MessageContent{Role: llms.ChatMessageTypeHuman, Parts: []llms.ContentPart{llms.TextContent{Text: text}}})
}
