package schema

// strictSchema rewrites the schema v, in place, into its strict form (see Schema.Strict) and
// returns it.
func strictSchema(v any) any {
	o, ok := v.(*object)
	if !ok {
		return v
	}
	eachSubschema(o, strictSchema)
	if !isObjectSchema(o) {
		return o
	}

	if props, ok := o.lookup("properties"); ok {
		if props, ok := props.(*object); ok {
			wasRequired := map[string]bool{}
			if req, ok := o.lookup("required"); ok {
				if req, ok := req.([]any); ok {
					for _, name := range req {
						if name, ok := name.(string); ok {
							wasRequired[name] = true
						}
					}
				}
			}
			required := make([]any, 0, len(props.members))
			for i := range props.members {
				p := &props.members[i]
				if !wasRequired[p.key] {
					p.val = nullable(p.val)
				}
				required = append(required, p.key)
			}
			o.set("required", required)
		}
	}

	if ap, ok := o.lookup("additionalProperties"); !ok || !isObjectValue(ap) {
		o.set("additionalProperties", false) // a map keeps its value schema
	}
	return o
}

// isObjectSchema reports whether o describes objects: its type is or includes "object", or it
// lists properties.
func isObjectSchema(o *object) bool {
	if _, ok := o.lookup("properties"); ok {
		return true
	}
	switch t, _ := o.lookup("type"); t := t.(type) {
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
	_, ok := v.(*object)
	return ok
}

// nullable returns the schema v widened to accept null: "null" added to its type (and its
// enum), or, when it has no plain type or is a reference or a combination, v wrapped as
// {"anyOf": [v, {"type": "null"}]}.
func nullable(v any) any {
	o, ok := v.(*object)
	if !ok {
		return v // true accepts null already; false stays as strict as it was
	}
	if acceptsNull(o) {
		return o
	}
	t, hasType := o.lookup("type")
	_, isRef := o.lookup("$ref")
	_, hasConst := o.lookup("const")
	if !hasType || isRef || hasConst || hasAny(o, "anyOf", "oneOf", "allOf") {
		return &object{members: []member{{"anyOf", []any{o, &object{members: []member{{"type", "null"}}}}}}}
	}
	switch t := t.(type) {
	case string:
		o.set("type", []any{t, "null"})
	case []any:
		o.set("type", append(t, "null"))
	}
	if enum, ok := o.lookup("enum"); ok {
		if enum, ok := enum.([]any); ok {
			o.set("enum", append(enum, nil))
		}
	}
	return o
}

// acceptsNull reports whether o plainly accepts null: its type is or includes "null", or it is
// an anyOf or a oneOf with a {"type": "null"} branch (the jsonschema:"nullable" tag makes one).
func acceptsNull(o *object) bool {
	switch t, _ := o.lookup("type"); t := t.(type) {
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
		branches, _ := o.lookup(k)
		list, _ := branches.([]any)
		for _, b := range list {
			if b, ok := b.(*object); ok && len(b.members) == 1 {
				if t, _ := b.lookup("type"); t == "null" {
					return true
				}
			}
		}
	}
	return false
}

func hasAny(o *object, keys ...string) bool {
	for _, k := range keys {
		if _, ok := o.lookup(k); ok {
			return true
		}
	}
	return false
}
