package schema_test

import (
	"encoding/json"
	"slices"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cadrehq/cadre/pkg/schema"
)

func TestStrict(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, doc, want string
	}{
		{
			name: "optional typed property becomes nullable",
			doc:  `{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"integer"}},"required":["a"]}`,
			want: `{"type":"object","properties":{"a":{"type":"string"},"b":{"type":["integer","null"]}},
				"required":["a","b"],"additionalProperties":false}`,
		},
		{
			name: "type list and enum get null",
			doc:  `{"type":"object","properties":{"a":{"type":["string","integer"]},"b":{"type":"string","enum":["x","y"]}}}`,
			want: `{"type":"object","properties":{"a":{"type":["string","integer","null"]},
				"b":{"type":["string","null"],"enum":["x","y",null]}},"required":["a","b"],"additionalProperties":false}`,
		},
		{
			name: "reference, combination and untyped are wrapped",
			doc: `{"type":"object","properties":{"r":{"$ref":"#/$defs/x"},"o":{"anyOf":[{"type":"string"},{"type":"integer"}]},
				"u":{"description":"anything"}},"$defs":{"x":{"type":"string"}}}`,
			want: `{"type":"object","properties":{"r":{"anyOf":[{"$ref":"#/$defs/x"},{"type":"null"}]},
				"o":{"anyOf":[{"anyOf":[{"type":"string"},{"type":"integer"}]},{"type":"null"}]},
				"u":{"anyOf":[{"description":"anything"},{"type":"null"}]}},
				"$defs":{"x":{"type":"string"}},"required":["r","o","u"],"additionalProperties":false}`,
		},
		{
			name: "already nullable stays as it is",
			doc:  `{"type":"object","properties":{"a":{"type":["string","null"]},"b":{"anyOf":[{"type":"integer"},{"type":"null"}]}}}`,
			want: `{"type":"object","properties":{"a":{"type":["string","null"]},"b":{"anyOf":[{"type":"integer"},{"type":"null"}]}},
				"required":["a","b"],"additionalProperties":false}`,
		},
		{
			name: "nested in items, anyOf, $defs and map values",
			doc: `{"type":"object","properties":{
				"list":{"type":"array","items":{"type":"object","properties":{"x":{"type":"string"}}}},
				"either":{"anyOf":[{"type":"object","properties":{"y":{"type":"string"}}},{"type":"string"}]},
				"map":{"type":"object","additionalProperties":{"type":"object","properties":{"z":{"type":"string"}}}}
			},"required":["list","either","map"],
			"$defs":{"d":{"type":"object","properties":{"w":{"type":"string"}}}}}`,
			want: `{"type":"object","properties":{
				"list":{"type":"array","items":{"type":"object","properties":{"x":{"type":["string","null"]}},"required":["x"],"additionalProperties":false}},
				"either":{"anyOf":[{"type":"object","properties":{"y":{"type":["string","null"]}},"required":["y"],"additionalProperties":false},{"type":"string"}]},
				"map":{"type":"object","additionalProperties":{"type":"object","properties":{"z":{"type":["string","null"]}},"required":["z"],"additionalProperties":false}}
			},"required":["list","either","map"],
			"$defs":{"d":{"type":"object","properties":{"w":{"type":["string","null"]}},"required":["w"],"additionalProperties":false}},
			"additionalProperties":false}`,
		},
		{
			name: "nested in a draft-07 tuple",
			doc: `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{
				"pair":{"type":"array","items":[{"type":"object","properties":{"x":{"type":"string"}}},{"type":"string"}]}
			},"required":["pair"]}`,
			want: `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{
				"pair":{"type":"array","items":[{"type":"object","properties":{"x":{"type":["string","null"]}},"required":["x"],"additionalProperties":false},{"type":"string"}]}
			},"required":["pair"],"additionalProperties":false}`,
		},
		{
			name: "not an object",
			doc:  `{"type":"array","items":{"type":"string"}}`,
			want: `{"type":"array","items":{"type":"string"}}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s, err := schema.Compile([]byte(tt.doc))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(decode(t, []byte(tt.want)), decode(t, s.Strict())); diff != "" {
				t.Errorf("Strict() mismatch (-want +got):\n%s\ngot %s", diff, s.Strict())
			}
			if diff := cmp.Diff(decode(t, []byte(tt.doc)), decode(t, s.JSON())); diff != "" {
				t.Errorf("JSON() changed (-want +got):\n%s", diff)
			}
			if _, err := schema.Compile(s.Strict()); err != nil {
				t.Errorf("the strict form does not compile: %v", err)
			}
		})
	}
}

func TestStrictFromType(t *testing.T) {
	t.Parallel()
	s := mustFor[node](t) // recursive: strict must reach into $defs
	addressStrict := `{"type":["object","null"],"properties":{"city":{"type":"string","description":"the city"},
		"zip":{"type":["string","null"]}},"required":["city","zip"],"additionalProperties":false}`
	nodeStrict := `{"type":"object","properties":{"name":{"type":"string"},
		"children":{"type":"array","items":{"$ref":"#/$defs/node"}},
		"meta":` + addressStrict + `},"required":["name","children","meta"],"additionalProperties":false}`
	want := nodeStrict[:len(nodeStrict)-1] + `,"$defs":{"node":` + nodeStrict + `}}`
	if diff := cmp.Diff(decode(t, []byte(want)), decode(t, s.Strict())); diff != "" {
		t.Errorf("Strict() mismatch (-want +got):\n%s\ngot %s", diff, s.Strict())
	}

	// The document itself keeps its optional properties.
	strict, err := schema.Compile(s.Strict())
	if err != nil {
		t.Fatal(err)
	}
	withNull := []byte(`{"name":"a","children":[],"meta":null}`)
	if err := strict.Validate(withNull); err != nil {
		t.Errorf("strict form rejects null for an optional property: %v", err)
	}
	if err := s.Validate([]byte(`{"name":"a","children":[]}`)); err != nil {
		t.Errorf("document requires an optional property: %v", err)
	}
}

func TestStrictSchema(t *testing.T) {
	t.Parallel()
	s := mustFor[order](t)
	strict := s.StrictSchema()
	if diff := cmp.Diff(decode(t, s.Strict()), decode(t, strict.JSON())); diff != "" {
		t.Errorf("StrictSchema().JSON() is not Strict() (-want +got):\n%s", diff)
	}
	answer := []byte(`{"customer":"ada","priority":"low","items":[],"note":null,"tags":null}`)
	if err := strict.Validate(answer); err != nil {
		t.Errorf("strict schema rejects null for optional properties: %v", err)
	}
	if err := s.Validate(answer); err == nil {
		t.Error("the document accepts null for optional properties")
	}
	if err := strict.Validate([]byte(`{"customer":"ada","priority":"low","items":[]}`)); err == nil {
		t.Error("strict schema accepts missing properties")
	}

	// Compiled once, whoever asks first.
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			if got := s.StrictSchema(); got != strict {
				t.Errorf("StrictSchema() = %p, then %p", strict, got)
			}
		})
	}
	wg.Wait()
}

func TestStrictSchemaOfInvalidStrictForm(t *testing.T) {
	t.Parallel()
	// draft-04 forbids the empty "required" that the strict form gives an object without
	// properties.
	s, err := schema.Compile([]byte(`{"$schema":"http://json-schema.org/draft-04/schema#","type":"object","properties":{}}`))
	if err != nil {
		t.Fatal(err)
	}
	if got := s.StrictSchema(); got != s {
		t.Errorf("StrictSchema() = %s, want the schema itself", got.JSON())
	}
}

// TestStrictClosed: a strict form is closed when no object in it stays open, as a map's does.
func TestStrictClosed(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		doc  string
		want bool
	}{
		{`{"type":"object","properties":{"a":{"type":"string"}}}`, true},
		{`{"type":"object","properties":{"a":{"type":"object","properties":{"b":{"type":"integer"}},"additionalProperties":true}}}`, true},
		{`{"type":"object","properties":{"tags":{"type":"object","additionalProperties":{"type":"string"}}}}`, false},
		{`{"type":"array","items":{"type":"object","additionalProperties":{"type":"integer"}}}`, false},
	} {
		s, err := schema.Compile(json.RawMessage(tc.doc))
		if err != nil {
			t.Fatal(err)
		}
		if got := s.StrictClosed(); got != tc.want {
			t.Errorf("StrictClosed(%s) = %v; want %v (strict form %s)", tc.doc, got, tc.want, s.Strict())
		}
	}
}

// TestProperties: the names of the root's properties, none for a root without any.
func TestProperties(t *testing.T) {
	t.Parallel()
	s, err := schema.Compile(json.RawMessage(`{"type":"object","properties":{"b":{},"a":{"type":"object","properties":{"c":{}}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	got := s.Properties()
	slices.Sort(got)
	if !slices.Equal(got, []string{"a", "b"}) {
		t.Errorf("Properties = %q; want a and b", got)
	}
	if s, _ := schema.Compile(json.RawMessage(`{"type":"string"}`)); len(s.Properties()) != 0 {
		t.Errorf("Properties of a string schema = %q; want none", s.Properties())
	}
}

func TestUsesFindsKeywordsNotPropertyNames(t *testing.T) {
	s, err := schema.Compile([]byte(`{"type":"object","properties":{"default":{"type":"string"},"items":{"type":"array","items":{"$ref":"#/$defs/n"}}},"$defs":{"n":{"type":"string","minLength":2}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if !s.Uses("minLength") {
		t.Error("minLength in $defs not found")
	}
	if s.Uses("default", "maxLength") {
		t.Error("a property named default was taken for the keyword")
	}
}
