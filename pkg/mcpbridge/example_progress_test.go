package mcpbridge_test

import (
	"context"
	"fmt"
	"log"
	"net/http"

	"github.com/cadrehq/cadre/pkg/assistant"
	"github.com/cadrehq/cadre/pkg/llmtest"
	"github.com/cadrehq/cadre/pkg/mcpbridge"
	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// Serve an assistant as a tool that reports its progress: a client that gives a progress
// token receives a notification per step of the run (and of the runs it delegates to).
func ExampleReporting() {
	model := llmtest.NewFunc(func(context.Context, llmtest.Request) llmtest.Reply {
		return llmtest.Text("Pack a light jacket.")
	})
	packer := assistant.New[string]("packer", assistant.WithModel(model), assistant.WithDescription("Says what to pack."))

	s := server.NewMCPServer("travel", "1.0.0")
	if err := mcpbridge.AddTool(s, assistant.AsTool[string](mcpbridge.Reporting(packer))); err != nil {
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
	progress := make(chan string, 10)
	c.OnNotification(func(n mcp.JSONRPCNotification) {
		if n.Method == string(mcp.MethodNotificationProgress) {
			progress <- fmt.Sprintf("%v %v", n.Params.AdditionalFields["progress"], n.Params.AdditionalFields["message"])
		}
	})

	var call mcp.CallToolRequest
	call.Params.Name = "packer"
	call.Params.Arguments = map[string]any{"input": "Oslo in March?"}
	call.Params.Meta = &mcp.Meta{ProgressToken: "trip-1"}
	res, err := c.CallTool(ctx, call)
	if err != nil {
		log.Fatal(err)
	}
	for range 4 { // the run's steps: it starts, asks its model, has the answer, and is done
		fmt.Println(<-progress)
	}
	fmt.Println(res.Content[0].(mcp.TextContent).Text)
	// Output:
	// 1 packer: started
	// 2 packer: asking func
	// 3 packer: func answered: 0 tokens (0 so far)
	// 4 packer: done
	// Pack a light jacket.
}

// Serve streamable HTTP so that a client that ends its session (DELETE) ends the runs of its
// calls still in progress, and that no client can cancel another's.
func ExampleCancellationHandler() {
	s := server.NewMCPServer("travel", "1.0.0")
	mux := http.NewServeMux()
	mux.Handle("/mcp", mcpbridge.CancellationHandler(server.NewStreamableHTTPServer(s)))
	log.Fatal(http.ListenAndServe("127.0.0.1:8080", mux))
}
