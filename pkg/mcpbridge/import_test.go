package mcpbridge_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/cadrehq/cadre/pkg/assistant"
	"github.com/cadrehq/cadre/pkg/llmtest"
	"github.com/cadrehq/cadre/pkg/mcpbridge"
	"github.com/cadrehq/cadre/pkg/tool"
	"github.com/google/go-cmp/cmp"
	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// pagedClient is an MCP client whose server lists its tools in pages, and records calls.
type pagedClient struct {
	client.MCPClient // nil: only the methods below are used
	pages            [][]mcp.Tool
	cursors          []mcp.Cursor // the next cursor of each page; default "p1", "p2", ...
	mu               sync.Mutex
	calls            []mcp.CallToolParams
}

func (c *pagedClient) ListToolsByPage(_ context.Context, req mcp.ListToolsRequest) (*mcp.ListToolsResult, error) {
	i := 0
	if req.Params.Cursor != "" {
		if _, err := fmt.Sscanf(string(req.Params.Cursor), "p%d", &i); err != nil {
			return nil, fmt.Errorf("bad cursor %q", req.Params.Cursor)
		}
	}
	res := &mcp.ListToolsResult{Tools: c.pages[i]}
	switch {
	case i < len(c.cursors):
		res.NextCursor = c.cursors[i]
	case i+1 < len(c.pages):
		res.NextCursor = mcp.Cursor(fmt.Sprintf("p%d", i+1))
	}
	return res, nil
}

func (c *pagedClient) CallTool(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	c.mu.Lock()
	c.calls = append(c.calls, req.Params)
	c.mu.Unlock()
	return mcp.NewToolResultText("called " + req.Params.Name), nil
}

func namesOf(tools []tool.Tool) []string {
	var names []string
	for _, t := range tools {
		names = append(names, t.Name())
	}
	return names
}

func TestToolsNamesValidForModels(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", 70)
	c := &pagedClient{pages: [][]mcp.Tool{
		{mcp.NewTool("read_file"), mcp.NewTool("fs.read"), mcp.NewTool("git/log")},
		{mcp.NewTool("héllo wörld"), mcp.NewTool(long)},
		// Each range's ends are kept, and the characters just outside them are not.
		{mcp.NewTool("azAZ09_-"), mcp.NewTool("`{@[/:^.")},
	}}
	tools, err := mcpbridge.Tools(testContext(t), c, mcpbridge.WithPrefix("srv."))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"srv_read_file", "srv_fs_read", "srv_git_log", "srv_h_llo_w_rld", ("srv_" + long)[:64],
		"srv_azAZ09_-", "srv_________"}
	if diff := cmp.Diff(want, namesOf(tools)); diff != "" {
		t.Errorf("names (-want +got):\n%s", diff)
	}
	for _, tl := range tools {
		if err := tool.ValidName(tl.Name()); err != nil {
			t.Error(err)
		}
	}
	// Calling one calls the server's tool by the server's name.
	if _, err := tools[1].Call(testContext(t), json.RawMessage(`{}`)); err != nil {
		t.Fatal(err)
	}
	if got := c.calls[0].Name; got != "fs.read" {
		t.Errorf("called %q, want the server's name fs.read", got)
	}
}

func TestToolsRefuses(t *testing.T) {
	t.Parallel()
	stringSchema := mcp.Tool{Name: "s", InputSchema: mcp.ToolInputSchema{Type: "string"}}
	badSchema := mcp.Tool{Name: "b", RawInputSchema: json.RawMessage(`{"type":"object","properties":{"a":{"type":"nope"}}}`)}
	tests := []struct {
		name    string
		client  *pagedClient
		want    string
		options []mcpbridge.ImportOption
	}{
		{"collision", &pagedClient{pages: [][]mcp.Tool{{mcp.NewTool("a.b")}, {mcp.NewTool("a_b")}}}, `tools "a.b" and "a_b" both become "a_b"`, nil},
		{"endless pages", &pagedClient{pages: [][]mcp.Tool{{mcp.NewTool("a")}, {mcp.NewTool("b")}}, cursors: []mcp.Cursor{"p1", "p1"}}, `cursor "p1" twice`, nil},
		{"schema not an object", &pagedClient{pages: [][]mcp.Tool{{stringSchema}}}, `MCP tool "s": its input schema does not describe an object`, nil},
		{"schema not valid", &pagedClient{pages: [][]mcp.Tool{{badSchema}}}, `MCP tool "b": its input schema is not valid`, nil},
		{"no name", &pagedClient{pages: [][]mcp.Tool{{mcp.NewTool("")}}}, "a tool without a name", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tools, err := mcpbridge.Tools(testContext(t), tt.client, tt.options...)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v (tools %v), want one saying %q", err, namesOf(tools), tt.want)
			}
		})
	}
	if _, err := mcpbridge.Tools(testContext(t), nil); err == nil {
		t.Error("a nil client was accepted")
	}
}

