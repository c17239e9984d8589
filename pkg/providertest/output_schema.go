package providertest

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"

	"github.com/cadrehq/cadre/internal/ojson"
	cmodel "github.com/cadrehq/cadre/pkg/model"
	"github.com/tmc/langchaingo/llms"
)

// This file holds what the fakes share to read the structured-output fields of a request —
// OpenAI's response_format, Anthropic's output_config.format, Gemini's responseJsonSchema —
// and to render a refusal.

// Keywords whose value is a subschema, an object of subschemas, or an array of them.
var (
	subschemaKeys     = []string{"additionalProperties", "not", "if", "then", "else", "contains", "propertyNames", "unevaluatedProperties", "unevaluatedItems"}
	subschemaMapKeys  = []string{"properties", "patternProperties", "$defs", "definitions", "dependentSchemas"}
	subschemaListKeys = []string{"anyOf", "oneOf", "allOf", "prefixItems"}
)

// schemaNode is a subschema of an output schema and the keys and indexes that lead to it from
// the root, as the APIs' error messages name where a schema goes wrong.
type schemaNode struct {
	path []any // string keys and int indexes
	o    *ojson.Object
}

// walkSchema calls f on each subschema of root that is an object, root first, depth first
// and in document order, and returns the first refusal f makes. It does not follow $refs.
func walkSchema(root any, f func(schemaNode) *apiError) *apiError {
	return walkNode(root, nil, f)
}

func walkNode(v any, path []any, f func(schemaNode) *apiError) *apiError {
	o, ok := v.(*ojson.Object)
	if !ok {
		return nil
	}
	if e := f(schemaNode{path: path, o: o}); e != nil {
		return e
	}
	at := func(keys ...any) []any { return append(slices.Clip(path), keys...) }
	for _, m := range o.Members {
		var e *apiError
		switch {
		case m.Key == "items":
			if list, ok := m.Value.([]any); ok { // the older tuple form
				for i, s := range list {
					if e = walkNode(s, at(m.Key, i), f); e != nil {
						break
					}
				}
			} else {
				e = walkNode(m.Value, at(m.Key), f)
			}
		case slices.Contains(subschemaKeys, m.Key):
			e = walkNode(m.Value, at(m.Key), f)
		case slices.Contains(subschemaMapKeys, m.Key):
			if schemas, ok := m.Value.(*ojson.Object); ok {
				for _, s := range schemas.Members {
					if e = walkNode(s.Value, at(m.Key, s.Key), f); e != nil {
						break
					}
				}
			}
		case slices.Contains(subschemaListKeys, m.Key):
			list, _ := m.Value.([]any)
			for i, s := range list {
				if e = walkNode(s, at(m.Key, i), f); e != nil {
					break
				}
			}
		}
		if e != nil {
			return e
		}
	}
	return nil
}

// isObjectSchema reports whether o describes objects: its type is or includes "object", or it
// lists properties.
func isObjectSchema(o *ojson.Object) bool {
	if o.Has("properties") {
		return true
	}
	switch t := o.Get("type").(type) {
	case string:
		return t == "object"
	case []any:
		return slices.Contains(t, any("object"))
	}
	return false
}

// schemaType is the type o names, the first but null when it names several; "" for none.
func schemaType(o *ojson.Object) string {
	switch t := o.Get("type").(type) {
	case string:
		return t
	case []any:
		for _, n := range t {
			if s, ok := n.(string); ok && s != "null" {
				return s
			}
		}
	}
	return ""
}

// recursiveRef reports whether a $ref of root, followed through the document, leads back to a
// schema it started from: a recursive schema. A $ref it cannot resolve is left alone.
func recursiveRef(root any) bool {
	done := map[*ojson.Object]bool{} // targets known to lead to no cycle
	var onPath []*ojson.Object
	var cycles func(*ojson.Object) bool
	cycles = func(target *ojson.Object) bool {
		if slices.Contains(onPath, target) {
			return true
		}
		if done[target] {
			return false
		}
		onPath = append(onPath, target)
		found := walkSchema(target, func(n schemaNode) *apiError {
			ref, _ := n.o.Get("$ref").(string)
			if next := resolveRef(root, ref); next != nil && cycles(next) {
				return &apiError{}
			}
			return nil
		}) != nil
		onPath = onPath[:len(onPath)-1]
		done[target] = !found
		return found
	}
	o, ok := root.(*ojson.Object)
	return ok && cycles(o)
}

// resolveRef returns the schema that ref, a JSON pointer within root ("#", "#/$defs/Name"),
// points to; nil when it points elsewhere or to nothing.
func resolveRef(root any, ref string) *ojson.Object {
	pointer, ok := strings.CutPrefix(ref, "#")
	if !ok {
		return nil
	}
	v := root
	for _, key := range strings.Split(pointer, "/")[1:] {
		key = strings.NewReplacer("~1", "/", "~0", "~").Replace(key)
		switch node := v.(type) {
		case *ojson.Object:
			v = node.Get(key)
		case []any:
			i, err := strconv.Atoi(key)
			if err != nil || i < 0 || i >= len(node) {
				return nil
			}
			v = node[i]
		default:
			return nil
		}
	}
	o, _ := v.(*ojson.Object)
	return o
}

// jsonKind names the kind of a JSON value, as OpenAI's type errors do: "an object", "a
// string"...
func jsonKind(raw json.RawMessage) string {
	var v any
	_ = json.Unmarshal(raw, &v)
	switch v.(type) {
	case map[string]any:
		return "an object"
	case []any:
		return "an array"
	case string:
		return "a string"
	case float64:
		return "a number"
	case bool:
		return "a boolean"
	}
	return "null"
}

// absent reports whether a field was left out or sent as null.
func absent(raw json.RawMessage) bool {
	s := strings.TrimSpace(string(raw))
	return s == "" || s == "null"
}

// parseSchema parses an output schema that the request's JSON decoding has already checked
// is JSON, keeping the order of its members.
func parseSchema(raw json.RawMessage) any {
	v, err := ojson.Parse(raw)
	if err != nil {
		return nil
	}
	return v
}

// refusalOf returns the refusal a model's choice carries in its GenerationInfo (see
// model.RefusalInfo); "" for none.
func refusalOf(c *llms.ContentChoice) string {
	s, _ := c.GenerationInfo[cmodel.RefusalInfo].(string)
	return s
}
