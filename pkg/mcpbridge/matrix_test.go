package mcpbridge_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cadrehq/cadre/internal/oauthtest"
	"github.com/cadrehq/cadre/pkg/assistant"
	"github.com/cadrehq/cadre/pkg/llmtest"
	"github.com/cadrehq/cadre/pkg/mcpauth"
	"github.com/cadrehq/cadre/pkg/mcpbridge"
	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	gosdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// The MCP cancellation and identity matrix: in every cell two calls, A's and B's, are served
// at once — each an assistant's run that waits for its model until released or until its
// request's context ends — and then the cell's cancel is sent. The cell states whose run the
// cancel ends: only ever the sender's own request, or nothing when the cancel names no sender
// (a notification without a session, or of protocol version 2026-07-28). Every run the cancel
// does not end is then released, and its call answers as it would have without the cancel.
//
// The dimensions: the protocol version, the transport (stdio, streamable HTTP), the client
// library of A and B (mcp-go's, the official Go SDK's), how the cancel is sent, and, over
// HTTP, whether the authorizer checks bearer tokens (A and B then are different users of
// different tenants). Combinations that cannot happen are in the table with the reason.

// How a cell's cancel is sent.
type matrixCancel int

const (
	// cancelByClient: A's client cancels A's call as its library does when the call's context
	// ends — with notifications/cancelled over stdio; over HTTP mcp-go's closes the call's
	// stream, the Go SDK's sends notifications/cancelled and closes the stream.
	cancelByClient matrixCancel = iota
	// cancelOwn: a notifications/cancelled of A's request, sent in A's session (by mcp-go's
	// client; raw for the Go SDK's, which sends one only for a call it ends itself).
	cancelOwn
	// cancelOther: a notifications/cancelled of the request ID of A's call, sent by B in B's
	// session (as cancelOwn). B's own call has the same ID.
	cancelOther
	// cancelNoSession: a raw notifications/cancelled of A's request ID without Mcp-Session-Id.
	cancelNoSession
	// cancelMadeUp: a raw notifications/cancelled of A's request ID with a session ID that no
	// server issued.
	cancelMadeUp
	// cancelForeign: a raw notifications/cancelled of A's request, with A's Mcp-Session-Id and
	// B's bearer token.
	cancelForeign
	// endOwn: a raw DELETE of A's session, by A.
	endOwn
	// endForeign: a raw DELETE of A's session, with B's bearer token.
	endForeign
	matrixCancels
)

func (k matrixCancel) String() string {
	return [...]string{"client", "own", "other", "nosession", "madeup", "foreign", "end", "foreignend"}[k]
}

const (
	viaStdio = "stdio"
	viaHTTP  = "http"
	mcpGo    = "mcp-go"
	goSDK    = "go-sdk"
)

// A matrixCell is one combination of the dimensions, with what its cancel ends or why the
// combination cannot happen.
type matrixCell struct {
	era       string
	transport string
	library   string
	cancel    matrixCancel
	auth      bool

	ends    string // the call whose run the cancel ends: "A", "B" or "" for none
	missing string // why the combination does not exist; "" when it does
}

func (c matrixCell) String() string {
	auth := "open"
	if c.auth {
		auth = "auth"
	}
	return strings.Join([]string{c.era, c.transport, c.library, c.cancel.String(), auth}, "/")
}

// matrixCells returns every combination of the dimensions, each with its expectation or the
// reason it does not exist.
func matrixCells() []matrixCell {
	var cells []matrixCell
	for _, era := range []string{mcp.ProtocolVersion20250618, mcp.ProtocolVersion20251125, mcp.ProtocolVersion20260728} {
		for _, via := range []string{viaStdio, viaHTTP} {
			for _, library := range []string{mcpGo, goSDK} {
				for cancel := range matrixCancels {
					for _, auth := range []bool{false, true} {
						c := matrixCell{era: era, transport: via, library: library, cancel: cancel, auth: auth}
						c.ends, c.missing = expect(c)
						cells = append(cells, c)
					}
				}
			}
		}
	}
	return cells
}

