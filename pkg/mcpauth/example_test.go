package mcpauth_test

import (
	"context"
	"log"
	"net/http"
	"os"
	"os/signal"

	"github.com/cadrehq/cadre/pkg/assistant"
	"github.com/cadrehq/cadre/pkg/mcpauth"
	"github.com/cadrehq/cadre/pkg/mcpbridge"
	"github.com/mark3labs/mcp-go/server"
)

// Serve an assistant over streamable HTTP to callers with an access token of the
// organisation's authorization server: Protect checks the token of every request at /mcp,
// Metadata tells clients where to get one, and ClaimIdentity files each caller's chats under
// the tenant and the user that their token names.
func ExampleNewAuthorizer() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	auth, err := mcpauth.NewAuthorizer(ctx, "https://mcp.example.com/mcp", "https://auth.example.com",
		mcpauth.WithRequiredScopes("chats"))
	if err != nil {
		log.Fatal(err)
	}

	var planner assistant.Agent // an assistant with a chat store
	s := server.NewMCPServer("travel", "1.0.0")
	if err := mcpbridge.AddPrompt(s, planner, mcpbridge.WithIdentity(mcpauth.ClaimIdentity("tenant", "sub"))); err != nil {
		log.Fatal(err)
	}

	mux := http.NewServeMux()
	mux.Handle("/mcp", auth.Protect(server.NewStreamableHTTPServer(s)))
	mux.Handle(auth.MetadataPath(), auth.Metadata())      // /.well-known/oauth-protected-resource/mcp
	log.Fatal(http.ListenAndServe("127.0.0.1:8080", mux)) // behind the proxy that serves https://mcp.example.com
}
