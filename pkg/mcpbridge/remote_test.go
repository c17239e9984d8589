package mcpbridge_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cadrehq/cadre/pkg/assistant"
	"github.com/cadrehq/cadre/pkg/llmtest"
	"github.com/cadrehq/cadre/pkg/mcpbridge"
	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"go.uber.org/goleak"
)

// era is a protocol era of MCP over streamable HTTP: sessions and the initialize handshake
// (up to 2025-11-25), or the stateless protocol of 2026-07-28.
type era struct {
	name   string
	legacy bool
}

var eras = []era{{"legacy", true}, {"stateless", false}}

// httpServer is a real MCP server served over streamable HTTP on a local port, that a test
// restarts (a new process, in spirit: it knows no session of the old one) and that counts the
// requests it is sent, by method. In the legacy era it keeps sessions and can forget them.
type httpServer struct {
	t      *testing.T
	era    era
	greets atomic.Int64 // calls of greet that ran, across restarts
	// dropDiscover, while set, makes the server close the connection of the next
	// server/discover without answering it, as a stale kept-alive connection does; it is
	// cleared when one was dropped.
	dropDiscover atomic.Bool

	mu       sync.Mutex
	addr     string
	ts       *httptest.Server
	mcp      *server.MCPServer
	sessions *forgetful
	methods  map[string]int
}

func startHTTPServer(t *testing.T, e era) *httpServer {
	t.Helper()
	h := &httpServer{t: t, era: e, addr: "127.0.0.1:0", methods: map[string]int{}}
	h.start()
	t.Cleanup(h.stop)
	return h
}

// start serves a new MCP server with the tool greet, on the address of the last one.
func (h *httpServer) start() {
	h.t.Helper()
	s := server.NewMCPServer("weather", "1.0.0", server.WithToolCapabilities(true))
	s.AddTool(mcp.NewTool("greet", mcp.WithString("name", mcp.Required())), func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		h.greets.Add(1)
		return mcp.NewToolResultText("Hello, " + req.GetString("name", "") + "!"), nil
	})
	var opts []server.StreamableHTTPOption
	sessions := &forgetful{ids: map[string]bool{}}
	if h.era.legacy {
		opts = append(opts, server.WithStreamableHTTPProtocolVersions(mcp.LATEST_LEGACY_PROTOCOL_VERSION), server.WithSessionIdManager(sessions))
	}
	mcpHTTP := server.NewStreamableHTTPServer(s, opts...)
	var ln net.Listener
	var err error
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		// The old server's port may take a moment to be free again.
		if ln, err = net.Listen("tcp", h.addr); err == nil || time.Now().After(deadline) {
			break
		}
	}
	if err != nil {
		h.t.Fatal(err)
	}
	ts := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if h.count(r) == string(mcp.MethodServerDiscover) && h.dropDiscover.CompareAndSwap(true, false) {
			hangUp(h.t, w)
			return
		}
		mcpHTTP.ServeHTTP(w, r)
	}))
	ts.Listener = ln
	ts.Start()
	h.mu.Lock()
	h.addr, h.ts, h.mcp, h.sessions = ln.Addr().String(), ts, s, sessions
	h.mu.Unlock()
}

// count counts the JSON-RPC method of a POST, and returns it.
func (h *httpServer) count(r *http.Request) string {
	if r.Method != http.MethodPost {
		return ""
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return ""
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	var msg struct {
		Method string `json:"method"`
	}
	if json.Unmarshal(body, &msg) == nil && msg.Method != "" {
		h.mu.Lock()
		h.methods[msg.Method]++
		h.mu.Unlock()
	}
	return msg.Method
}

// hangUp closes the connection of the request w answers, without an answer.
func hangUp(t *testing.T, w http.ResponseWriter) {
	conn, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		t.Errorf("hijacking the connection to drop it: %v", err)
		return
	}
	_ = conn.Close()
}

