package mcpbridge

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"

	"github.com/cadrehq/cadre/pkg/schema"
	"github.com/cadrehq/cadre/pkg/tool"
	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
)

// ImportOption configures Tools and Connect.
type ImportOption func(*importConfig)

type importConfig struct {
	prefix string
	log    *slog.Logger
}

// WithPrefix puts p before the name of each imported tool, as it is (WithPrefix("files_")
// makes "read" "files_read"), so that the tools of two servers cannot collide. The prefixed
// name is made valid for model APIs like any other.
func WithPrefix(p string) ImportOption { return func(c *importConfig) { c.prefix = p } }

// maxToolName is the longest tool name model APIs accept.
const maxToolName = 64

// Tools lists the tools of the MCP server that c is connected to, page after page, and returns
// them as tools an assistant can use. c must be started and initialized; it must stay open for
// as long as the tools are used, and the caller closes it.
//
// Each tool keeps the description and the input schema the server gave (a tool without an
// input schema gets {"type": "object"}). Its name is the server's, after the prefix (see
// WithPrefix), made valid for model APIs: every character outside [a-zA-Z0-9_-] becomes '_'
// and the name is cut to 64 characters. Calling it calls the server's tool with the
// arguments; the result is the result's text contents joined by newlines, or its structured
// content as JSON when it has no text. A result with isError, or a protocol error, comes back
// as the tool's error with the server's text. The tools are safe for concurrent use when c
// is (mcp-go's clients are).
//
// Tools returns an error when listing fails, when a tool's input schema is not a valid JSON
// Schema of an object, or when two tools end up with the same name (give a prefix, or drop
// one of the tools).
func Tools(ctx context.Context, c client.MCPClient, opts ...ImportOption) ([]tool.Tool, error) {
	if c == nil {
		return nil, errors.New("mcpbridge.Tools: the client is nil")
	}
	var cfg importConfig
	for _, o := range opts {
		if o != nil {
			o(&cfg)
		}
	}
	listed, err := listTools(ctx, c, c, cfg.prefix)
	if err != nil {
		return nil, fmt.Errorf("mcpbridge.Tools: %w", err)
	}
	tools := make([]tool.Tool, len(listed))
	for i, t := range listed {
		tools[i] = t
	}
	return tools, nil
}

// toolLister lists an MCP server's tools, a page at a time: client.MCPClient does.
type toolLister interface {
	ListToolsByPage(ctx context.Context, req mcp.ListToolsRequest) (*mcp.ListToolsResult, error)
}

// toolCaller calls an MCP server's tool: client.MCPClient does, and so does a Remote.
type toolCaller interface {
	CallTool(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error)
}

// listTools lists the server's tools, page after page, as tools called through c (see Tools).
func listTools(ctx context.Context, l toolLister, c toolCaller, prefix string) ([]*remoteTool, error) {
	var tools []*remoteTool
	from := make(map[string]string) // model name -> server name
	seen := make(map[mcp.Cursor]bool)
	var req mcp.ListToolsRequest
	for {
		page, err := l.ListToolsByPage(ctx, req)
		if err != nil {
			return nil, fmt.Errorf("listing the MCP server's tools: %w", err)
		}
		for _, t := range page.Tools {
			rt, err := newRemoteTool(c, prefix, t)
			if err != nil {
				return nil, err
			}
			if other, dup := from[rt.name]; dup {
				return nil, fmt.Errorf("the MCP server's tools %q and %q both become %q: tool names must be unique, so remove one of them from the list", other, t.Name, rt.name)
			}
			from[rt.name] = t.Name
			tools = append(tools, rt)
		}
		if page.NextCursor == "" {
			return tools, nil
		}
		if seen[page.NextCursor] {
			return nil, fmt.Errorf("the MCP server gave the page cursor %q twice: its tool list never ends", page.NextCursor)
		}
		seen[page.NextCursor] = true
		req.Params.Cursor = page.NextCursor
	}
}

