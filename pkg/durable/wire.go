package durable

import (
	"context"
	"errors"
	"syscall"

	"github.com/cadrehq/cadre/pkg/assistant"
	"github.com/cadrehq/cadre/pkg/chat"
	"github.com/cadrehq/cadre/pkg/model"
	"github.com/cadrehq/cadre/pkg/tool"
	"github.com/cadrehq/cadre/pkg/usage"
	"github.com/dbos-inc/dbos-transact-golang/dbos"
	"github.com/tmc/langchaingo/llms"
)

// What the engine records is made of strings, numbers and raw JSON only. DBOS encodes a step's
// output and a workflow's input and output with encoding/json, and gives the first execution
// the value in memory but a recovery the value decoded into the declared type: a langchaingo
// part or a model.Reasoning would come back changed (a Reasoning as a plain text part, without
// its signature), and an error as its text alone. These types come back as they went.

// wireReply is a model request's outcome, as its step records it: the reply, or the error in
// place of one (a step that failed is recorded as one that succeeded with this error inside,
// so that the error comes back whole).
type wireReply struct {
	Text       string          `json:"text,omitempty"`
	Calls      []wireCall      `json:"calls,omitempty"`
	StopReason string          `json:"stop_reason,omitempty"`
	Usage      usage.Usage     `json:"usage"`
	Reasoning  []wireReasoning `json:"reasoning,omitempty"`
	Refusal    string          `json:"refusal,omitempty"`
	Err        *wireError      `json:"err,omitempty"`
}