// stop stops the server the way a crash does: its connections cut, the port closed.
func (h *httpServer) stop() {
	h.mu.Lock()
	ts := h.ts
	h.mu.Unlock()
	ts.CloseClientConnections()
	ts.Close()
}

func (h *httpServer) restart() {
	h.t.Helper()
	h.stop()
	h.start()
}

// connections is how many connections clients made: initialize handshakes, or server/discover
// probes of the stateless protocol (a legacy client that listens continuously sends no probe).
func (h *httpServer) connections() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.methods[string(mcp.MethodInitialize)] + h.methods[string(mcp.MethodServerDiscover)]
}

func (h *httpServer) sent(method mcp.MCPMethod) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.methods[string(method)]
}

func (h *httpServer) server() *server.MCPServer {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.mcp
}

// dial returns a dial function for Connect: a client of the server, in the server's era of
// the moment.
func (h *httpServer) dial() func(context.Context) (*client.Client, error) {
	legacy := h.era.legacy
	// A transport of the test's own, whose idle connections the test closes: none of its
	// goroutines outlives the test.
	tr := &http.Transport{}
	h.t.Cleanup(tr.CloseIdleConnections)
	hc := &http.Client{Transport: tr}
	return func(context.Context) (*client.Client, error) {
		h.mu.Lock()
		url := "http://" + h.addr + "/mcp"
		h.mu.Unlock()
		opts := []transport.StreamableHTTPCOption{transport.WithHTTPBasicClient(hc), transport.WithHTTPLogger(quiet)}
		if legacy {
			//lint:ignore SA1019 a legacy session gets the server's notifications between calls on this stream only
			opts = append(opts, transport.WithContinuousListening())
		}
		return client.NewStreamableHttpClient(url, opts...)
	}
}

// quiet drops the logs of mcp-go's client, which reports the connections the tests break.
var quiet = slog.New(slog.DiscardHandler)

// forgetful keeps the sessions of a legacy server, and forgets them when told: a session that
// expired.
type forgetful struct {
	mu  sync.Mutex
	ids map[string]bool
}

func (f *forgetful) Generate() string {
	id := "mcp-session-" + rand.Text()
	f.mu.Lock()
	defer f.mu.Unlock()
	f.ids[id] = true
	return id
}

func (f *forgetful) Validate(id string) (bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.ids[id] {
		return false, errors.New("no such session")
	}
	return false, nil
}

func (f *forgetful) Terminate(id string) (bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.ids, id)
	return false, nil
}

func (f *forgetful) forget() {
	f.mu.Lock()
	defer f.mu.Unlock()
	clear(f.ids)
}

// logWatch is a log handler that passes each record's message on to a channel.
type logWatch chan string

func (w logWatch) Enabled(context.Context, slog.Level) bool { return true }
func (w logWatch) WithAttrs([]slog.Attr) slog.Handler       { return w }
func (w logWatch) WithGroup(string) slog.Handler            { return w }
func (w logWatch) Handle(_ context.Context, r slog.Record) error {
	select {
	case w <- r.Message:
	default:
	}
	return nil
}

// waitFor waits until a message of w contains text, at most 10 seconds.
func (w logWatch) waitFor(t *testing.T, text string) {
	t.Helper()
	timeout := time.After(10 * time.Second)
	for {
		select {
		case msg := <-w:
			if strings.Contains(msg, text) {
				return
			}
		case <-timeout:
			t.Fatalf("no log saying %q", text)
		}
	}
}

// connectTo connects a Remote to h, closed when the test ends.
func connectTo(t *testing.T, h *httpServer, opts ...mcpbridge.ImportOption) *mcpbridge.Remote {
	t.Helper()
	r, err := mcpbridge.Connect(testContext(t), h.dial(), opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = r.Close() })
	return r
}

