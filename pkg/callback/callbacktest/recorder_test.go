package callbacktest_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/cadrehq/cadre/pkg/callback"
	"github.com/cadrehq/cadre/pkg/callback/callbacktest"
)

// TestARecorderKeepsEveryEventOfConcurrentRuns: events handled from many goroutines at once,
// while a reader reads, are all kept, each goroutine's in the order it handled them.
func TestARecorderKeepsEveryEventOfConcurrentRuns(t *testing.T) {
	t.Parallel()
	var rec callbacktest.Recorder
	const runs, each = 8, 50
	var wg sync.WaitGroup
	for r := range runs {
		wg.Go(func() {
			for i := range each {
				rec.Handle(context.Background(), callback.Event{Kind: callback.ToolStart, RunID: fmt.Sprint(r), Attempt: i})
			}
		})
	}
	wg.Go(func() {
		for range each {
			_ = rec.Events()
			_ = rec.Of(callback.ToolStart)
		}
	})
	wg.Wait()
	next := map[string]int{}
	for _, e := range rec.Events() {
		if e.Attempt != next[e.RunID] {
			t.Fatalf("run %s: event %d after %d events", e.RunID, e.Attempt, next[e.RunID])
		}
		next[e.RunID]++
	}
	if len(next) != runs {
		t.Errorf("events of %d runs; want %d", len(next), runs)
	}
	for run, n := range next {
		if n != each {
			t.Errorf("run %s: %d events; want %d", run, n, each)
		}
	}
}

func TestWhatARecorderReturns(t *testing.T) {
	t.Parallel()
	rec := callbacktest.NewRecorder()
	if rec.Events() != nil || len(rec.Kinds()) != 0 || rec.Of(callback.RunStart) != nil {
		t.Errorf("an empty recorder: %v, %v, %v", rec.Events(), rec.Kinds(), rec.Of(callback.RunStart))
	}
	for _, k := range []callback.Kind{callback.RunStart, callback.ModelRequest, callback.ToolStart, callback.ToolEnd, callback.RunEnd} {
		rec.Handle(context.Background(), callback.Event{Kind: k})
	}
	want := []callback.Kind{callback.RunStart, callback.ModelRequest, callback.ToolStart, callback.ToolEnd, callback.RunEnd}
	if got := rec.Kinds(); !slices.Equal(got, want) {
		t.Errorf("Kinds() = %v; want %v", got, want)
	}
	if got := rec.Of(callback.RunEnd, callback.RunStart); len(got) != 2 || got[0].Kind != callback.RunStart || got[1].Kind != callback.RunEnd {
		t.Errorf("Of(RunEnd, RunStart) = %v; want the two, in the order handled", got)
	}
	if got := rec.Of(); got != nil {
		t.Errorf("Of() = %v; want none", got)
	}
	events := rec.Events()
	events[0].Kind = callback.RunError
	if rec.Events()[0].Kind != callback.RunStart {
		t.Error("changing what Events returned changed the recorder")
	}
}