type wireCall struct {
	ID        string `json:"id"`
	Type      string `json:"type,omitempty"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

type wireReasoning struct {
	Text      string `json:"text,omitempty"`
	Provider  string `json:"provider,omitempty"`
	Signature string `json:"signature,omitempty"`
	Redacted  string `json:"redacted,omitempty"`
}

// replyToWire records a model's reply, or its error.
func replyToWire(r model.Reply, err error) wireReply {
	if err != nil {
		return wireReply{Err: recordError(err)}
	}
	w := wireReply{Text: r.Text, StopReason: r.StopReason, Usage: r.Usage, Refusal: r.Refusal}
	for _, c := range r.ToolCalls {
		wc := wireCall{ID: c.ID, Type: c.Type}
		if c.FunctionCall != nil {
			wc.Name, wc.Arguments = c.FunctionCall.Name, c.FunctionCall.Arguments
		}
		w.Calls = append(w.Calls, wc)
	}
	for _, p := range r.Reasoning {
		w.Reasoning = append(w.Reasoning, wireReasoning{Text: p.Text, Provider: p.Provider, Signature: p.Signature, Redacted: p.Redacted})
	}
	return w
}

// reply rebuilds the reply, or the error, that w records.
func (w wireReply) reply() (model.Reply, error) {
	if w.Err != nil {
		return model.Reply{}, w.Err.rebuild()
	}
	r := model.Reply{Text: w.Text, StopReason: w.StopReason, Usage: w.Usage, Refusal: w.Refusal}
	for _, c := range w.Calls {
		r.ToolCalls = append(r.ToolCalls, llms.ToolCall{ID: c.ID, Type: c.Type, FunctionCall: &llms.FunctionCall{Name: c.Name, Arguments: c.Arguments}})
	}
	for _, p := range w.Reasoning {
		r.Reasoning = append(r.Reasoning, model.Reasoning{TextContent: llms.TextContent{Text: p.Text}, Provider: p.Provider, Signature: p.Signature, Redacted: p.Redacted})
	}
	return r, nil
}

// wireDecision is an approver's answer, as its step records it.
type wireDecision struct {
	Decision assistant.Decision `json:"decision"`
	Err      *wireError         `json:"err,omitempty"`
}

// wireError is an error as the engine records it: its text, and every fact about it that a
// caller or the run loop branches on, so that the error rebuilt from the record answers
// errors.Is, errors.As and model.CanFallback as the error did when it happened.
type wireError struct {
	Message string   `json:"message"`
	Is      []string `json:"is,omitempty"` // the sentinels it wraps, by name (see sentinels)
	// Fallback is model.CanFallback's answer for the error; it is kept for the causes the other
	// fields do not hold (a network timeout, a refused dial).
	Fallback bool                 `json:"fallback,omitempty"`
	Provider *model.ProviderError `json:"provider,omitempty"`
	Limit    *usage.LimitError    `json:"limit,omitempty"`
	Stop     *wireStop            `json:"stop,omitempty"`   // an *assistant.ModelStopError
	Output   *wireOutput          `json:"output,omitempty"` // an *assistant.OutputError
	DBOS     *dbos.Error          `json:"dbos,omitempty"`
}

type wireStop struct {
	Assistant string `json:"assistant"`
	Model     string `json:"model"`
	Reason    string `json:"reason"`
	Refusal   string `json:"refusal,omitempty"`
}

type wireOutput struct {
	Assistant string   `json:"assistant"`
	Raw       string   `json:"raw"`
	Attempts  []string `json:"attempts"`
}

// sentinels are the sentinel errors a recorded error keeps, by the name it keeps them under.
var sentinels = [...]struct {
	name string
	err  error
}{
	{"canceled", context.Canceled},
	{"deadline", context.DeadlineExceeded},
	{"econnrefused", syscall.ECONNREFUSED},
	{"econnreset", syscall.ECONNRESET},
	{"empty_response", model.ErrEmptyResponse},
	{"output_schema", model.ErrOutputSchema},
	{"token_limit", assistant.ErrTokenLimit},
	{"refusal", assistant.ErrRefusal},
	{"no_model", assistant.ErrNoModel},
	{"depth_limit", assistant.ErrDepthLimit},
	{"not_paused", assistant.ErrNotPaused},
	{"invalid_args", tool.ErrInvalidArgs},
	{"chat_not_found", chat.ErrNotFound},
}

// recordError records err; nil for nil.
func recordError(err error) *wireError {
	if err == nil {
		return nil
	}
	w := &wireError{Message: err.Error(), Fallback: model.CanFallback(err)}
	for _, s := range sentinels {
		if errors.Is(err, s.err) {
			w.Is = append(w.Is, s.name)
		}
	}
	if pe := (*model.ProviderError)(nil); errors.As(err, &pe) {
		w.Provider = pe
	}
	if le := (*usage.LimitError)(nil); errors.As(err, &le) {
		w.Limit = le
	}
	if se := (*assistant.ModelStopError)(nil); errors.As(err, &se) {
		w.Stop = &wireStop{Assistant: se.Assistant, Model: se.Model, Reason: se.Reason, Refusal: se.Refusal}
	}
	if oe := (*assistant.OutputError)(nil); errors.As(err, &oe) {
		w.Output = &wireOutput{Assistant: oe.Assistant, Raw: oe.Raw}
		for _, a := range oe.Attempts {
			w.Output.Attempts = append(w.Output.Attempts, a.Error())
		}
	}
	if de := (*dbos.Error)(nil); errors.As(err, &de) {
		w.DBOS = de
	}
	return w
}

// rebuild returns an error that reads as the recorded one and wraps what it wrapped.
func (w *wireError) rebuild() error {
	e := &recordedError{msg: w.Message}
	// The provider's error first: model.CanFallback decides by the first one it finds, as it did
	// with the error as it happened.
	if w.Provider != nil {
		pe := *w.Provider
		if w.has("output_schema") {
			pe.Err = model.ErrOutputSchema
		}
		e.causes = append(e.causes, &pe)
	}
	if w.Limit != nil {
		le := *w.Limit
		e.causes = append(e.causes, &le)
	}
	if w.Stop != nil {
		se := &assistant.ModelStopError{Assistant: w.Stop.Assistant, Model: w.Stop.Model, Reason: w.Stop.Reason, Refusal: w.Stop.Refusal}
		switch {
		case w.has("token_limit"):
			se.Err = assistant.ErrTokenLimit
		case w.has("refusal"):
			se.Err = assistant.ErrRefusal
		}
		e.causes = append(e.causes, se)
	}
	if w.Output != nil {
		oe := &assistant.OutputError{Assistant: w.Output.Assistant, Raw: w.Output.Raw}
		for _, a := range w.Output.Attempts {
			oe.Attempts = append(oe.Attempts, errors.New(a))
		}
		e.causes = append(e.causes, oe)
	}
	if w.DBOS != nil {
		de := *w.DBOS
		de.RestoreWrappedCause()
		e.causes = append(e.causes, &de)
	}
	for _, s := range sentinels {
		if w.has(s.name) {
			e.causes = append(e.causes, s.err)
		}
	}
	if w.Fallback && !model.CanFallback(e) {
		e.causes = append(e.causes, timeout{})
	}
	return e
}

func (w *wireError) has(name string) bool {
	for _, n := range w.Is {
		if n == name {
			return true
		}
	}
	return false
}

// recordedError is an error read back from the engine's record: its text as it was, and what
// it wrapped, rebuilt.
type recordedError struct {
	msg    string
	causes []error
}

func (e *recordedError) Error() string   { return e.msg }
func (e *recordedError) Unwrap() []error { return e.causes }

// timeout stands for a cause that made model.CanFallback answer true and that a record does
// not keep, such as a network timeout: it is a net.Error whose Timeout is true.
type timeout struct{}

func (timeout) Error() string   { return "timeout" }
func (timeout) Timeout() bool   { return true }
func (timeout) Temporary() bool { return true }
