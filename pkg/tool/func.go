package tool

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"time"
	"unsafe"

	"github.com/cadrehq/cadre/internal/argshape"
	"github.com/cadrehq/cadre/pkg/schema"
)

// FuncOption configures a tool made by Func.
type FuncOption func(*funcConfig)

type funcConfig struct {
	timeout time.Duration
}

// WithTimeout bounds each call of the tool: fn's context is cancelled after d. A call that
// runs out of time returns an error the model sees, and the run goes on.
func WithTimeout(d time.Duration) FuncOption {
	return func(c *funcConfig) { c.timeout = d }
}

// Func makes a tool of fn. An I whose values encode as a JSON object (a struct, a map, or a
// pointer to one; not time.Time, which encodes as a string) is the arguments object; any other
// I is wrapped as {"input": I}. The result is O as JSON, or O itself when O is a string; the
// tool is a Typed when O encodes as a JSON object, as such an I does.
//
// Func panics, as regexp.MustCompile does, on programmer errors: an invalid name (see
// ValidName), a nil fn, or an I or O that has no JSON Schema.
func Func[I, O any](name, description string, fn func(ctx context.Context, in I) (O, error), opts ...FuncOption) Tool {
	if err := ValidName(name); err != nil {
		panic("tool.Func: " + err.Error())
	}
	if fn == nil {
		panic(fmt.Sprintf("tool.Func: %q has a nil function", name))
	}
	var cfg funcConfig
	for _, o := range opts {
		o(&cfg)
	}
	wrap := !argshape.IsObjectType(reflect.TypeFor[I]())
	var in *schema.Schema
	var err error
	if wrap {
		in, err = schema.For[argshape.Input[I]]()
	} else {
		in, err = schema.For[I]()
	}
	if err != nil {
		panic(fmt.Sprintf("tool.Func: %q: arguments: %v", name, err))
	}
	f := &funcTool[I, O]{name: name, description: description, fn: fn, wrap: wrap, schema: in.JSON(), timeout: cfg.timeout}
	outType := reflect.TypeFor[O]()
	if outType.Kind() == reflect.String {
		f.text = true
		return f
	}
	// Every O but a string needs a schema, typed or not: one without (a func, a chan) could
	// never be encoded, and that is a programmer error to report now, not at the first call.
	out, err := schema.For[O]()
	if err != nil {
		panic(fmt.Sprintf("tool.Func: %q: result: %v", name, err))
	}
	if !argshape.IsObjectType(outType) {
		return f
	}
	return &typedFuncTool[I, O]{funcTool: f, output: out.JSON()}
}

type funcTool[I, O any] struct {
	name, description string
	fn                func(context.Context, I) (O, error)
	schema            json.RawMessage
	wrap              bool // arguments are {"input": I}
	text              bool // O is a string: returned as it is
	timeout           time.Duration
}

func (f *funcTool[I, O]) Name() string            { return f.name }
func (f *funcTool[I, O]) Description() string     { return f.description }
func (f *funcTool[I, O]) Schema() json.RawMessage { return f.schema }

func (f *funcTool[I, O]) Call(ctx context.Context, args json.RawMessage) (string, error) {
	in, err := f.decode(args)
	if err != nil {
		return "", err
	}
	if f.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, f.timeout)
		defer cancel()
	}
	out, err := f.fn(ctx, in)
	if err != nil {
		return "", err
	}
	if f.text {
		return reflect.ValueOf(out).String(), nil
	}
	b, err := json.Marshal(out)
	if err != nil {
		return "", fmt.Errorf("tool %q: encoding its result: %w", f.name, err)
	}
	// b is new and nobody else's: the result shares its bytes instead of copying them, one
	// allocation less per call (BenchmarkRunToolRound in package assistant).
	return unsafe.String(unsafe.SliceData(b), len(b)), nil
}

func (f *funcTool[I, O]) decode(args json.RawMessage) (I, error) {
	if f.wrap {
		var w argshape.Input[I]
		if err := json.Unmarshal(args, &w); err != nil {
			return w.Input, fmt.Errorf("%w: %v", ErrInvalidArgs, err)
		}
		return w.Input, nil
	}
	var in I
	if err := json.Unmarshal(args, &in); err != nil {
		return in, fmt.Errorf("%w: %v", ErrInvalidArgs, err)
	}
	return in, nil
}

type typedFuncTool[I, O any] struct {
	*funcTool[I, O]
	output json.RawMessage
}

func (f *typedFuncTool[I, O]) OutputSchema() json.RawMessage { return f.output }
