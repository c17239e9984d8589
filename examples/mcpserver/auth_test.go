package main

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/cadrehq/cadre/internal/oauthtest"
	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// connectWith connects to the server at url with headers, and returns the client or the error
// of its connecting; the client is closed when the test ends.
func connectWith(t *testing.T, url string, headers map[string]string) (*client.Client, error) {
	t.Helper()
	c, err := client.NewStreamableHttpClient(url, transport.WithHTTPHeaders(headers))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	ctx := testContext(t)
	if err := c.Start(ctx); err != nil {
		return nil, err
	}
	var init mcp.InitializeRequest
	init.Params.ClientInfo = mcp.Implementation{Name: "mcpserver-test", Version: "1.0.0"}
	_, err = c.Initialize(ctx, init)
	return c, err
}

// With -issuer, a caller is who their token says, whatever headers they send: each tenant and
// user reaches their own chats only, and a request without a valid token runs nothing.
func TestHTTPWithAnIssuerTakesCallersFromTokens(t *testing.T) {
	t.Parallel()
	iss := oauthtest.NewIssuer(t, oauthtest.NewKey(t, "k1"))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var stderr lockedBuffer
	auth, err := authorize(t.Context(), settings{issuer: iss.URL}, ln.Addr(), &stderr)
	if err != nil {
		t.Fatal(err)
	}
	s, err := newServer(settings{}, &chatStores{}, io.Discard, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- serveHTTP(ctx, s, ln, auth, &stderr) }()
	url := "http://" + ln.Addr().String() + "/mcp"
	var tokens []string
	token := func(audience, tenant, user string) string {
		extra := map[string]any{}
		if tenant != "" {
			extra["tenant"] = tenant
		}
		tok := iss.Token(t, audience, user, extra)
		tokens = append(tokens, tok)
		return "Bearer " + tok
	}
	as := func(tenant, user string, headers map[string]string) *client.Client {
		t.Helper()
		h := map[string]string{"Authorization": token(url, tenant, user)}
		for k, v := range headers {
			h[k] = v
		}
		c, err := connectWith(t, url, h)
		if err != nil {
			t.Fatalf("%s/%s: %v", tenant, user, err)
		}
		return c
	}

	steps := []struct {
		c         *client.Client
		who, want string
	}{
		{as("acme", "ana", nil), "ana", ""},
		{as("acme", "ana", nil), "ana again", rememberOne},
		{as("globex", "bo", nil), "bo, naming ana's chat_id", ""},
		{as("globex", "bo", map[string]string{"X-Tenant": "acme", "X-User": "ana"}), "bo, with ana's headers", rememberOne}, // bo's own chat
		{as("acme", "ana", nil), "ana a third time", "(I remember 2 earlier questions.)"},
	}
	for _, st := range steps {
		checkMemory(t, st.who, ask(t, st.c, "guide", "What do I say in Rome?", "trip"), st.want)
	}

	// A session (of a protocol version before 2026-07-28, which has none) is its caller's:
	// another tenant's user of the same name, given the session's ID, cannot end it, and the
	// session goes on.
	hc, err := client.NewStreamableHttpClient(url, transport.WithHTTPHeaders(map[string]string{"Authorization": token(url, "acme", "ana")}))
	if err != nil {
		t.Fatal(err)
	}
	closed := false
	t.Cleanup(func() {
		if !closed {
			_ = hc.Close()
		}
	})
	if err := hc.Start(testContext(t)); err != nil {
		t.Fatal(err)
	}
	var init mcp.InitializeRequest
	init.Params.ProtocolVersion = mcp.LATEST_LEGACY_PROTOCOL_VERSION
	if _, err := hc.Initialize(testContext(t), init); err != nil || hc.GetSessionId() == "" {
		t.Fatalf("ana's session: %q, %v", hc.GetSessionId(), err)
	}
	end, err := http.NewRequestWithContext(testContext(t), http.MethodDelete, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	end.Header.Set("Authorization", token(url, "globex", "ana"))
	end.Header.Set("Mcp-Session-Id", hc.GetSessionId())
	end.Header.Set(mcp.HeaderProtocolVersion, mcp.LATEST_LEGACY_PROTOCOL_VERSION)
	resp, err := http.DefaultClient.Do(end)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("another tenant's ana ending ana's session: %s, want 404 Not Found", resp.Status)
	}
	checkMemory(t, "ana in her session", ask(t, hc, "guide", "What do I say in Rome?", "trip"), "(I remember 3 earlier questions.)")
	closed = true
	if err := hc.Close(); err != nil { // it ends its session, before the server stops
		t.Error(err)
	}

	// A token without the tenant claim reaches the tools and prompts, but no chat.
	noTenant := as("", "ana", nil)
	ask(t, noTenant, "guide", "What do I say in Rome?", "")
	var get mcp.GetPromptRequest
	get.Params.Name = "guide"
	get.Params.Arguments = map[string]string{"input": "What do I say in Rome?", "chat_id": "trip"}
	if _, err := noTenant.GetPrompt(testContext(t), get); err == nil || !strings.Contains(err.Error(), `no claim "tenant"`) {
		t.Errorf("a chat without the tenant claim: %v, want it refused", err)
	}

	// Without a valid token, the client is told where the metadata is.
	metadata := "http://" + ln.Addr().String() + "/.well-known/oauth-protected-resource/mcp"
	for name, headers := range map[string]map[string]string{
		"no token, the headers of a tenant": {"X-Tenant": "acme", "X-User": "ana"},
		"a token for another server":        {"Authorization": token("https://other.example.com/mcp", "acme", "ana")},
	} {
		_, err := connectWith(t, url, headers)
		var authErr *transport.AuthorizationRequiredError
		if !errors.As(err, &authErr) || authErr.ResourceMetadataURL != metadata {
			t.Errorf("%s: %v, want an AuthorizationRequiredError naming %s", name, err, metadata)
		}
	}

	// The metadata, where the challenge points and at the root.
	for _, path := range []string{"/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"} {
		var md struct {
			Resource             string   `json:"resource"`
			AuthorizationServers []string `json:"authorization_servers"`
		}
		getJSON(t, "http://"+ln.Addr().String()+path, &md)
		if md.Resource != url || len(md.AuthorizationServers) != 1 || md.AuthorizationServers[0] != iss.URL {
			t.Errorf("%s: %+v", path, md)
		}
	}

	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	logged := stderr.String()
	if !strings.Contains(logged, "callers need an access token of "+iss.URL+" for "+url) || !strings.Contains(logged, "refused POST /mcp from 127.0.0.1") {
		t.Errorf("stderr does not say what the server checks, or what it refused:\n%s", logged)
	}
	for _, tok := range tokens {
		if strings.Contains(logged, tok) {
			t.Errorf("stderr holds a token:\n%s", logged)
		}
	}
}