// greeter returns an assistant whose model calls the tool its user's turn names with the
// name "Ada", and answers with what the tool said.
func greeter(set assistant.ToolSet, opts ...assistant.Option) *assistant.Assistant[string] {
	model := llmtest.NewFunc(func(_ context.Context, req llmtest.Request) llmtest.Reply {
		if out, ok := toolResult(req); ok {
			return llmtest.Text(out)
		}
		return llmtest.Calls(llmtest.Call(lastUser(req), `{"name":"Ada"}`))
	})
	return assistant.New[string]("greeter", append([]assistant.Option{assistant.WithModel(model), assistant.WithToolSet(set)}, opts...)...)
}

func greet(t *testing.T, a *assistant.Assistant[string], tool string) string {
	t.Helper()
	res, err := a.Run(testContext(t), assistant.Input{Prompt: tool})
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	return res.Output
}

// A server restarted under a Remote: the next run works, after exactly one new connection,
// and the call that found the connection lost runs once.
func TestRemoteServerRestarted(t *testing.T) {
	t.Parallel()
	for _, e := range eras {
		t.Run(e.name, func(t *testing.T) {
			t.Parallel()
			h := startHTTPServer(t, e)
			logs := make(logWatch, 16)
			r := connectTo(t, h, mcpbridge.WithPrefix("weather_"), mcpbridge.WithLogger(slog.New(logs)))
			a := greeter(r)
			if got := greet(t, a, "weather_greet"); got != "Hello, Ada!" {
				t.Fatalf("before the restart: %q", got)
			}
			before, err := r.Tools(testContext(t))
			if err != nil {
				t.Fatal(err)
			}
			h.restart()
			if !e.legacy {
				// Nothing tells a stateless client that the server restarted but the end of
				// its notification stream: the next run connects again once it has ended.
				logs.waitFor(t, "is lost")
			}
			if got := greet(t, a, "weather_greet"); got != "Hello, Ada!" {
				t.Fatalf("after the restart: %q", got)
			}
			if got := greet(t, a, "weather_greet"); got != "Hello, Ada!" {
				t.Fatalf("after the restart, again: %q", got)
			}
			// One handshake before the restart and one after, not one a call. A stateless
			// client's server/discover after the restart can go out on a kept-alive connection
			// to the old server and fail, when the client has not yet seen it closed; mcp-go
			// then falls back to an initialize handshake, which the Remote discards to probe
			// again (see open, and TestRemoteReconnectKeepsNotificationsWhenDiscoverDropped):
			// count the era's own handshakes, not that one.
			handshake := mcp.MethodServerDiscover
			if e.legacy {
				handshake = mcp.MethodInitialize
			}
			if got := h.sent(handshake); got != 2 {
				t.Errorf("%s sent %d times, want 2: once, then once after the restart", handshake, got)
			}
			if got := h.greets.Load(); got != 3 {
				t.Errorf("greet ran %d times, want 3", got)
			}
			if got := h.sent(mcp.MethodToolsList); got != 2 {
				t.Errorf("tools/list sent %d times, want once a connection (2)", got)
			}
			// The restarted server has the same tool: it is the same value, which assistants
			// need not prepare again.
			if after, err := r.Tools(testContext(t)); err != nil || len(after) != 1 || after[0] != before[0] {
				t.Errorf("tools after the restart: %v, %v; want the same value as before", after, err)
			}
		})
	}
}

