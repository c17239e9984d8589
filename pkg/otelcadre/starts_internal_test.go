package otelcadre

import (
	"strconv"
	"testing"
)

// TestStartsAreKeptUpToABound: a span's start is made once for its assistant, model or tool,
// and a program that makes assistants as it goes (a name a run) does not grow the tracer's
// memory past maxStarts.
func TestStartsAreKeptUpToABound(t *testing.T) {
	t.Parallel()
	tr := &tracer{starts: map[startKey]*start{}}
	made := 0
	mk := func() *start { made++; return &start{} }
	first := tr.startOf(startKey{op: "run", name: "helper"}, mk)
	if again := tr.startOf(startKey{op: "run", name: "helper"}, mk); again != first || made != 1 {
		t.Errorf("a second run of one assistant made its start again (%d made)", made)
	}
	for i := range maxStarts + 10 {
		tr.startOf(startKey{op: "run", name: "helper-" + strconv.Itoa(i)}, mk)
	}
	if len(tr.starts) != maxStarts {
		t.Errorf("%d starts kept, want the bound, %d", len(tr.starts), maxStarts)
	}
}
