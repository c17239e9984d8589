package schema_test

import (
	"fmt"

	"github.com/cadrehq/cadre/pkg/schema"
)

func ExampleFor() {
	type Weather struct {
		City  string `json:"city" jsonschema:"description=the city to look up"`
		Units string `json:"units,omitempty" jsonschema:"enum=metric,enum=imperial"`
	}
	s, err := schema.For[Weather]()
	if err != nil {
		panic(err)
	}
	fmt.Println(string(s.JSON()))
	fmt.Println(string(s.Strict()))
	fmt.Println(s.Validate([]byte(`{"units":"kelvin"}`)))
	// Output:
	// {"type":"object","properties":{"city":{"type":"string","description":"the city to look up"},"units":{"type":"string","enum":["metric","imperial"]}},"required":["city"],"additionalProperties":false}
	// {"type":"object","properties":{"city":{"type":"string","description":"the city to look up"},"units":{"type":["string","null"],"enum":["metric","imperial",null]}},"required":["city","units"],"additionalProperties":false}
	// (root): missing required property "city"
	// units: value must be one of "metric", "imperial"
}

func ExampleCompile() {
	s, err := schema.Compile([]byte(`{
		"type": "object",
		"properties": {"path": {"type": "string"}},
		"required": ["path"]
	}`))
	if err != nil {
		panic(err)
	}
	fmt.Println(s.IsObject())
	fmt.Println(s.Validate([]byte(`{"path": 42}`)))
	fmt.Println(s.Validate([]byte(`{"path": "a.txt"} x`)))
	// Output:
	// true
	// path: got number, want string
	// (root): not JSON: more data after the JSON value (at byte 18); write one JSON value and nothing else
}

func ExampleSchema_StrictSchema() {
	type Search struct {
		Query string `json:"query"`
		Limit int    `json:"limit,omitempty"`
	}
	s, err := schema.For[Search]()
	if err != nil {
		panic(err)
	}
	// A model given the strict form writes null for the optional limit.
	answer := []byte(`{"query":"go","limit":null}`)
	fmt.Println(s.Validate(answer))
	fmt.Println(s.StrictSchema().Validate(answer))
	// Output:
	// limit: got null, want integer
	// <nil>
}
