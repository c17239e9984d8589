package tool_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cadrehq/cadre/pkg/schema"
	"github.com/cadrehq/cadre/pkg/tool"
	"github.com/google/go-cmp/cmp"
)

type weatherArgs struct {
	City string `json:"city" jsonschema:"description=the city's name"`
	Days int    `json:"days,omitempty"`
}

type forecast struct {
	City  string  `json:"city"`
	TempC float64 `json:"temp_c"`
}

type mood string

// assertJSON fails t unless got is the JSON document want, whatever the spacing.
func assertJSON(t *testing.T, what, want string, got []byte) {
	t.Helper()
	var w, g any
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("want of %s: %v", what, err)
	}
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatalf("%s is not JSON: %v: %s", what, err, got)
	}
	if diff := cmp.Diff(w, g); diff != "" {
		t.Errorf("%s mismatch (-want +got):\n%s", what, diff)
	}
}

// call calls tl and fails t on an error.
func call(t *testing.T, tl tool.Tool, args string) string {
	t.Helper()
	out, err := tl.Call(context.Background(), json.RawMessage(args))
	if err != nil {
		t.Fatalf("Call(%s): %v", args, err)
	}
	return out
}

const weatherSchema = `{
	"type": "object",
	"properties": {
		"city": {"type": "string", "description": "the city's name"},
		"days": {"type": "integer"}
	},
	"additionalProperties": false,
	"required": ["city"]
}`

func TestFuncStructArgs(t *testing.T) {
	t.Parallel()
	var got weatherArgs
	tl := tool.Func("weather", "Tells the weather.", func(_ context.Context, in weatherArgs) (string, error) {
		got = in
		return "ok", nil
	})
	if tl.Name() != "weather" || tl.Description() != "Tells the weather." {
		t.Errorf("Name, Description = %q, %q", tl.Name(), tl.Description())
	}
	assertJSON(t, "Schema", weatherSchema, tl.Schema())
	call(t, tl, `{"city":"Paris","days":2}`)
	if want := (weatherArgs{City: "Paris", Days: 2}); got != want {
		t.Errorf("fn got %+v, want %+v", got, want)
	}
}

func TestFuncPointerStructArgs(t *testing.T) {
	t.Parallel()
	var got *weatherArgs
	tl := tool.Func("weather", "", func(_ context.Context, in *weatherArgs) (string, error) {
		got = in
		return "ok", nil
	})
	assertJSON(t, "Schema", weatherSchema, tl.Schema())
	call(t, tl, `{"city":"Oslo"}`)
	if got == nil || *got != (weatherArgs{City: "Oslo"}) {
		t.Errorf("fn got %+v, want &{City:Oslo}", got)
	}
}

func TestFuncMapArgs(t *testing.T) {
	t.Parallel()
	tl := tool.Func("sum", "Adds the values.", func(_ context.Context, in map[string]int) (int, error) {
		n := 0
		for _, v := range in {
			n += v
		}
		return n, nil
	})
	assertJSON(t, "Schema", `{"type":"object","additionalProperties":{"type":"integer"}}`, tl.Schema())
	if got := call(t, tl, `{"a":1,"b":2,"c":3}`); got != "6" {
		t.Errorf("Call = %q, want 6", got)
	}
}

// A non-object I is the "input" property of the arguments object.
func TestFuncWrapsNonObjectArgs(t *testing.T) {
	t.Parallel()
	t.Run("string", func(t *testing.T) {
		t.Parallel()
		tl := tool.Func("shout", "", func(_ context.Context, in string) (string, error) {
			return strings.ToUpper(in), nil
		})
		assertJSON(t, "Schema", `{"type":"object","properties":{"input":{"type":"string"}},"additionalProperties":false,"required":["input"]}`, tl.Schema())
		if got := call(t, tl, `{"input":"hey"}`); got != "HEY" {
			t.Errorf("Call = %q, want HEY", got)
		}
	})
	t.Run("slice", func(t *testing.T) {
		t.Parallel()
		tl := tool.Func("count", "", func(_ context.Context, in []int) (int, error) { return len(in), nil })
		assertJSON(t, "Schema", `{"type":"object","properties":{"input":{"type":"array","items":{"type":"integer"}}},"additionalProperties":false,"required":["input"]}`, tl.Schema())
		if got := call(t, tl, `{"input":[4,5,6]}`); got != "3" {
			t.Errorf("Call = %q, want 3", got)
		}
	})
	t.Run("struct that is not an object", func(t *testing.T) {
		t.Parallel()
		// time.Time is a struct, but its JSON is a string: it cannot be the arguments object.
		tl := tool.Func("weekday", "", func(_ context.Context, in time.Time) (string, error) {
			return in.Weekday().String(), nil
		})
		assertJSON(t, "Schema", `{"type":"object","properties":{"input":{"type":"string","format":"date-time"}},"additionalProperties":false,"required":["input"]}`, tl.Schema())
		if got := call(t, tl, `{"input":"2024-05-01T10:00:00Z"}`); got != "Wednesday" {
			t.Errorf("Call = %q, want Wednesday", got)
		}
	})
}

