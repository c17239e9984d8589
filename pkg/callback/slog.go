package callback

import (
	"context"
	"log/slog"
	"strconv"
	"time"
	"unicode/utf8"
)

// A SlogOption configures [NewSlogHandler].
type SlogOption func(*slogHandler)

// WithContent makes the slog handler log the tool arguments (attribute "args") and the results
// and answers (attribute "result") of events, each cut to at most maxLen bytes, on a UTF-8
// boundary, followed by a note of its full length. A maxLen of zero or less logs them whole.
//
// They are left out by default because they may hold personal data.
func WithContent(maxLen int) SlogOption {
	return func(h *slogHandler) {
		h.content = true
		h.maxLen = maxLen
	}
}

// NewSlogHandler returns a [Handler] that logs each event to l as one record, at the event's
// Time, with the Kind as message, at these levels:
//
//   - Debug: ModelRequest, ModelResponse
//   - Info: RunStart, RunEnd, ToolStart, ToolEnd, and any unknown Kind
//   - Warn: OutputCorrection, OutputFallback, ModelFallback, and ToolError (the error goes back to the model
//     and the run goes on)
//   - Error: RunError, ModelError, and a ToolError caused by a panic
//
// Its attributes are those of the following that are not zero: run_id, parent_run_id,
// assistant, model, tool, call_id, attempt, duration, input_tokens, output_tokens, panic and
// error. Tool arguments and results are logged only with [WithContent].
//
// The returned Handler is safe for concurrent use when l's handler is, as slog requires.
// NewSlogHandler panics if l is nil; pass slog.Default() for the default logger.
func NewSlogHandler(l *slog.Logger, opts ...SlogOption) Handler {
	if l == nil {
		panic("callback.NewSlogHandler: nil *slog.Logger; pass slog.Default() to log to the default logger")
	}
	h := &slogHandler{h: l.Handler()}
	for _, o := range opts {
		o(h)
	}
	return h
}

type slogHandler struct {
	h       slog.Handler
	content bool
	maxLen  int
}

func (h *slogHandler) Handle(ctx context.Context, e Event) {
	level := eventLevel(e)
	if !h.h.Enabled(ctx, level) {
		return
	}
	t := e.Time
	if t.IsZero() {
		t = time.Now()
	}
	r := slog.NewRecord(t, level, string(e.Kind), 0)
	h.addAttrs(&r, e)
	// A Handler has no way to report an error, and slog.Logger drops them too.
	_ = h.h.Handle(ctx, r)
}

func eventLevel(e Event) slog.Level {
	if e.Panic {
		return slog.LevelError
	}
	switch e.Kind {
	case ModelRequest, ModelResponse:
		return slog.LevelDebug
	case OutputCorrection, OutputFallback, ModelFallback, ToolError:
		return slog.LevelWarn
	case RunError, ModelError:
		return slog.LevelError
	}
	return slog.LevelInfo
}

func (h *slogHandler) addAttrs(r *slog.Record, e Event) {
	str := func(key, v string) {
		if v != "" {
			r.AddAttrs(slog.String(key, v))
		}
	}
	num := func(key string, v int) {
		if v != 0 {
			r.AddAttrs(slog.Int(key, v))
		}
	}
	str("run_id", e.RunID)
	str("parent_run_id", e.ParentRunID)
	str("assistant", e.Assistant)
	str("model", e.Model)
	str("tool", e.Tool)
	str("call_id", e.CallID)
	num("attempt", e.Attempt)
	if e.Duration != 0 {
		r.AddAttrs(slog.Duration("duration", e.Duration))
	}
	num("input_tokens", e.Usage.InputTokens)
	num("output_tokens", e.Usage.OutputTokens)
	if e.Panic {
		r.AddAttrs(slog.Bool("panic", true))
	}
	if e.Err != nil {
		r.AddAttrs(slog.Any("error", e.Err))
	}
	if h.content {
		str("args", h.cut(e.Args))
		str("result", h.cut(e.Result))
	}
}

// cut shortens s to at most h.maxLen bytes, not splitting a UTF-8 sequence, and notes the
// length it had.
func (h *slogHandler) cut(s string) string {
	if h.maxLen <= 0 || len(s) <= h.maxLen {
		return s
	}
	n := h.maxLen
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "… (cut from " + strconv.Itoa(len(s)) + " bytes)"
}