// modelName makes name valid for model APIs: each character outside [a-zA-Z0-9_-] becomes '_',
// and the result is cut to 64 characters.
func modelName(name string) string {
	var b strings.Builder
	for _, r := range name {
		if b.Len() == maxToolName {
			break
		}
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-' {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	return b.String()
}

// remoteTool is a tool of an MCP server, called through a client or a Remote.
type remoteTool struct {
	c           toolCaller
	name        string // for the model
	remote      string // the server's
	description string
	schema      json.RawMessage
}

func newRemoteTool(c toolCaller, prefix string, t mcp.Tool) (*remoteTool, error) {
	name := modelName(prefix + t.Name)
	if name == "" {
		return nil, errors.New("the MCP server has a tool without a name")
	}
	doc, err := inputSchema(t)
	if err != nil {
		return nil, fmt.Errorf("MCP tool %q: its input schema: %w", t.Name, err)
	}
	s, err := schema.Compile(doc)
	if err != nil {
		return nil, fmt.Errorf("MCP tool %q: its input schema is not valid: %w", t.Name, err)
	}
	if !s.IsObject() {
		return nil, fmt.Errorf(`MCP tool %q: its input schema does not describe an object ("type": "object"), as MCP and model APIs require`, t.Name)
	}
	return &remoteTool{c: c, name: name, remote: t.Name, description: t.Description, schema: s.JSON()}, nil
}

// inputSchema returns the schema of a listed tool's arguments. mcp-go's client keeps only the
// schema's type, properties, required, $defs and additionalProperties, which is what tool APIs use.
func inputSchema(t mcp.Tool) (json.RawMessage, error) {
	if len(t.RawInputSchema) > 0 {
		return t.RawInputSchema, nil
	}
	in := t.InputSchema
	if in.Type == "" && len(in.Properties) == 0 && len(in.Required) == 0 && in.Defs == nil && in.AdditionalProperties == nil {
		return json.RawMessage(`{"type":"object"}`), nil
	}
	if in.Type == "" {
		in.Type = "object"
	}
	return json.Marshal(in)
}

func (t *remoteTool) Name() string            { return t.name }
func (t *remoteTool) Description() string     { return t.description }
func (t *remoteTool) Schema() json.RawMessage { return t.schema }

// Call calls the server's tool.
func (t *remoteTool) Call(ctx context.Context, args json.RawMessage) (string, error) {
	if len(bytes.TrimSpace(args)) == 0 {
		args = json.RawMessage("{}")
	}
	// The arguments go as written (RawArguments); the decoded copy is for mcp-go, which reads
	// some of them into HTTP headers when a tool asks for that.
	var decoded map[string]any
	dec := json.NewDecoder(bytes.NewReader(args))
	dec.UseNumber()
	if err := dec.Decode(&decoded); err != nil {
		return "", fmt.Errorf("%w: the arguments must be a JSON object: %v", tool.ErrInvalidArgs, err)
	}
	var req mcp.CallToolRequest
	req.Params.Name = t.remote
	req.Params.Arguments = decoded
	req.Params.RawArguments = args
	res, err := t.c.CallTool(ctx, req)
	if err != nil {
		return "", fmt.Errorf("MCP tool %q: %w", t.remote, err)
	}
	text := resultText(res)
	if res.IsError {
		if text == "" {
			text = "it failed without saying why"
		}
		return "", fmt.Errorf("MCP tool %q: %s", t.remote, text)
	}
	return text, nil
}

// resultText is what a model reads of a tool result: the text contents joined by newlines, or
// the structured content as JSON when there is no text, or a note of what else came back.
func resultText(res *mcp.CallToolResult) string {
	var texts, others []string
	for _, c := range res.Content {
		switch c := c.(type) {
		case mcp.TextContent:
			texts = append(texts, c.Text)
		case *mcp.TextContent:
			texts = append(texts, c.Text)
		case mcp.EmbeddedResource:
			if r, ok := c.Resource.(mcp.TextResourceContents); ok {
				texts = append(texts, r.Text)
			} else {
				others = append(others, "[an embedded resource that is not text]")
			}
		case mcp.ResourceLink:
			others = append(others, fmt.Sprintf("[a link to the resource %s]", c.URI))
		case mcp.ImageContent:
			others = append(others, fmt.Sprintf("[an image (%s) that cannot be shown as text]", c.MIMEType))
		case mcp.AudioContent:
			others = append(others, fmt.Sprintf("[audio (%s) that cannot be shown as text]", c.MIMEType))
		default:
			others = append(others, "[content that cannot be shown as text]")
		}
	}
	if len(texts) > 0 {
		return strings.Join(texts, "\n")
	}
	if len(res.RawStructuredContent) > 0 {
		return string(res.RawStructuredContent)
	}
	if res.StructuredContent != nil {
		if b, err := json.Marshal(res.StructuredContent); err == nil {
			return string(b)
		}
	}
	return strings.Join(others, "\n")
}