// expect says whose run c's cancel ends, or why c does not exist.
func expect(c matrixCell) (ends, missing string) {
	modern := mcp.IsModernProtocol(c.era)
	switch {
	case c.transport == viaStdio && c.auth:
		return "", "the authorizer checks HTTP requests; over stdio the client is the process that started the server"
	case c.transport == viaStdio && c.cancel == cancelOwn:
		return "", "over stdio a client's own cancel is this notification: the cell client"
	case c.transport == viaStdio && c.cancel != cancelByClient:
		return "", "a stdio server has one client, in one session without an ID: no other sender, no session to leave out, make up or end"
	case !c.auth && (c.cancel == cancelForeign || c.cancel == endForeign):
		return "", "without the authorizer a caller has no identity: whoever holds a session's ID is its client (cells own and end)"
	case modern && (c.cancel == cancelForeign || c.cancel == endOwn || c.cancel == endForeign):
		return "", "protocol version 2026-07-28 has no sessions to end or to borrow"
	}
	switch c.cancel {
	case cancelByClient:
		return "A", "" // by the notification, or by the closed stream
	case cancelOwn, endOwn:
		if modern {
			return "", "" // a notification of 2026-07-28 names no sender
		}
		return "A", ""
	case cancelOther:
		if modern {
			return "", ""
		}
		return "B", "" // B's own call has the request ID it names
	default:
		return "", ""
	}
}

// matrixRounds is how many times each cell runs: CADRE_MCP_MATRIX_ROUNDS, 1 by default
// (make reliability runs more, to shake out the timing).
func matrixRounds(t *testing.T) int {
	t.Helper()
	v := os.Getenv("CADRE_MCP_MATRIX_ROUNDS")
	if v == "" {
		return 1
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		t.Fatalf("CADRE_MCP_MATRIX_ROUNDS=%q: want a count of rounds, 1 or more", v)
	}
	return n
}