func TestFuncStringResult(t *testing.T) {
	t.Parallel()
	const text = "Paris: \"sunny\"\n18°C"
	plain := tool.Func("weather", "", func(context.Context, weatherArgs) (string, error) { return text, nil })
	if got := call(t, plain, `{"city":"Paris"}`); got != text {
		t.Errorf("string result = %q, want %q as it is", got, text)
	}
	named := tool.Func("mood", "", func(context.Context, weatherArgs) (mood, error) { return "cheerful", nil })
	if got := call(t, named, `{"city":"Paris"}`); got != "cheerful" {
		t.Errorf("result of a string type = %q, want cheerful as it is", got)
	}
	for _, tl := range []tool.Tool{plain, named} {
		if _, ok := tl.(tool.Typed); ok {
			t.Errorf("tool %q with a string result is a tool.Typed", tl.Name())
		}
	}
}

func TestFuncObjectResultIsTyped(t *testing.T) {
	t.Parallel()
	forecastSchema, err := schema.For[forecast]()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name         string
		tool         tool.Tool
		outputSchema string
		result       string
	}{
		{
			name:         "struct",
			tool:         tool.Func("f", "", func(context.Context, weatherArgs) (forecast, error) { return forecast{"Paris", 18.5}, nil }),
			outputSchema: string(forecastSchema.JSON()),
			result:       `{"city":"Paris","temp_c":18.5}`,
		},
		{
			name:         "pointer to struct",
			tool:         tool.Func("f", "", func(context.Context, weatherArgs) (*forecast, error) { return &forecast{"Oslo", 4}, nil }),
			outputSchema: string(forecastSchema.JSON()),
			result:       `{"city":"Oslo","temp_c":4}`,
		},
		{
			name:         "map",
			tool:         tool.Func("f", "", func(context.Context, weatherArgs) (map[string]int, error) { return map[string]int{"Paris": 18}, nil }),
			outputSchema: `{"type":"object","additionalProperties":{"type":"integer"}}`,
			result:       `{"Paris":18}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			typed, ok := tt.tool.(tool.Typed)
			if !ok {
				t.Fatalf("tool is a %T, not a tool.Typed", tt.tool)
			}
			assertJSON(t, "OutputSchema", tt.outputSchema, typed.OutputSchema())
			assertJSON(t, "result", tt.result, []byte(call(t, tt.tool, `{"city":"Paris"}`)))
		})
	}
}

func TestFuncOtherResultIsJSON(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		tool tool.Tool
		want string
	}{
		{"int", tool.Func("f", "", func(context.Context, weatherArgs) (int, error) { return 42, nil }), `42`},
		{"slice", tool.Func("f", "", func(context.Context, weatherArgs) ([]string, error) { return []string{"a", "b"}, nil }), `["a","b"]`},
		{"bool", tool.Func("f", "", func(context.Context, weatherArgs) (bool, error) { return true, nil }), `true`},
		{"time", tool.Func("f", "", func(context.Context, weatherArgs) (time.Time, error) {
			return time.Date(2024, 5, 1, 10, 0, 0, 0, time.UTC), nil
		}), `"2024-05-01T10:00:00Z"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := call(t, tt.tool, `{"city":"Paris"}`); got != tt.want {
				t.Errorf("Call = %s, want %s", got, tt.want)
			}
			if _, ok := tt.tool.(tool.Typed); ok {
				t.Errorf("a tool whose result is not a JSON object is a tool.Typed")
			}
		})
	}
}

func TestFuncPanics(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		make func()
		want string // in the panic's message
	}{
		{"empty name", func() {
			tool.Func("", "", func(context.Context, weatherArgs) (string, error) { return "", nil })
		}, "empty"},
		{"name with a space", func() {
			tool.Func("get weather", "", func(context.Context, weatherArgs) (string, error) { return "", nil })
		}, `"get weather"`},
		{"name too long", func() {
			tool.Func(strings.Repeat("a", 65), "", func(context.Context, weatherArgs) (string, error) { return "", nil })
		}, "64"},
		{"nil function", func() {
			tool.Func[weatherArgs, string]("weather", "", nil)
		}, "nil function"},
		{"arguments without a schema", func() {
			tool.Func("f", "", func(context.Context, chan int) (string, error) { return "", nil })
		}, "chan int"},
		{"result without a schema", func() {
			tool.Func("f", "", func(context.Context, weatherArgs) (func(), error) { return nil, nil })
		}, "func()"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			defer func() {
				r := recover()
				if r == nil {
					t.Fatal("Func did not panic")
				}
				if msg := fmt.Sprint(r); !strings.Contains(msg, tt.want) {
					t.Errorf("panic %q does not mention %q", msg, tt.want)
				}
			}()
			tt.make()
		})
	}
}

