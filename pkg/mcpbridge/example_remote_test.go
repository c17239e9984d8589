package mcpbridge_test

import (
	"context"
	"fmt"
	"log"

	"github.com/cadrehq/cadre/pkg/assistant"
	"github.com/cadrehq/cadre/pkg/llmtest"
	"github.com/cadrehq/cadre/pkg/mcpbridge"
	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// An assistant uses the tools of an MCP server over a connection the bridge keeps: each run
// has the server's tools as they are when it starts.
func ExampleConnect() {
	// The server: in the process here; over stdio or HTTP, dial makes that client instead.
	s := server.NewMCPServer("weather", "1.0.0", server.WithToolCapabilities(true))
	s.AddTool(mcp.NewTool("forecast", mcp.WithDescription("Tomorrow's weather in a city."), mcp.WithString("city", mcp.Required())),
		func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText("Sunny in " + req.GetString("city", "") + "."), nil
		})

	ctx := context.Background()
	weather, err := mcpbridge.Connect(ctx, func(context.Context) (*client.Client, error) {
		return client.NewInProcessClient(s)
	}, mcpbridge.WithPrefix("weather_"))
	if err != nil {
		log.Fatal(err)
	}
	defer weather.Close()

	// The model calls the tool, then answers with what it said.
	model := llmtest.NewFunc(func(_ context.Context, req llmtest.Request) llmtest.Reply {
		if out, ok := toolResult(req); ok {
			return llmtest.Text(out)
		}
		return llmtest.Calls(llmtest.Call("weather_forecast", `{"city":"Oslo"}`))
	})
	forecaster := assistant.New[string]("forecaster", assistant.WithModel(model), assistant.WithToolSet(weather))
	res, err := forecaster.Run(ctx, assistant.Input{Prompt: "Will it rain in Oslo tomorrow?"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Output)
	// Output:
	// Sunny in Oslo.
}
