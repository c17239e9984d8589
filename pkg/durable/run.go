package durable

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"time"

	"github.com/cadrehq/cadre/pkg/assistant"
	"github.com/cadrehq/cadre/pkg/chat"
	"github.com/cadrehq/cadre/pkg/usage"
	"github.com/dbos-inc/dbos-transact-golang/dbos"
	"github.com/tmc/langchaingo/llms"
)

// Input is a durable run's input: assistant.Input's fields that can be kept with the run, and
// what a run needs to find its context again when another process takes it up.
type Input struct {
	Prompt  string                // the user's turn
	Vars    map[string]any        // template values; kept as JSON: a number comes back a float64, in every execution
	History []llms.MessageContent // earlier turns, sent before Prompt
	Limits  *usage.Limits         // this run's limits, as assistant.WithLimits for one run
	// Chat is the chat the run continues (chat.WithID), kept by the assistant's store, which
	// must be one of Engine.Store; the zero ID: none.
	Chat chat.ID
	// Meta is given to the engine's restore function (WithRestore) at the start of every
	// execution of the run — a tenant, a user, a trace ID — to put back what the run needs in
	// its context.
	Meta map[string]string
}

// runInput is the input of the workflow cadre.run.
type runInput struct {
	Assistant string            `json:"assistant"`
	Prompt    string            `json:"prompt"`
	Vars      json.RawMessage   `json:"vars,omitempty"`
	History   json.RawMessage   `json:"history,omitempty"` // chat.MarshalMessages
	Limits    *usage.Limits     `json:"limits,omitempty"`
	Meta      map[string]string `json:"meta,omitempty"`
	Chat      *chat.ID          `json:"chat,omitempty"`
}

func newRunInput(name string, in Input) (runInput, error) {
	ri := runInput{Assistant: name, Prompt: in.Prompt, Limits: in.Limits, Meta: in.Meta}
	if in.Chat != (chat.ID{}) {
		if err := in.Chat.Valid(); err != nil {
			return ri, fmt.Errorf("durable: assistant %q: Input.Chat: %w", name, err)
		}
		id := in.Chat
		ri.Chat = &id
	}
	var err error
	if in.Vars != nil {
		if ri.Vars, err = json.Marshal(in.Vars); err != nil {
			return ri, fmt.Errorf("durable: assistant %q: Input.Vars cannot be kept as JSON: %w", name, err)
		}
	}
	if len(in.History) > 0 {
		if ri.History, err = chat.MarshalMessages(in.History); err != nil {
			return ri, fmt.Errorf("durable: assistant %q: Input.History cannot be kept: %w", name, err)
		}
	}
	return ri, nil
}

// input is the assistant.Input the run is run with: the same in every execution, since it is
// always decoded from what was kept.
func (ri runInput) input() (assistant.Input, error) {
	in := assistant.Input{Prompt: ri.Prompt}
	if len(ri.Vars) > 0 {
		if err := json.Unmarshal(ri.Vars, &in.Vars); err != nil {
			return in, fmt.Errorf("durable: the run's vars are damaged: %w", err)
		}
	}
	if len(ri.History) > 0 {
		var err error
		if in.History, err = chat.UnmarshalMessages(ri.History); err != nil {
			return in, fmt.Errorf("durable: the run's history is damaged: %w", err)
		}
	}
	return in, nil
}

// runOutput is the output of the workflows cadre.run and cadre.resume: the run's Response, its
// error, and what a continuation of a paused run takes on.
type runOutput struct {
	Ran       bool              `json:"ran"` // set by the workflow: an output read back without it is none
	Text      string            `json:"text,omitempty"`
	Messages  json.RawMessage   `json:"messages,omitempty"` // chat.MarshalMessages
	Usage     usage.Report      `json:"usage"`
	Model     string            `json:"model,omitempty"`
	Stop      assistant.Stop    `json:"stop,omitempty"` // "": the run failed before its first request
	Paused    *assistant.Paused `json:"paused,omitempty"`
	Err       *wireError        `json:"err,omitempty"`
	Assistant string            `json:"assistant"`
	Limits    *usage.Limits     `json:"limits,omitempty"`
	Meta      map[string]string `json:"meta,omitempty"`
}

