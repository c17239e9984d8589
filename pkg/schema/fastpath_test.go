package schema

import (
	"math/big"
	"testing"

	"github.com/cadrehq/cadre/internal/schemacheck"
)

// Validate has a fast path, internal/schemacheck, whose own tests compare it with v6. These
// check how Validate uses it.

// TestValidateWithoutFastPath checks that a document outside the fast path's subset validates
// as it always did.
func TestValidateWithoutFastPath(t *testing.T) {
	t.Parallel()
	s, err := Compile([]byte(`{"type":"object","properties":{"tags":{"type":"array","uniqueItems":true}},
		"patternProperties":{"^x-":{"type":"string"}},"required":["tags"]}`))
	if err != nil {
		t.Fatal(err)
	}
	if s.check != nil {
		t.Fatal("the document has a fast path; the test needs one without")
	}
	for _, tt := range []struct{ data, want string }{
		{`{"tags":["a","b"],"x-a":"s"}`, ""},
		{`{"tags":["a","a"]}`, "tags: items at 0 and 1 are equal"},
		{`{"tags":[],"x-a":1}`, "x-a: got number, want string"},
		{`{"x-a":"s"}`, `(root): missing required property "tags"`},
		{`{"tags":[]} x`, "(root): not JSON: more data after the JSON value (at byte 12); write one JSON value and nothing else"},
	} {
		err := s.Validate([]byte(tt.data))
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != tt.want {
			t.Errorf("Validate(%s) = %q, want %q", tt.data, got, tt.want)
		}
	}
}

// TestValidateAllocatesNothingWhenValid checks what the fast path is for.
func TestValidateAllocatesNothingWhenValid(t *testing.T) {
	s, err := Compile([]byte(`{"type":"object","properties":{
		"name":{"type":"string","minLength":1},
		"tags":{"type":"object","additionalProperties":{"type":"string"}},
		"items":{"type":"array","items":{"type":"object","properties":{"n":{"type":"integer","minimum":1},
			"kind":{"enum":["a","b"]}},"required":["n"],"additionalProperties":false}},
		"note":{"anyOf":[{"type":"string","pattern":"^[a-z ]*$"},{"type":"null"}]}},
		"required":["name","items"],"additionalProperties":false}`))
	if err != nil {
		t.Fatal(err)
	}
	if s.check == nil {
		t.Fatal("the document has no fast path; the test needs one")
	}
	data := []byte(`{"name":"\u00e9t\u00e9","tags":{"a":"x","b":"y","c":"z"},` +
		`"items":[{"n":1,"kind":"a"},{"n":2.0,"kind":"\u0062"}],"note":"leave at the door"}`)
	if err := s.Validate(data); err != nil {
		t.Fatal(err)
	}
	if n := testing.AllocsPerRun(100, func() { _ = s.Validate(data) }); n != 0 {
		t.Errorf("Validate of valid data allocates %v times, want 0", n)
	}
}

// TestStrictSchemaHasFastPath checks that the documents of Go types, and their strict forms, are
// in the fast path's subset.
func TestStrictSchemaHasFastPath(t *testing.T) {
	t.Parallel()
	type item struct {
		SKU  string   `json:"sku"`
		Note *string  `json:"note,omitempty"`
		Tags []string `json:"tags,omitempty"`
	}
	type tree struct {
		Name  string  `json:"name"`
		Items []item  `json:"items,omitempty"`
		Kids  []*tree `json:"kids,omitempty"`
		Any   any     `json:"any,omitempty"`
	}
	s, err := For[tree]()
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []*Schema{s, s.StrictSchema()} {
		if s.check == nil {
			_, why := schemacheck.Compile(s.JSON(), s.validator.DraftVersion)
			t.Errorf("no fast path (%v) for %s", why, s.JSON())
		}
	}
	data := []byte(`{"name":"a","items":[{"sku":"x","note":null,"tags":null}],"kids":[{"name":"b","items":null,"kids":null,"any":{"k":[1]}}],"any":null}`)
	strict := s.StrictSchema()
	if !strict.check.Valid(data) {
		t.Error("the fast path of the strict form does not accept a valid value")
	}
	if err := strict.validateFull(data); err != nil {
		t.Errorf("v6 rejects the value: %v", err)
	}
}

// TestBigReadable checks bigReadable against math/big itself, which v6 uses.
func TestBigReadable(t *testing.T) {
	t.Parallel()
	for _, n := range []string{"0", "-0.0", "1", "1e1000000", "1e1000001", "1e-1000000", "1e-1000001",
		"10e-1000001", "0.1e1000001", "0e99999999999999999999", "1e99999999999999999999", "-1.5E+1000001",
		"1.5e-999999", "0.0000000001e-999991", "0.0000000001e-999990", "1e+0005", "12.34e-9223372036854775808"} {
		_, want := new(big.Rat).SetString(n)
		if got := bigReadable(n); got != want {
			t.Errorf("bigReadable(%s) = %v, math/big reads it: %v", n, got, want)
		}
	}
}
