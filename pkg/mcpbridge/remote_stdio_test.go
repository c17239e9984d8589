package mcpbridge_test

import (
	"context"
	"encoding/json"
	"os"
	"strconv"
	"sync/atomic"
	"testing"

	"github.com/cadrehq/cadre/pkg/mcpbridge"
	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"go.uber.org/goleak"
)

// stdioServerEnv makes the test binary the stdio MCP server of the stdio tests.
const stdioServerEnv = "MCPBRIDGE_TEST_STDIO_SERVER=1"

// TestStdioServerProcess is not a test: run by the stdio tests as a process of the test
// binary, it is their MCP server, on its standard input and output.
func TestStdioServerProcess(t *testing.T) {
	if os.Getenv("MCPBRIDGE_TEST_STDIO_SERVER") != "1" {
		t.Skip("the MCP server of the stdio tests, run as a process of its own")
	}
	s := server.NewMCPServer("stdio-weather", "1.0.0")
	s.AddTool(mcp.NewTool("pid"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText(strconv.Itoa(os.Getpid())), nil
	})
	s.AddTool(mcp.NewTool("greet", mcp.WithString("name", mcp.Required())), func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("Hello, " + req.GetString("name", "") + "!"), nil
	})
	_ = server.ServeStdio(s)
	os.Exit(0) // the server's process ends with its input, and says nothing more on its output
}

// dialStdio returns a dial function that starts the stdio server as a process of the test
// binary, and counts the processes it starts.
func dialStdio(t *testing.T, dials *atomic.Int64) func(context.Context) (*client.Client, error) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return func(context.Context) (*client.Client, error) {
		dials.Add(1)
		// Not started: Connect starts it, with a context that lives as long as the Remote.
		tr := transport.NewStdioWithOptions(exe, []string{stdioServerEnv}, []string{"-test.run=^TestStdioServerProcess$"},
			transport.WithCommandLogger(quiet))
		return client.NewClient(tr), nil
	}
}

// A stdio server that exits under a Remote: the next call starts it again, once, and runs.
func TestRemoteStdioServerRestarted(t *testing.T) {
	t.Parallel()
	var dials atomic.Int64
	r, err := mcpbridge.Connect(testContext(t), dialStdio(t, &dials))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	tools, err := r.Tools(testContext(t))
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]func() (string, error){}
	for _, tl := range tools {
		byName[tl.Name()] = func() (string, error) { return tl.Call(testContext(t), json.RawMessage(`{"name":"Ada"}`)) }
	}
	first, err := byName["pid"]()
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(first)
	if err != nil {
		t.Fatalf("pid %q: %v", first, err)
	}
	p, err := os.FindProcess(pid)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Kill(); err != nil {
		t.Fatal(err)
	}
	if out, err := byName["greet"](); err != nil || out != "Hello, Ada!" {
		t.Fatalf("after the server exited: %q, %v", out, err)
	}
	second, err := byName["pid"]()
	if err != nil || second == first {
		t.Errorf("the server's process is %q (%v), want a new one after %s", second, err, first)
	}
	if got := dials.Load(); got != 2 {
		t.Errorf("%d processes started, want 2: one, then one after the first exited", got)
	}
}

// Close stops the stdio server's process and leaves no goroutine running. Not parallel: it
// checks that no goroutine of its own is left.
func TestRemoteStdioCloseLeavesNothingRunning(t *testing.T) {
	before := goleak.IgnoreCurrent()
	var dials atomic.Int64
	r, err := mcpbridge.Connect(testContext(t), dialStdio(t, &dials))
	if err != nil {
		t.Fatal(err)
	}
	tools, err := r.Tools(testContext(t))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tools[0].Call(testContext(t), json.RawMessage(`{"name":"Ada"}`)); err != nil {
		t.Fatal(err)
	}
	if err := r.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	goleak.VerifyNone(t, before)
}
