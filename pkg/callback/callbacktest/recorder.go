package callbacktest

import (
	"context"
	"slices"
	"sync"

	"github.com/cadrehq/cadre/pkg/callback"
)

// Recorder is a callback.Handler that keeps every event it handles, in the order it handles
// them, for a test to read while the runs go on or after they have ended. It is safe for
// concurrent use, as a Handler must be: the runs of a tree and the parallel calls of a turn
// send it events from several goroutines at once, and a test may read them meanwhile. The
// events of one run keep their order (see callback.Handler); those of concurrent runs
// interleave as they were handled.
//
// The zero Recorder is ready for use, as is the one NewRecorder returns. A Recorder must not
// be copied after its first use.
type Recorder struct {
	mu     sync.Mutex
	events []callback.Event
}

// NewRecorder returns an empty Recorder.
func NewRecorder() *Recorder { return &Recorder{} }

// Handle keeps e. It ignores ctx, and returns at once.
func (r *Recorder) Handle(_ context.Context, e callback.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, e)
}

// Events returns the events handled so far, in order: a copy, which the caller may change.
func (r *Recorder) Events() []callback.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.events)
}

// Kinds returns the kinds of the events handled so far, in order.
func (r *Recorder) Kinds() []callback.Kind {
	r.mu.Lock()
	defer r.mu.Unlock()
	kinds := make([]callback.Kind, len(r.events))
	for i, e := range r.events {
		kinds[i] = e.Kind
	}
	return kinds
}

// Of returns the events handled so far whose kind is one of kinds, in order; none when kinds
// is empty.
func (r *Recorder) Of(kinds ...callback.Kind) []callback.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []callback.Event
	for _, e := range r.events {
		if slices.Contains(kinds, e.Kind) {
			out = append(out, e)
		}
	}
	return out
}
