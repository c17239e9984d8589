package schema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
)

// A schema document is rewritten (inlined, made strict) as a tree of JSON values that keeps the
// order of object keys: the order of a struct's properties is the order in which a model writes
// them, so it must survive. A value in the tree is one of *object, []any, string, json.Number,
// bool or nil.

// object is a JSON object whose keys keep their document order.
type object struct {
	members []member
}

type member struct {
	key string
	val any
}

func (o *object) lookup(key string) (any, bool) {
	for _, m := range o.members {
		if m.key == key {
			return m.val, true
		}
	}
	return nil, false
}

// set replaces the value of key, or appends key when it is absent.
func (o *object) set(key string, val any) {
	for i := range o.members {
		if o.members[i].key == key {
			o.members[i].val = val
			return
		}
	}
	o.members = append(o.members, member{key, val})
}

func (o *object) remove(key string) {
	for i := range o.members {
		if o.members[i].key == key {
			o.members = append(o.members[:i], o.members[i+1:]...)
			return
		}
	}
}

// parseTree decodes one JSON value, and nothing after it, into a tree.
func parseTree(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := decodeTree(dec)
	if err != nil {
		return nil, err
	}
	end := int(dec.InputOffset())
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("more data after the JSON value (at byte %d)", skipSpace(data, end))
	}
	return v, nil
}

// skipSpace returns the offset of the first byte at or after i in data that is not JSON white
// space.
func skipSpace(data []byte, i int) int {
	for i < len(data) && (data[i] == ' ' || data[i] == '\t' || data[i] == '\r' || data[i] == '\n') {
		i++
	}
	return i
}

func decodeTree(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	d, ok := tok.(json.Delim)
	if !ok {
		return tok, nil // string, json.Number, bool or nil
	}
	switch d {
	case '{':
		o := &object{}
		for dec.More() {
			key, err := dec.Token()
			if err != nil {
				return nil, err
			}
			val, err := decodeTree(dec)
			if err != nil {
				return nil, err
			}
			o.set(key.(string), val)
		}
		_, err := dec.Token() // '}'
		return o, err
	case '[':
		arr := []any{}
		for dec.More() {
			val, err := decodeTree(dec)
			if err != nil {
				return nil, err
			}
			arr = append(arr, val)
		}
		_, err := dec.Token() // ']'
		return arr, err
	}
	return nil, fmt.Errorf("unexpected %v at byte %d", d, dec.InputOffset())
}

// encodeTree writes v as compact JSON.
func encodeTree(v any) []byte {
	var buf bytes.Buffer
	writeTree(&buf, v)
	return buf.Bytes()
}

func writeTree(buf *bytes.Buffer, v any) {
	switch v := v.(type) {
	case *object:
		buf.WriteByte('{')
		for i, m := range v.members {
			if i > 0 {
				buf.WriteByte(',')
			}
			writeString(buf, m.key)
			buf.WriteByte(':')
			writeTree(buf, m.val)
		}
		buf.WriteByte('}')
	case []any:
		buf.WriteByte('[')
		for i, e := range v {
			if i > 0 {
				buf.WriteByte(',')
			}
			writeTree(buf, e)
		}
		buf.WriteByte(']')
	case string:
		writeString(buf, v)
	case json.Number:
		buf.WriteString(string(v))
	case bool:
		if v {
			buf.WriteString("true")
		} else {
			buf.WriteString("false")
		}
	case nil:
		buf.WriteString("null")
	default:
		// The tree is built only by decodeTree and this package's rewrites.
		panic(fmt.Sprintf("schema: internal error: %T in a schema tree", v))
	}
}

// writeString writes s as a JSON string without escaping <, > and &, which descriptions and
// patterns use and models should read as written.
func writeString(buf *bytes.Buffer, s string) {
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)           // a string always encodes
	buf.Truncate(buf.Len() - 1) // Encode's newline
}

// tidy orders the keywords of every schema in v the way a reader looks for them: "$ref",
// "type", "title" and "description" first, then the others as they came, then "required",
// "additionalProperties" and "$defs".
func tidy(v any) any {
	o, ok := v.(*object)
	if !ok {
		return v
	}
	eachSubschema(o, tidy)
	first := []string{"$ref", "type", "title", "description"}
	last := []string{"required", "additionalProperties", "$defs"}
	members := make([]member, 0, len(o.members))
	pick := func(keys []string) {
		for _, k := range keys {
			if val, ok := o.lookup(k); ok {
				members = append(members, member{k, val})
			}
		}
	}
	pick(first)
	for _, m := range o.members {
		if !slices.Contains(first, m.key) && !slices.Contains(last, m.key) {
			members = append(members, m)
		}
	}
	pick(last)
	o.members = members
	return o
}

// copyTree returns a deep copy of v.
func copyTree(v any) any {
	switch v := v.(type) {
	case *object:
		c := &object{members: make([]member, len(v.members))}
		for i, m := range v.members {
			c.members[i] = member{m.key, copyTree(m.val)}
		}
		return c
	case []any:
		c := make([]any, len(v))
		for i, e := range v {
			c[i] = copyTree(e)
		}
		return c
	}
	return v
}

// eachSubschema replaces each direct subschema s of o with f(s): the values of the keywords
// that hold one schema, an array of schemas, or an object of named schemas.
func eachSubschema(o *object, f func(any) any) {
	for i := range o.members {
		m := &o.members[i]
		switch m.key {
		case "additionalProperties", "items", "contains", "propertyNames", "not", "if", "then",
			"else", "unevaluatedItems", "unevaluatedProperties", "contentSchema", "additionalItems":
			if isSchema(m.val) {
				m.val = f(m.val)
				continue
			}
			if arr, ok := m.val.([]any); ok && m.key == "items" { // draft-07 tuple
				for j := range arr {
					arr[j] = f(arr[j])
				}
			}
		case "allOf", "anyOf", "oneOf", "prefixItems":
			if arr, ok := m.val.([]any); ok {
				for j := range arr {
					arr[j] = f(arr[j])
				}
			}
		case "properties", "patternProperties", "dependentSchemas", "$defs", "definitions":
			if named, ok := m.val.(*object); ok {
				for j := range named.members {
					named.members[j].val = f(named.members[j].val)
				}
			}
		}
	}
}

// isSchema reports whether v can be a schema: an object or a boolean.
func isSchema(v any) bool {
	switch v.(type) {
	case *object, bool:
		return true
	}
	return false
}
