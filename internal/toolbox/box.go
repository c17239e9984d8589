package toolbox

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/cadrehq/cadre/pkg/model"
	"github.com/cadrehq/cadre/pkg/schema"
	"github.com/cadrehq/cadre/pkg/tool"
	"github.com/tmc/langchaingo/llms"
)

// Box is a set of tools by name. It is never modified after New, and safe for concurrent
// calls.
type Box struct {
	tools  []tool.Tool
	byName map[string]*entry
	names  string // "a, b, c": for a model that calls a tool that does not exist
}

type entry struct {
	tool   tool.Tool
	schema *schema.Schema
	hint   string // the schema, as quoted when the model's arguments are wrong
}

// New makes the box of tools, in order. The first given of them were given one by one (an
// assistant's WithTools), the others by tool sets: every name must be a valid tool name and
// unique, and the error for a name taken twice says which kind of tool must be renamed. No
// tool may be named reserved (an output tool's name), unless it is "". Every schema must
// describe an object. A tool that one of known holds (the same pointer) is not compiled
// again.
func New(tools []tool.Tool, given int, reserved string, known ...*Box) (*Box, error) {
	b := &Box{tools: make([]tool.Tool, 0, len(tools)), byName: make(map[string]*entry, len(tools))}
	names := make([]string, 0, len(tools))
	for i, tl := range tools {
		if tl == nil {
			return nil, fmt.Errorf("tool %d is nil", i)
		}
		name := tl.Name()
		if err := tool.ValidName(name); err != nil {
			return nil, err
		}
		if _, dup := b.byName[name]; dup && i >= given {
			return nil, fmt.Errorf("tool name %q is taken by another of the assistant's tools: a tool set's tools (WithToolSet, WithSkills) must be named unlike the others; rename the tool", name)
		} else if dup {
			return nil, fmt.Errorf("two tools are named %q: tool names must be unique", name)
		}
		if name == reserved && reserved != "" {
			return nil, fmt.Errorf("tool name %q is taken by the assistant's output tool: rename the tool", name)
		}
		e := entryOf(tl, known)
		if e == nil {
			s, err := schema.Compile(tl.Schema())
			if err != nil {
				return nil, fmt.Errorf("tool %q: its schema: %w", name, err)
			}
			if !s.IsObject() {
				return nil, fmt.Errorf("tool %q: its schema must describe an object (\"type\": \"object\"): model APIs reject anything else", name)
			}
			e = &entry{tool: tl, schema: s, hint: compact(tl.Schema())}
		}
		b.tools = append(b.tools, tl)
		b.byName[name] = e
		names = append(names, name)
	}
	b.names = strings.Join(names, ", ")
	return b, nil
}

// entryOf returns the entry of tl in one of known, when one has it: what only depends on
// the tool (its compiled schema) is then not made again.
func entryOf(tl tool.Tool, known []*Box) *entry {
	for _, b := range known {
		if b == nil {
			continue
		}
		if e, ok := b.byName[tl.Name()]; ok && same(e.tool, tl) {
			return e
		}
	}
	return nil
}

// Tools returns the box's tools, in order; the slice is the box's: never modify it.
func (b *Box) Tools() []tool.Tool { return b.tools }

// Names returns the names of the box's tools, in order, as a list: "a, b, c".
func (b *Box) Names() string { return b.names }

// Lookup returns the tool named name.
func (b *Box) Lookup(name string) (tool.Tool, bool) {
	e, ok := b.byName[name]
	if !ok {
		return nil, false
	}
	return e.tool, true
}

// AppendDefinitions appends the definitions of the box's tools, for a request to m, to defs.
func (b *Box) AppendDefinitions(defs []llms.Tool, m model.Model) ([]llms.Tool, error) {
	for _, tl := range b.tools {
		params, err := m.ToolParameters(tl.Schema())
		if err != nil {
			return nil, fmt.Errorf("tool %q: %w", tl.Name(), err)
		}
		defs = append(defs, llms.Tool{Type: "function", Function: &llms.FunctionDefinition{
			Name: tl.Name(), Description: tl.Description(), Parameters: params,
		}})
	}
	return defs, nil
}

// Call finds the tool named name, checks args against its schema (empty arguments are {}),
// and calls it, unless ctx is done. A panic of the tool is returned as a *PanicError; an
// error of the tool that wraps tool.ErrInvalidArgs says how to call again, as the schema's
// does.
func (b *Box) Call(ctx context.Context, name, args string) (out string, err error) {
	e, ok := b.byName[name]
	switch {
	case !ok && b.names == "":
		return "", fmt.Errorf("there is no tool named %q, and no tool is available: answer without tools", name)
	case !ok:
		return "", fmt.Errorf("there is no tool named %q; the available tools are: %s", name, b.names)
	case ctx.Err() != nil:
		return "", fmt.Errorf("not run: %w", ctx.Err())
	}
	if strings.TrimSpace(args) == "" {
		args = "{}"
	}
	data := []byte(args)
	if err := e.schema.Validate(data); err != nil {
		return "", fmt.Errorf("invalid arguments for %q: %v\nCall %s again with arguments that match its JSON Schema: %s", name, err, name, e.hint)
	}
	defer func() {
		if v := recover(); v != nil {
			out, err = "", &PanicError{Tool: name, Value: v, stack: debug.Stack()}
		}
	}()
	out, err = e.tool.Call(ctx, data)
	if err != nil && errors.Is(err, tool.ErrInvalidArgs) {
		err = fmt.Errorf("%w\nCall %s again with arguments that match its JSON Schema: %s", err, name, e.hint)
	}
	return out, err
}

// PanicError is a recovered panic of a tool. The model sees the panic's value; a handler of
// the ToolError event gets the stack from the event's Err through its Stack method:
// errors.As(e.Err, &s) with s an interface{ Stack() []byte }.
type PanicError struct {
	Tool  string // the tool's name
	Value any    // what it panicked with
	stack []byte
}

// Stack is the stack of the goroutine where the tool panicked.
func (e *PanicError) Stack() []byte { return e.stack }

func (e *PanicError) Error() string {
	return fmt.Sprintf("tool %q failed unexpectedly (panic: %v)", e.Tool, e.Value)
}

// Same reports whether a and b hold the same tools in the same order: the same pointers.
func Same(a, b []tool.Tool) bool {
	return slices.EqualFunc(a, b, same)
}

// same reports whether a and b are the same pointer. Tools of other kinds are never the
// same: comparing two values of a type that is not comparable would panic.
func same(a, b tool.Tool) bool {
	return a != nil && reflect.TypeOf(a).Kind() == reflect.Pointer && a == b
}

func compact(doc json.RawMessage) string {
	var b bytes.Buffer
	if err := json.Compact(&b, doc); err != nil {
		return string(doc)
	}
	return b.String()
}
