package schema_test

import (
	"testing"

	"github.com/cadrehq/cadre/pkg/schema"
)

// BenchmarkValidate validates a tool call's arguments, as the assistant does on every call.
func BenchmarkValidate(b *testing.B) {
	s, err := schema.For[order]()
	if err != nil {
		b.Fatal(err)
	}
	data := []byte(`{"customer":"ada","priority":"high","items":[{"sku":"a-1","quantity":2},` +
		`{"sku":"b-2","quantity":1},{"sku":"c-3","quantity":5}],"note":"leave at the door"}`)
	b.ReportAllocs()
	for b.Loop() {
		if err := s.Validate(data); err != nil {
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