// A tool without an input schema gets {"type":"object"}; one with a schema keeps it.
func TestToolsSchemas(t *testing.T) {
	t.Parallel()
	withSchema := mcp.NewTool("greet", mcp.WithDescription("Greets."), mcp.WithString("name", mcp.Required(), mcp.Description("Who")))
	c := &pagedClient{pages: [][]mcp.Tool{{{Name: "bare"}, withSchema}}}
	tools, err := mcpbridge.Tools(testContext(t), c)
	if err != nil {
		t.Fatal(err)
	}
	if got := string(tools[0].Schema()); got != `{"type":"object"}` {
		t.Errorf("a tool without a schema got %s", got)
	}
	want := `{"type":"object","properties":{"name":{"type":"string","description":"Who"}},"required":["name"]}`
	if !jsonEqual(t, tools[1].Schema(), []byte(want)) {
		t.Errorf("schema %s, want %s", tools[1].Schema(), want)
	}
	if tools[1].Description() != "Greets." {
		t.Errorf("description %q", tools[1].Description())
	}
}

// remoteServer is an MCP server whose tools answer in each way a server can.
func remoteServer() *server.MCPServer {
	s := newServer()
	s.AddTool(mcp.NewTool("greet", mcp.WithString("name", mcp.Required())), func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		name := req.GetString("name", "")
		return &mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent("Hello,"), mcp.NewTextContent(name + "!")}}, nil
	})
	s.AddTool(mcp.NewTool("stats"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{}, StructuredContent: map[string]any{"count": 3}}, nil
	})
	s.AddTool(mcp.NewTool("picture"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{mcp.NewImageContent("aGk=", "image/png")}}, nil
	})
	s.AddTool(mcp.NewTool("refuse"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultError("refused: the quota is spent; try tomorrow"), nil
	})
	s.AddTool(mcp.NewTool("broken"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, errors.New("the database is unreachable")
	})
	return s
}

func TestToolsCallTheServer(t *testing.T) {
	t.Parallel()
	c := connect(t, remoteServer())
	tools, err := mcpbridge.Tools(testContext(t), c, mcpbridge.WithPrefix("remote_"))
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]tool.Tool{}
	for _, tl := range tools {
		byName[tl.Name()] = tl
	}
	tests := []struct {
		tool, args string
		want       string // the result, or the error when wantErr
		wantErr    bool
	}{
		{"remote_greet", `{"name":"Ada"}`, "Hello,\nAda!", false},
		{"remote_stats", `{}`, `{"count":3}`, false},
		{"remote_picture", ``, "[an image (image/png) that cannot be shown as text]", false},
		{"remote_refuse", `{}`, `MCP tool "refuse": refused: the quota is spent; try tomorrow`, true},
		{"remote_broken", `{}`, "the database is unreachable", true},
	}
	for _, tt := range tests {
		t.Run(tt.tool, func(t *testing.T) {
			tl := byName[tt.tool]
			if tl == nil {
				t.Fatalf("no tool %q among %v", tt.tool, namesOf(tools))
			}
			out, err := tl.Call(testContext(t), json.RawMessage(tt.args))
			if tt.wantErr {
				if err == nil || !strings.Contains(err.Error(), tt.want) {
					t.Fatalf("result %q, error %v; want an error saying %q", out, err, tt.want)
				}
				return
			}
			if err != nil || out != tt.want {
				t.Fatalf("result %q, error %v; want %q", out, err, tt.want)
			}
		})
	}
}

// An assistant uses an MCP server's tool, and the server's answer reaches its output.
func TestToolsInAnAssistant(t *testing.T) {
	t.Parallel()
	c := connect(t, remoteServer())
	tools, err := mcpbridge.Tools(testContext(t), c, mcpbridge.WithPrefix("remote_"))
	if err != nil {
		t.Fatal(err)
	}
	model := llmtest.NewFunc(func(_ context.Context, req llmtest.Request) llmtest.Reply {
		if out, ok := toolResult(req); ok {
			return llmtest.Text("The server said: " + out)
		}
		return llmtest.Calls(llmtest.Call("remote_greet", `{"name":"Grace"}`))
	})
	a := assistant.New[string]("greeter", assistant.WithModel(model), assistant.WithTools(tools...))
	res, err := a.Run(testContext(t), assistant.Input{Prompt: "Greet Grace."})
	if err != nil {
		t.Fatal(err)
	}
	if want := "The server said: Hello,\nGrace!"; res.Output != want {
		t.Errorf("output %q, want %q", res.Output, want)
	}
}

// A tool served by AddTool and imported by Tools is the same tool.
func TestRoundTrip(t *testing.T) {
	t.Parallel()
	s := newServer()
	fc := forecastTool()
	if err := mcpbridge.AddTool(s, fc); err != nil {
		t.Fatal(err)
	}
	tools, err := mcpbridge.Tools(testContext(t), connect(t, s))
	if err != nil {
		t.Fatal(err)
	}
	if len(tools) != 1 {
		t.Fatalf("imported %v", namesOf(tools))
	}
	got := tools[0]
	if got.Name() != fc.Name() || got.Description() != fc.Description() || !jsonEqual(t, got.Schema(), fc.Schema()) {
		t.Errorf("imported %s %q %s, want %s %q %s", got.Name(), got.Description(), got.Schema(), fc.Name(), fc.Description(), fc.Schema())
	}
	out, err := got.Call(testContext(t), json.RawMessage(`{"city":"Oslo"}`))
	if err != nil || !jsonEqual(t, []byte(out), []byte(`{"city":"Oslo","high_c":24.5}`)) {
		t.Errorf("call: %q, %v", out, err)
	}
	_, err = got.Call(testContext(t), json.RawMessage(`{"city":"Atlantis"}`))
	if err == nil || !strings.Contains(err.Error(), "it is under the sea") {
		t.Errorf("error %v, want the tool's", err)
	}
}