// end makes the workflow's output and error of a run's Response and error.
func (o runOutput) end(resp *assistant.Response, err error) (runOutput, error) {
	if resp != nil {
		msgs, merr := chat.MarshalMessages(resp.Messages)
		if merr != nil {
			err = errors.Join(err, fmt.Errorf("durable: keeping the run's messages: %w", merr))
		}
		o.Text, o.Messages, o.Usage, o.Model, o.Stop, o.Paused = resp.Text, msgs, resp.Usage, resp.Model, resp.Stop, resp.Paused
	}
	if err != nil {
		o.Err = recordError(err)
		return o, workflowError(err)
	}
	return o, nil
}

// workflowError is what a run's workflow returns to DBOS for a run that failed, so that DBOS
// marks the run failed: DBOS's own error when there is one, since DBOS acts on it (a
// cancellation, an execution that lost the run to another), or a context's error for the same
// reason; otherwise the error's text in a type DBOS stores as it is. The error itself, whole, is
// in the output.
func workflowError(err error) error {
	if de := (*dbos.Error)(nil); errors.As(err, &de) {
		return de
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return &dbos.PortableWorkflowError{Name: "cadre.RunError", Message: err.Error()}
}

// result makes the Result that the output records; nil for a run that failed before its first
// request, as assistant.Run returns no Result then.
func (o runOutput) result(id string) (*Result, error) {
	var err error
	if o.Err != nil {
		err = o.Err.rebuild()
	}
	if o.Stop == "" {
		if err == nil {
			err = fmt.Errorf("durable: run %s ended without an answer or an error", id)
		}
		return nil, err
	}
	res := &Result{ID: id, Response: assistant.Response{Text: o.Text, Usage: o.Usage, Model: o.Model, Stop: o.Stop, Paused: o.Paused}}
	if len(o.Messages) > 0 {
		msgs, merr := chat.UnmarshalMessages(o.Messages)
		if merr != nil {
			return res, errors.Join(err, fmt.Errorf("durable: run %s: its messages are damaged: %w", id, merr))
		}
		res.Messages = msgs
	}
	return res, err
}

// Result is what a durable run produced: the Response of the run, and the ID of the workflow
// that produced it — the run's, or that of the continuation that resumed it last.
type Result struct {
	ID string // give it to Engine.Resume when Stop is assistant.StopPending
	assistant.Response
}

// Output decodes r's answer into O, as assistant.Run does: a string O takes the text as it is,
// any other O is decoded from JSON. It fails for a run that did not answer.
func Output[O any](r *Result) (O, error) {
	var out O
	if r == nil {
		return out, errors.New("durable.Output: no result")
	}
	if r.Stop != assistant.StopAnswer && r.Stop != assistant.StopLimitAnswer {
		return out, fmt.Errorf("durable.Output: run %s did not answer (stop %q)", r.ID, r.Stop)
	}
	if v := reflect.ValueOf(&out).Elem(); v.Kind() == reflect.String {
		v.SetString(r.Text)
		return out, nil
	}
	if err := json.Unmarshal([]byte(r.Text), &out); err != nil {
		return out, fmt.Errorf("durable.Output: run %s: the answer does not decode into %T: %w", r.ID, out, err)
	}
	return out, nil
}

// StartOption configures one Start.
type StartOption func(*startConfig)

type startConfig struct {
	id      string
	queue   dbos.Queue
	timeout time.Duration
}

// WithID gives the run its workflow ID: an idempotency key. A Start with the ID of a run that
// exists starts nothing and returns the ID: Await gives that run's result, whatever the input
// of the second Start. Without it, DBOS makes a random ID. An ID may not hold '#', which the
// IDs of continuations hold (see Engine.Resume).
func WithID(id string) StartOption { return func(c *startConfig) { c.id = id } }

// OnQueue puts the run on q instead of running it in this process: any process that launched
// with the engine and the same application version takes it when q has room.
func OnQueue(q dbos.Queue) StartOption { return func(c *startConfig) { c.queue = q } }

// WithTimeout bounds the run's time, across processes and recoveries: when it is up, DBOS
// cancels the run's workflow, and Await returns DBOS's error.
func WithTimeout(d time.Duration) StartOption { return func(c *startConfig) { c.timeout = d } }

// Start starts a durable run of the registered assistant named assistant on in and returns the
// run's ID, without waiting for it: Await waits, in this process or in any other. The run does
// not depend on ctx, which only bounds starting it: a run is cancelled with dbos.CancelWorkflow,
// or bounded with WithTimeout.
func (e *Engine) Start(ctx context.Context, assistant string, in Input, opts ...StartOption) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	if _, err := e.entry(assistant); err != nil {
		return "", err
	}
	if in.Prompt == "" {
		return "", fmt.Errorf("durable: assistant %q: Input.Prompt is empty: give the user's turn", assistant)
	}
	ri, err := newRunInput(assistant, in)
	if err != nil {
		return "", err
	}
	cfg := startConfig{queue: e.queue}
	for _, o := range opts {
		if o != nil {
			o(&cfg)
		}
	}
	if strings.Contains(cfg.id, "#") {
		return "", fmt.Errorf("durable: the run ID %q holds '#', which only the IDs of continuations hold (see Engine.Resume)", cfg.id)
	}
	return start(e, e.runWorkflow, ri, cfg)
}

