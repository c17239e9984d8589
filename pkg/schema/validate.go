package schema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// ValidationError says why data does not match a schema: one FieldError per problem, sorted by
// field. Validate returns it; callers find it with errors.As.
type ValidationError struct {
	Errors []FieldError
}

// FieldError is one problem with one value of the data.
type FieldError struct {
	// Field says where: "" for the root, else a path like "items[0].name". An object key that is
	// not a plain name is written in brackets and quotes: `tags["a b"]`.
	Field string
	// Message says what is wrong, in plain words a model can act on, such as
	// `missing required property "name"`, `got string, want integer` or
	// `value must be one of "a", "b"`.
	Message string
}

// Error returns one line per FieldError: `items[0].name: got string, want integer`, with
// `(root)` for the root.
func (e *ValidationError) Error() string {
	if len(e.Errors) == 0 {
		return "(root): does not match the schema"
	}
	var b strings.Builder
	for i, f := range e.Errors {
		if i > 0 {
			b.WriteByte('\n')
		}
		if f.Field == "" {
			b.WriteString("(root)")
		} else {
			b.WriteString(f.Field)
		}
		b.WriteString(": ")
		b.WriteString(f.Message)
	}
	return b.String()
}

// Validate checks that data is one JSON value that matches the schema. It returns nil, or a
// *ValidationError: when data is not JSON (or is empty, or has anything but white space after
// the value), one FieldError for the root that says so and where; otherwise one FieldError for
// each thing the validator found wrong. A number no Go number can hold, and that math/big
// cannot read (an exponent beyond ±1,000,000), is an error at its field. "format" (date-time,
// email, ...) is not checked: in JSON Schema 2020-12 it is an annotation (a document that
// declares draft-07 has it checked, as that draft says).
//
// Validate is safe for concurrent use. When data is valid, it usually allocates nothing.
func (s *Schema) Validate(data []byte) error {
	// The fast path: a checker compiled from the document reads data once, in place (see
	// internal/schemacheck). It exists only for documents made of keywords it decides exactly as
	// v6 does, and it says valid only when v6 would. Data that is invalid, or that it does not
	// decide (duplicate names, very long numbers, invalid UTF-8, deep nesting, ...), goes to the
	// full path below, which decides and words the errors: the answer is always the full path's.
	if s.check != nil && s.check.Valid(data) {
		return nil
	}
	return s.validateFull(data)
}

// validateFull decodes data and validates it with v6.
func (s *Schema) validateFull(data []byte) error {
	v, err := decodeInstance(data)
	if err != nil {
		return &ValidationError{Errors: []FieldError{{Message: err.Error()}}}
	}
	if bad := outOfRange(v); bad != nil {
		return &ValidationError{Errors: bad}
	}
	err = s.validator.Validate(v)
	if err == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return &ValidationError{Errors: []FieldError{{Message: err.Error()}}}
	}
	return &ValidationError{Errors: fieldErrors(ve, v)}
}

// decodeInstance decodes data as the validator wants it (json.Number for numbers), or says in
// plain words why data is not one JSON value.
func decodeInstance(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		var syntax *json.SyntaxError
		switch {
		case err == io.EOF:
			return nil, errors.New("not JSON: the input is empty; write a JSON value")
		case err == io.ErrUnexpectedEOF:
			return nil, fmt.Errorf("not JSON: the input ends in the middle of a value (at byte %d)", len(data))
		case errors.As(err, &syntax):
			return nil, fmt.Errorf("not JSON: %v (at byte %d)", syntax, syntax.Offset)
		}
		return nil, fmt.Errorf("not JSON: %w", err)
	}
	end := int(dec.InputOffset())
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("not JSON: more data after the JSON value (at byte %d); write one JSON value and nothing else", skipSpace(data, end))
	}
	return v, nil
}

// outOfRange returns an error for each number in the instance v that math/big cannot read. v6
// reads numbers with math/big for minimum, multipleOf and the like, and panics on those; no Go
// number holds them either.
func outOfRange(v any) []FieldError {
	var out []FieldError
	var walk func(v any, loc []string)
	walk = func(e any, loc []string) {
		switch e := e.(type) {
		case json.Number:
			if !bigReadable(string(e)) {
				out = append(out, FieldError{Field: fieldPath(v, loc),
					Message: "number " + string(e) + " is out of range; write a number that a float64 can hold"})
			}
		case []any:
			for i, x := range e {
				walk(x, append(loc, strconv.Itoa(i)))
			}
		case map[string]any:
			for k, x := range e {
				walk(x, append(loc, k))
			}
		}
	}
	walk(v, make([]string, 0, 8))
	sort.Slice(out, func(i, j int) bool { return out[i].Field < out[j].Field })
	return out
}

