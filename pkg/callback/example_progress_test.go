package callback_test

import (
	"context"
	"errors"
	"os"

	"github.com/cadrehq/cadre/pkg/callback"
	"github.com/cadrehq/cadre/pkg/usage"
)

func ExampleNewProgress() {
	// A program writes progress to os.Stderr, beside its answer on os.Stdout; this example
	// writes to os.Stdout so that its output can be checked.
	h := callback.NewProgress(os.Stdout)

	// A supervisor delegating to a researcher emits events like these (assistants send them;
	// this example sends them itself). The researcher's run names the supervisor's as its parent.
	ctx := context.Background()
	for _, e := range []callback.Event{
		{Kind: callback.RunStart, RunID: "r1", Assistant: "supervisor"},
		{Kind: callback.ModelRequest, RunID: "r1", Assistant: "supervisor", Model: "deep"},
		{Kind: callback.ModelResponse, RunID: "r1", Assistant: "supervisor", Model: "deep", Usage: usage.Usage{InputTokens: 812, OutputTokens: 64}},
		{Kind: callback.ToolStart, RunID: "r1", Assistant: "supervisor", Tool: "researcher"},
		{Kind: callback.RunStart, RunID: "r2", ParentRunID: "r1", Assistant: "researcher"},
		{Kind: callback.ToolStart, RunID: "r2", Assistant: "researcher", Tool: "search"},
		{Kind: callback.ToolError, RunID: "r2", Assistant: "researcher", Tool: "search", Err: errors.New("the search index is offline")},
		{Kind: callback.ModelResponse, RunID: "r2", Assistant: "researcher", Model: "fast", Usage: usage.Usage{InputTokens: 356, OutputTokens: 21}},
		{Kind: callback.RunEnd, RunID: "r2", Assistant: "researcher"},
		{Kind: callback.ToolEnd, RunID: "r1", Assistant: "supervisor", Tool: "researcher"},
		{Kind: callback.ModelResponse, RunID: "r1", Assistant: "supervisor", Model: "deep", Usage: usage.Usage{InputTokens: 1287, OutputTokens: 236}},
		{Kind: callback.RunEnd, RunID: "r1", Assistant: "supervisor"},
	} {
		h.Handle(ctx, e)
	}
	// Output:
	// supervisor: started
	// supervisor: asking deep
	// supervisor: deep answered: 876 tokens (876 so far)
	// supervisor: running researcher
	//   researcher: started, for supervisor
	//   researcher: running search
	//   researcher: search failed: the search index is offline
	//   researcher: fast answered: 377 tokens (1253 so far)
	//   researcher: done
	// supervisor: researcher returned
	// supervisor: deep answered: 1523 tokens (2776 so far)
	// supervisor: done
}
