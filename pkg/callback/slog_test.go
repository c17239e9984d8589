package callback_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cadrehq/cadre/pkg/callback"
	"github.com/cadrehq/cadre/pkg/usage"
	"github.com/google/go-cmp/cmp"
)

// logEvent logs e through a slog handler writing JSON at Debug level and returns the record
// decoded, without its time.
func logEvent(t *testing.T, e callback.Event, opts ...callback.SlogOption) map[string]any {
	t.Helper()
	var buf bytes.Buffer
	l := slog.New(slog.NewJSONHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	callback.NewSlogHandler(l, opts...).Handle(context.Background(), e)
	var rec map[string]any
	if err := json.Unmarshal(buf.Bytes(), &rec); err != nil {
		t.Fatalf("decoding log record %q: %v", buf.String(), err)
	}
	delete(rec, "time")
	return rec
}

func TestSlogHandlerRecords(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		event callback.Event
		opts  []callback.SlogOption
		want  map[string]any
	}{{
		name:  "run start: only non-zero attributes",
		event: callback.Event{Kind: callback.RunStart, RunID: "r1", Assistant: "writer"},
		want:  map[string]any{"level": "INFO", "msg": "run_start", "run_id": "r1", "assistant": "writer"},
	}, {
		name: "run end of a delegated run: tokens and duration, no content",
		event: callback.Event{
			Kind: callback.RunEnd, RunID: "r2", ParentRunID: "r1", Assistant: "researcher", Model: "fast",
			Result: "the answer", Duration: 2 * time.Second,
			Usage: usage.Usage{Requests: 2, InputTokens: 120, OutputTokens: 30, ReasoningTokens: 5},
		},
		want: map[string]any{
			"level": "INFO", "msg": "run_end", "run_id": "r2", "parent_run_id": "r1", "assistant": "researcher",
			"model": "fast", "duration": float64(2 * time.Second), "input_tokens": float64(120), "output_tokens": float64(30),
		},
	}, {
		name:  "model request is debug",
		event: callback.Event{Kind: callback.ModelRequest, RunID: "r1", Model: "fast", Attempt: 2},
		want:  map[string]any{"level": "DEBUG", "msg": "model_request", "run_id": "r1", "model": "fast", "attempt": float64(2)},
	}, {
		name:  "model response is debug",
		event: callback.Event{Kind: callback.ModelResponse, RunID: "r1", Usage: usage.Usage{OutputTokens: 7}},
		want:  map[string]any{"level": "DEBUG", "msg": "model_response", "run_id": "r1", "output_tokens": float64(7)},
	}, {
		name:  "output correction is a warning",
		event: callback.Event{Kind: callback.OutputCorrection, RunID: "r1", Err: errors.New("missing field")},
		want:  map[string]any{"level": "WARN", "msg": "output_correction", "run_id": "r1", "error": "missing field"},
	}, {
		name:  "output fallback is a warning",
		event: callback.Event{Kind: callback.OutputFallback, RunID: "r1", Model: "claude", Err: errors.New("recursive schema")},
		want:  map[string]any{"level": "WARN", "msg": "output_fallback", "run_id": "r1", "model": "claude", "error": "recursive schema"},
	}, {
		name:  "model error is an error",
		event: callback.Event{Kind: callback.ModelError, RunID: "r1", Model: "deep", Err: errors.New("503")},
		want:  map[string]any{"level": "ERROR", "msg": "model_error", "run_id": "r1", "model": "deep", "error": "503"},
	}, {
		name: "tool panic is an error; arguments and result left out by default",
		event: callback.Event{
			Kind: callback.ToolError, RunID: "r1", Tool: "search", CallID: "call_1", Panic: true,
			Result: "error: tool panicked", Err: errors.New("boom"),
		},
		want: map[string]any{
			"level": "ERROR", "msg": "tool_error", "run_id": "r1", "tool": "search", "call_id": "call_1",
			"panic": true, "error": "boom",
		},
	}, {
		name:  "run error is an error",
		event: callback.Event{Kind: callback.RunError, RunID: "r1", Err: context.Canceled},
		want:  map[string]any{"level": "ERROR", "msg": "run_error", "run_id": "r1", "error": "context canceled"},
	}, {
		name:  "tool start without content",
		event: callback.Event{Kind: callback.ToolStart, RunID: "r1", Tool: "search", CallID: "c", Args: `{"q":"secret"}`},
		want:  map[string]any{"level": "INFO", "msg": "tool_start", "run_id": "r1", "tool": "search", "call_id": "c"},
	}, {
		name:  "tool start with content",
		event: callback.Event{Kind: callback.ToolStart, Tool: "search", Args: `{"q":"go"}`},
		opts:  []callback.SlogOption{callback.WithContent(100)},
		want:  map[string]any{"level": "INFO", "msg": "tool_start", "tool": "search", "args": `{"q":"go"}`},
	}, {
		name:  "tool end with content cut",
		event: callback.Event{Kind: callback.ToolEnd, Tool: "search", Result: "abcdefghij"},
		opts:  []callback.SlogOption{callback.WithContent(4)},
		want:  map[string]any{"level": "INFO", "msg": "tool_end", "tool": "search", "result": "abcd… (cut from 10 bytes)"},
	}, {
		name:  "content cut on a UTF-8 boundary",
		event: callback.Event{Kind: callback.RunEnd, Result: "héllo"}, // é is two bytes: 1 and 2
		opts:  []callback.SlogOption{callback.WithContent(2)},
		want:  map[string]any{"level": "INFO", "msg": "run_end", "result": "h… (cut from 6 bytes)"},
	}, {
		name:  "content of maxLen bytes whole",
		event: callback.Event{Kind: callback.ToolEnd, Tool: "search", Result: "abcd"},
		opts:  []callback.SlogOption{callback.WithContent(4)},
		want:  map[string]any{"level": "INFO", "msg": "tool_end", "tool": "search", "result": "abcd"},
	}, {
		// A tool's result need not be UTF-8: with no character start to cut at, nothing is kept.
		name:  "content that is not UTF-8 cut",
		event: callback.Event{Kind: callback.ToolEnd, Tool: "bin", Result: "\x80\x80\x80\x80"},
		opts:  []callback.SlogOption{callback.WithContent(2)},
		want:  map[string]any{"level": "INFO", "msg": "tool_end", "tool": "bin", "result": "… (cut from 4 bytes)"},
	}, {
		name:  "content whole when maxLen is zero",
		event: callback.Event{Kind: callback.RunEnd, Result: strings.Repeat("x", 1000)},
		opts:  []callback.SlogOption{callback.WithContent(0)},
		want:  map[string]any{"level": "INFO", "msg": "run_end", "result": strings.Repeat("x", 1000)},
	}, {
		name:  "unknown kind is info",
		event: callback.Event{Kind: "custom"},
		want:  map[string]any{"level": "INFO", "msg": "custom"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := logEvent(t, tt.event, tt.opts...)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("log record (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSlogHandlerUsesEventTime(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	l := slog.New(slog.NewJSONHandler(&buf, nil))
	at := time.Date(2025, 3, 4, 5, 6, 7, 0, time.UTC)
	callback.NewSlogHandler(l).Handle(context.Background(), callback.Event{Kind: callback.RunStart, Time: at})
	var rec struct{ Time time.Time }
	if err := json.Unmarshal(buf.Bytes(), &rec); err != nil {
		t.Fatal(err)
	}
	if !rec.Time.Equal(at) {
		t.Errorf("record time = %v, want the event's %v", rec.Time, at)
	}
}

func TestSlogHandlerRespectsLevel(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	l := slog.New(slog.NewJSONHandler(&buf, &slog.HandlerOptions{Level: slog.LevelInfo}))
	h := callback.NewSlogHandler(l)
	h.Handle(context.Background(), callback.Event{Kind: callback.ModelRequest})
	h.Handle(context.Background(), callback.Event{Kind: callback.ModelResponse})
	if buf.Len() != 0 {
		t.Errorf("debug events logged at level info: %s", buf.String())
	}
}

func TestSlogHandlerConcurrent(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	h := callback.Multi(callback.NewSlogHandler(slog.New(slog.NewJSONHandler(&buf, nil))), nil)
	var wg sync.WaitGroup
	for range 20 {
		wg.Go(func() {
			h.Handle(context.Background(), callback.Event{Kind: callback.ToolEnd, Tool: "t", Duration: time.Millisecond})
		})
	}
	wg.Wait()
	if n := strings.Count(buf.String(), "\n"); n != 20 {
		t.Errorf("logged %d records, want 20", n)
	}
}

func TestNewSlogHandlerNilLoggerPanics(t *testing.T) {
	t.Parallel()
	defer func() {
		if recover() == nil {
			t.Error("NewSlogHandler(nil) did not panic")
		}
	}()
	callback.NewSlogHandler(nil)
}

func TestSlogHandlerToolErrorIsAWarning(t *testing.T) {
	got := logEvent(t, callback.Event{Kind: callback.ToolError, Tool: "search", Err: errors.New("index offline")})
	if got["level"] != "WARN" {
		t.Errorf("level = %v, want WARN: a tool error goes back to the model and the run goes on", got["level"])
	}
	got = logEvent(t, callback.Event{Kind: callback.ModelFallback, Model: "deep", Err: errors.New("HTTP 503")})
	if got["level"] != "WARN" {
		t.Errorf("fallback level = %v, want WARN", got["level"])
	}
}
