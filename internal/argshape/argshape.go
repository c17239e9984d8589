package argshape

import (
	"reflect"

	"github.com/cadrehq/cadre/pkg/schema"
)

// IsObjectType reports whether values of t encode as JSON objects: a struct, a pointer to a
// struct, or a map, unless its JSON Schema says it encodes as something else (time.Time is a
// struct that encodes as a string). Such a type is a tool's arguments object as it is; any
// other is wrapped.
func IsObjectType(t reflect.Type) bool {
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct && t.Kind() != reflect.Map {
		return false
	}
	// A type without a schema counts as an object, so that the caller's own schema.For
	// reports the error about the type itself.
	s, err := schema.Of(t)
	return err != nil || s.IsObject()
}

// Input is the arguments object of a tool whose input I is not an object: {"input": I}. Its
// schema (schema.For) is the tool's, and the arguments decode into it.
type Input[I any] struct {
	Input I `json:"input"`
}

// Output is the arguments object of the final_result tool when the answer O is not an object:
// {"output": O}. Its schema (schema.For) is final_result's, and the arguments decode into it.
type Output[O any] struct {
	Output O `json:"output"`
}