func TestFuncWithTimeout(t *testing.T) {
	t.Parallel()
	const timeout = 20 * time.Millisecond
	tl := tool.Func("slow", "", func(ctx context.Context, _ weatherArgs) (string, error) {
		if _, ok := ctx.Deadline(); !ok {
			return "", errors.New("fn's context has no deadline")
		}
		<-ctx.Done()
		return "", context.Cause(ctx)
	}, tool.WithTimeout(timeout))

	// If the tool's own timeout did not work, the caller's would end the call, with its cause.
	errCallerGaveUp := errors.New("the caller's context ended, not the tool's")
	ctx, cancel := context.WithTimeoutCause(context.Background(), time.Minute, errCallerGaveUp)
	defer cancel()
	_, err := tl.Call(ctx, json.RawMessage(`{"city":"Paris"}`))
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Call error = %v, want context.DeadlineExceeded from the tool's timeout", err)
	}
	if ctx.Err() != nil {
		t.Errorf("the caller's context is done (%v): the timeout did not end the call", context.Cause(ctx))
	}
}

func TestFuncWithoutTimeoutHasNoDeadline(t *testing.T) {
	t.Parallel()
	tl := tool.Func("f", "", func(ctx context.Context, _ weatherArgs) (bool, error) {
		_, ok := ctx.Deadline()
		return ok, nil
	})
	if got := call(t, tl, `{"city":"Paris"}`); got != "false" {
		t.Error("a tool made without WithTimeout gave fn a context with a deadline")
	}
}

func TestFuncInvalidArgs(t *testing.T) {
	t.Parallel()
	var called atomic.Bool
	weather := tool.Func("weather", "", func(context.Context, weatherArgs) (string, error) {
		called.Store(true)
		return "", nil
	})
	double := tool.Func("double", "", func(_ context.Context, n int) (int, error) {
		called.Store(true)
		return 2 * n, nil
	})
	sum := tool.Func("sum", "", func(context.Context, map[string]int) (int, error) {
		called.Store(true)
		return 0, nil
	})
	tests := []struct {
		name string
		tool tool.Tool
		args string
	}{
		{"not JSON", weather, `city=Paris`},
		{"empty", weather, ``},
		{"not an object", weather, `["Paris"]`},
		{"wrong field type", weather, `{"city":5}`},
		{"wrapped, wrong type", double, `{"input":"two"}`},
		{"wrapped, not JSON", double, `{"input":`},
		{"map, wrong value type", sum, `{"a":"one"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := tt.tool.Call(context.Background(), json.RawMessage(tt.args))
			if !errors.Is(err, tool.ErrInvalidArgs) {
				t.Errorf("Call(%s) error = %v, want one wrapping tool.ErrInvalidArgs", tt.args, err)
			}
		})
	}
	t.Cleanup(func() {
		if called.Load() {
			t.Error("fn was called with arguments that could not be decoded")
		}
	})
}

func TestFuncReturnsFnError(t *testing.T) {
	t.Parallel()
	errNoCity := errors.New("no such city")
	tl := tool.Func("weather", "", func(context.Context, weatherArgs) (forecast, error) {
		return forecast{}, fmt.Errorf("weather: %w", errNoCity)
	})
	out, err := tl.Call(context.Background(), json.RawMessage(`{"city":"Atlantis"}`))
	if !errors.Is(err, errNoCity) || out != "" {
		t.Errorf("Call = %q, %v; want \"\" and fn's error", out, err)
	}
	if errors.Is(err, tool.ErrInvalidArgs) {
		t.Errorf("fn's own error %v is reported as invalid arguments", err)
	}
}

func TestFuncConcurrentCalls(t *testing.T) {
	t.Parallel()
	tl := tool.Func("echo", "", func(_ context.Context, in weatherArgs) (forecast, error) {
		return forecast{City: in.City, TempC: float64(in.Days)}, nil
	}, tool.WithTimeout(time.Minute))
	var wg sync.WaitGroup
	for i := range 50 {
		wg.Go(func() {
			args := fmt.Sprintf(`{"city":"c%d","days":%d}`, i, i)
			out, err := tl.Call(context.Background(), json.RawMessage(args))
			if want := fmt.Sprintf(`{"city":"c%d","temp_c":%d}`, i, i); err != nil || out != want {
				t.Errorf("Call(%s) = %s, %v; want %s", args, out, err, want)
			}
		})
	}
	wg.Wait()
}
