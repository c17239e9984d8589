package mcpbridge_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/cadrehq/cadre/pkg/assistant"
	"github.com/cadrehq/cadre/pkg/llmtest"
	"github.com/cadrehq/cadre/pkg/mcpbridge"
	"github.com/cadrehq/cadre/pkg/tool"
	"github.com/google/go-cmp/cmp"
	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	gosdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

type sumIn struct {
	A int `json:"a" jsonschema:"the first number"`
	B int `json:"b" jsonschema:"the second number"`
}

type sumOut struct {
	Sum int `json:"sum"`
}

type nameIn struct {
	Name string `json:"name"`
}

// goSDKServer serves, with the official Go SDK over its streamable HTTP handler, a typed tool
// (add: structured content), a tool whose result is text (greet), and one that fails (divide,
// by zero). It returns the URL an mcp-go client connects to. A stateless handler speaks the
// protocol of 2026-07-28 as well as the earlier ones; a stateful one only the earlier ones.
func goSDKServer(t *testing.T, stateless bool) string {
	t.Helper()
	s := gosdk.NewServer(&gosdk.Implementation{Name: "gosdk-server", Version: "1.0.0"}, nil)
	gosdk.AddTool(s, &gosdk.Tool{Name: "add", Description: "Adds two numbers."},
		func(_ context.Context, _ *gosdk.CallToolRequest, in sumIn) (*gosdk.CallToolResult, sumOut, error) {
			return nil, sumOut{Sum: in.A + in.B}, nil
		})
	gosdk.AddTool(s, &gosdk.Tool{Name: "greet", Description: "Greets someone."},
		func(_ context.Context, _ *gosdk.CallToolRequest, in nameIn) (*gosdk.CallToolResult, any, error) {
			return &gosdk.CallToolResult{Content: []gosdk.Content{&gosdk.TextContent{Text: "Hello, " + in.Name + "!"}}}, nil, nil
		})
	gosdk.AddTool(s, &gosdk.Tool{Name: "divide", Description: "Divides a by b."},
		func(_ context.Context, _ *gosdk.CallToolRequest, in sumIn) (*gosdk.CallToolResult, sumOut, error) {
			if in.B == 0 {
				return nil, sumOut{}, errors.New("division by zero: give a b other than 0")
			}
			return nil, sumOut{Sum: in.A / in.B}, nil
		})
	srv := httptest.NewServer(gosdk.NewStreamableHTTPHandler(func(*http.Request) *gosdk.Server { return s },
		&gosdk.StreamableHTTPOptions{Stateless: stateless}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// The tools of a server built on the official Go SDK, imported through an mcp-go client: listed
// with their descriptions and schemas, called with their text, structured content and errors;
// over the session of the 2025-11-25 handshake, and over the stateless protocol of 2026-07-28.
//
// mcp-go's client (v1.2.1) tries 2026-07-28 first, with server/discover, and takes any
// answer for a yes. A stateful Go SDK server answers it with the versions it speaks, 2026-07-28
// not among them (go-sdk issue #1025 says it means to), and then refuses every request of
// that version: against such a server, the client must ask for the handshake's version.
func TestToolsOfAGoSDKServer(t *testing.T) {
	t.Parallel()
	for _, stateless := range []bool{false, true} {
		t.Run(fmt.Sprintf("stateless=%v", stateless), func(t *testing.T) {
			t.Parallel()
			hc, err := client.NewStreamableHttpClient(goSDKServer(t, stateless))
			if err != nil {
				t.Fatal(err)
			}
			version := mcp.LATEST_PROTOCOL_VERSION
			if !stateless {
				version = mcp.LATEST_LEGACY_PROTOCOL_VERSION
			}
			importGoSDKTools(t, initializeAt(t, hc, version))
		})
	}
}

// importGoSDKTools checks the tools of goSDKServer, imported through c.
func importGoSDKTools(t *testing.T, c *client.Client) {
	t.Helper()
	tools, err := mcpbridge.Tools(testContext(t), c, mcpbridge.WithPrefix("go_"))
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]tool.Tool{}
	described := map[string]string{}
	for _, tl := range tools {
		byName[tl.Name()] = tl
		described[tl.Name()] = tl.Description()
	}
	want := map[string]string{"go_add": "Adds two numbers.", "go_divide": "Divides a by b.", "go_greet": "Greets someone."}
	if diff := cmp.Diff(want, described); diff != "" {
		t.Fatalf("tools and descriptions (-want +got):\n%s", diff)
	}
	var schema struct {
		Type       string
		Properties map[string]struct{ Type, Description string }
		Required   []string
	}
	if err := json.Unmarshal(byName["go_add"].Schema(), &schema); err != nil {
		t.Fatal(err)
	}
	if schema.Type != "object" || schema.Properties["a"].Type != "integer" || schema.Properties["b"].Description != "the second number" || len(schema.Required) != 2 {
		t.Errorf("go_add's schema %s", byName["go_add"].Schema())
	}

	tests := []struct {
		tool, args string
		want       string // the result (JSON when it starts with {), or a part of the error
		wantErr    bool
	}{
		{"go_add", `{"a":2,"b":3}`, `{"sum":5}`, false},
		{"go_greet", `{"name":"Ada"}`, "Hello, Ada!", false},
		{"go_divide", `{"a":1,"b":0}`, "division by zero: give a b other than 0", true},
		{"go_add", `{"a":"two","b":3}`, `/properties/a`, true}, // the server refuses arguments off its schema
	}
	for _, tt := range tests {
		out, err := byName[tt.tool].Call(testContext(t), json.RawMessage(tt.args))
		switch {
		case tt.wantErr:
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("%s(%s): %q, %v; want an error with %q", tt.tool, tt.args, out, err, tt.want)
			}
		case err != nil:
			t.Errorf("%s(%s): %v", tt.tool, tt.args, err)
		case strings.HasPrefix(tt.want, "{"):
			if !jsonEqual(t, []byte(out), []byte(tt.want)) {
				t.Errorf("%s(%s): %s, want %s", tt.tool, tt.args, out, tt.want)
			}
		case out != tt.want:
			t.Errorf("%s(%s): %q, want %q", tt.tool, tt.args, out, tt.want)
		}
	}

	// An assistant calls the server's tool, and the structured result reaches its answer.
	model := llmtest.NewFunc(func(_ context.Context, req llmtest.Request) llmtest.Reply {
		if out, ok := toolResult(req); ok {
			return llmtest.Text("The server said " + out)
		}
		return llmtest.Calls(llmtest.Call("go_add", `{"a":20,"b":22}`))
	})
	a := assistant.New[string]("adder", assistant.WithModel(model), assistant.WithTools(tools...))
	res, err := a.Run(testContext(t), assistant.Input{Prompt: "20 + 22?"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(res.Output, "The server said ") || !jsonEqual(t, []byte(strings.TrimPrefix(res.Output, "The server said ")), []byte(`{"sum":42}`)) {
		t.Errorf("the assistant answered %q", res.Output)
	}
}
