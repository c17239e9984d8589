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

// A client that ends its session (DELETE) ends the runs of its calls in progress, those its
// requests that came and went since left running too, and only those: another session's run
// goes on.
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
	// A request of the session that comes and goes while the call runs leaves the call to end.
	if res := callTool(t, c, "ping", `{}`); textOf(res) != "pong" {
		t.Fatalf("ping: %q", textOf(res))
	}

	if status := endSession(t, srv.URL, c.GetSessionId()); status != http.StatusOK {
		t.Fatalf("DELETE: %d", status)
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

// A DELETE the server refuses ends nothing: a session the server keeps keeps its runs.
func TestRefusedSessionEndEndsNothing(t *testing.T) {
	t.Parallel()
	kept := server.WithSessionIdManager(keptSessions{&server.InsecureStatefulSessionIdManager{}})
	url, c, call := startHeld(t, mcp.LATEST_LEGACY_PROTOCOL_VERSION, kept) // 2026-07-28 has no sessions
	if status := endSession(t, url, c.GetSessionId()); status != http.StatusMethodNotAllowed {
		t.Fatalf("DELETE: %d, want 405 Method Not Allowed", status)
	}
	call.answers(t)
}

// endSession sends the DELETE that ends session id at url, at the last protocol version with
// sessions, and returns the response's status.
func endSession(t *testing.T, url, id string) int {
	t.Helper()
	del, err := http.NewRequestWithContext(testContext(t), http.MethodDelete, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	del.Header.Set(server.HeaderKeySessionID, id)
	del.Header.Set(mcp.HeaderProtocolVersion, mcp.LATEST_LEGACY_PROTOCOL_VERSION)
	resp, err := http.DefaultClient.Do(del)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// keptSessions is a server's policy that a client cannot end its session.
type keptSessions struct{ server.SessionIdManager }

func (keptSessions) Terminate(string) (bool, error) { return true, nil }

// heldServer serves as "ask" a supervisor that delegates to a researcher whose model answers
// once release is closed, or fails when its request's context ends; the model sends that
// context on asked, which has room for it. log receives the runs' events.
func heldServer(t *testing.T, log *runLog, release <-chan struct{}, asked chan<- context.Context) *server.MCPServer {
	t.Helper()
	held := llmtest.NewFunc(func(ctx context.Context, _ llmtest.Request) llmtest.Reply {
		asked <- ctx
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

// heldCall is a call of heldServer's "ask" in progress.
type heldCall struct {
	log     *runLog
	release chan struct{}
	model   context.Context     // the context of the researcher's model request
	done    chan struct{}       // closed when the call returns
	res     *mcp.CallToolResult // what it returned, once done is closed
}

// startHeld serves heldServer through CancellationHandler, and calls "ask" from a client that
// initializes at version (mcp-go's choice for ""). It returns once the researcher waits for its
// model, with the server's URL and the calling client. opts configure mcp-go's handler.
func startHeld(t *testing.T, version string, opts ...server.StreamableHTTPOption) (url string, c *client.Client, call *heldCall) {
	t.Helper()
	call = &heldCall{log: newRunLog(), release: make(chan struct{}), done: make(chan struct{})}
	asked := make(chan context.Context, 1)
	quiet := server.WithStreamableHTTPLogger(slog.New(slog.DiscardHandler))
	srv := httptest.NewServer(mcpbridge.CancellationHandler(server.NewStreamableHTTPServer(heldServer(t, call.log, call.release, asked), append(opts, quiet)...)))
	t.Cleanup(srv.Close)
	c = connectHTTP(t, srv.URL, version)
	ctx, stop := context.WithCancel(testContext(t))
	t.Cleanup(func() {
		stop()
		<-call.done
	})
	go func() {
		var req mcp.CallToolRequest
		req.Params.Name = "ask"
		req.Params.Arguments = map[string]any{"topic": "tides"}
		call.res, _ = c.CallTool(ctx, req)
		close(call.done)
	}()
	select {
	case call.model = <-asked:
	case <-testContext(t).Done():
		t.Fatal("the researcher did not ask its model")
	}
	return srv.URL, c, call
}

// connectHTTP returns a client of the streamable HTTP server at url, initialized at version.
func connectHTTP(t *testing.T, url, version string) *client.Client {
	t.Helper()
	hc, err := client.NewStreamableHttpClient(url)
	if err != nil {
		t.Fatal(err)
	}
	return initializeAt(t, hc, version)
}

// answers checks that the call is still in progress — the researcher's request was not
// cancelled — and then that it answers with the researcher's finding once the model answers.
func (call *heldCall) answers(t *testing.T) {
	t.Helper()
	if err := context.Cause(call.model); err != nil {
		t.Errorf("the researcher's request was cancelled: %v", err)
	}
	close(call.release) // the researcher answers: a cancelled run would have failed instead
	<-call.done
	if res := call.res; res == nil || res.IsError || textOf(res) != "found: tides" {
		t.Errorf("the call answered %+v, want the researcher's finding", res)
	}
	call.log.waitFor(t, "the runs to end", func() bool { return len(call.log.ended) == 2 })
	for name, err := range call.log.ended {
		if err != nil {
			t.Errorf("the %s's run ended with %v", name, err)
		}
	}
}

// cancelMessage is a notifications/cancelled of request id; with meta set, its _meta states
// protocol version 2026-07-28.
func cancelMessage(id int, meta bool) string {
	m := ""
	if meta {
		m = fmt.Sprintf(`,"_meta":{%q:%q}`, mcp.MetaKeyProtocolVersion, mcp.ProtocolVersion20260728)
	}
	return fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":%d%s}}`, id, m)
}

// post posts body to url with headers (name, value, ...), and returns the response's status.
func post(t *testing.T, url, body string, headers ...string) int {
	t.Helper()
	req, err := http.NewRequestWithContext(testContext(t), http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// Without sessions (protocol version 2026-07-28), a notifications/cancelled names a request ID
// and nothing of whose request it is: the handler does not let one client cancel another's
// request with it. The call's own client cancels it by closing the request's stream.
func TestSessionlessCancelReachesNoOne(t *testing.T) {
	t.Parallel()
	url, _, call := startHeld(t, "") // mcp-go's client and server settle on 2026-07-28

	// Another client cancels every request ID the call could have.
	for id := range 10 {
		if status := post(t, url, cancelMessage(id, true), mcp.HeaderProtocolVersion, mcp.ProtocolVersion20260728); status != http.StatusAccepted {
			t.Errorf("cancelling request %d: %d, want 202 Accepted", id, status)
		}
	}
	call.answers(t)
}

// A session does not make a cancel of protocol version 2026-07-28 any less anonymous: mcp-go
// serves a message of that version — by its MCP-Protocol-Version header or by its _meta — as
// one without a session, whatever Mcp-Session-Id it carries. A client with a session of an
// older version cannot cancel another client's request with such a cancel, however it sends it.
func TestModernCancelWithASessionReachesNoOne(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		header string // the MCP-Protocol-Version header
		meta   bool   // whether _meta states 2026-07-28
		batch  bool   // whether the cancel comes in a JSON-RPC batch
	}{
		{name: "header and _meta", header: mcp.ProtocolVersion20260728, meta: true},
		{name: "header", header: mcp.ProtocolVersion20260728},
		{name: "_meta", header: mcp.LATEST_LEGACY_PROTOCOL_VERSION, meta: true},
		{name: "batch", header: mcp.ProtocolVersion20260728, meta: true, batch: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			url, _, call := startHeld(t, "") // mcp-go's client and server settle on 2026-07-28
			other := connectHTTP(t, url, mcp.LATEST_LEGACY_PROTOCOL_VERSION)
			for id := range 10 {
				body := cancelMessage(id, tc.meta)
				if tc.batch {
					body = "[" + body + "]"
				}
				status := post(t, url, body, mcp.HeaderProtocolVersion, tc.header, server.HeaderKeySessionID, other.GetSessionId())
				if !tc.batch && status != http.StatusAccepted {
					t.Errorf("cancelling request %d: %d, want 202 Accepted", id, status)
				}
			}
			call.answers(t)
		})
	}
}

// Before protocol version 2026-07-28, a notifications/cancelled cancels a request of its own
// session, and of no other.
func TestSessionCancelReachesItsOwn(t *testing.T) {
	t.Parallel()
	url, c, call := startHeld(t, mcp.LATEST_LEGACY_PROTOCOL_VERSION)
	other := connectHTTP(t, url, mcp.LATEST_LEGACY_PROTOCOL_VERSION)
	cancelAll := func(session string) {
		t.Helper()
		for id := range 10 {
			status := post(t, url, cancelMessage(id, false), mcp.HeaderProtocolVersion, mcp.LATEST_LEGACY_PROTOCOL_VERSION, server.HeaderKeySessionID, session)
			if status != http.StatusAccepted {
				t.Errorf("cancelling request %d: %d, want 202 Accepted", id, status)
			}
		}
	}
	cancelAll(other.GetSessionId())
	if err := context.Cause(call.model); err != nil {
		t.Fatalf("another session's cancel cancelled the researcher's request: %v", err)
	}
	cancelAll(c.GetSessionId())
	call.log.waitCancelled(t)
}

// The handler reads a POST's body before mcp-go does, and sets it no limit of its own: under
// http.MaxBytesHandler, a body over the limit gets the answer it gets without the handler.
func TestCancellationHandlerKeepsTheBodyLimit(t *testing.T) {
	t.Parallel()
	quiet := server.WithStreamableHTTPLogger(slog.New(slog.DiscardHandler))
	h := server.NewStreamableHTTPServer(newServer(), quiet)
	const limit = 64
	answer := func(h http.Handler, body string) (int, string) {
		t.Helper()
		req := httptest.NewRequestWithContext(testContext(t), http.MethodPost, "/", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set(mcp.HeaderProtocolVersion, mcp.ProtocolVersion20260728)
		rec := httptest.NewRecorder()
		http.MaxBytesHandler(h, limit).ServeHTTP(rec, req)
		return rec.Code, rec.Body.String()
	}
	for _, body := range []string{
		cancelMessage(1, true) + strings.Repeat(" ", limit), // a cancel, cut short by the limit
		`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"pad":"` + strings.Repeat("x", limit) + `"}}}`,
	} {
		wantStatus, want := answer(h, body)
		if wantStatus == http.StatusAccepted || wantStatus == http.StatusOK {
			t.Fatalf("mcp-go answered a body over the limit %d %s", wantStatus, want)
		}
		if status, got := answer(mcpbridge.CancellationHandler(h), body); status != wantStatus || got != want {
			t.Errorf("through the handler, a body over the limit got %d %s, want %d %s", status, got, wantStatus, want)
		}
	}
}
