package schema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/cadrehq/cadre/internal/ojson"
	"github.com/cadrehq/cadre/internal/schemacheck"
)

// resourceURL is where a compiled document lives for the validator. No document is ever loaded
// from anywhere else: a $ref outside the document fails to compile.
const resourceURL = "mem:///schema.json"

// Schema is a compiled JSON Schema: its document, its strict form, and a validator.
//
// Get one from For, Of or Compile. A Schema is immutable and safe for concurrent use; the zero
// value is not usable.
type Schema struct {
	doc       json.RawMessage
	strict    json.RawMessage
	object    bool
	validator *jsonschema.Schema
	check     *schemacheck.Checker // the fast path of Validate; nil when the document is outside its subset

	strictOnce     sync.Once
	strictCompiled *Schema
}

// Compile compiles a schema document given as JSON, such as an MCP server's tool input schema.
// A document without "$schema" is read as JSON Schema draft 2020-12. The document must be
// self-contained: a $ref to anything outside it is an error, and nothing is fetched.
//
// Compile returns an error when doc is not one JSON value or is not a valid schema. It is safe
// for concurrent use; it does not keep doc.
func Compile(doc json.RawMessage) (*Schema, error) {
	tree, err := ojson.Parse(doc)
	if err != nil {
		return nil, fmt.Errorf("schema: the document is not JSON: %w", err)
	}
	s, err := newSchema(tree)
	if err != nil {
		return nil, fmt.Errorf("schema: %w", err)
	}
	return s, nil
}

// newSchema compiles tree, which it then owns and rewrites.
func newSchema(tree any) (*Schema, error) {
	s := &Schema{doc: ojson.Encode(tree)}
	if root, ok := tree.(*ojson.Object); ok {
		t, _ := root.Lookup("type")
		s.object = t == "object"
	}

	// The validator wants the document decoded its own way (maps and json.Number).
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(s.doc))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(jsonschema.SchemeURLLoader{}) // load nothing from files or the network
	if err := c.AddResource(resourceURL, v); err != nil {
		return nil, err
	}
	if s.validator, err = c.Compile(resourceURL); err != nil {
		return nil, fmt.Errorf("not a valid, self-contained JSON Schema: %w", err)
	}
	s.check, _ = schemacheck.Compile(s.doc, s.validator.DraftVersion) // no checker: Validate uses v6 alone

	s.strict = ojson.Encode(strictSchema(tree)) // the document is already encoded: tree is free
	return s, nil
}

// JSON returns the schema document as compact JSON. It has no "$schema" and no "$id" when the
// Schema comes from For or Of. The result is shared: callers must not modify it.
func (s *Schema) JSON() json.RawMessage { return s.doc }

// Strict returns the strict form of the document, as OpenAI-style strict tools want it. In
// every object schema (nested ones and those in $defs included) every property is listed in
// "required", a property that was optional accepts null instead ("type": ["string", "null"],
// or "anyOf" with {"type": "null"}), and "additionalProperties" is false. A map, whose
// "additionalProperties" is a schema, keeps it; an API that wants no maps in strict schemas
// will reject it.
//
// A value valid against the strict form may hold nulls that Validate rejects: a model writing
// against the strict form writes null for an optional property it leaves out. The result is
// shared: callers must not modify it.
func (s *Schema) Strict() json.RawMessage { return s.strict }

// StrictSchema returns the strict form (see Strict) compiled, so that a caller that sent the
// strict form to a model can validate the answer against what it sent: with strict schemas,
// models write null for the optional properties they leave out, which Validate rejects.
//
// The strict form is compiled once, on the first call; StrictSchema is safe for concurrent use
// and returns the same *Schema every time. A strict form is itself strict: its StrictSchema
// validates as it does. The strict form of a draft-04 document may not be a valid draft-04
// schema (draft-04 forbids the empty "required" of an object without properties); StrictSchema
// then returns s itself. Documents from For and Of, and documents of later drafts, always have
// a valid strict form.
func (s *Schema) StrictSchema() *Schema {
	s.strictOnce.Do(func() {
		strict, err := Compile(s.strict)
		if err != nil {
			strict = s
		}
		s.strictCompiled = strict
	})
	return s.strictCompiled
}

// StrictClosed reports whether every object of the strict form (see Strict) is closed, its
// "additionalProperties" false, as strict tool APIs require: a map keeps its value schema there,
// and such an API refuses the form.
func (s *Schema) StrictClosed() bool {
	var v any
	if json.Unmarshal(s.strict, &v) != nil {
		return false
	}
	var closed func(any) bool
	closed = func(v any) bool {
		switch v := v.(type) {
		case map[string]any:
			if ap, ok := v["additionalProperties"]; ok && ap != false {
				return false
			}
			for _, x := range v {
				if !closed(x) {
					return false
				}
			}
		case []any:
			for _, x := range v {
				if !closed(x) {
					return false
				}
			}
		}
		return true
	}
	return closed(v)
}

// Properties returns the names of the properties of the document's root object, in no
// particular order: none when it lists none.
func (s *Schema) Properties() []string {
	var doc struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if json.Unmarshal(s.doc, &doc) != nil {
		return nil
	}
	names := make([]string, 0, len(doc.Properties))
	for n := range doc.Properties {
		names = append(names, n)
	}
	return names
}

// IsObject reports whether the root of the document has "type": "object", as tool APIs require
// of a tool's arguments.
func (s *Schema) IsObject() bool { return s.object }

// Uses reports whether a schema of the document, at any depth ($defs included), has one of
// keywords: for an API that takes a subset of JSON Schema, such as OpenAI's strict mode, which
// refuses minLength. Property names are not keywords: a property named "default" is not one.
func (s *Schema) Uses(keywords ...string) bool {
	tree, err := ojson.Parse(s.doc)
	if err != nil {
		return false // not reached: the document was encoded from a tree
	}
	found := false
	var walk func(v any) any
	walk = func(v any) any {
		o, ok := v.(*ojson.Object)
		if !ok || found {
			return v
		}
		for _, m := range o.Members {
			if slices.Contains(keywords, m.Key) {
				found = true
				return v
			}
		}
		eachSubschema(o, walk)
		return v
	}
	walk(tree)
	return found
}
