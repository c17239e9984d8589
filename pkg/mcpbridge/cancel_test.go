package mcpbridge_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cadrehq/cadre/pkg/assistant"
	"github.com/cadrehq/cadre/pkg/callback"
	"github.com/cadrehq/cadre/pkg/llmtest"
	"github.com/cadrehq/cadre/pkg/mcpbridge"
	"github.com/cadrehq/cadre/pkg/tool"
	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	gosdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/goleak"
)

// runLog records the runs of a tree as its callback handler sees them.
type runLog struct {
	mu      sync.Mutex
	asking  map[string]bool  // the assistants waiting for their model
	ended   map[string]error // the assistants whose run ended, with the run's error
	changed chan struct{}    // closed and replaced at each event
}

func newRunLog() *runLog {
	return &runLog{asking: map[string]bool{}, ended: map[string]error{}, changed: make(chan struct{})}
}

func (l *runLog) Handle(_ context.Context, e callback.Event) {
	l.mu.Lock()
	defer l.mu.Unlock()
	switch e.Kind {
	case callback.ModelRequest:
		l.asking[e.Assistant] = true
	case callback.RunEnd:
		l.ended[e.Assistant] = nil
	case callback.RunError:
		l.ended[e.Assistant] = e.Err
	default:
		return
	}
	close(l.changed)
	l.changed = make(chan struct{})
}

// waitFor waits until cond, read under the log's lock, holds.
func (l *runLog) waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	timeout := time.After(30 * time.Second)
	for {
		l.mu.Lock()
		ok, changed := cond(), l.changed
		l.mu.Unlock()
		if ok {
			return
		}
		select {
		case <-changed:
		case <-timeout:
			t.Fatalf("waited 30s for %s: asking %v, ended %v", what, l.asking, l.ended)
		}
	}
}

// waitAsking waits until the delegated researcher is waiting for its model.
func (l *runLog) waitAsking(t *testing.T) {
	t.Helper()
	l.waitFor(t, "the researcher to ask its model", func() bool { return l.asking["researcher"] })
}

// waitCancelled waits until the researcher's run and the supervisor's have ended, and checks
// that they ended because they were cancelled.
func (l *runLog) waitCancelled(t *testing.T) {
	t.Helper()
	l.waitFor(t, "the run tree to end", func() bool {
		_, r := l.ended["researcher"]
		_, s := l.ended["supervisor"]
		return r && s
	})
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, name := range []string{"researcher", "supervisor"} {
		if err := l.ended[name]; !errors.Is(err, context.Canceled) {
			t.Errorf("the %s's run ended with %v, want it cancelled", name, err)
		}
	}
}

// stuckTeam is a supervisor that delegates to a researcher whose model never answers: the
// tree runs until it is cancelled. log receives the tree's events.
func stuckTeam(log *runLog) *assistant.Assistant[string] {
	stuck := llmtest.NewFunc(func(context.Context, llmtest.Request) llmtest.Reply {
		return llmtest.Reply{Text: "never", Latency: time.Hour} // until the request's context ends
	}).NoRecord()
	researcher := assistant.New[string]("researcher", assistant.WithModel(stuck), assistant.WithDescription("Researches."))
	delegate := llmtest.NewFunc(func(_ context.Context, req llmtest.Request) llmtest.Reply {
		if res, ok := toolResult(req); ok {
			return llmtest.Text(res)
		}
		return llmtest.Calls(llmtest.Call("researcher", `{"topic":"tides"}`))
	}).NoRecord()
	return assistant.New[string]("supervisor", assistant.WithModel(delegate), assistant.WithCallback(log),
		assistant.WithTools(assistant.AsTool[question](researcher)))
}

