package mcpbridge_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/cadrehq/cadre/pkg/assistant"
	"github.com/cadrehq/cadre/pkg/llmtest"
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
	srv := httptest.NewServer(mcpbridge.CancellationHandler(server.NewStreamableHTTPServer(s, quiet)))
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

// heldServer serves as "ask" a supervisor that delegates to a researcher whose model answers
// once release is closed, or fails when its request's context ends. log receives the runs'
// events.
func heldServer(t *testing.T, log *runLog, release <-chan struct{}) *server.MCPServer {
	t.Helper()
	held := llmtest.NewFunc(func(ctx context.Context, _ llmtest.Request) llmtest.Reply {
		select {
		case <-release:
			return llmtest.Text("found: tides")
		case <-ctx.Done():
			return llmtest.Fail(ctx.Err())
		}
	}).NoRecord()
	researcher := assistant.New[string]("researcher", assistant.WithModel(held), assistant.WithDescription("Researches."))
	delegate := llmtest.NewFunc(func(_ context.Context, req llmtest.Request) llmtest.Reply {
		if res, ok := toolResult(req); ok {
			return llmtest.Text(res)
		}
		return llmtest.Calls(llmtest.Call("researcher", `{"topic":"tides"}`))
	}).NoRecord()
	supervisor := assistant.New[string]("supervisor", assistant.WithModel(delegate), assistant.WithCallback(log),
		assistant.WithTools(assistant.AsTool[question](researcher)))
	s := newServer()
	if err := mcpbridge.AddTool(s, assistant.AsTool[question](supervisor, assistant.ToolName("ask"))); err != nil {
		t.Fatal(err)
	}
	return s
}

// Without sessions (protocol version 2026-07-28), a notifications/cancelled names a request ID
// and nothing of whose request it is: the handler does not let one client cancel another's
// request with it. The call's own client cancels it by closing the request's stream.
func TestSessionlessCancelReachesNoOne(t *testing.T) {
	t.Parallel()
	log, release := newRunLog(), make(chan struct{})
	quiet := server.WithStreamableHTTPLogger(slog.New(slog.DiscardHandler))
	srv := httptest.NewServer(mcpbridge.CancellationHandler(server.NewStreamableHTTPServer(heldServer(t, log, release), quiet)))
	t.Cleanup(srv.Close)
	hc, err := client.NewStreamableHttpClient(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	c := initialize(t, hc) // mcp-go's client and server settle on 2026-07-28
	done := make(chan *mcp.CallToolResult, 1)
	go func() {
		var req mcp.CallToolRequest
		req.Params.Name = "ask"
		req.Params.Arguments = map[string]any{"topic": "tides"}
		res, err := c.CallTool(testContext(t), req)
		if err != nil {
			t.Errorf("the call: %v", err)
		}
		done <- res
	}()
	log.waitAsking(t)

	// Another client cancels every request ID the call could have.
	for id := range 10 {
		body := fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":%d,"_meta":{%q:%q}}}`,
			id, mcp.MetaKeyProtocolVersion, mcp.LATEST_PROTOCOL_VERSION)
		req, err := http.NewRequestWithContext(testContext(t), http.MethodPost, srv.URL, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set(mcp.HeaderProtocolVersion, mcp.LATEST_PROTOCOL_VERSION)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusAccepted {
			t.Errorf("cancelling request %d: %s, want 202 Accepted", id, resp.Status)
		}
	}
	close(release) // the researcher answers: a cancelled run would have failed instead
	if res := <-done; res == nil || res.IsError || textOf(res) != "found: tides" {
		t.Errorf("the call answered %+v, want the researcher's finding", res)
	}
	log.waitFor(t, "the runs to end", func() bool { return len(log.ended) == 2 })
	for name, err := range log.ended {
		if err != nil {
			t.Errorf("the %s's run ended with %v", name, err)
		}
	}
}