// bigReadable reports whether math/big's Rat.SetString reads the JSON number n. It does not
// when n is not zero and its exponent, less the number of digits after the point, is beyond
// ±1,000,000, nor when the exponent does not fit an int64.
func bigReadable(n string) bool {
	var exp int64
	if i := strings.IndexAny(n, "eE"); i >= 0 {
		var err error
		if exp, err = strconv.ParseInt(n[i+1:], 10, 64); err != nil {
			return false
		}
		n = n[:i]
	}
	if strings.Trim(n, "-0.") == "" {
		return true // zero, whatever its exponent
	}
	if i := strings.IndexByte(n, '.'); i >= 0 {
		exp -= int64(len(n) - i - 1)
	}
	return -1e6 <= exp && exp <= 1e6
}

// fieldErrors flattens the validator's error tree into one FieldError per leaf.
func fieldErrors(root *jsonschema.ValidationError, instance any) []FieldError {
	var p *message.Printer // made only when a message needs it
	var out []FieldError
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) > 0 {
			for _, c := range e.Causes {
				walk(c)
			}
			return
		}
		msg, ok := describe(e.ErrorKind)
		if !ok {
			if p == nil {
				p = message.NewPrinter(language.English)
			}
			msg = e.ErrorKind.LocalizedString(p)
		}
		out = append(out, FieldError{Field: fieldPath(instance, e.InstanceLocation), Message: msg})
	}
	walk(root)

	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Field != out[j].Field {
			return out[i].Field < out[j].Field
		}
		return out[i].Message < out[j].Message
	})
	uniq := out[:0]
	for i, f := range out {
		if i == 0 || f != out[i-1] {
			uniq = append(uniq, f)
		}
	}
	return uniq
}

// describe words the kinds of error a model meets most; ok is false for the others.
func describe(k jsonschema.ErrorKind) (msg string, ok bool) {
	switch k := k.(type) {
	case *kind.Required:
		if len(k.Missing) == 1 {
			return "missing required property " + strconv.Quote(k.Missing[0]), true
		}
		return "missing required properties " + quoteAll(k.Missing), true
	case *kind.AdditionalProperties:
		if len(k.Properties) == 1 {
			return "property " + strconv.Quote(k.Properties[0]) + " is not allowed", true
		}
		// v6 lists them as it met them in the decoded object, a map: in no order.
		return "properties " + quoteAll(slices.Sorted(slices.Values(k.Properties))) + " are not allowed", true
	case *kind.Type:
		return "got " + k.Got + ", want " + strings.Join(k.Want, " or "), true
	case *kind.Enum:
		if len(k.Want) == 1 {
			return "value must be " + jsonText(k.Want[0]), true
		}
		want := make([]string, len(k.Want))
		for i, w := range k.Want {
			want[i] = jsonText(w)
		}
		return "value must be one of " + strings.Join(want, ", "), true
	case *kind.Const:
		return "value must be " + jsonText(k.Want), true
	case *kind.FalseSchema:
		return "no value is allowed here", true
	}
	return "", false
}

func quoteAll(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = strconv.Quote(n)
	}
	return strings.Join(q, ", ")
}

func jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// fieldPath writes an instance location as a path: array indexes in brackets, object keys after
// dots. It looks at the instance to tell an index from an object key made of digits.
func fieldPath(instance any, loc []string) string {
	var b strings.Builder
	cur := instance
	for _, tok := range loc {
		if arr, ok := cur.([]any); ok {
			b.WriteString("[" + tok + "]")
			cur = nil
			if i, err := strconv.Atoi(tok); err == nil && i >= 0 && i < len(arr) {
				cur = arr[i]
			}
			continue
		}
		if plainName(tok) {
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(tok)
		} else {
			b.WriteString("[" + strconv.Quote(tok) + "]")
		}
		obj, _ := cur.(map[string]any)
		cur = obj[tok]
	}
	return b.String()
}

// plainName reports whether an object key can follow a dot in a path: it is not empty, does not
// start with a digit, and has only letters, digits, '_' and '-'.
func plainName(s string) bool {
	if s == "" || s[0] >= '0' && s[0] <= '9' {
		return false
	}
	for _, r := range s {
		if !(r == '_' || r == '-' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// skipSpace returns the offset of the first byte at or after i in data that is not JSON white
// space.
func skipSpace(data []byte, i int) int {
	for i < len(data) && (data[i] == ' ' || data[i] == '\t' || data[i] == '\r' || data[i] == '\n') {
		i++
	}
	return i
}