// TestCancellationMatrix runs every cell of the matrix that exists. Not parallel itself: the
// stdio cells run one at a time, since mcp-go's stdio server has one session per process; the
// HTTP cells run in parallel once they are done.
func TestCancellationMatrix(t *testing.T) {
	key := oauthtest.NewKey(t, "k1")
	iss := oauthtest.NewIssuer(t, key)
	rounds := matrixRounds(t)
	var mu sync.Mutex
	ran := map[string]bool{} // the cells run, by name
	var stdio, auth int
	reasons := map[string]int{}
	start := time.Now()
	t.Cleanup(func() {
		missing := 0
		for _, reason := range slices.Sorted(maps.Keys(reasons)) {
			missing += reasons[reason]
			t.Logf("%d combinations do not exist: %s", reasons[reason], reason)
		}
		t.Logf("figures: mcp cancellation matrix: %d cells run (%d over stdio, %d over HTTP, %d of them with the authorizer) x %d rounds, %d combinations that do not exist, in %s",
			len(ran), stdio, len(ran)-stdio, auth, rounds, missing, time.Since(start).Round(time.Millisecond))
	})
	for _, c := range matrixCells() {
		if c.missing != "" {
			reasons[c.missing]++
			continue
		}
		for round := range rounds {
			name := c.String()
			if rounds > 1 {
				name += fmt.Sprintf("/round%d", round+1)
			}
			t.Run(name, func(t *testing.T) {
				if c.transport == viaHTTP {
					t.Parallel()
				}
				mu.Lock()
				if !ran[c.String()] {
					ran[c.String()] = true
					stdio += boolInt(c.transport == viaStdio)
					auth += boolInt(c.auth)
				}
				mu.Unlock()
				runCell(t, iss, c)
			})
		}
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// A matrixCall is a call of the matrix: its assistant's run waits for its model, which answers
// once release is closed, or fails when its request's context ends.
type matrixCall struct {
	name    string // "A" or "B"; the tool is "ask_a" or "ask_b", the assistant "a" or "b"
	release chan struct{}
	asked   chan context.Context
	model   context.Context    // the model's request context, once asked
	stop    context.CancelFunc // ends the call's context on the client's side
	done    chan struct{}      // closed when the client's call returns, with text and err set
	text    string
	err     error
}

func newMatrixCall(name string) *matrixCall {
	return &matrixCall{name: name, release: make(chan struct{}), asked: make(chan context.Context, 1), done: make(chan struct{})}
}

func (c *matrixCall) tool() string      { return "ask_" + strings.ToLower(c.name) }
func (c *matrixCall) assistant() string { return strings.ToLower(c.name) }

// requestIDs records the JSON-RPC ID of each tool call the server receives, by tool.
type requestIDs struct {
	mu  sync.Mutex
	ids map[string]json.RawMessage
}

func (r *requestIDs) of(tool string) json.RawMessage {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.ids[tool]
}

// matrixServer serves the calls' tools; log receives their runs' events.
func matrixServer(t *testing.T, log *runLog, calls ...*matrixCall) (*server.MCPServer, *requestIDs) {
	t.Helper()
	ids := &requestIDs{ids: map[string]json.RawMessage{}}
	hooks := &server.Hooks{}
	hooks.AddBeforeCallTool(func(_ context.Context, id any, req *mcp.CallToolRequest) {
		raw, err := json.Marshal(id)
		if err != nil {
			t.Errorf("the request ID %v: %v", id, err)
		}
		ids.mu.Lock()
		defer ids.mu.Unlock()
		ids.ids[req.Params.Name] = raw
	})
	s := server.NewMCPServer("matrix", "1.0.0", server.WithHooks(hooks))
	for _, c := range calls {
		model := llmtest.NewFunc(func(ctx context.Context, _ llmtest.Request) llmtest.Reply {
			c.asked <- ctx
			select {
			case <-c.release:
				return llmtest.Text("found: " + c.name)
			case <-ctx.Done():
				return llmtest.Fail(ctx.Err())
			}
		}).NoRecord()
		a := assistant.New[string](c.assistant(), assistant.WithModel(model), assistant.WithCallback(log))
		if err := mcpbridge.AddTool(s, assistant.AsTool[question](a, assistant.ToolName(c.tool()))); err != nil {
			t.Fatal(err)
		}
	}
	return s, ids
}

// A matrixClient is a client of either library, initialized.
type matrixClient interface {
	call(ctx context.Context, tool string) (string, error)
	session() string
	// notify sends a notifications/cancelled of request id as the client sends any
	// notification, reporting false when its library cannot send one.
	notify(ctx context.Context, id json.RawMessage) (bool, error)
}

type mcpGoClient struct{ c *client.Client }

func (m mcpGoClient) call(ctx context.Context, tool string) (string, error) {
	var req mcp.CallToolRequest
	req.Params.Name = tool
	req.Params.Arguments = map[string]any{"topic": "tides"}
	res, err := m.c.CallTool(ctx, req)
	if err != nil {
		return "", err
	}
	if res.IsError {
		return "", errors.New(textOf(res))
	}
	return textOf(res), nil
}

func (m mcpGoClient) session() string { return m.c.GetSessionId() }

func (m mcpGoClient) notify(ctx context.Context, id json.RawMessage) (bool, error) {
	var n mcp.JSONRPCNotification
	n.JSONRPC = mcp.JSONRPC_VERSION
	n.Method = string(mcp.MethodNotificationCancelled)
	n.Params.AdditionalFields = map[string]any{"requestId": id, "reason": "the matrix cancels it"}
	return true, m.c.GetTransport().SendNotification(ctx, n)
}

type goSDKClient struct{ cs *gosdk.ClientSession }

func (g goSDKClient) call(ctx context.Context, tool string) (string, error) {
	res, err := g.cs.CallTool(ctx, &gosdk.CallToolParams{Name: tool, Arguments: map[string]any{"topic": "tides"}})
	if err != nil {
		return "", err
	}
	var texts []string
	for _, c := range res.Content {
		if tc, ok := c.(*gosdk.TextContent); ok {
			texts = append(texts, tc.Text)
		}
	}
	if res.IsError {
		return "", errors.New(strings.Join(texts, "\n"))
	}
	return strings.Join(texts, "\n"), nil
}

func (g goSDKClient) session() string { return g.cs.ID() }

func (goSDKClient) notify(context.Context, json.RawMessage) (bool, error) { return false, nil }

// connectMatrix connects a client of library at era over t (a transport of mcp-go's, or of the
// Go SDK's), and checks that the client and the server settled on era. It is closed when the
// test ends.
func connectMatrix(t *testing.T, library, era string, mt transport.Interface, gt gosdk.Transport) matrixClient {
	t.Helper()
	ctx := testContext(t)
	if library == mcpGo {
		c := client.NewClient(mt)
		t.Cleanup(func() { _ = c.Close() })
		if err := c.Start(ctx); err != nil {
			t.Fatal(err)
		}
		var init mcp.InitializeRequest
		init.Params.ProtocolVersion = era
		init.Params.ClientInfo = mcp.Implementation{Name: "matrix", Version: "1.0.0"}
		res, err := c.Initialize(ctx, init)
		if err != nil {
			t.Fatal(err)
		}
		if res.ProtocolVersion != era {
			t.Fatalf("mcp-go's client settled on %s, want %s", res.ProtocolVersion, era)
		}
		return mcpGoClient{c}
	}
	cs, err := gosdk.NewClient(&gosdk.Implementation{Name: "matrix", Version: "1.0.0"}, nil).Connect(ctx, gt, &gosdk.ClientSessionOptions{ProtocolVersion: era})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	if got := cs.InitializeResult().ProtocolVersion; got != era {
		t.Fatalf("the Go SDK's client settled on %s, want %s", got, era)
	}
	return goSDKClient{cs}
}

// startCall calls c's tool from mc in the background, and returns once the call's run waits
// for its model.
func startCall(t *testing.T, mc matrixClient, c *matrixCall) {
	t.Helper()
	ctx, stop := context.WithCancel(testContext(t))
	c.stop = stop
	go func() {
		defer close(c.done)
		c.text, c.err = mc.call(ctx, c.tool())
	}()
	t.Cleanup(func() {
		stop()
		<-c.done
	})
	select {
	case c.model = <-c.asked:
	case <-c.done:
		t.Fatalf("%s's call returned before its run asked its model: %q, %v", c.name, c.text, c.err)
	case <-testContext(t).Done():
		t.Fatalf("%s's run did not ask its model", c.name)
	}
}

// runCell serves A's and B's calls as c says, sends c's cancel, and checks that it ends the
// run c names and no other, and that every other call answers once released.
func runCell(t *testing.T, iss *oauthtest.Issuer, c matrixCell) {
	log := newRunLog()
	a, b := newMatrixCall("A"), newMatrixCall("B")
	s, ids := matrixServer(t, log, a, b)
	if c.transport == viaStdio {
		// The one client calls both tools: B's call is the other request in flight.
		mc := connectStdio(t, s, c)
		startCall(t, mc, a)
		startCall(t, mc, b)
		a.stop()
	} else {
		h := startHTTP(t, iss, s, c)
		ca, cb := h.connect(t, h.tokenA), h.connect(t, h.tokenB)
		startCall(t, ca, a)
		startCall(t, cb, b)
		idA := ids.of(a.tool())
		if idB := ids.of(b.tool()); string(idA) != string(idB) {
			t.Fatalf("A's call has the request ID %s and B's %s: the matrix wants them the same, so that a cancel of B's names A's request too", idA, idB)
		}
		if c.cancel == cancelByClient {
			a.stop()
		} else {
			h.cancel(t, c, ca, cb, idA)
		}
	}

	for _, call := range []*matrixCall{a, b} {
		if c.ends == call.name {
			log.waitFor(t, call.name+"'s run to end", func() bool { _, ok := log.ended[call.assistant()]; return ok })
		}
	}
	// Whatever the cancel ends, it has ended: cancels over HTTP are answered once applied, and
	// A's client's own cancel ends A's run, which the wait above saw.
	for _, call := range []*matrixCall{a, b} {
		if c.ends == call.name {
			log.mu.Lock()
			err := log.ended[call.assistant()]
			log.mu.Unlock()
			if !errors.Is(err, context.Canceled) {
				t.Errorf("%s's run ended with %v, want it cancelled", call.name, err)
			}
			continue
		}
		if err := context.Cause(call.model); err != nil {
			t.Errorf("%s's run was cancelled (%v), want only %s", call.name, err, whose(c.ends))
		}
	}
	for _, call := range []*matrixCall{a, b} {
		if c.ends == call.name {
			continue
		}
		close(call.release)
		<-call.done
		if call.err != nil || call.text != "found: "+call.name {
			t.Errorf("%s's call, released: %q, %v; want its answer", call.name, call.text, call.err)
		}
		log.waitFor(t, call.name+"'s run to end", func() bool { _, ok := log.ended[call.assistant()]; return ok })
		log.mu.Lock()
		err := log.ended[call.assistant()]
		log.mu.Unlock()
		if err != nil {
			t.Errorf("%s's run, released, ended with %v", call.name, err)
		}
	}
}

func whose(ends string) string {
	if ends == "" {
		return "no run to end"
	}
	return ends + "'s run to end"
}

// connectStdio serves s over pipes, as a stdio server does, to a client of c's library at c's
// protocol version.
func connectStdio(t *testing.T, s *server.MCPServer, c matrixCell) matrixClient {
	t.Helper()
	clientIn, serverOut := io.Pipe()
	serverIn, clientOut := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- server.NewStdioServer(s).Listen(context.Background(), serverIn, serverOut)
		serverOut.Close()
	}()
	t.Cleanup(func() {
		clientOut.Close()
		if err := <-done; err != nil {
			t.Errorf("the stdio server: %v", err)
		}
	})
	return connectMatrix(t, c.library, c.era,
		transport.NewIO(clientIn, clientOut, io.NopCloser(strings.NewReader(""))),
		&gosdk.IOTransport{Reader: clientIn, Writer: clientOut})
}

// matrixHTTP is a cell's streamable HTTP endpoint: mcp-go's server behind CancellationHandler,
// and behind the authorizer in cells with it.
type matrixHTTP struct {
	url            string
	library, era   string
	tokenA, tokenB string // the bearer tokens of A and B; "" without the authorizer
	rt             *http.Transport
}

func startHTTP(t *testing.T, iss *oauthtest.Issuer, s *server.MCPServer, c matrixCell) *matrixHTTP {
	t.Helper()
	srv := httptest.NewUnstartedServer(nil)
	h := &matrixHTTP{url: "http://" + srv.Listener.Addr().String() + "/mcp", library: c.library, era: c.era, rt: &http.Transport{}}
	quiet := server.WithStreamableHTTPLogger(slog.New(slog.DiscardHandler))
	endpoint := mcpbridge.CancellationHandler(server.NewStreamableHTTPServer(s, quiet))
	if c.auth {
		auth, err := mcpauth.NewAuthorizer(t.Context(), h.url, iss.URL)
		if err != nil {
			t.Fatal(err)
		}
		endpoint = auth.Protect(endpoint)
		h.tokenA = iss.Token(t, h.url, "ana", map[string]any{"tenant": "acme"})
		h.tokenB = iss.Token(t, h.url, "bo", map[string]any{"tenant": "globex"})
	}
	srv.Config.Handler = endpoint
	srv.Start()
	t.Cleanup(func() {
		h.rt.CloseIdleConnections()
		srv.CloseClientConnections()
		srv.Close()
	})
	return h
}

// connect returns a client of the endpoint, of its library, that sends token.
func (h *matrixHTTP) connect(t *testing.T, token string) matrixClient {
	t.Helper()
	headers := map[string]string{}
	if token != "" {
		headers["Authorization"] = "Bearer " + token
	}
	mt, err := transport.NewStreamableHTTP(h.url, transport.WithHTTPHeaders(headers), transport.WithHTTPBasicClient(&http.Client{Transport: h.rt}))
	if err != nil {
		t.Fatal(err)
	}
	hc := &http.Client{Transport: bearer{token: token, next: h.rt}}
	return connectMatrix(t, h.library, h.era, mt, &gosdk.StreamableClientTransport{Endpoint: h.url, HTTPClient: hc})
}

// bearer sends its token, if any, with every request.
type bearer struct {
	token string
	next  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	if b.token != "" {
		r = r.Clone(r.Context())
		r.Header.Set("Authorization", "Bearer "+b.token)
	}
	return b.next.RoundTrip(r)
}

// madeUpSession is a session ID in the form mcp-go issues that no server issued.
const madeUpSession = "mcp-session-5f0c7a52-9d3e-4b1a-8c2f-0e6d4b7a9c31"

// cancel sends c's cancel of request id, A's, whose client is ca; B's is cb.
func (h *matrixHTTP) cancel(t *testing.T, c matrixCell, ca, cb matrixClient, id json.RawMessage) {
	t.Helper()
	switch c.cancel {
	case cancelOwn:
		h.notify(t, ca, ca.session(), h.tokenA, id)
	case cancelOther:
		h.notify(t, cb, cb.session(), h.tokenB, id)
	case cancelNoSession:
		h.expectStatus(t, "a cancel without a session", h.raw(t, http.MethodPost, "", h.tokenB, id), http.StatusAccepted)
	case cancelMadeUp:
		h.expectStatus(t, "a cancel in a made-up session", h.raw(t, http.MethodPost, madeUpSession, h.tokenB, id), http.StatusAccepted)
	case cancelForeign:
		h.raw(t, http.MethodPost, ca.session(), h.tokenB, id)
	case endOwn:
		h.expectStatus(t, "A's DELETE of its session", h.raw(t, http.MethodDelete, ca.session(), h.tokenA, nil), http.StatusOK)
	case endForeign:
		h.raw(t, http.MethodDelete, ca.session(), h.tokenB, nil)
	}
}

// notify sends a cancel of request id from mc, with its library when it can send one, and
// raw with session and token when it cannot.
func (h *matrixHTTP) notify(t *testing.T, mc matrixClient, session, token string, id json.RawMessage) {
	t.Helper()
	sent, err := mc.notify(testContext(t), id)
	if err != nil {
		t.Fatalf("the client's cancel: %v", err)
	}
	if !sent {
		h.expectStatus(t, "a raw cancel", h.raw(t, http.MethodPost, session, token, id), http.StatusAccepted)
	}
}

func (h *matrixHTTP) expectStatus(t *testing.T, what string, got, want int) {
	t.Helper()
	if got != want {
		t.Fatalf("%s: %d, want %d", what, got, want)
	}
}

// raw sends a request of method (a POST of a notifications/cancelled of request id, or a
// DELETE) with session and token (none for ""), as a client of the cell's protocol version
// does, and returns its status.
func (h *matrixHTTP) raw(t *testing.T, method, session, token string, id json.RawMessage) int {
	t.Helper()
	var body io.Reader
	if method == http.MethodPost {
		params := map[string]any{"requestId": id, "reason": "the matrix cancels it"}
		if mcp.IsModernProtocol(h.era) {
			params["_meta"] = map[string]any{mcp.MetaKeyProtocolVersion: h.era}
		}
		b, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": "notifications/cancelled", "params": params})
		if err != nil {
			t.Fatal(err)
		}
		body = strings.NewReader(string(b))
	}
	req, err := http.NewRequestWithContext(testContext(t), method, h.url, body)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set(mcp.HeaderProtocolVersion, h.era)
	if session != "" {
		req.Header.Set(server.HeaderKeySessionID, session)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := (&http.Client{Transport: h.rt}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}
