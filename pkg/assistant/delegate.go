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
	defer func() {
		if v := recover(); v != nil {
			panic(fmt.Sprintf("assistant.AsTool: %v", v)) // tool.Func's: an I or O without a schema
		}
	}()
	d := &delegation[I, O]{r: r, wrapped: !argshape.IsObjectType(reflect.TypeFor[I]())}
	t := tool.Func(cfg.name, cfg.description, d.run) // the arguments and the result, as any typed tool's
	if typed, ok := t.(tool.Typed); ok {
		return typedAgentTool{agentTool{t}, typed}
	}
	return agentTool{t}
}

// agentTool is a tool made by AsTool: a tool.Func that runs a delegation, marked as one.
type agentTool struct{ tool.Tool }

func (agentTool) delegates() {}

type typedAgentTool struct {
	agentTool
	typed tool.Typed
}

func (t typedAgentTool) OutputSchema() json.RawMessage { return t.typed.OutputSchema() }

// delegation runs r for the calls of its tool.
type delegation[I, O any] struct {
	r       Runner[O]
	wrapped bool // the arguments are {"input": I}
}

// run runs the delegated assistant with the model's arguments, or resumes its paused run.
func (d *delegation[I, O]) run(ctx context.Context, in I) (O, error) {
	var zero O
	input, err := d.input(in)
	if err != nil {
		return zero, err
	}
	// A delegated run is not part of the caller's chat.
	ctx = chat.WithID(ctx, chat.ID{})
	var res *Result[O]
	if resume := resumeFrom(ctx); resume != nil {
		res, err = d.resume(ctx, resume)
	} else {
		res, err = d.r.Run(ctx, input)
	}
	switch {
	case err != nil:
		return zero, err
	case res.Stop == StopPending && res.Paused != nil:
		return zero, &pendingError{paused: res.Paused}
	}
	return res.Output, nil
}

// resume continues the delegated run that paused, with the decisions of its subtree. The
// caller carried the paused run's usage: the resumed run adopts it (see plan.resume).
func (d *delegation[I, O]) resume(ctx context.Context, resume *resumeInfo) (*Result[O], error) {
	rs, ok := d.r.(Resumer[O])
	if !ok {
		return nil, fmt.Errorf("%s paused, but cannot be resumed: it is not an assistant.Resumer", d.r.Name())
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

// input makes the delegated run's Input of its arguments: I as the prompt (the string itself,
// or its JSON), and the arguments' properties as vars, those left out nil.
func (d *delegation[I, O]) input(in I) (Input, error) {
	doc, err := json.Marshal(in)
	var v any
	if err == nil {
		err = json.Unmarshal(doc, &v)
	}
	if err != nil {
		return Input{}, fmt.Errorf("%w: %v", tool.ErrInvalidArgs, err)
	}
	prompt := string(doc)
	if s, ok := v.(string); ok && reflect.TypeFor[I]().Kind() == reflect.String {
		prompt = s
	}
	if d.wrapped {
		return Input{Prompt: prompt, Vars: map[string]any{"input": v}}, nil
	}
	vars, _ := v.(map[string]any)
	if vars == nil {
		vars = map[string]any{}
	}
	s, _ := schema.For[I]() // it has one: tool.Func checked
	for _, f := range s.Properties() {
		if _, ok := vars[f]; !ok {
			vars[f] = nil
		}
	}
	return Input{Prompt: prompt, Vars: vars}, nil
}
