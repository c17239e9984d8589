package mcpbridge

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/cadrehq/cadre/pkg/schema"
	"github.com/cadrehq/cadre/pkg/tool"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// AddTool registers tool t.Name() (description t.Description()) on s, with t's argument
// schema. Calling it calls t. A tool.Typed declares its output schema and returns its result
// as structured content beside the text.
//
// The bridge answers every call with a tool result, never a protocol error, so that the model
// behind the client can read what went wrong and try again; the server keeps serving:
//   - arguments that do not match the schema get an isError result naming each wrong field
//     and saying what is wrong with it, and t is not called;
//   - an error from t gets an isError result with the error's text;
//   - a panic in t is recovered and gets an isError result that says only that an internal
//     error happened (see WithErrorHandler);
//   - a tool.Typed result that does not match its output schema gets an isError result.
//
// This does not depend on any option of s: the bridge checks and recovers by itself.
//
// t is called with the request's context, which ends when the client cancels the call
// (notifications/cancelled) or goes away: an assistant's run stops then, with every run it
// delegated to. A call whose _meta carries a progress token has an assistant served with
// Reporting send the client notifications/progress as it works (see Reporting).
//
// AddTool returns an error, and registers nothing, when s or t is nil, when the name is not a
// valid tool name (see tool.ValidName), when s already has a tool of that name, or when a
// schema is not a valid JSON Schema of an object. It is meant for setting a server up; t is
// called from the server's goroutines, concurrently, and must be safe for that.
func AddTool(s *server.MCPServer, t tool.Tool, opts ...Option) error {
	if s == nil {
		return errors.New("mcpbridge.AddTool: the server is nil")
	}
	if t == nil {
		return errors.New("mcpbridge.AddTool: the tool is nil")
	}
	cfg := newConfig(t.Name(), t.Description(), opts)
	if err := tool.ValidName(cfg.name); err != nil {
		return fmt.Errorf("mcpbridge.AddTool: %w", err)
	}
	if s.GetTool(cfg.name) != nil {
		return fmt.Errorf("mcpbridge.AddTool: the server already has a tool named %q: register this one under another name with WithName", cfg.name)
	}
	h := &toolHandler{config: cfg, srv: s, tool: t}
	def := mcp.Tool{Name: cfg.name, Title: cfg.title, Description: cfg.description}
	var err error
	if h.args, def.RawInputSchema, err = objectSchema(t.Schema()); err != nil {
		return fmt.Errorf("mcpbridge.AddTool: tool %q: its argument schema %w", cfg.name, err)
	}
	if typed, ok := t.(tool.Typed); ok {
		if h.output, def.RawOutputSchema, err = objectSchema(typed.OutputSchema()); err != nil {
			return fmt.Errorf("mcpbridge.AddTool: tool %q: its output schema %w", cfg.name, err)
		}
	}
	return register("tool", cfg.name, func() { s.AddTool(def, h.handle) })
}

// objectSchema compiles doc, which must describe an object, and returns it compacted.
func objectSchema(doc json.RawMessage) (*schema.Schema, json.RawMessage, error) {
	s, err := schema.Compile(doc)
	if err != nil {
		return nil, nil, fmt.Errorf("is not valid: %w", err)
	}
	if !s.IsObject() {
		return nil, nil, errors.New(`must describe an object ("type": "object"), as MCP requires`)
	}
	var b bytes.Buffer
	if err := json.Compact(&b, doc); err != nil {
		return nil, nil, fmt.Errorf("is not valid: %w", err)
	}
	return s, b.Bytes(), nil
}

type toolHandler struct {
	config
	srv    *server.MCPServer
	tool   tool.Tool
	args   *schema.Schema
	output *schema.Schema // nil unless the tool is a tool.Typed
}

func (h *toolHandler) handle(ctx context.Context, req mcp.CallToolRequest) (res *mcp.CallToolResult, _ error) {
	defer func() {
		if v := recover(); v != nil {
			h.recovered(ctx, v)
			res = mcp.NewToolResultError(internalError("tool", h.name))
		}
	}()
	args, err := arguments(req)
	if err == nil {
		err = h.args.Validate(args)
	}
	if err != nil {
		return h.fail(ctx, fmt.Errorf("%w for tool %q (see its input schema):\n%v", tool.ErrInvalidArgs, h.name, err)), nil
	}
	progress := newProgress(ctx, h.srv, req.Params.Meta)
	if progress != nil {
		ctx = withProgress(ctx, progress) // for a Reporting run to report to
	}
	out, err := h.tool.Call(ctx, args)
	progress.flush()
	if err != nil {
		return h.fail(ctx, err), nil
	}
	res = mcp.NewToolResultText(out)
	if h.output != nil {
		if err := h.output.Validate([]byte(out)); err != nil {
			return h.fail(ctx, fmt.Errorf("tool %q returned a result that does not match its output schema:\n%v", h.name, err)), nil
		}
		res.StructuredContent = json.RawMessage(out)
	}
	return res, nil
}

// fail reports err and makes the isError result that tells the client about it.
func (h *toolHandler) fail(ctx context.Context, err error) *mcp.CallToolResult {
	h.report(ctx, err)
	text := err.Error()
	if text == "" {
		text = fmt.Sprintf("tool %q failed without saying why", h.name)
	}
	return mcp.NewToolResultError(text)
}

// arguments returns the call's arguments as JSON: as the client sent them when they came over
// the wire, and {} when the client sent none (or null).
func arguments(req mcp.CallToolRequest) (json.RawMessage, error) {
	raw := req.Params.RawArguments
	if len(raw) == 0 && req.Params.Arguments != nil {
		var err error
		if raw, err = json.Marshal(req.Params.Arguments); err != nil {
			return nil, fmt.Errorf("(root): the arguments cannot be read as JSON: %v", err)
		}
	}
	if t := bytes.TrimSpace(raw); len(t) == 0 || string(t) == "null" {
		return json.RawMessage("{}"), nil
	}
	return raw, nil
}
