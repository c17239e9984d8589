package toolbox_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/cadrehq/cadre/internal/toolbox"
	"github.com/cadrehq/cadre/pkg/model"
	"github.com/cadrehq/cadre/pkg/tool"
)

// fake is a tool whose schema and behaviour a test sets; it counts its calls.
type fake struct {
	name   string
	schema string
	call   func(args json.RawMessage) (string, error)
	calls  int
}

func (f *fake) Name() string            { return f.name }
func (f *fake) Description() string     { return "the " + f.name + " tool" }
func (f *fake) Schema() json.RawMessage { return json.RawMessage(f.schema) }
func (f *fake) Call(_ context.Context, args json.RawMessage) (string, error) {
	f.calls++
	if f.call == nil {
		return string(args), nil
	}
	return f.call(args)
}

const citySchema = `{
  "type": "object",
  "properties": {"city": {"type": "string"}},
  "required": ["city"]
}`

func newFake(name string) *fake { return &fake{name: name, schema: citySchema} }

func mustBox(t *testing.T, tools ...tool.Tool) *toolbox.Box {
	t.Helper()
	b, err := toolbox.New(tools, len(tools), "final_result")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestNewRefuses: what model APIs would reject, or a run could not tell apart, is refused
// with an error that says what to change.
func TestNewRefuses(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name  string
		tools []tool.Tool
		given int
		want  string
	}{
		{"nil tool", []tool.Tool{newFake("a"), nil}, 2, "tool 1 is nil"},
		{"invalid name", []tool.Tool{newFake("a b")}, 1, "tool name"},
		{"two given of one name", []tool.Tool{newFake("a"), newFake("a")}, 2, `two tools are named "a"`},
		{"a set's tool named like a given one", []tool.Tool{newFake("a"), newFake("a")}, 1, "a tool set's tools (WithToolSet, WithSkills) must be named unlike the others"},
		{"the output tool's name", []tool.Tool{newFake("final_result")}, 1, "taken by the assistant's output tool"},
		{"a schema that does not compile", []tool.Tool{&fake{name: "a", schema: `{"type": 3}`}}, 1, `tool "a": its schema`},
		{"a schema that is no object", []tool.Tool{&fake{name: "a", schema: `{"type": "string"}`}}, 1, "must describe an object"},
	} {
		if _, err := toolbox.New(tt.tools, tt.given, "final_result"); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: New = %v; want an error saying %q", tt.name, err, tt.want)
		}
	}
	// Without a reserved name, a tool may be named final_result (a text answer has no output tool).
	if _, err := toolbox.New([]tool.Tool{newFake("final_result")}, 1, ""); err != nil {
		t.Errorf("New without a reserved name: %v", err)
	}
}

// TestBoxReads: the tools in order, their names as a list, each found by name.
func TestBoxReads(t *testing.T) {
	t.Parallel()
	a, b := newFake("a"), newFake("b")
	box := mustBox(t, a, b)
	if got := box.Tools(); len(got) != 2 || got[0] != tool.Tool(a) || got[1] != tool.Tool(b) {
		t.Errorf("Tools = %v; want a, b in order", got)
	}
	if got := box.Names(); got != "a, b" {
		t.Errorf("Names = %q; want \"a, b\"", got)
	}
	if tl, ok := box.Lookup("b"); !ok || tl != tool.Tool(b) {
		t.Errorf("Lookup(b) = %v, %t; want b", tl, ok)
	}
	if tl, ok := box.Lookup("c"); ok || tl != nil {
		t.Errorf("Lookup(c) = %v, %t; want nothing", tl, ok)
	}
}

// TestCall: the tool runs only with arguments its schema takes; every error tells the model
// how to go on.
func TestCall(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	picky := newFake("picky")
	picky.call = func(json.RawMessage) (string, error) {
		return "", fmt.Errorf("%w: no such city", tool.ErrInvalidArgs)
	}
	fails := newFake("fails")
	fails.call = func(json.RawMessage) (string, error) { return "", errors.New("the service is down") }
	noArgs := &fake{name: "now", schema: `{"type":"object"}`}
	weather := newFake("weather")
	box := mustBox(t, weather, picky, fails, noArgs)
	compactSchema := `{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`

	for _, tt := range []struct {
		tool, args string
		want       string // the result, or what the error says
		wantErr    bool
	}{
		{"weather", `{"city":"Oslo"}`, `{"city":"Oslo"}`, false},
		{"now", "  ", "{}", false}, // no arguments at all are an empty object
		{"weather", `{"town":"Oslo"}`, "invalid arguments for \"weather\"", true},
		{"weather", `{}`, "Call weather again with arguments that match its JSON Schema: " + compactSchema, true},
		{"picky", `{"city":"Atlantis"}`, "invalid arguments: no such city\nCall picky again with arguments that match its JSON Schema: " + compactSchema, true},
		{"fails", `{"city":"Oslo"}`, "the service is down", true},
		{"rain", `{}`, `there is no tool named "rain"; the available tools are: weather, picky, fails, now`, true},
	} {
		out, err := box.Call(ctx, tt.tool, tt.args)
		switch {
		case tt.wantErr && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("Call(%s, %s) = %q, %v; want an error saying %q", tt.tool, tt.args, out, err, tt.want)
		case !tt.wantErr && (err != nil || out != tt.want):
			t.Errorf("Call(%s, %s) = %q, %v; want %q", tt.tool, tt.args, out, err, tt.want)
		}
	}
	if weather.calls != 1 {
		t.Errorf("weather ran %d times; want once: invalid arguments never reach the tool", weather.calls)
	}
	if _, err := box.Call(ctx, "picky", `{"city":"x"}`); !errors.Is(err, tool.ErrInvalidArgs) {
		t.Errorf("a tool's ErrInvalidArgs is lost: %v", err)
	}

	empty := mustBox(t)
	if _, err := empty.Call(ctx, "rain", "{}"); err == nil || !strings.Contains(err.Error(), "no tool is available: answer without tools") {
		t.Errorf("Call in an empty box = %v; want an error saying to answer without tools", err)
	}

	done, cancel := context.WithCancel(ctx)
	cancel()
	before := weather.calls
	if _, err := box.Call(done, "weather", `{"city":"Oslo"}`); !errors.Is(err, context.Canceled) || weather.calls != before {
		t.Errorf("Call with a done context = %v, and the tool ran %d times; want context.Canceled, not run", err, weather.calls-before)
	}
}

