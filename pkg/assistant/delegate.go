package assistant

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/cadrehq/cadre/internal/argshape"
	"github.com/cadrehq/cadre/pkg/chat"
	"github.com/cadrehq/cadre/pkg/schema"
	"github.com/cadrehq/cadre/pkg/tool"
)

// ToolOption configures AsTool.
type ToolOption func(*toolConfig)

type toolConfig struct {
	name, description string
}

// ToolName names the tool (default r.Name()). Model APIs accept only names that match
// ^[a-zA-Z0-9_-]{1,64}$.
func ToolName(name string) ToolOption { return func(c *toolConfig) { c.name = name } }

// ToolDescription describes the tool to the model (default r.Description()).
func ToolDescription(text string) ToolOption {
	return func(c *toolConfig) { c.description = text }
}

// AsTool wraps r as a tool, so that an assistant's model can delegate to it: the model calling
// it writes arguments of type I. Usage: assistant.AsTool[ResearchRequest](researcher) — O is
// inferred.
//
// A struct, pointer-to-struct or map I is the arguments object; any other I is wrapped as
// {"input": I}. The delegated run gets I as its prompt (as JSON, or the string itself) and I's
// JSON fields as template vars (absent optional fields present as nil; a wrapped I gives the
// var "input"). The tool's result is O as JSON, or the text for a string O; the tool is a
// tool.Typed when O is a struct or a map.
//
// The delegated run records into the caller's usage ledger and is bound by the caller's limits
// and depth limit; the caller's event handlers receive its events. When it fails because a
// limit was reached, because the depth limit was, or because the caller's run was cancelled,
// the caller's run ends too; any other failure goes back to the caller's model as the tool's
// error, and the caller's run goes on.
//
// AsTool panics, as New does, on a name that is not a valid tool name and on an I or O that
// has no JSON Schema.
func AsTool[I, O any](r Runner[O], opts ...ToolOption) tool.Tool {
	cfg := toolConfig{name: r.Name(), description: r.Description()}
	for _, o := range opts {
		if o != nil {
			o(&cfg)
		}
	}
	if err := tool.ValidName(cfg.name); err != nil {
		panic(fmt.Sprintf("assistant.AsTool: %v (give the tool a valid name with ToolName)", err))
	}
	t := &agentTool[I, O]{r: r, name: cfg.name, description: cfg.description}
	in := reflect.TypeFor[I]()
	var args *schema.Schema
	var err error
	if t.wrapped = !argshape.IsObjectType(in); t.wrapped {
		args, err = schema.For[argshape.Input[I]]()
	} else {
		args, err = schema.For[I]()
	}
	if err != nil {
		panic(fmt.Sprintf("assistant.AsTool: %q: arguments: %v", cfg.name, err))
	}
	t.schema = args.JSON()
	t.textIn = in.Kind() == reflect.String
	t.fields = args.Properties()
	out := reflect.TypeFor[O]()
	t.textOut = out.Kind() == reflect.String
	if t.textOut || !argshape.IsObjectType(out) {
		return t
	}
	s, err := schema.For[O]()
	if err != nil {
		panic(fmt.Sprintf("assistant.AsTool: %q: result: %v", cfg.name, err))
	}
	return &typedAgentTool[I, O]{agentTool: t, output: s.JSON()}
}

type agentTool[I, O any] struct {
	r                 Runner[O]
	name, description string
	schema            json.RawMessage
	fields            []string // the arguments' top-level properties: the delegated run's vars
	wrapped           bool     // the arguments are {"input": I}
	textIn, textOut   bool     // I, O are string kinds
}

func (t *agentTool[I, O]) Name() string            { return t.name }
func (t *agentTool[I, O]) Description() string     { return t.description }
func (t *agentTool[I, O]) Schema() json.RawMessage { return t.schema }

// Call runs the delegated assistant with the model's arguments.
func (t *agentTool[I, O]) Call(ctx context.Context, args json.RawMessage) (string, error) {
	in, err := t.input(args)
	if err != nil {
		return "", err
	}
	// A delegated run is not part of the caller's chat.
	ctx = chat.WithID(ctx, chat.ID{})
	var res *Result[O]
	if resume := resumeFrom(ctx); resume != nil {
		res, err = t.resume(ctx, resume)
	} else {
		res, err = t.r.Run(ctx, in)
	}
	if err != nil {
		return "", err
	}
	if res.Stop == StopPending && res.Paused != nil {
		return "", &pendingError{paused: res.Paused}
	}
	if t.textOut {
		return reflect.ValueOf(res.Output).String(), nil
	}
	b, err := json.Marshal(res.Output)
	if err != nil {
		return "", fmt.Errorf("assistant %q: encoding its answer: %w", t.r.Name(), err)
	}
	return string(b), nil
}

// resume continues the delegated run that paused, with the decisions of its subtree. The
// caller carried the paused run's usage: the resumed run adopts it (see plan.resume).
func (t *agentTool[I, O]) resume(ctx context.Context, resume *resumeInfo) (*Result[O], error) {
	rs, ok := t.r.(Resumer[O])
	if !ok {
		return nil, fmt.Errorf("%s paused, but cannot be resumed: it is not an assistant.Resumer", t.r.Name())
	}
	// Only the decisions of this run's subtree: a sibling's are not its to check.
	own := map[string]Decision{}
	for _, c := range resume.paused.Waiting() {
		if d, ok := resume.decisions[c.ID]; ok {
			own[c.ID] = d
		}
	}
	return rs.Resume(ctx, resume.paused, own)
}

// input makes the delegated run's Input of the arguments.
func (t *agentTool[I, O]) input(args json.RawMessage) (Input, error) {
	vars := make(map[string]any, len(t.fields))
	if err := json.Unmarshal(args, &vars); err != nil {
		return Input{}, fmt.Errorf("%w: %v", tool.ErrInvalidArgs, err)
	}
	for _, f := range t.fields {
		if _, ok := vars[f]; !ok {
			vars[f] = nil
		}
	}
	var prompt string
	if t.wrapped {
		var w argshape.Input[I]
		if err := json.Unmarshal(args, &w); err != nil {
			return Input{}, fmt.Errorf("%w: %v", tool.ErrInvalidArgs, err)
		}
		if t.textIn {
			prompt = reflect.ValueOf(w.Input).String()
		} else {
			b, _ := json.Marshal(w.Input)
			prompt = string(b)
		}
	} else {
		var v I
		if err := json.Unmarshal(args, &v); err != nil {
			return Input{}, fmt.Errorf("%w: %v", tool.ErrInvalidArgs, err)
		}
		b, err := json.Marshal(v)
		if err != nil {
			return Input{}, fmt.Errorf("%w: %v", tool.ErrInvalidArgs, err)
		}
		prompt = string(b)
	}
	return Input{Prompt: prompt, Vars: vars}, nil
}

type typedAgentTool[I, O any] struct {
	*agentTool[I, O]
	output json.RawMessage
}

func (t *typedAgentTool[I, O]) OutputSchema() json.RawMessage { return t.output }