func getJSON(t *testing.T, url string, v any) {
	t.Helper()
	req, err := http.NewRequestWithContext(testContext(t), http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s", url, resp.Status)
	}
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
}

// Without -issuer, the server believes the headers, says so, and listens on loopback only.
func TestHTTPWithoutAnIssuerListensOnLoopbackOnly(t *testing.T) {
	t.Parallel()
	err := run(testContext(t), settings{http: "0.0.0.0:0"}, strings.NewReader(""), io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "refusing to serve on ") || !strings.Contains(err.Error(), "give -issuer") {
		t.Errorf("serving on every interface without -issuer: %v, want a refusal saying what to do", err)
	}

	var stderr strings.Builder
	auth, err := authorize(testContext(t), settings{}, &net.TCPAddr{IP: net.IPv6loopback, Port: 8080}, &stderr)
	if auth != nil || err != nil {
		t.Errorf("on loopback without -issuer: %v, %v; want no Authorizer", auth, err)
	}
	if !strings.Contains(stderr.String(), "the X-Tenant and X-User headers say who calls, and are believed only because no issuer is configured") {
		t.Errorf("stderr does not say the headers are believed: %q", stderr.String())
	}
}

func TestAudience(t *testing.T) {
	t.Parallel()
	iss := oauthtest.NewIssuer(t, oauthtest.NewKey(t, "k1"))
	everywhere := &net.TCPAddr{IP: net.IPv4zero, Port: 8080}
	_, err := authorize(t.Context(), settings{issuer: iss.URL}, everywhere, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "-audience gives the URL clients reach /mcp at") {
		t.Errorf("on every interface without -audience: %v, want an error pointing at -audience", err)
	}
	auth, err := authorize(t.Context(), settings{issuer: iss.URL, audience: "https://mcp.example.com/mcp"}, everywhere, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if want := "https://mcp.example.com/.well-known/oauth-protected-resource/mcp"; auth.MetadataURL() != want {
		t.Errorf("metadata at %s, want %s", auth.MetadataURL(), want)
	}
}
