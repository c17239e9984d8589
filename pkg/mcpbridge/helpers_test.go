package mcpbridge_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cadrehq/cadre/pkg/llmtest"
	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/tmc/langchaingo/llms"
)

// testContext returns a context that ends with the test, and at the latest after a minute, so
// that a test whose behaviour is missing fails instead of hanging.
func testContext(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return ctx
}

func newServer() *server.MCPServer { return server.NewMCPServer("test", "1.0.0") }

// connect returns an initialized in-process client of s, closed when the test ends.
func connect(t *testing.T, s *server.MCPServer) *client.Client {
	t.Helper()
	ctx := testContext(t)
	c, err := client.NewInProcessClient(s)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	var init mcp.InitializeRequest
	init.Params.ClientInfo = mcp.Implementation{Name: "mcpbridge-test", Version: "1.0.0"}
	if _, err := c.Initialize(ctx, init); err != nil {
		t.Fatal(err)
	}
	return c
}

// callTool calls tool name with args (JSON) and fails the test on a protocol error.
func callTool(t *testing.T, c client.MCPClient, name, args string) *mcp.CallToolResult {
	t.Helper()
	var req mcp.CallToolRequest
	req.Params.Name = name
	if args != "" {
		req.Params.Arguments = json.RawMessage(args)
	}
	res, err := c.CallTool(testContext(t), req)
	if err != nil {
		t.Fatalf("calling %s(%s): %v", name, args, err)
	}
	return res
}

// getPrompt gets prompt name with args.
func getPrompt(t *testing.T, c client.MCPClient, name string, args map[string]string) (*mcp.GetPromptResult, error) {
	t.Helper()
	var req mcp.GetPromptRequest
	req.Params.Name = name
	req.Params.Arguments = args
	return c.GetPrompt(testContext(t), req)
}

// textOf returns the text contents of a tool result, joined by newlines.
func textOf(res *mcp.CallToolResult) string {
	var texts []string
	for _, c := range res.Content {
		if tc, ok := c.(mcp.TextContent); ok {
			texts = append(texts, tc.Text)
		}
	}
	return strings.Join(texts, "\n")
}

// jsonEqual reports whether a and b are the same JSON value.
func jsonEqual(t *testing.T, a, b []byte) bool {
	t.Helper()
	var va, vb any
	if err := json.Unmarshal(a, &va); err != nil {
		t.Fatalf("not JSON: %s: %v", a, err)
	}
	if err := json.Unmarshal(b, &vb); err != nil {
		t.Fatalf("not JSON: %s: %v", b, err)
	}
	ja, _ := json.Marshal(va)
	jb, _ := json.Marshal(vb)
	return string(ja) == string(jb)
}

// lastUser returns the text of the last user message of req.
func lastUser(req llmtest.Request) string {
	for i := len(req.Messages) - 1; i >= 0; i-- {
		m := req.Messages[i]
		if m.Role != llms.ChatMessageTypeHuman {
			continue
		}
		var b strings.Builder
		for _, p := range m.Parts {
			if tc, ok := p.(llms.TextContent); ok {
				b.WriteString(tc.Text)
			}
		}
		return b.String()
	}
	return ""
}

// toolResult returns the content of the last tool result in req, or "" when it has none.
func toolResult(req llmtest.Request) (string, bool) {
	for i := len(req.Messages) - 1; i >= 0; i-- {
		m := req.Messages[i]
		if m.Role == llms.ChatMessageTypeHuman {
			return "", false
		}
		for _, p := range m.Parts {
			if r, ok := p.(llms.ToolCallResponse); ok {
				return r.Content, true
			}
		}
	}
	return "", false
}

// errorLog collects what an error handler is told.
type errorLog struct {
	mu   sync.Mutex
	errs []error
	name []string
}

func (l *errorLog) handle(_ context.Context, name string, err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.errs = append(l.errs, err)
	l.name = append(l.name, name)
}

func (l *errorLog) last() (string, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.errs) == 0 {
		return "", nil
	}
	return l.name[len(l.name)-1], l.errs[len(l.errs)-1]
}
