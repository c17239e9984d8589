package partial

import (
	"fmt"

	"github.com/cadrehq/cadre/internal/ojson"
)

// relaxed are the keywords Relax removes: each asks for something a value gains only as it is
// written (a member, an item, a matching item), so a value still being written may not meet it.
var relaxed = [...]string{"required", "minItems", "minProperties", "minContains", "dependentRequired"}

// Relax returns schema (a JSON Schema document) with the constraints that a value still being written
// cannot meet yet removed, at every level: required, minItems, minProperties, minContains, dependentRequired.
// The document is otherwise unchanged (order of members kept: use internal/ojson Parse/Encode). An error when schema is not JSON.
//
// "Every level" is every subschema: the keywords are removed from the schema itself and from
// the schemas under properties, patternProperties, additionalProperties, propertyNames,
// dependentSchemas, dependencies, items, prefixItems, additionalItems, contains,
// unevaluatedItems, unevaluatedProperties, allOf, anyOf, oneOf, if, then, else,
// contentSchema, $defs and definitions. Relax does not go under not: there, removing a
// constraint would refuse more values, not fewer. A key named "required" in properties, and
// the values of enum, const, default and examples, are data, not keywords: they stay.
//
// The result is compact, and its strings are written as [ojson.Encode] writes them (an escape
// such as \u00e9 may become the character it stands for): the same JSON value, member order
// kept.
func Relax(schema []byte) ([]byte, error) {
	v, err := ojson.Parse(schema)
	if err != nil {
		return nil, fmt.Errorf("partial: relax schema: %w", err)
	}
	relax(v)
	return ojson.Encode(v), nil
}

// relax removes the relaxed keywords from the schema s and its subschemas. A schema that is
// not an object (true, false, or not a schema at all) has none.
func relax(s any) {
	o, ok := s.(*ojson.Object)
	if !ok {
		return
	}
	for _, k := range relaxed {
		o.Delete(k)
	}
	for _, m := range o.Members {
		switch m.Key {
		case "additionalProperties", "propertyNames", "items", "prefixItems", "additionalItems",
			"contains", "unevaluatedItems", "unevaluatedProperties", "allOf", "anyOf", "oneOf",
			"if", "then", "else", "contentSchema":
			relaxEach(m.Value) // a schema, or an array of them
		case "properties", "patternProperties", "dependentSchemas", "dependencies", "$defs", "definitions":
			if schemas, ok := m.Value.(*ojson.Object); ok {
				for _, s := range schemas.Members {
					// A dependencies entry may be an array of names, draft 7's
					// dependentRequired; relaxEach leaves it, as those are strings.
					relaxEach(s.Value)
				}
			}
		}
	}
}

// relaxEach relaxes v when it is a schema, or each schema in v when it is an array.
func relaxEach(v any) {
	if arr, ok := v.([]any); ok {
		for _, s := range arr {
			relax(s)
		}
		return
	}
	relax(v)
}
