package callback_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/cadrehq/cadre/pkg/callback"
	"github.com/cadrehq/cadre/pkg/usage"
)

func Example() {
	// Log run events as text, without times so that the output is stable.
	logger := slog.New(slog.NewTextHandler(os.Stdout, &slog.HandlerOptions{
		ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey && len(groups) == 0 {
				return slog.Attr{}
			}
			return a
		},
	}))
	// Count failed tool calls beside the log.
	failed := 0
	countFailures := callback.HandlerFunc(func(_ context.Context, e callback.Event) {
		if e.Kind == callback.ToolError {
			failed++ // safe only because this example runs on one goroutine
		}
	})
	h := callback.Multi(callback.NewSlogHandler(logger), countFailures)

	// A run emits events like these (an assistant sends them; this example sends them itself).
	ctx := context.Background()
	h.Handle(ctx, callback.Event{Kind: callback.RunStart, RunID: "r1", Assistant: "writer"})
	h.Handle(ctx, callback.Event{Kind: callback.ToolError, RunID: "r1", Assistant: "writer",
		Tool: "search", CallID: "call_1", Duration: 40 * time.Millisecond, Err: errors.New("index offline")})
	h.Handle(ctx, callback.Event{Kind: callback.RunEnd, RunID: "r1", Assistant: "writer", Model: "fast",
		Duration: 1500 * time.Millisecond, Usage: usage.Usage{Requests: 2, InputTokens: 310, OutputTokens: 42}})

	fmt.Println("failed tool calls:", failed)
	// Output:
	// level=INFO msg=run_start run_id=r1 assistant=writer
	// level=WARN msg=tool_error run_id=r1 assistant=writer tool=search call_id=call_1 duration=40ms error="index offline"
	// level=INFO msg=run_end run_id=r1 assistant=writer model=fast duration=1.5s input_tokens=310 output_tokens=42
	// failed tool calls: 1
}
