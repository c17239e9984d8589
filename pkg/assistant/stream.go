package assistant

import (
	"context"

	"github.com/cadrehq/cadre/pkg/model"
)

// Chunk is a piece of an answer's text, as the model writes it.
type Chunk struct {
	RunID       string // the run whose request this is
	ParentRunID string // the run that delegated to it; "" for a top run
	Assistant   string
	Model       string
	Text        string
}

// StreamFunc receives the text of a run's answers as the models write them.
type StreamFunc func(ctx context.Context, c Chunk) error

// WithStream makes f receive the text of every model request of the run, and of every run it
// delegates to, as it is written: each Chunk names its run, so a handler can tell a
// supervisor's text from a specialist's. Tool calls are not text and are not streamed. A
// model client that does not stream gives its whole text as one chunk when it answers. When a
// request fails after some of its text was streamed and the next model of the chain takes it,
// that model's text streams from its start: Chunk.Model tells them apart. The answer is still
// parsed into the output type whole, at its end.
//
// f is called on the goroutine of the request it streams; delegated runs stream from their
// own goroutines, so f must be safe for concurrent use. An error from f ends the run.
func WithStream(f StreamFunc) Option {
	return func(c *config) { c.stream = joinStreamFuncs(c.stream, f) }
}

// joinStreamFuncs returns a StreamFunc that calls a, then b; either may be nil.
func joinStreamFuncs(a, b StreamFunc) StreamFunc {
	switch {
	case a == nil:
		return b
	case b == nil:
		return a
	}
	return func(ctx context.Context, c Chunk) error {
		if err := a(ctx, c); err != nil {
			return err
		}
		return b(ctx, c)
	}
}

// streamer streams one request's text.
type streamer struct {
	f     StreamFunc
	base  Chunk       // the request's run and model
	shape model.Shape // the client's: some stream the JSON of tool calls as text
	wrote bool
	err   error   // what f returned, which ends the run whatever the client made of it
	grow  *growth // the output as it grows (WithPartialOutput); nil for none
}

// streamer returns the streamer of a request to m in form, or nil when the run streams
// nothing.
func (r *run[O]) streamer(m *model.Model, form OutputMode) *streamer {
	grow := r.newGrowth(form)
	if r.state.stream == nil && grow == nil {
		return nil
	}
	return &streamer{
		f:     r.state.stream,
		base:  Chunk{RunID: r.state.id, ParentRunID: r.state.parentID, Assistant: r.p.name, Model: m.Name},
		shape: m.Shape,
		grow:  grow,
	}
}

// write is the client's streaming function.
func (s *streamer) write(ctx context.Context, b []byte) error {
	if len(b) == 0 {
		return nil
	}
	if s.shape.ToolCallChunk(b) {
		if s.grow != nil {
			s.err = s.grow.callChunk(ctx, b)
		}
		return s.err
	}
	s.wrote = true
	if s.grow != nil {
		if s.err = s.grow.textChunk(ctx, b); s.err != nil {
			return s.err
		}
	}
	if s.f == nil {
		return nil
	}
	c := s.base
	c.Text = string(b)
	if err := s.f(ctx, c); err != nil {
		s.err = err
		return err
	}
	return nil
}

// finish gives the answer's text as one chunk when the client streamed none.
func (s *streamer) finish(ctx context.Context, text string) error {
	if s.wrote || text == "" || s.f == nil {
		return nil
	}
	c := s.base
	c.Text = text
	return s.f(ctx, c)
}
