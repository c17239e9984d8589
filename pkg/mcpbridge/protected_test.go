package mcpbridge_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/cadrehq/cadre/internal/oauthtest"
	"github.com/cadrehq/cadre/pkg/chat"
	"github.com/cadrehq/cadre/pkg/mcpauth"
	"github.com/cadrehq/cadre/pkg/mcpbridge"
	"github.com/cadrehq/cadre/pkg/tool"
	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// Over streamable HTTP behind Protect, mcp-go's client with a token reaches the prompts and
// tools, each caller in the chats of the tenant and the user of their token whatever chat_id
// they send; without a token it is told where the metadata is, and nothing runs.
func TestProtectedServerOverStreamableHTTP(t *testing.T) {
	t.Parallel()
	iss, mux, endpoint, a := protectedEndpoint(t)

	s := newServer()
	ra, _ := rememberer(chat.NewMemory())
	if err := mcpbridge.AddPrompt(s, ra, mcpbridge.WithIdentity(mcpauth.ClaimIdentity("tenant", "sub"))); err != nil {
		t.Fatal(err)
	}
	var calls atomic.Int32
	ping := tool.Func("ping", "Answers pong.", func(context.Context, struct{}) (string, error) {
		calls.Add(1)
		return "pong", nil
	})
	if err := mcpbridge.AddTool(s, ping); err != nil {
		t.Fatal(err)
	}
	mux.Handle("/mcp", a.Protect(server.NewStreamableHTTPServer(s)))
	mux.Handle(a.MetadataPath(), a.Metadata())

	connectWith := func(t *testing.T, headers map[string]string) (*client.Client, error) {
		t.Helper()
		c, err := client.NewStreamableHttpClient(endpoint, transport.WithHTTPHeaders(headers))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = c.Close() })
		ctx := testContext(t)
		if err := c.Start(ctx); err != nil {
			return nil, err
		}
		_, err = c.Initialize(ctx, mcp.InitializeRequest{})
		return c, err
	}
	signedIn := func(tenant, user string) *client.Client {
		t.Helper()
		c, err := connectWith(t, map[string]string{"Authorization": "Bearer " + iss.Token(t, endpoint, user, map[string]any{"tenant": tenant})})
		if err != nil {
			t.Fatal(err)
		}
		return c
	}

	ana, bo := signedIn("acme", "ana"), signedIn("globex", "bo")
	for _, step := range []struct {
		c    *client.Client
		who  string
		want string
	}{
		{ana, "ana", "(0 earlier)"},
		{ana, "ana", "(1 earlier)"},
		{bo, "bo, naming ana's chat_id", "(0 earlier)"},
		{signedIn("acme", "ana"), "ana, connecting again", "(2 earlier)"},
		{signedIn("globex", "ana"), "another tenant's ana", "(0 earlier)"},
	} {
		got := answer(t, testContext(t), step.c, "rememberer", map[string]string{"input": "Hello", "chat_id": "trip"})
		if !strings.HasSuffix(got, step.want) {
			t.Errorf("%s: %q, want it to end %q", step.who, got, step.want)
		}
	}
	if res := callTool(t, ana, "ping", `{}`); textOf(res) != "pong" || calls.Load() != 1 {
		t.Errorf("ping: %q, %d calls", textOf(res), calls.Load())
	}

	// A valid token without the tenant claim: the tool runs, the chat does not.
	noTenant, err := connectWith(t, map[string]string{"Authorization": "Bearer " + iss.Token(t, endpoint, "ana", nil)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := getPrompt(t, noTenant, "rememberer", map[string]string{"input": "Hello", "chat_id": "trip"}); err == nil || !strings.Contains(err.Error(), `no claim "tenant"`) {
		t.Errorf("a get without the tenant claim: %v, want it refused", err)
	}

	// Without a token, or with one for another resource, the client is told where to look.
	for name, headers := range map[string]map[string]string{
		"no token":         nil,
		"another resource": {"Authorization": "Bearer " + iss.Token(t, "https://other.example.com/mcp", "ana", map[string]any{"tenant": "acme"})},
	} {
		_, err := connectWith(t, headers)
		var authErr *transport.AuthorizationRequiredError
		if !errors.As(err, &authErr) || authErr.ResourceMetadataURL != a.MetadataURL() {
			t.Errorf("%s: %v, want an AuthorizationRequiredError naming %s", name, err, a.MetadataURL())
		}
	}
	if calls.Load() != 1 {
		t.Errorf("ping ran %d times, want once", calls.Load())
	}

	// The metadata the challenge points to.
	resp, err := http.Get(a.MetadataURL())
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var md struct {
		Resource             string   `json:"resource"`
		AuthorizationServers []string `json:"authorization_servers"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&md); err != nil || md.Resource != endpoint || len(md.AuthorizationServers) != 1 || md.AuthorizationServers[0] != iss.URL {
		t.Errorf("metadata %+v, %v", md, err)
	}
}

// A caller whose token lacks a claim that names them is told, by a get that gives a chat_id,
// that they are not identified, which claim of their token is wanted and what it is for, and
// how to ask without a chat; the agent does not run. The same caller's tools run.
func TestUnidentifiedCallerIsToldWhy(t *testing.T) {
	t.Parallel()
	iss, mux, endpoint, a := protectedEndpoint(t)
	s := newServer()
	var log errorLog
	agent := &chatTeller{}
	if err := mcpbridge.AddPrompt(s, agent, mcpbridge.WithIdentity(mcpauth.ClaimIdentity("tenant", "sub")), mcpbridge.WithErrorHandler(log.handle)); err != nil {
		t.Fatal(err)
	}
	ping := tool.Func("ping", "Answers pong.", func(context.Context, struct{}) (string, error) { return "pong", nil })
	if err := mcpbridge.AddTool(s, ping); err != nil {
		t.Fatal(err)
	}
	mux.Handle("/mcp", a.Protect(server.NewStreamableHTTPServer(s)))

	const leaveOut = `, so chat "trip" cannot be continued: leave out "chat_id" to ask without a chat`
	for _, tc := range []struct {
		name   string
		claims map[string]any // beside sub "ana"
		want   string         // what the client is told, after the label of mcp-go's error code
	}{
		{"no tenant", nil,
			`prompt "teller": the caller is not identified (the bearer token has no claim "tenant", which names the caller's tenant)` + leaveOut},
		{"an empty tenant", map[string]any{"tenant": ""},
			`prompt "teller": the caller is not identified (the bearer token has no claim "tenant", which names the caller's tenant: it is empty)` + leaveOut},
		{"a tenant that is a number", map[string]any{"tenant": 7},
			`prompt "teller": the caller is not identified (the bearer token has no claim "tenant", which names the caller's tenant: it is a number, not a string)` + leaveOut},
		{"a null user", map[string]any{"tenant": "acme", "sub": nil},
			`prompt "teller": the caller is not identified (the bearer token has no claim "sub", which names the caller)` + leaveOut},
	} {
		t.Run(tc.name, func(t *testing.T) {
			hc, err := client.NewStreamableHttpClient(endpoint, transport.WithHTTPHeaders(map[string]string{
				"Authorization": "Bearer " + iss.Token(t, endpoint, "ana", tc.claims),
			}))
			if err != nil {
				t.Fatal(err)
			}
			c := initialize(t, hc)
			_, err = getPrompt(t, c, "teller", map[string]string{"input": "hi", "chat_id": "trip"})
			if err == nil || !strings.HasSuffix(err.Error(), ": "+tc.want) {
				t.Errorf("the client was told %v,\nwant %s", err, tc.want)
			}
			if _, herr := log.last(); herr == nil || herr.Error() != tc.want {
				t.Errorf("the error handler was told %v", herr)
			}
			if n := agent.calls.Load(); n != 0 {
				t.Errorf("the agent ran %d times", n)
			}
			if got := answer(t, testContext(t), c, "teller", map[string]string{"input": "hi"}); got != "no chat" {
				t.Errorf("without a chat_id: %q, want an answer in no chat", got)
			}
			agent.calls.Store(0)
			if res := callTool(t, c, "ping", `{}`); textOf(res) != "pong" {
				t.Errorf("ping: %q", textOf(res))
			}
		})
	}
}

// protectedEndpoint starts an issuer of key k1 and an HTTP server of mux, whose endpoint (its
// /mcp) a protects; they stop when the test ends.
func protectedEndpoint(t *testing.T) (*oauthtest.Issuer, *http.ServeMux, string, *mcpauth.Authorizer) {
	t.Helper()
	key := oauthtest.NewKey(t, "k1")
	iss := oauthtest.NewIssuer(t, key)
	mux := http.NewServeMux()
	web := httptest.NewServer(mux)
	t.Cleanup(web.Close)
	endpoint := web.URL + "/mcp"
	a, err := mcpauth.NewAuthorizer(t.Context(), endpoint, iss.URL)
	if err != nil {
		t.Fatal(err)
	}
	return iss, mux, endpoint, a
}
