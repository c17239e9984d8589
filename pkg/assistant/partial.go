package assistant

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/cadrehq/cadre/internal/answer"
	"github.com/cadrehq/cadre/internal/partial"
)

// WithPartialOutput makes f receive the run's output as it grows, while a model streams its
// answer: each time the answer written so far holds more, f gets it decoded into O — the
// members written so far, a string still being written as far as it goes, the rest zero — at
// most once every interval (every time it grows, for 0). It reports only what a complete
// answer could hold: a member is shown once its value is, and never with a value the output's
// schema refuses. The validators do not run on it; the run's Output is the answer checked whole,
// as without f.
//
// The output grows where the answer streams as text or as final_result's arguments: a request
// in native form (OutputNative), and a request in tool form to a client that streams its tool
// calls as OpenAI's does, while final_result is the turn's only call. A client that does not
// stream gives no partial output. An answer that is then corrected gives its partial outputs
// too: each request's start again from nothing.
//
// f is called on the goroutine of the request; an error from it ends the run. New panics if O
// is not the assistant's output type. WithPartialOutput applies to the assistant's own runs,
// not to the runs it delegates to.
func WithPartialOutput[O any](every time.Duration, f func(ctx context.Context, partial O) error) Option {
	return func(c *config) {
		if f != nil {
			c.partial, c.partialEvery = f, every
		}
	}
}

// growth follows the answer of one streamed request for WithPartialOutput.
type growth struct {
	out   *answer.Shape
	show  func(ctx context.Context, data []byte) error // decodes an answer and gives it to f
	every time.Duration

	text  []byte // the answer so far: the text, or final_result's arguments
	calls int    // in tool form, the calls begun so far
	tool  bool   // the answer is final_result's arguments
	last  []byte // the document shown last
	at    time.Time
}

// newGrowth returns the growth of a request in form, or nil when its answer is not followed.
func (r *run[O]) newGrowth(form OutputMode) *growth {
	f := r.p.partial
	if f == nil || r.p.out.Text || form == OutputPrompted {
		return nil
	}
	return &growth{out: r.p.out, every: r.p.cfg.partialEvery, tool: form == OutputTool,
		show: func(ctx context.Context, data []byte) error {
			var o O
			if err := json.Unmarshal(data, &o); err != nil {
				return nil // not shown: the final answer says what is wrong with it
			}
			return f(ctx, o)
		}}
}

// textChunk takes a chunk of the answer's text.
func (g *growth) textChunk(ctx context.Context, b []byte) error {
	if g.tool {
		return nil
	}
	g.text = append(g.text, b...)
	return g.grow(ctx)
}

// callChunk takes a chunk of tool calls, as OpenAI's client streams them: a JSON list of deltas,
// each a call that begins (with its type) or more of the last call's arguments. The answer is
// followed while the turn's only call is final_result.
func (g *growth) callChunk(ctx context.Context, b []byte) error {
	if !g.tool {
		return nil
	}
	var deltas []struct {
		Type     string `json:"type"`
		Function struct {
			Name      string `json:"name"`
			Arguments string `json:"arguments"`
		} `json:"function"`
	}
	if json.Unmarshal(b, &deltas) != nil {
		return nil
	}
	grew := false
	for _, d := range deltas {
		if d.Type != "" || d.Function.Arguments == "" { // a call begins, as the client reads it
			g.calls++
			if g.calls > 1 || d.Function.Name != answer.Tool {
				g.tool, g.text = false, nil
				return nil
			}
		}
		g.text, grew = append(g.text, d.Function.Arguments...), true
	}
	if !grew {
		return nil
	}
	return g.grow(ctx)
}

// grow shows the answer so far when it holds more than what was shown, and the interval has
// passed: with a string still being written, else, when the schema refuses the start of that
// string (the start of an enum's value), without it.
func (g *growth) grow(ctx context.Context) error {
	if g.every > 0 && !g.at.IsZero() && time.Since(g.at) < g.every {
		return nil
	}
	for _, keep := range [2]bool{true, false} {
		doc, ok := partial.Close(g.text, keep)
		if !ok || bytes.Equal(doc, g.last) {
			return nil
		}
		if !g.out.Partial(doc) {
			continue
		}
		data, err := g.out.Unwrap(doc)
		if err != nil || data == nil {
			return nil // {"output": ...} before its output
		}
		g.last, g.at = doc, time.Now()
		if err := g.show(ctx, data); err != nil {
			return fmt.Errorf("partial output: %w", err)
		}
		return nil
	}
	return nil
}