// start starts the workflow fn on in, from the engine's root context: a workflow started from a
// caller's context would be cancelled, for good, with it.
func start[P, R any](e *Engine, fn dbos.Workflow[P, R], in P, cfg startConfig, opts ...dbos.WorkflowOption) (string, error) {
	dctx := e.root
	if cfg.timeout > 0 {
		// Not cancelled when Start returns: the deadline goes with the workflow, which DBOS
		// cancels when it passes.
		dctx, _ = dbos.WithTimeout(e.root, cfg.timeout)
	}
	opts = append(opts, dbos.WithRunInstance(e))
	if cfg.id != "" {
		opts = append(opts, dbos.WithWorkflowID(cfg.id))
	}
	if cfg.queue != nil {
		opts = append(opts, dbos.WithQueue(cfg.queue))
	}
	h, err := dbos.RunWorkflow(dctx, fn, in, opts...)
	if err != nil {
		return "", fmt.Errorf("durable: starting a run: %w", err)
	}
	return h.GetWorkflowID(), nil
}

// Await waits for the run id to end — a run of any process — and returns its Result, as
// assistant.Run returns it: with the error of a run that failed, the Result so far when the run
// had sent a request. The error is rebuilt from the run's record: errors.Is and errors.As find
// in it what they found in the run's error (a *usage.LimitError, an *assistant.OutputError, a
// *model.ProviderError...). Await returns when ctx is done, without affecting the run.
func (e *Engine) Await(ctx context.Context, id string) (*Result, error) {
	h, err := dbos.RetrieveWorkflow[runOutput](dbos.From(e.root, ctx), id)
	if err != nil {
		return nil, fmt.Errorf("durable: run %s: %w", id, err)
	}
	out, err := h.GetResult(dbos.WithHandlePollingInterval(e.poll))
	if !out.Ran {
		if err == nil {
			err = errors.New("it has no output: is it a run of the engine?")
		}
		return nil, fmt.Errorf("durable: run %s: %w", id, err)
	}
	return out.result(id)
}

// Run starts a durable run and waits for its end: Start, then Await. When ctx is done first,
// Run returns, and the run goes on.
func (e *Engine) Run(ctx context.Context, assistant string, in Input, opts ...StartOption) (*Result, error) {
	id, err := e.Start(ctx, assistant, in, opts...)
	if err != nil {
		return nil, err
	}
	return e.Await(ctx, id)
}

// runWorkflow is the workflow cadre.run: one run of a registered assistant.
func (e *Engine) runWorkflow(ctx dbos.Context, in runInput) (runOutput, error) {
	out := runOutput{Ran: true, Assistant: in.Assistant, Limits: in.Limits, Meta: in.Meta}
	ent, err := e.entry(in.Assistant)
	if err != nil {
		return out.end(nil, err)
	}
	ain, err := in.input()
	if err != nil {
		return out.end(nil, err)
	}
	rctx, err := e.restored(ctx, in.Meta)
	if err != nil {
		return out.end(nil, err)
	}
	if in.Chat != nil {
		rctx = chat.WithID(rctx, *in.Chat)
	}
	return out.end(ent.call(rctx, ain, runOptions(in.Limits)))
}

// restored is the context a run's workflow runs the run in: the workflow's, with what the
// restore function puts back.
func (e *Engine) restored(ctx dbos.Context, meta map[string]string) (context.Context, error) {
	if e.restore == nil {
		return ctx, nil
	}
	rctx := e.restore(ctx, meta)
	if rctx == nil || !e.inWorkflow(rctx) {
		return nil, errors.New("durable: the restore function must return the context it is given, or one derived from it")
	}
	return rctx, nil
}
