package schema

import "github.com/cadrehq/cadre/internal/ojson"

// strictSchema rewrites the schema v, in place, into its strict form (see Schema.Strict) and
// returns it.
func strictSchema(v any) any {
	o, ok := v.(*ojson.Object)
	if !ok {
		return v
	}
	eachSubschema(o, strictSchema)
	if !isObjectSchema(o) {
		return o
	}

	if props, ok := o.Lookup("properties"); ok {
		if props, ok := props.(*ojson.Object); ok {
			wasRequired := map[string]bool{}
			if req, ok := o.Lookup("required"); ok {
				if req, ok := req.([]any); ok {
					for _, name := range req {
						if name, ok := name.(string); ok {
							wasRequired[name] = true
						}
					}
				}
			}
			required := make([]any, 0, len(props.Members))
			for i := range props.Members {
				p := &props.Members[i]
				if !wasRequired[p.Key] {
					p.Value = nullable(p.Value)
				}
				required = append(required, p.Key)
			}
			o.Set("required", required)
		}
	}

	if ap, ok := o.Lookup("additionalProperties"); !ok || !isObjectValue(ap) {
		o.Set("additionalProperties", false) // a map keeps its value schema
	}
	return o
}

// isObjectSchema reports whether o describes objects: its type is or includes "object", or it
// lists properties.
func isObjectSchema(o *ojson.Object) bool {
	if _, ok := o.Lookup("properties"); ok {
		return true
	}
	switch t, _ := o.Lookup("type"); t := t.(type) {
	case string:
		return t == "object"
	case []any:
		for _, e := range t {
			if e == "object" {
				return true
			}
		}
	}
	return false
}

func isObjectValue(v any) bool {
	_, ok := v.(*ojson.Object)
	return ok
}

// nullable returns the schema v widened to accept null: "null" added to its type (and its
// enum), or, when it has no plain type or is a reference or a combination, v wrapped as
// {"anyOf": [v, {"type": "null"}]}.
func nullable(v any) any {
	o, ok := v.(*ojson.Object)
	if !ok {
		return v // true accepts null already; false stays as strict as it was
	}
	if acceptsNull(o) {
		return o
	}
	t, hasType := o.Lookup("type")
	_, isRef := o.Lookup("$ref")
	_, hasConst := o.Lookup("const")
	if !hasType || isRef || hasConst || hasAny(o, "anyOf", "oneOf", "allOf") {
		return &ojson.Object{Members: []ojson.Member{{Key: "anyOf", Value: []any{o, &ojson.Object{Members: []ojson.Member{{Key: "type", Value: "null"}}}}}}}
	}
	switch t := t.(type) {
	case string:
		o.Set("type", []any{t, "null"})
	case []any:
		o.Set("type", append(t, "null"))
	}
	if enum, ok := o.Lookup("enum"); ok {
		if enum, ok := enum.([]any); ok {
			o.Set("enum", append(enum, nil))
		}
	}
	return o
}

// acceptsNull reports whether o plainly accepts null: its type is or includes "null", or it is
// an anyOf or a oneOf with a {"type": "null"} branch (the jsonschema:"nullable" tag makes one).
func acceptsNull(o *ojson.Object) bool {
	switch t, _ := o.Lookup("type"); t := t.(type) {
	case string:
		return t == "null"
	case []any:
		for _, e := range t {
			if e == "null" {
				return true
			}
		}
	}
	for _, k := range []string{"anyOf", "oneOf"} {
		branches, _ := o.Lookup(k)
		list, _ := branches.([]any)
		for _, b := range list {
			if b, ok := b.(*ojson.Object); ok && len(b.Members) == 1 {
				if t, _ := b.Lookup("type"); t == "null" {
					return true
				}
			}
		}
	}
	return false
}

func hasAny(o *ojson.Object, keys ...string) bool {
	for _, k := range keys {
		if _, ok := o.Lookup(k); ok {
			return true
		}
	}
	return false
}
