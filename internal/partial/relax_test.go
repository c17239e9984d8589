package partial

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

func TestRelax(t *testing.T) {
	t.Parallel()
	schema := `{
	  "$schema": "https://json-schema.org/draft/2020-12/schema",
	  "type": "object",
	  "required": ["title", "items"],
	  "minProperties": 2,
	  "properties": {
	    "title": {"type": "string", "minLength": 1},
	    "required": {"type": "boolean", "default": {"required": ["kept"]}},
	    "items": {
	      "type": "array", "minItems": 1, "maxItems": 5, "minContains": 1, "contains": {"$ref": "#/$defs/item"},
	      "items": {"$ref": "#/$defs/item"}
	    },
	    "choice": {"anyOf": [
	      {"type": "object", "required": ["a"], "properties": {"a": {"type": "integer", "minimum": 0}}},
	      {"type": "array", "minItems": 2, "prefixItems": [{"type": "object", "minProperties": 1}]}
	    ]},
	    "deps": {"type": "object", "dependentRequired": {"a": ["b"]}, "dependentSchemas": {"a": {"required": ["c"]}}},
	    "never": {"not": {"required": ["x"]}}
	  },
	  "enum": [{"required": 1}],
	  "$defs": {
	    "item": {"type": "object", "required": ["id"], "additionalProperties": false,
	      "properties": {"id": {"type": "string", "pattern": "^[a-z]+$"}}},
	    "required": {"minItems": 3, "type": "array"}
	  }
	}`
	want := `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object",` +
		`"properties":{` +
		`"title":{"type":"string","minLength":1},` +
		`"required":{"type":"boolean","default":{"required":["kept"]}},` +
		`"items":{"type":"array","maxItems":5,"contains":{"$ref":"#/$defs/item"},"items":{"$ref":"#/$defs/item"}},` +
		`"choice":{"anyOf":[{"type":"object","properties":{"a":{"type":"integer","minimum":0}}},{"type":"array","prefixItems":[{"type":"object"}]}]},` +
		`"deps":{"type":"object","dependentSchemas":{"a":{}}},` +
		`"never":{"not":{"required":["x"]}}},` +
		`"enum":[{"required":1}],` +
		`"$defs":{` +
		`"item":{"type":"object","additionalProperties":false,"properties":{"id":{"type":"string","pattern":"^[a-z]+$"}}},` +
		`"required":{"type":"array"}}}`
	got, err := Relax([]byte(schema))
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Errorf("Relax =\n%s\nwant\n%s", got, want)
	}
}

func TestRelaxBooleanAndDraft7(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{`true`, `true`},
		{`{"items":[{"required":["a"]},true],"additionalItems":{"minItems":1}}`, `{"items":[{},true],"additionalItems":{}}`},
		{`{"definitions":{"a":{"minProperties":1}},"dependencies":{"a":["b"],"c":{"required":["d"]}}}`,
			`{"definitions":{"a":{}},"dependencies":{"a":["b"],"c":{}}}`},
		{`{"if":{"required":["k"]},"then":{"required":["a"]},"else":{"minItems":1}}`, `{"if":{},"then":{},"else":{}}`},
	}
	for _, tc := range tests {
		got, err := Relax([]byte(tc.in))
		if err != nil || string(got) != tc.want {
			t.Errorf("Relax(%s) = %s, %v; want %s", tc.in, got, err, tc.want)
		}
	}
}

// TestRelaxAcceptsPartial: every partial document of an answer that meets its schema meets
// the relaxed schema, though the schema itself refuses some for what is not written yet.
func TestRelaxAcceptsPartial(t *testing.T) {
	t.Parallel()
	schema := []byte(`{"type":"object","required":["title","tags","parts"],"additionalProperties":false,
	  "properties":{
	    "title":{"type":"string"},
	    "tags":{"type":"array","items":{"type":"string"},"minItems":2},
	    "parts":{"type":"array","minItems":1,"items":{"$ref":"#/$defs/part"}}},
	  "$defs":{"part":{"type":"object","required":["n","ok"],"minProperties":2,
	    "properties":{"n":{"type":"integer"},"ok":{"type":"boolean"}}}}}`)
	answer := []byte(`{"title":"Rain","tags":["wet","cold"],"parts":[{"n":1,"ok":true},{"n":2,"ok":false}]}`)
	strict, relaxed := compile(t, schema), compile(t, mustRelax(t, schema))
	if err := strict.Validate(decode(t, answer)); err != nil {
		t.Fatalf("the answer does not meet its schema: %v", err)
	}
	refused := 0
	for _, keep := range []bool{false, true} {
		for n := range len(answer) + 1 {
			doc, ok := Close(answer[:n], keep)
			if !ok {
				continue
			}
			v := decode(t, doc)
			if err := relaxed.Validate(v); err != nil {
				t.Errorf("Close(%s) = %s: refused by the relaxed schema: %v", answer[:n], doc, err)
			}
			if strict.Validate(v) != nil {
				refused++
			}
		}
	}
	if refused == 0 {
		t.Error("the schema refused no partial document: the test shows nothing")
	}
}

func mustRelax(t *testing.T, schema []byte) []byte {
	t.Helper()
	r, err := Relax(schema)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func compile(t *testing.T, schema []byte) *jsonschema.Schema {
	t.Helper()
	c := jsonschema.NewCompiler()
	if err := c.AddResource("schema.json", decode(t, schema)); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("schema.json")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func decode(t *testing.T, data []byte) any {
	t.Helper()
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("decode %s: %v", data, err)
	}
	return v
}

func TestRelaxNotJSON(t *testing.T) {
	t.Parallel()
	for _, in := range []string{``, `{"required":`, `{} x`} {
		if got, err := Relax([]byte(in)); err == nil {
			t.Errorf("Relax(%q) = %s, nil; want an error", in, got)
		}
	}
}

func TestRelaxIsCompactSameValue(t *testing.T) {
	t.Parallel()
	in := []byte("{\"description\": \"caf\\u00e9 <b>\", \"minLength\": 2}")
	got, err := Relax(in)
	if err != nil {
		t.Fatal(err)
	}
	var a, b any
	if err := json.Unmarshal(in, &a); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(got, &b); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(mustMarshal(t, a), mustMarshal(t, b)) {
		t.Errorf("Relax(%s) = %s: a different value", in, got)
	}
}

func mustMarshal(t *testing.T, v any) []byte {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return data
}
