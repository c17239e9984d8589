package durable

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/cadrehq/cadre/pkg/assistant"
	"github.com/cadrehq/cadre/pkg/model"
	"github.com/cadrehq/cadre/pkg/tool"
	"github.com/cadrehq/cadre/pkg/usage"
	"github.com/dbos-inc/dbos-transact-golang/dbos"
	"github.com/google/go-cmp/cmp"
	"github.com/tmc/langchaingo/llms"
)

// throughJSON records v and reads it back, as DBOS does for a recovery.
func throughJSON[T any](t *testing.T, v T) T {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out T
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestARecordedErrorAnswersAsTheError: an error read back from a record reads as it did, and
// errors.Is, errors.As and model.CanFallback answer for it as they did for the error itself —
// above all CanFallback, by which a replayed run falls back as the run did.
func TestARecordedErrorAnswersAsTheError(t *testing.T) {
	t.Parallel()
	overloaded := &model.ProviderError{Provider: "openai", Model: "deep", Status: 503, Message: "overloaded"}
	refused := &model.ProviderError{Provider: "openai", Model: "deep", Status: 400, Message: "bad request"}
	limit := &usage.LimitError{Limit: usage.LimitToolCalls, Max: 2, Used: 2, Agent: "researcher", RetryAfter: time.Second}
	for _, err := range []error{
		fmt.Errorf("model %q: %w", "deep", overloaded),
		refused,
		fmt.Errorf("sending: %w", context.Canceled),
		fmt.Errorf("canceled with a provider's error: %w", errors.Join(context.Canceled, overloaded)),
		context.DeadlineExceeded,
		&net.OpError{Op: "read", Net: "tcp", Err: os.ErrDeadlineExceeded},
		&net.OpError{Op: "dial", Net: "tcp", Err: errors.New("no route")},
		fmt.Errorf("post: %w", syscall.ECONNREFUSED),
		fmt.Errorf("post: %w", syscall.ECONNRESET),
		model.ErrEmptyResponse,
		fmt.Errorf("assistant %q: %w", "supervisor", limit),
		&assistant.ModelStopError{Assistant: "a", Model: "m", Reason: "max_tokens", Err: assistant.ErrTokenLimit},
		&assistant.ModelStopError{Assistant: "a", Model: "m", Reason: "refusal", Err: assistant.ErrRefusal},
		&assistant.ModelStopError{Assistant: "a", Model: "m", Reason: "stop", Err: assistant.ErrRefusal, Refusal: "I can't help with that."},
		// A schema the provider refused: the run asks the model again with a tool, and so must
		// its replay.
		fmt.Errorf("model %q: %w", "deep", &model.ProviderError{Provider: "openai", Model: "deep", Status: 400,
			Message: "Invalid schema for response_format 'city'", Err: model.ErrOutputSchema}),
		&assistant.OutputError{Assistant: "a", Raw: "{", Attempts: []error{errors.New("not JSON"), errors.New("still not JSON")}},
		fmt.Errorf("assistant %q: %w: 9 runs deep", "a", assistant.ErrDepthLimit),
		fmt.Errorf("a: %w", assistant.ErrNoModel),
		fmt.Errorf("chat: %w", assistant.ErrNotPaused),
		fmt.Errorf("%w: not JSON", tool.ErrInvalidArgs),
		fmt.Errorf("step: %w", dbos.ErrWorkflowIDInUse),
		errors.New("configuration"),
	} {
		t.Run(err.Error(), func(t *testing.T) {
			got := throughJSON(t, recordError(err)).rebuild()
			if got.Error() != err.Error() {
				t.Errorf("Error() = %q; want %q", got.Error(), err.Error())
			}
			if g, w := model.CanFallback(got), model.CanFallback(err); g != w {
				t.Errorf("CanFallback = %v; want %v", g, w)
			}
			for _, s := range sentinels {
				if g, w := errors.Is(got, s.err), errors.Is(err, s.err); g != w {
					t.Errorf("errors.Is(%v) = %v; want %v", s.err, g, w)
				}
			}
			if g, w := errors.Is(got, dbos.ErrWorkflowIDInUse), errors.Is(err, dbos.ErrWorkflowIDInUse); g != w {
				t.Errorf("errors.Is(dbos.ErrWorkflowIDInUse) = %v; want %v", g, w)
			}
			var gp, wp *model.ProviderError
			if errors.As(got, &gp) != errors.As(err, &wp) || wp != nil && *gp != *wp {
				t.Errorf("ProviderError = %+v; want %+v", gp, wp)
			}
			var gl, wl *usage.LimitError
			if errors.As(got, &gl) != errors.As(err, &wl) || wl != nil && *gl != *wl {
				t.Errorf("LimitError = %+v; want %+v", gl, wl)
			}
			var gs, ws *assistant.ModelStopError
			if errors.As(got, &gs) != errors.As(err, &ws) || ws != nil && (*gs != *ws) {
				t.Errorf("ModelStopError = %+v; want %+v", gs, ws)
			}
			var gout, wout *assistant.OutputError
			if errors.As(got, &gout) != errors.As(err, &wout) || wout != nil && gout.Error() != wout.Error() {
				t.Errorf("OutputError = %v; want %v", gout, wout)
			}
		})
	}
}

// TestARecordedReplyIsTheReply: a reply read back from its record is the reply, reasoning and
// all: the reasoning keeps its provider and its signature, without which Anthropic refuses the
// next request of the run.
func TestARecordedReplyIsTheReply(t *testing.T) {
	t.Parallel()
	want := model.Reply{
		Text:       "Let me look.",
		ToolCalls:  []llms.ToolCall{{ID: "call_1", Type: "function", FunctionCall: &llms.FunctionCall{Name: "weather", Arguments: `{"city":"Oslo"}`}}},
		StopReason: "tool_use",
		Usage:      usage.Usage{Requests: 1, InputTokens: 100, OutputTokens: 20, CacheReadTokens: 50, ReasoningTokens: 10},
		Reasoning: []model.Reasoning{
			{TextContent: llms.TextContent{Text: "The weather first."}, Provider: "anthropic", Signature: "sig"},
			{Provider: "anthropic", Redacted: "opaque"},
		},
	}
	got, err := throughJSON(t, replyToWire(want, nil)).reply()
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-reply +read back):\n%s", d)
	}

	// A refusal given apart from the text (OpenAI's) is the refusal again: the replayed run
	// ends refused, as the run did, instead of correcting an empty answer.
	refused := model.Reply{StopReason: "stop", Usage: usage.Usage{Requests: 1}, Refusal: "I can't help with that."}
	got, err = throughJSON(t, replyToWire(refused, nil)).reply()
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(refused, got); d != "" || got.Finish() != model.FinishRefusal {
		t.Errorf("(-reply +read back):\n%s", d)
	}
}

func TestContinuationIDs(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"order-1":    "order-1#2",
		"order-1#2":  "order-1#3",
		"order-1#9":  "order-1#10",
		"order#1":    "order#1#2",
		"a#b":        "a#b#2",
		"a#10#2":     "a#10#3",
		"":           "#2",
		"#2":         "#3", // the continuation of the run "" continues as any other
		"pay#-3":     "pay#-3#2",
		"order-1#02": "order-1#02#2",
	} {
		if got := ContinuationID(in); got != want {
			t.Errorf("ContinuationID(%q) = %q; want %q", in, got, want)
		}
	}
}

func TestPollInterval(t *testing.T) {
	t.Parallel()
	for d, want := range map[time.Duration]time.Duration{
		10 * time.Millisecond: 10 * time.Millisecond,
		time.Nanosecond:       time.Nanosecond,
		0:                     100 * time.Millisecond,
		-time.Second:          100 * time.Millisecond,
	} {
		e := &Engine{poll: 100 * time.Millisecond}
		WithPollInterval(d)(e)
		if e.poll != want {
			t.Errorf("WithPollInterval(%v): Await polls every %v, want %v", d, e.poll, want)
		}
	}
}
