package assistant

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/cadrehq/cadre/internal/answer"
	"github.com/cadrehq/cadre/internal/jsonfind"
	"github.com/cadrehq/cadre/pkg/model"
	"github.com/tmc/langchaingo/llms"
)

// answers is what a run knows of the answers it asked for.
type answers struct {
	final      bool       // the budget is spent: the request sent is the last, and no tool runs
	form       OutputMode // how the output was asked in the request answered last
	strict     bool       // the request answered last sent final_result in its strict form
	failures   []error    // why each answer that could not be used could not
	raw        string     // the last of them, as written
	correcting error      // its error, while the request that corrects it is not answered
}

// textAnswer takes a text answer: done when it parses into O, otherwise the one correction
// (a user message quoting the error) or, the second time, an *OutputError.
func (r *run[O]) textAnswer(ctx context.Context, text string) (outcome, error) {
	err := r.parse(ctx, text)
	if err == nil {
		return done, nil
	}
	if err := r.failed(text, err); err != nil {
		return goOn, err
	}
	correction := r.p.out.Correction(err, r.answers.form == OutputTool)
	r.msgs = append(r.msgs, llms.MessageContent{Role: llms.ChatMessageTypeHuman, Parts: []llms.ContentPart{llms.TextContent{Text: correction}}})
	return goOn, nil
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
		if c.Tool == answer.Tool && r.answers.form == OutputTool && !answered {
			if err = r.parseFinal(ctx, c.Arguments); err == nil {
				result, answered = answer.Accepted, true
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
	r.answers.failures = append(r.answers.failures, err)
	return goOn, &OutputError{Assistant: r.p.name, Raw: reply.Text, Attempts: r.answers.failures}
}

// failed notes an answer that could not be used and returns the *OutputError when it was
// the second.
func (r *run[O]) failed(raw string, err error) error {
	a := &r.answers
	a.failures, a.raw = append(a.failures, err), raw
	if len(a.failures) >= 2 {
		return &OutputError{Assistant: r.p.name, Raw: raw, Attempts: a.failures}
	}
	a.correcting = err // announced with the request that corrects it (see run.request)
	return nil
}

// parse takes a text answer into the run's Result: the first JSON value in it that is a valid
// O (see jsonfind.Candidates), or, in tool mode, valid final_result arguments written as text.
// When none is, the error is the one of the largest candidate, most likely the answer meant.
func (r *run[O]) parse(ctx context.Context, text string) error {
	out := r.p.out
	if r.answers.form == OutputNative && !out.Text {
		// The provider was asked for final_result's arguments, in their strict form where it
		// takes it.
		trimmed := strings.TrimSpace(text)
		err := out.Valid([]byte(trimmed))
		if err == nil {
			return r.takeFinal(ctx, trimmed)
		}
		if r.parseText(ctx, text) == nil { // an answer in prose or fences, as a client that ignores the schema may give
			return nil
		}
		return err
	}
	return r.parseText(ctx, text)
}

// parseText takes a text answer written without a schema's constraint (see parse).
func (r *run[O]) parseText(ctx context.Context, text string) error {
	out := r.p.out
	if out.Text {
		var o O
		reflect.ValueOf(&o).Elem().SetString(text)
		return r.accept(ctx, o, text)
	}
	// The common case first: the answer is the JSON value, nothing around it.
	trimmed := strings.TrimSpace(text)
	if whole := []byte(trimmed); out.Schema.Validate(whole) == nil {
		// Decoded in place: the run's Result is on the heap already.
		var zero O
		r.res.Output = zero
		if err := json.Unmarshal(whole, &r.res.Output); err == nil {
			if err := r.validate(ctx, r.res.Output); err != nil {
				r.res.Output = zero
				return err
			}
			r.res.Text = trimmed
			return nil
		}
		r.res.Output = zero
	}
	var first error
	largest := 0 // a candidate is never empty
	for data := range jsonfind.Candidates(text) {
		err := out.Schema.Validate([]byte(data))
		if err != nil && out.Wrapped && out.Final.Validate([]byte(data)) == nil {
			return r.takeFinal(ctx, data)
		}
		if err == nil {
			var o O
			if err = json.Unmarshal([]byte(data), &o); err == nil {
				return r.accept(ctx, o, data)
			}
			err = fmt.Errorf("the answer does not decode into the output type: %v", err)
		}
		if len(data) > largest {
			first, largest = err, len(data)
		}
	}
	if first == nil { // no JSON at all: say what is wrong with the answer as a whole
		first = out.Schema.Validate([]byte(strings.TrimSpace(text)))
	}
	return first
}

// parseFinal takes the arguments of a final_result call into the run's Result.
func (r *run[O]) parseFinal(ctx context.Context, args string) error {
	final := r.p.out.Final
	if r.answers.strict {
		// In the strict form every property is required and optional ones are nullable: the
		// model writes null for what it leaves out.
		final = final.StrictSchema()
	}
	if err := final.Validate([]byte(args)); err != nil {
		return err
	}
	return r.takeFinal(ctx, args)
}

// takeFinal takes valid final_result arguments into the run's Result.
func (r *run[O]) takeFinal(ctx context.Context, args string) error {
	data, err := r.p.out.Unwrap([]byte(args))
	if err != nil {
		return err
	}
	var o O
	if err := json.Unmarshal(data, &o); err != nil {
		return fmt.Errorf("the arguments do not decode into the output type: %v", err)
	}
	return r.accept(ctx, o, string(data))
}

// accept runs the validators on out and, when they pass, makes it the run's answer.
func (r *run[O]) accept(ctx context.Context, out O, text string) error {
	if err := r.validate(ctx, out); err != nil {
		return err
	}
	r.res.Output, r.res.Text = out, text
	return nil
}

// validate runs the validators on out.
func (r *run[O]) validate(ctx context.Context, out O) error {
	for _, v := range r.p.validators {
		if err := v(ctx, out); err != nil {
			return err
		}
	}
	return nil
}
