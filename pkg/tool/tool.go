package tool

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// Tool is something a model can call.
//
// An assistant calls a tool from several goroutines at once (all calls of one model turn run
// concurrently, and an assistant serves any number of runs), so Call must be safe for concurrent
// use. Call must honour ctx: the run waits for its tool calls before it returns.
type Tool interface {
	// Name identifies the tool to the model: it matches ^[a-zA-Z0-9_-]{1,64}$ (see ValidName).
	Name() string
	// Description tells the model what the tool does and when to call it.
	Description() string
	// Schema is the JSON Schema of the arguments. Its root is always an object.
	Schema() json.RawMessage
	// Call runs the tool with the model's arguments, which match Schema. Its result goes back to
	// the model as text. An error goes back to the model too, as the tool's result, and the run
	// goes on; wrap ErrInvalidArgs to ask the model to fix its arguments.
	Call(ctx context.Context, args json.RawMessage) (string, error)
}

// Typed is implemented by tools whose result is a JSON object of a known schema: Func tools
// whose output type is a struct or a map, and assistants wrapped as tools. MCP serves the output
// schema and the result as structured content.
type Typed interface {
	Tool
	// OutputSchema is the JSON Schema of the result Call returns.
	OutputSchema() json.RawMessage
}

// ErrInvalidArgs marks an error about the arguments a model wrote. A tool returns it wrapped
// (fmt.Errorf("%w: ...", tool.ErrInvalidArgs)) and the model is sent the error and the tool's
// schema, and asked to call again with corrected arguments.
var ErrInvalidArgs = errors.New("invalid arguments")

// ValidName reports, as an error saying what to change, whether name can name a tool: 1 to 64
// characters, each an ASCII letter, a digit, '_' or '-'. Model APIs reject any other name.
func ValidName(name string) error {
	const allowed = "ASCII letters (a-z, A-Z), digits, '_' or '-'"
	if name == "" {
		return errors.New("tool name is empty: name the tool with 1 to 64 " + allowed)
	}
	if len(name) > 64 {
		return fmt.Errorf("tool name %q is %d characters long: model APIs accept at most 64; shorten it", name, len(name))
	}
	for i, c := range name {
		if c < utf8.RuneSelf && validByte(byte(c)) {
			continue
		}
		return fmt.Errorf("tool name %q has %q at byte %d: use only %s, e.g. %q", name, c, i, allowed, suggestName(name))
	}
	return nil
}

func validByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}

// suggestName is name with each character a tool name cannot hold replaced by '_'.
func suggestName(name string) string {
	return strings.Map(func(r rune) rune {
		if r < utf8.RuneSelf && validByte(byte(r)) {
			return r
		}
		return '_'
	}, name)
}
