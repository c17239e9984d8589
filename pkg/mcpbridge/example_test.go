package mcpbridge_test

import (
	"context"
	"fmt"
	"log"
	"strings"

	"github.com/cadrehq/cadre/pkg/assistant"
	"github.com/cadrehq/cadre/pkg/llmtest"
	"github.com/cadrehq/cadre/pkg/mcpbridge"
	"github.com/cadrehq/cadre/pkg/tool"
	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/tmc/langchaingo/llms"
)

type Weather struct {
	City  string `json:"city"`
	HighC int    `json:"high_c"`
}

// Serve an assistant as a prompt and a tool as a tool, then use them as an MCP client would.
// A real program serves s with server.ServeStdio(s) or server.NewStreamableHTTPServer(s).
func Example() {
	weather := tool.Func("weather", "Today's weather in a city.", func(_ context.Context, in struct {
		City string `json:"city"`
	}) (Weather, error) {
		return Weather{City: in.City, HighC: 21}, nil
	})
	model := llmtest.NewFunc(func(context.Context, llmtest.Request) llmtest.Reply {
		return llmtest.Text("Pack a light jacket.")
	})
	packer := assistant.New[string]("packer", assistant.WithModel(model), assistant.WithDescription("Says what to pack."))

	s := server.NewMCPServer("travel", "1.0.0")
	if err := mcpbridge.AddPrompt(s, packer); err != nil {
		log.Fatal(err)
	}
	if err := mcpbridge.AddTool(s, weather); err != nil {
		log.Fatal(err)
	}

	ctx := context.Background()
	c, _ := client.NewInProcessClient(s)
	defer c.Close()
	if err := c.Start(ctx); err != nil {
		log.Fatal(err)
	}
	if _, err := c.Initialize(ctx, mcp.InitializeRequest{}); err != nil {
		log.Fatal(err)
	}

	var get mcp.GetPromptRequest
	get.Params.Name = "packer"
	get.Params.Arguments = map[string]string{"input": "What should I pack for Oslo?"}
	prompt, err := c.GetPrompt(ctx, get)
	if err != nil {
		log.Fatal(err)
	}
	for _, m := range prompt.Messages {
		fmt.Printf("%s: %s\n", m.Role, m.Content.(mcp.TextContent).Text)
	}

	var call mcp.CallToolRequest
	call.Params.Name = "weather"
	call.Params.Arguments = map[string]any{"city": "Oslo"}
	res, err := c.CallTool(ctx, call)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("structured:", string(res.RawStructuredContent))

	call.Params.Arguments = map[string]any{"town": "Oslo"}
	res, _ = c.CallTool(ctx, call)
	fmt.Println("isError:", res.IsError)
	fmt.Println(res.Content[0].(mcp.TextContent).Text)
	// Output:
	// user: What should I pack for Oslo?
	// assistant: Pack a light jacket.
	// structured: {"city":"Oslo","high_c":21}
	// isError: true
	// invalid arguments for tool "weather" (see its input schema):
	// (root): missing required property "city"
	// (root): property "town" is not allowed
}

// Give an assistant the tools of an MCP server. Here the server runs in the process; a real
// program connects to one with client.NewStdioMCPClient or client.NewStreamableHttpClient.
func ExampleTools() {
	s := server.NewMCPServer("files", "1.0.0")
	s.AddTool(mcp.NewTool("files.count", mcp.WithDescription("Counts the files.")),
		func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText("42 files"), nil
		})

	ctx := context.Background()
	c, _ := client.NewInProcessClient(s)
	defer c.Close()
	if err := c.Start(ctx); err != nil {
		log.Fatal(err)
	}
	if _, err := c.Initialize(ctx, mcp.InitializeRequest{}); err != nil {
		log.Fatal(err)
	}

	tools, err := mcpbridge.Tools(ctx, c, mcpbridge.WithPrefix("local_"))
	if err != nil {
		log.Fatal(err)
	}
	for _, t := range tools {
		fmt.Println(t.Name(), "-", t.Description())
	}

	// The model calls the tool, then answers with what it said.
	model := llmtest.NewFunc(func(_ context.Context, req llmtest.Request) llmtest.Reply {
		last := req.Messages[len(req.Messages)-1]
		if r, ok := last.Parts[0].(llms.ToolCallResponse); ok {
			return llmtest.Text("There are " + strings.TrimSuffix(r.Content, " files") + " files.")
		}
		return llmtest.Calls(llmtest.Call("local_files_count", `{}`))
	})
	counter := assistant.New[string]("counter", assistant.WithModel(model), assistant.WithTools(tools...))
	res, err := counter.Run(ctx, assistant.Input{Prompt: "How many files are there?"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Output)
	// Output:
	// local_files_count - Counts the files.
	// There are 42 files.
}