// Calls that find the connection lost at the same time make one new connection for all.
func TestRemoteOneReconnectForConcurrentCalls(t *testing.T) {
	t.Parallel()
	h := startHTTPServer(t, era{"legacy", true})
	r := connectTo(t, h)
	tools, err := r.Tools(testContext(t))
	if err != nil {
		t.Fatal(err)
	}
	h.mu.Lock()
	h.sessions.forget()
	h.mu.Unlock()
	const calls = 8
	var wg sync.WaitGroup
	errs := make(chan error, calls)
	for range calls {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if out, err := tools[0].Call(testContext(t), json.RawMessage(`{"name":"Ada"}`)); err != nil || out != "Hello, Ada!" {
				errs <- fmt.Errorf("call: %q, %v", out, err)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if got := h.connections(); got != 2 {
		t.Errorf("%d connections, want 2: one, then one for all the calls", got)
	}
	if got := h.greets.Load(); got != calls {
		t.Errorf("greet ran %d times, want %d", got, calls)
	}
}

// A session the server forgot: the call that finds it gone connects again, once, and runs.
func TestRemoteSessionExpired(t *testing.T) {
	t.Parallel()
	h := startHTTPServer(t, era{"legacy", true})
	r := connectTo(t, h)
	a := greeter(r)
	for i := range 3 {
		h.mu.Lock()
		h.sessions.forget()
		h.mu.Unlock()
		if got := greet(t, a, "greet"); got != "Hello, Ada!" {
			t.Fatalf("after the session expired (%d): %q", i, got)
		}
		if got, want := h.connections(), i+2; got != want {
			t.Errorf("%d connections after %d expiries, want %d", got, i+1, want)
		}
	}
	if got := h.greets.Load(); got != 3 {
		t.Errorf("greet ran %d times, want 3", got)
	}
}

// The server's tools change: it says so, and the next run has the new tools; a call of a
// tool it removed is answered as a call of a tool that does not exist. Without a change, no
// tools/list is sent, however many runs and calls.
func TestRemoteToolListChanged(t *testing.T) {
	t.Parallel()
	for _, e := range eras {
		t.Run(e.name, func(t *testing.T) {
			t.Parallel()
			h := startHTTPServer(t, e)
			r := connectTo(t, h)
			a := greeter(r)
			for range 20 {
				if got := greet(t, a, "greet"); got != "Hello, Ada!" {
					t.Fatalf("greet: %q", got)
				}
			}
			if got := h.sent(mcp.MethodToolsList); got != 1 {
				t.Fatalf("tools/list sent %d times in 20 runs without a change, want once", got)
			}

			before, err := r.Tools(testContext(t))
			if err != nil {
				t.Fatal(err)
			}
			h.server().AddTool(mcp.NewTool("wave"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return mcp.NewToolResultText("*waves*"), nil
			})
			waitForTools(t, r, "greet", "wave")
			if after, err := r.Tools(testContext(t)); err != nil || after[0] != before[0] {
				t.Errorf("greet is another value after wave was added (%v)", err)
			}
			if got := greet(t, a, "wave"); got != "*waves*" {
				t.Errorf("the added tool: %q", got)
			}

			h.server().DeleteTools("greet")
			waitForTools(t, r, "wave")
			want := `error: there is no tool named "greet"; the available tools are: wave`
			if got := greet(t, a, "greet"); got != want {
				t.Errorf("the removed tool: %q, want %q", got, want)
			}
			if got := h.sent(mcp.MethodToolsList); got != 3 {
				t.Errorf("tools/list sent %d times, want once for the connection and once for each change (3)", got)
			}
			if got := h.connections(); got != 1 {
				t.Errorf("%d connections, want 1", got)
			}
		})
	}
}

// A reconnect whose first request, server/discover, meets a dropped connection (a kept-alive
// connection to the server before its restart does it) still ends on the protocol of the first
// connection, with its notification stream: the server's tool changes keep reaching the Remote.
// mcp-go's client falls back to the older initialize handshake when server/discover fails,
// for whatever reason, and a session of that protocol gets no notification between calls.
func TestRemoteReconnectKeepsNotificationsWhenDiscoverDropped(t *testing.T) {
	t.Parallel()
	h := startHTTPServer(t, era{"stateless", false})
	logs := make(logWatch, 16)
	r := connectTo(t, h, mcpbridge.WithLogger(slog.New(logs)))
	h.dropDiscover.Store(true)
	h.restart()
	logs.waitFor(t, "is lost") // the notification stream ended: the next use connects again
	waitForTools(t, r, "greet")
	if h.dropDiscover.Load() {
		t.Fatal("the reconnect's server/discover was not dropped: the test tests nothing")
	}
	h.server().AddTool(mcp.NewTool("wave"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("*waves*"), nil
	})
	waitForTools(t, r, "greet", "wave")
	h.server().DeleteTools("greet")
	waitForTools(t, r, "wave")
}

// A server that comes back on an older protocol than before is used on it: the Remote tries a
// few handshakes, not more, warns, and the calls work.
func TestRemoteServerBackOnAnOlderProtocol(t *testing.T) {
	t.Parallel()
	h := startHTTPServer(t, era{"stateless", false})
	logs := make(logWatch, 16)
	r := connectTo(t, h, mcpbridge.WithLogger(slog.New(logs)))
	a := greeter(r)
	h.era = era{"legacy", true} // the dial function stays a stateless client's
	h.restart()
	logs.waitFor(t, "is lost")
	if got := greet(t, a, "greet"); got != "Hello, Ada!" {
		t.Fatalf("after the server came back on an older protocol: %q", got)
	}
	logs.waitFor(t, "older protocol than before")
	if got := h.sent(mcp.MethodInitialize); got != 3 {
		t.Errorf("%d initialize handshakes, want 3: the Remote tries a few times, then uses the older protocol", got)
	}
	if got := greet(t, a, "greet"); got != "Hello, Ada!" {
		t.Fatalf("again: %q", got)
	}
	if got := h.sent(mcp.MethodInitialize); got != 3 {
		t.Errorf("%d initialize handshakes after another run, want still 3", got)
	}
}

// waitForTools waits until r's tools are names, at most 10 seconds: the server's notification
// comes when it comes.
func waitForTools(t *testing.T, r *mcpbridge.Remote, names ...string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		tools, err := r.Tools(testContext(t))
		if err != nil {
			t.Fatal(err)
		}
		got := namesOf(tools)
		if strings.Join(got, ",") == strings.Join(names, ",") {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("tools %v, want %v: the change did not reach the Remote", got, names)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// WithApproval names a Remote's tools like any other: the call waits, and runs on the server
// once approved.
func TestRemoteApproval(t *testing.T) {
	t.Parallel()
	h := startHTTPServer(t, era{"stateless", false})
	r := connectTo(t, h, mcpbridge.WithPrefix("weather_"))
	pending := assistant.ApproverFunc(func(context.Context, assistant.ToolCall) (assistant.Decision, error) {
		return assistant.Pending(), nil
	})
	a := greeter(r, assistant.WithApproval(pending, "weather_greet"))
	res, err := a.Run(testContext(t), assistant.Input{Prompt: "weather_greet"})
	if err != nil || res.Stop != assistant.StopPending {
		t.Fatalf("run: %v, stop %q; want a pause", err, res.Stop)
	}
	if got := h.greets.Load(); got != 0 {
		t.Fatalf("greet ran %d times before the decision", got)
	}
	waiting := res.Paused.Waiting()
	if len(waiting) != 1 || waiting[0].Tool != "weather_greet" {
		t.Fatalf("waiting: %+v", waiting)
	}
	final, err := a.Resume(testContext(t), res.Paused, map[string]assistant.Decision{waiting[0].ID: assistant.Approved()})
	if err != nil || final.Output != "Hello, Ada!" || h.greets.Load() != 1 {
		t.Fatalf("resume: %v, output %q, greet ran %d times", err, final.Output, h.greets.Load())
	}
}

// A server that does not come back: the call fails with an error naming the server, after
// one try to connect again; and so does the next run, before any request.
func TestRemoteServerGone(t *testing.T) {
	t.Parallel()
	h := startHTTPServer(t, era{"legacy", true})
	r := connectTo(t, h)
	tools, err := r.Tools(testContext(t))
	if err != nil {
		t.Fatal(err)
	}
	h.stop()
	_, err = tools[0].Call(testContext(t), json.RawMessage(`{"name":"Ada"}`))
	if err == nil || !strings.Contains(err.Error(), `MCP server "weather": the connection was lost`) || !strings.Contains(err.Error(), "connecting again failed") {
		t.Fatalf("error %v, want one naming the server and saying connecting again failed", err)
	}
	if _, err := greeter(r).Run(testContext(t), assistant.Input{Prompt: "greet"}); err == nil || !strings.Contains(err.Error(), `assistant "greeter"`) || !strings.Contains(err.Error(), `MCP server "weather"`) {
		t.Fatalf("run: %v, want an error naming the assistant and the server", err)
	}
}

func TestConnectFails(t *testing.T) {
	t.Parallel()
	down := errors.New("no route")
	if _, err := mcpbridge.Connect(testContext(t), func(context.Context) (*client.Client, error) { return nil, down }); !errors.Is(err, down) {
		t.Errorf("error %v, want the dial's", err)
	}
	if _, err := mcpbridge.Connect(testContext(t), nil); err == nil {
		t.Error("a nil dial was accepted")
	}
	// Nothing listens there: initializing fails, and the client is closed.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_ = ln.Close()
	_, err = mcpbridge.Connect(testContext(t), func(context.Context) (*client.Client, error) {
		return client.NewStreamableHttpClient("http://"+addr+"/mcp", transport.WithHTTPLogger(quiet))
	})
	if err == nil || !strings.Contains(err.Error(), "mcpbridge.Connect: initializing") {
		t.Errorf("error %v, want one saying initializing failed", err)
	}
}

// Close closes the connection and leaves no goroutine running; the tools then fail with
// ErrClosed. Not parallel: it checks that no goroutine of its own is left.
func TestRemoteCloseLeavesNothingRunning(t *testing.T) {
	before := goleak.IgnoreCurrent()
	for _, e := range eras {
		h := &httpServer{t: t, era: e, addr: "127.0.0.1:0", methods: map[string]int{}}
		h.start()
		tr := &http.Transport{}
		hc := &http.Client{Transport: tr}
		r, err := mcpbridge.Connect(testContext(t), func(context.Context) (*client.Client, error) {
			opts := []transport.StreamableHTTPCOption{transport.WithHTTPBasicClient(hc), transport.WithHTTPLogger(quiet)}
			if e.legacy {
				//lint:ignore SA1019 a legacy session gets the server's notifications between calls on this stream only
				opts = append(opts, transport.WithContinuousListening())
			}
			return client.NewStreamableHttpClient("http://"+h.addr+"/mcp", opts...)
		})
		if err != nil {
			t.Fatal(err)
		}
		tools, err := r.Tools(testContext(t))
		if err != nil {
			t.Fatal(err)
		}
		if out, err := tools[0].Call(testContext(t), json.RawMessage(`{"name":"Ada"}`)); err != nil || out != "Hello, Ada!" {
			t.Fatalf("%s: call: %q, %v", e.name, out, err)
		}
		if err := r.Close(); err != nil {
			t.Errorf("%s: Close: %v", e.name, err)
		}
		if err := r.Close(); err != nil {
			t.Errorf("%s: a second Close: %v", e.name, err)
		}
		if _, err := r.Tools(testContext(t)); !errors.Is(err, mcpbridge.ErrClosed) {
			t.Errorf("%s: Tools after Close: %v, want ErrClosed", e.name, err)
		}
		if _, err := tools[0].Call(testContext(t), json.RawMessage(`{"name":"Ada"}`)); !errors.Is(err, mcpbridge.ErrClosed) {
			t.Errorf("%s: a call after Close: %v, want ErrClosed", e.name, err)
		}
		tr.CloseIdleConnections()
		h.stop()
	}
	goleak.VerifyNone(t, before)
}
