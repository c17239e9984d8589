package mcpbridge_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"

	"github.com/cadrehq/cadre/pkg/assistant"
	"github.com/cadrehq/cadre/pkg/chat"
	"github.com/cadrehq/cadre/pkg/llmtest"
	"github.com/cadrehq/cadre/pkg/mcpbridge"
	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/tmc/langchaingo/llms"
)

// account is who an HTTP request was authenticated as.
type account struct{ tenant, user string }

type accountKey struct{}

// Continue chats over streamable HTTP, each caller in their own: the HTTP layer authenticates
// a request and puts the account in its context (server.WithHTTPContextFunc), and
// WithIdentity reads it back for every prompt get with a chat_id.
func ExampleWithIdentity() {
	// A real server checks a signed token or a session here (mcpauth.Authorizer.Protect checks
	// an OAuth access token, and mcpauth.ClaimIdentity reads who it names).
	tokens := map[string]account{"Bearer t-ana": {"acme", "ana"}, "Bearer t-bo": {"globex", "bo"}}
	authenticate := func(ctx context.Context, r *http.Request) context.Context {
		if a, ok := tokens[r.Header.Get("Authorization")]; ok {
			return context.WithValue(ctx, accountKey{}, a)
		}
		return ctx
	}
	identity := func(ctx context.Context) (tenant, user string, err error) {
		a, ok := ctx.Value(accountKey{}).(account)
		if !ok {
			return "", "", errors.New("sign in to continue a chat")
		}
		return a.tenant, a.user, nil
	}

	// The model says how many questions it has seen in the chat.
	model := llmtest.NewFunc(func(_ context.Context, req llmtest.Request) llmtest.Reply {
		n := 0
		for _, m := range req.Messages {
			if m.Role == llms.ChatMessageTypeHuman {
				n++
			}
		}
		return llmtest.Text(fmt.Sprintf("That is question %d of this chat.", n))
	}).NoRecord()
	counter := assistant.New[string]("counter", assistant.WithModel(model), assistant.WithStore(chat.NewMemory()))

	s := server.NewMCPServer("counter", "1.0.0")
	if err := mcpbridge.AddPrompt(s, counter, mcpbridge.WithIdentity(identity)); err != nil {
		log.Fatal(err)
	}
	web := httptest.NewServer(server.NewStreamableHTTPServer(s, server.WithHTTPContextFunc(authenticate)))
	defer web.Close()

	ask := func(token, chatID string) {
		ctx := context.Background()
		c, err := client.NewStreamableHttpClient(web.URL, transport.WithHTTPHeaders(map[string]string{"Authorization": token}))
		if err != nil {
			log.Fatal(err)
		}
		defer c.Close()
		if err := c.Start(ctx); err != nil {
			log.Fatal(err)
		}
		if _, err := c.Initialize(ctx, mcp.InitializeRequest{}); err != nil {
			log.Fatal(err)
		}
		var get mcp.GetPromptRequest
		get.Params.Name = "counter"
		get.Params.Arguments = map[string]string{"input": "Hello?", "chat_id": chatID}
		res, err := c.GetPrompt(ctx, get)
		if err != nil {
			// mcp-go labels the error of any failed get "internal error" (JSON-RPC -32603).
			fmt.Printf("%s: %v\n", token, err)
			return
		}
		fmt.Printf("%s: %s\n", token, res.Messages[1].Content.(mcp.TextContent).Text)
	}
	ask("Bearer t-ana", "trip")
	ask("Bearer t-ana", "trip")
	ask("Bearer t-bo", "trip") // the same chat_id, another tenant: another chat
	ask("Bearer forged", "trip")
	// Output:
	// Bearer t-ana: That is question 1 of this chat.
	// Bearer t-ana: That is question 2 of this chat.
	// Bearer t-bo: That is question 1 of this chat.
	// Bearer forged: internal error: prompt "counter": the caller is not identified (sign in to continue a chat), so chat "trip" cannot be continued: leave out "chat_id" to ask without a chat
}
