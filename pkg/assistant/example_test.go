package assistant_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/cadrehq/cadre/pkg/assistant"
	"github.com/cadrehq/cadre/pkg/llmtest"
	"github.com/cadrehq/cadre/pkg/tool"
	"github.com/cadrehq/cadre/pkg/usage"
	"github.com/tmc/langchaingo/llms"
)

// Forecast is what the forecaster answers with.
type Forecast struct {
	City    string `json:"city" jsonschema:"description=The city the forecast is for"`
	Summary string `json:"summary" jsonschema:"description=The weather in a few words"`
}

// A typed assistant with one tool. The scripted model stands in for a real one: it first
// calls the tool, then gives its answer through the final_result tool.
func Example() {
	weather := tool.Func("weather", "Says the weather in a city.",
		func(_ context.Context, in struct {
			City string `json:"city"`
		}) (string, error) {
			return "light rain, 12°C in " + in.City, nil
		})

	m := llmtest.NewScripted(
		llmtest.Reply{
			ToolCalls: []llms.ToolCall{llmtest.Call("weather", `{"city":"Oslo"}`)},
			Usage:     usage.Usage{InputTokens: 120, OutputTokens: 15},
		},
		llmtest.Reply{
			ToolCalls: []llms.ToolCall{llmtest.Call("final_result", `{"city":"Oslo","summary":"Light rain, 12°C"}`)},
			Usage:     usage.Usage{InputTokens: 160, OutputTokens: 20},
		},
	)

	forecaster := assistant.New[Forecast]("forecaster",
		assistant.WithInstructions("You give short weather forecasts for {{.audience}}."),
		assistant.WithVars(map[string]any{"audience": "hikers"}),
		assistant.WithModel(m),
		assistant.WithTools(weather),
	)

	res, err := forecaster.Run(context.Background(), assistant.Input{Prompt: "Will it rain in Oslo?"})
	if err != nil {
		fmt.Println("error:", err)
		return
	}
	fmt.Printf("%s: %s\n", res.Output.City, res.Output.Summary)
	total := res.Usage.Total
	fmt.Printf("requests=%d tool_calls=%d input_tokens=%d output_tokens=%d\n",
		total.Requests, total.ToolCalls, total.InputTokens, total.OutputTokens)
	// Output:
	// Oslo: Light rain, 12°C
	// requests=2 tool_calls=1 input_tokens=280 output_tokens=35
}

// A guard: a tool-call middleware that refuses, by policy, every call of a tool whose name
// starts with "delete_". The model is told why, and goes on without it.
func ExampleWithMiddleware() {
	var deleted []string
	deleteFile := tool.Func("delete_file", "Deletes a file.", func(_ context.Context, in struct {
		Path string `json:"path"`
	}) (string, error) {
		deleted = append(deleted, in.Path)
		return "deleted", nil
	})
	guard := assistant.Middleware{
		ToolCall: func(ctx context.Context, call assistant.ToolCall, next assistant.ToolCallNext) (string, error) {
			if strings.HasPrefix(call.Tool, "delete_") {
				return "", fmt.Errorf("refused by policy: %s cannot be called here", call.Tool)
			}
			return next(ctx, call)
		},
	}
	m := llmtest.NewScripted(
		llmtest.Calls(llmtest.Call("delete_file", `{"path":"/etc/hosts"}`)),
		llmtest.Text("I was not allowed to delete it."),
	)
	janitor := assistant.New[string]("janitor",
		assistant.WithModel(m),
		assistant.WithTools(deleteFile),
		assistant.WithMiddleware(guard),
	)
	res, err := janitor.Run(context.Background(), assistant.Input{Prompt: "Delete /etc/hosts."})
	if err != nil {
		fmt.Println("error:", err)
		return
	}
	fmt.Println("the model was told:", res.Messages[2].Parts[0].(llms.ToolCallResponse).Content)
	fmt.Println("deleted:", len(deleted))
	fmt.Println("answer:", res.Output)
	// Output:
	// the model was told: error: refused by policy: delete_file cannot be called here
	// deleted: 0
	// answer: I was not allowed to delete it.
}
