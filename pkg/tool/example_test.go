package tool_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/cadrehq/cadre/pkg/tool"
)

func ExampleFunc() {
	type args struct {
		City string `json:"city" jsonschema:"description=the city's name"`
	}
	type weather struct {
		City  string  `json:"city"`
		TempC float64 `json:"temp_c"`
	}
	t := tool.Func("weather", "Tells today's weather in a city.",
		func(ctx context.Context, in args) (weather, error) {
			return weather{City: in.City, TempC: 18.5}, nil
		})

	// The model sees t.Schema(), the JSON Schema of args; MCP serves the result's schema too.
	_, typed := t.(tool.Typed)
	fmt.Println("typed:", typed)

	// The assistant calls the tool with the model's arguments.
	out, err := t.Call(context.Background(), json.RawMessage(`{"city":"Paris"}`))
	fmt.Println(out, err)
	// Output:
	// typed: true
	// {"city":"Paris","temp_c":18.5} <nil>
}

// A tool whose input is not an object takes it as the "input" property of its arguments.
func ExampleFunc_wrappedInput() {
	t := tool.Func("count", "Counts the words.", func(ctx context.Context, words []string) (int, error) {
		return len(words), nil
	})
	out, err := t.Call(context.Background(), json.RawMessage(`{"input":["a","b","c"]}`))
	fmt.Println(out, err)
	// Output:
	// 3 <nil>
}
