package callback_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/cadrehq/cadre/pkg/callback"
	"github.com/google/go-cmp/cmp"
)

// recorder appends a label for each event it handles to a shared log.
type recorder struct {
	mu  *sync.Mutex
	log *[]string
	tag string
}

func (r recorder) Handle(_ context.Context, e callback.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	*r.log = append(*r.log, r.tag+":"+string(e.Kind))
}

func TestMulti(t *testing.T) {
	t.Parallel()
	var (
		mu  sync.Mutex
		got []string
	)
	a := recorder{&mu, &got, "a"}
	b := recorder{&mu, &got, "b"}
	c := recorder{&mu, &got, "c"}

	h := callback.Multi(nil, a, callback.Multi(b, nil), nil, c)
	h.Handle(context.Background(), callback.Event{Kind: callback.RunStart})
	h.Handle(context.Background(), callback.Event{Kind: callback.RunEnd})

	want := []string{"a:run_start", "b:run_start", "c:run_start", "a:run_end", "b:run_end", "c:run_end"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("events handled (-want +got):\n%s", diff)
	}
}

func TestMultiOfNoneOrOne(t *testing.T) {
	t.Parallel()
	if h := callback.Multi(); h != nil {
		t.Errorf("Multi() = %v, want nil", h)
	}
	if h := callback.Multi(nil, nil); h != nil {
		t.Errorf("Multi(nil, nil) = %v, want nil", h)
	}
	var mu sync.Mutex
	var log []string
	one := recorder{&mu, &log, "one"}
	if h := callback.Multi(nil, one); h != one {
		t.Errorf("Multi(nil, h) = %v, want h itself", h)
	}
}

func TestMultiCopiesItsArguments(t *testing.T) {
	t.Parallel()
	var n atomic.Int32
	count := callback.HandlerFunc(func(context.Context, callback.Event) { n.Add(1) })
	hs := []callback.Handler{count, count}
	h := callback.Multi(hs...)
	hs[1] = nil
	h.Handle(context.Background(), callback.Event{})
	if got := n.Load(); got != 2 {
		t.Errorf("handled %d times, want 2", got)
	}
}

func TestMultiConcurrentHandle(t *testing.T) {
	t.Parallel()
	const goroutines, events = 50, 20
	var a, b atomic.Int64
	h := callback.Multi(
		callback.HandlerFunc(func(context.Context, callback.Event) { a.Add(1) }),
		callback.HandlerFunc(func(context.Context, callback.Event) { b.Add(1) }),
	)
	var wg sync.WaitGroup
	for range goroutines {
		wg.Go(func() {
			for range events {
				h.Handle(context.Background(), callback.Event{Kind: callback.ToolStart})
			}
		})
	}
	wg.Wait()
	if a.Load() != goroutines*events || b.Load() != goroutines*events {
		t.Errorf("handled %d and %d events, want %d each", a.Load(), b.Load(), goroutines*events)
	}
}