// TestCallPanics: a panicking tool is an error the model can read, with the stack for the
// handlers, never a crash.
func TestCallPanics(t *testing.T) {
	t.Parallel()
	boom := newFake("boom")
	boom.call = func(json.RawMessage) (string, error) { panic("index out of range") }
	out, err := mustBox(t, boom).Call(t.Context(), "boom", `{"city":"x"}`)
	var pe *toolbox.PanicError
	if !errors.As(err, &pe) || out != "" {
		t.Fatalf("Call of a panicking tool = %q, %v; want a *PanicError", out, err)
	}
	if want := `tool "boom" failed unexpectedly (panic: index out of range)`; err.Error() != want {
		t.Errorf("the error says %q; want %q", err, want)
	}
	var s interface{ Stack() []byte }
	if !errors.As(err, &s) || !strings.Contains(string(s.Stack()), "toolbox_test") {
		t.Errorf("the error's stack does not show where the tool panicked:\n%s", pe.Stack())
	}
}

// TestKnown: a tool that a known box holds keeps its compiled schema; another tool of the
// same name is compiled anew.
func TestKnown(t *testing.T) {
	t.Parallel()
	a := newFake("a")
	old := mustBox(t, a)
	a.schema = `{"type":"string"}` // would be refused, were it compiled again
	if _, err := toolbox.New([]tool.Tool{a}, 1, "", old); err != nil {
		t.Errorf("New with a known tool compiled its schema again: %v", err)
	}
	other := &fake{name: "a", schema: `{"type":"string"}`}
	if _, err := toolbox.New([]tool.Tool{other}, 1, "", old); err == nil {
		t.Error("New took another tool's compiled schema for a tool of the same name")
	}
}

// TestAppendDefinitions: one definition per tool, in order, after what defs holds, with the
// parameters in the shape the model's client sends correctly.
func TestAppendDefinitions(t *testing.T) {
	t.Parallel()
	box := mustBox(t, newFake("a"), newFake("b"))
	for _, m := range []model.Model{{Name: "o", Provider: "openai"}, {Name: "g", Provider: "googleai"}} {
		defs, err := box.AppendDefinitions(nil, m)
		if err != nil {
			t.Fatal(err)
		}
		if len(defs) != 2 || defs[0].Function.Name != "a" || defs[1].Function.Name != "b" || defs[0].Function.Description != "the a tool" {
			t.Fatalf("%s: definitions %+v; want a, then b", m.Provider, defs)
		}
		want, _ := m.ToolParameters(json.RawMessage(citySchema))
		if fmt.Sprintf("%T", defs[0].Function.Parameters) != fmt.Sprintf("%T", want) {
			t.Errorf("%s: parameters are a %T; want a %T, as the model sends them", m.Provider, defs[0].Function.Parameters, want)
		}
	}
}

// TestSame: tools are the same only as the same pointers, in the same order; a tool whose
// type is not comparable is never the same, and comparing it does not panic.
func TestSame(t *testing.T) {
	t.Parallel()
	a, b := newFake("a"), newFake("b")
	type unhashable struct {
		tool.Tool
		tags []string
	}
	u := unhashable{Tool: a, tags: []string{"a"}}
	for _, tt := range []struct {
		x, y []tool.Tool
		want bool
	}{
		{[]tool.Tool{a, b}, []tool.Tool{a, b}, true},
		{[]tool.Tool{a, b}, []tool.Tool{b, a}, false},
		{[]tool.Tool{a}, []tool.Tool{newFake("a")}, false},
		{[]tool.Tool{u}, []tool.Tool{u}, false},
		{nil, nil, true},
	} {
		if got := toolbox.Same(tt.x, tt.y); got != tt.want {
			t.Errorf("Same(%v, %v) = %t, want %t", tt.x, tt.y, got, tt.want)
		}
	}
}

// TestCut: a result over the limit is cut on a character boundary, and the model is told
// how long it was and what to do.
func TestCut(t *testing.T) {
	t.Parallel()
	if got := toolbox.Cut("short", 5); got != "short" {
		t.Errorf("Cut at the limit = %q; want it whole", got)
	}
	got := toolbox.Cut("héllo", 2) // 'é' is bytes 1-2
	if !strings.HasPrefix(got, "h\n[result cut: it was 6 bytes and the limit is 2;") {
		t.Errorf("Cut(%q, 2) = %q; want it cut before the 'é', and the note", "héllo", got)
	}
}
