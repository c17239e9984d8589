package schema_test

import (
	"testing"

	"github.com/cadrehq/cadre/pkg/schema"
)

// benchOrder is a tool call's arguments, valid against the schema of order.
var benchOrder = []byte(`{"customer":"ada","priority":"high","items":[{"sku":"a-1","quantity":2},` +
	`{"sku":"b-2","quantity":1},{"sku":"c-3","quantity":5}],"note":"leave at the door"}`)

// BenchmarkValidate validates a tool call's arguments, as the assistant does on every call.
func BenchmarkValidate(b *testing.B) {
	benchmarkValidate(b, (*schema.Schema).Validate)
}

// BenchmarkValidateFull does the work of BenchmarkValidate without the fast path: decoding the
// data and validating it with santhosh-tekuri/jsonschema/v6, as every invalid input still does.
func BenchmarkValidateFull(b *testing.B) {
	benchmarkValidate(b, schema.ValidateFull)
}

func benchmarkValidate(b *testing.B, validate func(*schema.Schema, []byte) error) {
	s, err := schema.For[order]()
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if err := validate(s, benchOrder); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkFor looks up a type whose schema is already cached.
func BenchmarkFor(b *testing.B) {
	if _, err := schema.For[order](); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := schema.For[order](); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCompile compiles a tool's input schema, as mcpbridge does for each tool an MCP
// server lists: parse, rewrite, encode, compile for validation.
func BenchmarkCompile(b *testing.B) {
	doc := []byte(`{"type":"object","properties":{"city":{"type":"string","description":"the city <and> region"},` +
		`"days":{"type":"integer","minimum":1,"maximum":14},"units":{"enum":["metric","imperial"]},` +
		`"stops":{"type":"array","items":{"$ref":"#/$defs/stop"}}},"required":["city","days"],` +
		`"$defs":{"stop":{"type":"object","properties":{"name":{"type":"string"},"nights":{"type":"integer"}},` +
		`"required":["name"]}}}`)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := schema.Compile(doc); err != nil {
			b.Fatal(err)
		}
	}
}
