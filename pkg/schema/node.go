package schema

import (
	"slices"

	"github.com/cadrehq/cadre/internal/ojson"
)

// A schema document is rewritten (inlined, made strict) as an ojson tree, which keeps the
// order of object keys: the order of a struct's properties is the order in which a model writes
// them, so it must survive. This file walks such a tree as a schema.

// tidy orders the keywords of every schema in v the way a reader looks for them: "$ref",
// "type", "title" and "description" first, then the others as they came, then "required",
// "additionalProperties" and "$defs".
func tidy(v any) any {
	o, ok := v.(*ojson.Object)
	if !ok {
		return v
	}
	eachSubschema(o, tidy)
	first := []string{"$ref", "type", "title", "description"}
	last := []string{"required", "additionalProperties", "$defs"}
	members := make([]ojson.Member, 0, len(o.Members))
	pick := func(keys []string) {
		for _, k := range keys {
			if val, ok := o.Lookup(k); ok {
				members = append(members, ojson.Member{Key: k, Value: val})
			}
		}
	}
	pick(first)
	for _, m := range o.Members {
		if !slices.Contains(first, m.Key) && !slices.Contains(last, m.Key) {
			members = append(members, m)
		}
	}
	pick(last)
	o.Members = members
	return o
}

// eachSubschema replaces each direct subschema s of o with f(s): the values of the keywords
// that hold one schema, an array of schemas, or an object of named schemas.
func eachSubschema(o *ojson.Object, f func(any) any) {
	for i := range o.Members {
		m := &o.Members[i]
		switch m.Key {
		case "additionalProperties", "items", "contains", "propertyNames", "not", "if", "then",
			"else", "unevaluatedItems", "unevaluatedProperties", "contentSchema", "additionalItems":
			if isSchema(m.Value) {
				m.Value = f(m.Value)
				continue
			}
			if arr, ok := m.Value.([]any); ok && m.Key == "items" { // draft-07 tuple
				for j := range arr {
					arr[j] = f(arr[j])
				}
			}
		case "allOf", "anyOf", "oneOf", "prefixItems":
			if arr, ok := m.Value.([]any); ok {
				for j := range arr {
					arr[j] = f(arr[j])
				}
			}
		case "properties", "patternProperties", "dependentSchemas", "$defs", "definitions":
			if named, ok := m.Value.(*ojson.Object); ok {
				for j := range named.Members {
					named.Members[j].Value = f(named.Members[j].Value)
				}
			}
		}
	}
}

// isSchema reports whether v can be a schema: an object or a boolean.
func isSchema(v any) bool {
	switch v.(type) {
	case *ojson.Object, bool:
		return true
	}
	return false
}
