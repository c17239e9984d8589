package callback

import (
	"context"
	"fmt"
	"io"
	"testing"
)

// A handler kept for all the runs of a long-running server forgets each run when it ends.
func TestProgressForgetsEndedRuns(t *testing.T) {
	t.Parallel()
	h := NewProgress(io.Discard)
	for i := range 100 {
		id := fmt.Sprint("r", i)
		h.Handle(context.Background(), Event{Kind: RunStart, RunID: id, Assistant: "a"})
		h.Handle(context.Background(), Event{Kind: RunStart, RunID: id + "-sub", ParentRunID: id, Assistant: "b"})
		h.Handle(context.Background(), Event{Kind: RunEnd, RunID: id + "-sub", Assistant: "b"})
		end := RunEnd
		if i%2 == 0 {
			end = RunError
		}
		h.Handle(context.Background(), Event{Kind: end, RunID: id, Assistant: "a"})
	}
	if n := len(h.(*progress).runs); n != 0 {
		t.Errorf("%d runs kept after all ended, want 0", n)
	}
}
