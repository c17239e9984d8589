package assistant

import (
	"errors"
	"fmt"
	"strings"
)

// OutputError is returned when the answer could not be used as the output type, after the
// one correction.
type OutputError struct {
	Assistant string
	Raw       string  // the last answer as written
	Attempts  []error // why each attempt failed
}

func (e *OutputError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "assistant %q: the answer could not be used", e.Assistant)
	for i, err := range e.Attempts {
		sep := "; "
		if i == 0 {
			sep = ": "
		}
		fmt.Fprintf(&b, "%sattempt %d: %v", sep, i+1, err)
	}
	b.WriteString(" (make the instructions or the output type's descriptions clearer, or use a stronger model)")
	return b.String()
}

// Unwrap returns the attempts' errors.
func (e *OutputError) Unwrap() []error { return e.Attempts }

// ErrTokenLimit and ErrRefusal tell why a model stopped short; a *ModelStopError wraps one.
var (
	ErrTokenLimit = errors.New("the model stopped at its output token limit")
	ErrRefusal    = errors.New("the model refused to answer")
)

// ModelStopError is returned when a model stopped without a usable turn: it hit its output token
// limit (errors.Is(err, ErrTokenLimit)) or refused (errors.Is(err, ErrRefusal)).
type ModelStopError struct {
	Assistant string
	Model     string
	Reason    string // the provider's own stop reason
	Err       error  // ErrTokenLimit or ErrRefusal
	// Refusal is what the model said when it refused, in its words: OpenAI's refusal, or the
	// text of the refused turn (Anthropic's); "" when it said nothing, or did not refuse.
	Refusal string
}

func (e *ModelStopError) Error() string {
	hint := ""
	switch {
	case errors.Is(e.Err, ErrTokenLimit):
		hint = ": raise the model's max tokens (llm.yaml max_tokens, or llms.WithMaxTokens in WithCallOptions) or ask for a shorter answer"
	case e.Refusal != "":
		hint = fmt.Sprintf(": it said %q", e.Refusal)
	}
	return fmt.Sprintf("assistant %q: model %q: %v (stop reason %q)%s", e.Assistant, e.Model, e.Err, e.Reason, hint)
}

func (e *ModelStopError) Unwrap() error { return e.Err }

// ErrNoModel is returned by a run of an assistant that has no model.
var ErrNoModel = errors.New("no model: give the assistant one with WithModel or WithModels")

// ErrDepthLimit is returned (wrapped) by the top run of a tree in which delegation went deeper
// than the depth limit (WithMaxDepth): usually an assistant that reaches itself through its
// tools.
var ErrDepthLimit = errors.New("delegation depth limit reached")

// ErrNotPaused is returned (wrapped) by Resume when the paused run it was asked to resume is
// not waiting in its chat any more: another Resume took it first — a double click, a retried
// request, another instance — or it was never paused there. A paused run kept with a chat is
// taken from its store atomically (chat.Store.TakeStateIf), so that its approved calls run once
// however many Resumes of it start at the same instant.
var ErrNotPaused = errors.New("no paused run to resume: it was resumed already, or never paused")

// within returns err as the run of assistant name says it: `assistant "name": where: err`,
// less what err says already, so that a message says each thing once however many layers
// add it. The assistant is not named again when err starts by naming it (the error of a
// middleware, of a limit); where is left out when err's text holds said (a chat store's error
// names its chat), or when where is "". The error returned wraps err.
func within(name string, err error, where, said string) error {
	head := fmt.Sprintf("assistant %q: ", name)
	rest, named := strings.CutPrefix(err.Error(), head)
	switch {
	case where != "" && (said == "" || !strings.Contains(rest, said)):
		rest = where + ": " + rest
	case named:
		return err
	}
	return &layered{msg: head + rest, err: err}
}

// layered is an error with the words of the layers it went through (see within).
type layered struct {
	msg string
	err error
}

func (e *layered) Error() string { return e.msg }
func (e *layered) Unwrap() error { return e.err }
