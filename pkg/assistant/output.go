package assistant

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	"github.com/cadrehq/cadre/pkg/callback"
	"github.com/tmc/langchaingo/llms"
)

// textAnswer takes a text answer: done when it parses into O, otherwise the one correction
// (a user message quoting the error) or, the second time, an *OutputError.
func (r *run[O]) textAnswer(ctx context.Context, text string) (bool, error) {
	err := r.parse(ctx, text)
	if err == nil {
		return true, nil
	}
	if err := r.failed(ctx, text, err); err != nil {
		return false, err
	}
	r.msgs = append(r.msgs, llms.MessageContent{Role: llms.ChatMessageTypeHuman, Parts: []llms.ContentPart{llms.TextContent{Text: r.correction(err)}}})
	return false, nil
}

// failed notes an answer that could not be used and returns the *OutputError when it was
// the second.
func (r *run[O]) failed(ctx context.Context, raw string, err error) error {
	r.failures = append(r.failures, err)
	r.raw = raw
	if len(r.failures) >= 2 {
		return &OutputError{Assistant: r.p.name, Raw: r.raw, Attempts: r.failures}
	}
	if r.state.handler != nil {
		r.emit(ctx, callback.Event{Kind: callback.OutputCorrection, Model: r.res.Model, Result: raw, Err: err})
	}
	return nil
}

// correction is the user message that asks once for a usable text answer.
func (r *run[O]) correction(err error) string {
	out := r.p.out
	switch {
	case out.text:
		return "Your answer could not be used: " + err.Error() + "\nAnswer again, correcting that."
	case r.mode == OutputTool:
		return "Your answer could not be used: " + err.Error() + "\nGive your answer by calling the " + finalResult + " tool, with arguments that match its JSON Schema."
	}
	return "Your answer could not be used: " + err.Error() + "\nAnswer with only a JSON value that matches this JSON Schema, without any other text:\n" + out.hint
}

// parse takes a text answer into the run's Result.
func (r *run[O]) parse(ctx context.Context, text string) error {
	var out O
	if r.p.out.text {
		reflect.ValueOf(&out).Elem().SetString(text)
		return r.accept(ctx, out, text)
	}
	data, _ := extractJSON(text)
	if err := r.p.out.schema.Validate([]byte(data)); err != nil {
		return err
	}
	if err := json.Unmarshal([]byte(data), &out); err != nil {
		return fmt.Errorf("the answer does not decode into the output type: %v", err)
	}
	return r.accept(ctx, out, data)
}

// parseFinal takes the arguments of a final_result call into the run's Result.
func (r *run[O]) parseFinal(ctx context.Context, args string) error {
	out := r.p.out
	if err := out.final.Validate([]byte(args)); err != nil {
		return err
	}
	data := []byte(args)
	if out.wrapped {
		var w struct {
			Output json.RawMessage `json:"output"`
		}
		if err := json.Unmarshal(data, &w); err != nil {
			return fmt.Errorf("the arguments do not decode: %v", err)
		}
		data = w.Output
	}
	var o O
	if err := json.Unmarshal(data, &o); err != nil {
		return fmt.Errorf("the arguments do not decode into the output type: %v", err)
	}
	return r.accept(ctx, o, string(data))
}

// accept runs the validators on out and, when they pass, makes it the run's answer.
func (r *run[O]) accept(ctx context.Context, out O, text string) error {
	for _, v := range r.p.validators {
		if err := v(ctx, out); err != nil {
			return err
		}
	}
	r.res.Output, r.res.Text = out, text
	return nil
}

// extractJSON finds the JSON value in a model's answer: the whole answer, the first fenced
// code block that holds JSON, or the first object or array in surrounding prose. When there is
// none it returns the trimmed answer and false, and validation says what is wrong with it.
func extractJSON(text string) (string, bool) {
	s := strings.TrimSpace(text)
	if s == "" || json.Valid([]byte(s)) {
		return s, s != ""
	}
	for rest := s; ; {
		i := strings.Index(rest, "```")
		if i < 0 {
			break
		}
		body := rest[i+3:]
		nl := strings.IndexByte(body, '\n')
		if nl < 0 {
			break
		}
		body = body[nl+1:]
		end := strings.Index(body, "```")
		if end < 0 {
			end = len(body)
		}
		if block := strings.TrimSpace(body[:end]); json.Valid([]byte(block)) {
			return block, true
		}
		if end == len(body) {
			break
		}
		rest = body[end+3:]
	}
	for i := 0; i < len(s); i++ {
		if s[i] != '{' && s[i] != '[' {
			continue
		}
		var raw json.RawMessage
		if json.NewDecoder(strings.NewReader(s[i:])).Decode(&raw) == nil {
			return string(raw), true
		}
	}
	return s, false
}
