package callback_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/cadrehq/cadre/pkg/callback"
	"github.com/cadrehq/cadre/pkg/usage"
	"github.com/google/go-cmp/cmp"
)

// progressOf returns the lines NewProgress writes for events, sent one after the other.
func progressOf(events ...callback.Event) []string {
	var buf bytes.Buffer
	h := callback.NewProgress(&buf)
	for _, e := range events {
		h.Handle(context.Background(), e)
	}
	return strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
}

func TestProgressLines(t *testing.T) {
	t.Parallel()
	a := func(e callback.Event) callback.Event { e.RunID, e.Assistant = "r1", "writer"; return e }
	tests := []struct {
		name  string
		event callback.Event
		want  string
	}{
		{"model request", a(callback.Event{Kind: callback.ModelRequest, Model: "fast", Attempt: 2}), "writer: asking fast"},
		{"model response", a(callback.Event{Kind: callback.ModelResponse, Model: "fast", Usage: usage.Usage{InputTokens: 90, OutputTokens: 10}}), "writer: fast answered: 100 tokens (100 so far)"},
		{"model error", a(callback.Event{Kind: callback.ModelError, Model: "deep", Err: errors.New("HTTP 503")}), "writer: deep failed: HTTP 503"},
		{"fallback", a(callback.Event{Kind: callback.ModelFallback, Model: "deep", Err: errors.New("HTTP 503")}), "writer: trying the next model after deep"},
		{"tool start, without its arguments", a(callback.Event{Kind: callback.ToolStart, Tool: "search", Args: `{"q":"private"}`}), "writer: running search"},
		{"tool end, without its result", a(callback.Event{Kind: callback.ToolEnd, Tool: "search", Result: "private"}), "writer: search returned"},
		{"tool error on one line", a(callback.Event{Kind: callback.ToolError, Tool: "search", Err: errors.New("bad query\n\tdetail")}), "writer: search failed: bad query detail"},
		{"output correction", a(callback.Event{Kind: callback.OutputCorrection, Err: errors.New("missing field city")}), "writer: answer not usable, asking again: missing field city"},
		{"output fallback", a(callback.Event{Kind: callback.OutputFallback, Model: "claude", Err: errors.New("recursive schema")}), "writer: claude did not take the output schema, asking with a tool: recursive schema"},
		{"run end, without the answer", a(callback.Event{Kind: callback.RunEnd, Result: "private"}), "writer: done"},
		{"run error", a(callback.Event{Kind: callback.RunError, Err: context.Canceled}), "writer: failed: context canceled"},
		{"long error cut", a(callback.Event{Kind: callback.RunError, Err: errors.New(strings.Repeat("é", 300))}), "writer: failed: " + strings.Repeat("é", 200) + "…"},
		{"error of the longest length whole", a(callback.Event{Kind: callback.RunError, Err: errors.New(strings.Repeat("é", 200))}), "writer: failed: " + strings.Repeat("é", 200)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := progressOf(a(callback.Event{Kind: callback.RunStart}), tt.event)
			if diff := cmp.Diff([]string{"writer: started", tt.want}, got); diff != "" {
				t.Errorf("lines (-want +got):\n%s", diff)
			}
		})
	}
}

func TestProgressSkipsUnknownKinds(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	callback.NewProgress(&buf).Handle(context.Background(), callback.Event{Kind: "custom", Assistant: "writer"})
	if buf.Len() != 0 {
		t.Errorf("wrote %q for an unknown kind", buf.String())
	}
}

// Delegated runs are indented under their caller, at any depth; a run whose caller the
// handler never saw is written as a top run.
func TestProgressIndentsDelegatedRuns(t *testing.T) {
	t.Parallel()
	got := progressOf(
		callback.Event{Kind: callback.RunStart, RunID: "a", Assistant: "boss"},
		callback.Event{Kind: callback.RunStart, RunID: "b", ParentRunID: "a", Assistant: "lead"},
		callback.Event{Kind: callback.RunStart, RunID: "c", ParentRunID: "b", Assistant: "worker"},
		callback.Event{Kind: callback.ModelResponse, RunID: "c", Assistant: "worker", Model: "m", Usage: usage.Usage{OutputTokens: 5}},
		callback.Event{Kind: callback.RunEnd, RunID: "c", Assistant: "worker"},
		callback.Event{Kind: callback.ModelResponse, RunID: "b", Assistant: "lead", Model: "m", Usage: usage.Usage{OutputTokens: 7}},
		callback.Event{Kind: callback.RunEnd, RunID: "b", Assistant: "lead"},
		callback.Event{Kind: callback.RunEnd, RunID: "a", Assistant: "boss"},
		callback.Event{Kind: callback.RunStart, RunID: "x", ParentRunID: "unseen", Assistant: "orphan"},
	)
	want := []string{
		"boss: started",
		"  lead: started, for boss",
		"    worker: started, for lead",
		"    worker: m answered: 5 tokens (5 so far)",
		"    worker: done",
		"  lead: m answered: 7 tokens (12 so far)",
		"  lead: done",
		"boss: done",
		"orphan: started",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("lines (-want +got):\n%s", diff)
	}
}

// Runs in parallel write whole lines, and the count so far adds every response once.
func TestProgressConcurrentRuns(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	h := callback.NewProgress(&buf)
	const runs, responses = 20, 10
	var wg sync.WaitGroup
	for i := range runs {
		wg.Go(func() {
			id, name := fmt.Sprint("r", i), fmt.Sprint("a", i)
			h.Handle(context.Background(), callback.Event{Kind: callback.RunStart, RunID: id, Assistant: name})
			for range responses {
				h.Handle(context.Background(), callback.Event{Kind: callback.ModelResponse, RunID: id, Assistant: name, Model: "m",
					Usage: usage.Usage{InputTokens: 2, OutputTokens: 1}})
			}
			h.Handle(context.Background(), callback.Event{Kind: callback.RunEnd, RunID: id, Assistant: name})
		})
	}
	wg.Wait()
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	if len(lines) != runs*(responses+2) {
		t.Fatalf("%d lines, want %d", len(lines), runs*(responses+2))
	}
	total := fmt.Sprintf("(%d so far)", runs*responses*3)
	found := false
	for _, l := range lines {
		if !strings.HasPrefix(l, "a") || strings.Count(l, ":") < 1 {
			t.Errorf("a mixed line: %q", l)
		}
		found = found || strings.HasSuffix(l, total)
	}
	if !found {
		t.Errorf("no line counts all %d tokens %s:\n%s", runs*responses*3, total, buf.String())
	}
}

func TestNewProgressNilWriterPanics(t *testing.T) {
	t.Parallel()
	defer func() {
		if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "os.Stderr") {
			t.Errorf("NewProgress(nil) panicked with %v, want a message saying what to pass", r)
		}
	}()
	callback.NewProgress(nil)
}
