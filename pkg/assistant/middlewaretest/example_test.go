package middlewaretest_test

import (
	"context"
	"fmt"
	"log/slog"
	"strings"

	"github.com/cadrehq/cadre/pkg/assistant"
	"github.com/cadrehq/cadre/pkg/assistant/middlewaretest"
	"github.com/cadrehq/cadre/pkg/model"
)

// A middleware that logs each tool call keeps the contract.
func Example() {
	logged := assistant.Middleware{
		ToolCall: func(ctx context.Context, call assistant.ToolCall, next assistant.ToolCallNext) (string, error) {
			out, err := next(ctx, call)
			slog.DebugContext(ctx, "tool call", "tool", call.Tool, "err", err)
			return out, err
		},
	}
	fmt.Println(middlewaretest.Test(logged))
	// Output: <nil>
}

// A middleware that sends its requests with a context of its own loses the run's values and
// cancellation: Test reports it under the rule it breaks, once for each request.
func ExampleTest_violation() {
	detached := assistant.Middleware{
		Request: func(_ context.Context, req *assistant.ModelRequest, next assistant.RequestNext) (model.Reply, error) {
			return next(context.Background(), req)
		},
	}
	err := middlewaretest.Test(detached)
	first, _, _ := strings.Cut(err.Error(), "\n")
	fmt.Println(first)
	// Output: middlewaretest: ContextPassedOn, in the run "answer": the Request step of "kit"'s request 1 to model "kit-model": next was given a context that is not the step's, nor derived from it: the values the middleware was given are lost
}