// stuckServer serves the stuck team as the tool "ask", and the tool "ping", which answers at
// once.
func stuckServer(t *testing.T, log *runLog) *server.MCPServer {
	t.Helper()
	s := newServer()
	ping := tool.Func("ping", "Answers pong.", func(context.Context, struct{}) (string, error) { return "pong", nil })
	for _, tl := range []tool.Tool{assistant.AsTool[question](mcpbridge.Reporting[string](stuckTeam(log)), assistant.ToolName("ask")), ping} {
		if err := mcpbridge.AddTool(s, tl); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

// overStdio serves s over pipes, as a stdio server does, to an mcp-go client, which cancels a
// request whose context ends with notifications/cancelled. end closes the server's stdin and
// waits for it to stop; the test's end does too.
func overStdio(t *testing.T, s *server.MCPServer) (c *client.Client, end func()) {
	t.Helper()
	clientIn, serverOut := io.Pipe()
	serverIn, clientOut := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- server.NewStdioServer(s).Listen(context.Background(), serverIn, serverOut)
		serverOut.Close()
	}()
	var once sync.Once
	end = func() {
		once.Do(func() {
			clientOut.Close()
			select {
			case err := <-done:
				if err != nil {
					t.Errorf("the server: %v", err)
				}
			case <-time.After(30 * time.Second):
				t.Error("the server did not stop within 30s of the end of its stdin")
			}
		})
	}
	t.Cleanup(end)
	return initialize(t, client.NewClient(transport.NewIO(clientIn, clientOut, io.NopCloser(strings.NewReader(""))))), end
}

// initialize starts and initializes c, and closes it when the test ends.
func initialize(t *testing.T, c *client.Client) *client.Client {
	t.Helper()
	return initializeAt(t, c, "")
}

// initializeAt is initialize asking for the protocol version (mcp-go's choice for "").
func initializeAt(t *testing.T, c *client.Client, version string) *client.Client {
	t.Helper()
	t.Cleanup(func() { _ = c.Close() })
	ctx := testContext(t)
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	var init mcp.InitializeRequest
	init.Params.ProtocolVersion = version
	init.Params.ClientInfo = mcp.Implementation{Name: "mcpbridge-test", Version: "1.0.0"}
	if _, err := c.Initialize(ctx, init); err != nil {
		t.Fatal(err)
	}
	return c
}

// callInBackground calls "ask" under ctx, with a progress token, and returns the call's
// error when it returns.
func callInBackground(ctx context.Context, c *client.Client) <-chan error {
	errc := make(chan error, 1)
	go func() {
		var req mcp.CallToolRequest
		req.Params.Name = "ask"
		req.Params.Arguments = map[string]any{"topic": "tides"}
		req.Params.Meta = &mcp.Meta{ProgressToken: "ask-1"}
		res, err := c.CallTool(ctx, req)
		if err == nil {
			err = errors.New("the call returned " + textOf(res))
		}
		errc <- err
	}()
	return errc
}

// A client that cancels a call (notifications/cancelled, over stdio the only way) ends the run
// of the tool and the run it delegated to; the session goes on. Not parallel: mcp-go's stdio
// server has one session per process.
func TestCancelledCallEndsTheRunTree(t *testing.T) {
	log := newRunLog()
	c, _ := overStdio(t, stuckServer(t, log))
	ctx, cancel := context.WithCancel(testContext(t))
	errc := callInBackground(ctx, c)
	log.waitAsking(t)
	cancel()
	log.waitCancelled(t)
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Errorf("the cancelled call returned %v", err)
	}
	if res := callTool(t, c, "ping", `{}`); textOf(res) != "pong" {
		t.Errorf("after the cancel, ping answered %q", textOf(res))
	}
}

// The end of a stdio server's stdin ends the runs of its client.
func TestStdinEndEndsTheRuns(t *testing.T) {
	log := newRunLog()
	c, end := overStdio(t, stuckServer(t, log))
	errc := callInBackground(testContext(t), c)
	log.waitAsking(t)
	end()
	log.waitCancelled(t)
	_ = c.Close()
	if err := <-errc; err == nil {
		t.Error("the call of a client whose server stopped returned no error")
	}
}

// A client that drops its HTTP request (over streamable HTTP, mcp-go's client cancels a call
// so) ends the call's runs.
func TestHTTPRequestClosedEndsTheRuns(t *testing.T) {
	t.Parallel()
	log := newRunLog()
	// mcp-go logs the progress notifications it cannot write once the client is gone.
	quiet := server.WithStreamableHTTPLogger(slog.New(slog.DiscardHandler))
	srv := httptest.NewServer(server.NewStreamableHTTPServer(stuckServer(t, log), quiet))
	t.Cleanup(srv.Close)
	hc, err := client.NewStreamableHttpClient(srv.URL, transport.WithHTTPBasicClient(&http.Client{}))
	if err != nil {
		t.Fatal(err)
	}
	c := initialize(t, hc)
	ctx, cancel := context.WithCancel(testContext(t))
	errc := callInBackground(ctx, c)
	log.waitAsking(t)
	cancel()
	log.waitCancelled(t)
	// mcp-go's client says context.Canceled, or at times "unexpected nil response".
	if err := <-errc; err == nil {
		t.Error("the cancelled call returned no error")
	}
	if res := callTool(t, c, "ping", `{}`); textOf(res) != "pong" {
		t.Errorf("after the cancel, ping answered %q", textOf(res))
	}
}

// The official Go SDK's client cancels a call with notifications/cancelled: the tool's run and
// the run it delegated to end, the session goes on, and once the session ends no goroutine of
// the server is left. Not parallel: mcp-go's stdio server has one session per process.
func TestGoSDKClientCancelLeavesNothing(t *testing.T) {
	leftBefore := goleak.IgnoreCurrent()
	log := newRunLog()
	s := stuckServer(t, log)
	clientIn, serverOut := io.Pipe()
	serverIn, clientOut := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- server.NewStdioServer(s).Listen(context.Background(), serverIn, serverOut)
		serverOut.Close()
	}()
	client := gosdk.NewClient(&gosdk.Implementation{Name: "mcpbridge-test", Version: "1.0.0"}, nil)
	cs, err := client.Connect(testContext(t), &gosdk.IOTransport{Reader: clientIn, Writer: clientOut}, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(testContext(t))
	errc := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(ctx, &gosdk.CallToolParams{Name: "ask", Arguments: map[string]any{"topic": "tides"}})
		errc <- err
	}()
	log.waitAsking(t)
	cancel()
	log.waitCancelled(t)
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Errorf("the cancelled call returned %v", err)
	}
	res, err := cs.CallTool(testContext(t), &gosdk.CallToolParams{Name: "ping", Arguments: map[string]any{}})
	if err != nil || res.IsError {
		t.Errorf("after the cancel, ping: %v %v", err, res)
	}
	if err := cs.Close(); err != nil {
		t.Errorf("closing the session: %v", err)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("the server: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the server did not stop within 30s of the end of its stdin")
	}
	goleak.VerifyNone(t, leftBefore)
}
