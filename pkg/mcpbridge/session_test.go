package mcpbridge_test

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/cadrehq/cadre/pkg/assistant"
	"github.com/cadrehq/cadre/pkg/mcpbridge"
	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// A client that ends its session (DELETE) ends the runs of its calls in progress, and only
// those: another session's run goes on.
func TestSessionEndEndsItsRuns(t *testing.T) {
	t.Parallel()
	mine, theirs := newRunLog(), newRunLog()
	s := stuckServer(t, mine)
	if err := mcpbridge.AddTool(s, assistant.AsTool[question](mcpbridge.Reporting[string](stuckTeam(theirs)), assistant.ToolName("ask2"))); err != nil {
		t.Fatal(err)
	}
	quiet := server.WithStreamableHTTPLogger(slog.New(slog.DiscardHandler))
	srv := httptest.NewServer(mcpbridge.CancelOnSessionEnd(server.NewStreamableHTTPServer(s, quiet)))
	t.Cleanup(srv.Close)
	session := func() *client.Client {
		hc, err := client.NewStreamableHttpClient(srv.URL)
		if err != nil {
			t.Fatal(err)
		}
		return initializeAt(t, hc, mcp.LATEST_LEGACY_PROTOCOL_VERSION) // 2026-07-28 has no sessions
	}
	c, other := session(), session()
	errc := callInBackground(testContext(t), c)
	mine.waitAsking(t)
	otherCtx, stopOther := context.WithCancel(testContext(t))
	otherErr := make(chan error, 1)
	go func() {
		var req mcp.CallToolRequest
		req.Params.Name = "ask2"
		req.Params.Arguments = map[string]any{"topic": "tides"}
		_, err := other.CallTool(otherCtx, req)
		otherErr <- err
	}()
	theirs.waitAsking(t)

	del, err := http.NewRequestWithContext(testContext(t), http.MethodDelete, srv.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	del.Header.Set(server.HeaderKeySessionID, c.GetSessionId())
	del.Header.Set(mcp.HeaderProtocolVersion, mcp.LATEST_LEGACY_PROTOCOL_VERSION)
	resp, err := http.DefaultClient.Do(del)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("DELETE: %s", resp.Status)
	}
	mine.waitCancelled(t)
	<-errc

	// The other session's run still waits for its model; its call, and the session, go on.
	theirs.mu.Lock()
	ended := len(theirs.ended)
	theirs.mu.Unlock()
	if ended != 0 {
		t.Errorf("the other session's runs ended: %v", theirs.ended)
	}
	if res := callTool(t, other, "ping", `{}`); textOf(res) != "pong" {
		t.Errorf("the other session's ping: %q", textOf(res))
	}
	stopOther()
	theirs.waitCancelled(t)
	if err := <-otherErr; !errors.Is(err, context.Canceled) {
		t.Errorf("the other session's call: %v", err)
	}
}
