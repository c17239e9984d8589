package argshape_test

import (
	"reflect"
	"testing"
	"time"

	"github.com/cadrehq/cadre/internal/argshape"
	"github.com/cadrehq/cadre/pkg/schema"
)

type args struct {
	City string `json:"city"`
}

func TestIsObjectType(t *testing.T) {
	t.Parallel()
	tests := []struct {
		t    reflect.Type
		want bool
	}{
		{reflect.TypeFor[args](), true},
		{reflect.TypeFor[*args](), true},
		{reflect.TypeFor[map[string]int](), true},
		{reflect.TypeFor[map[string]any](), true},
		{reflect.TypeFor[string](), false},
		{reflect.TypeFor[int](), false},
		{reflect.TypeFor[[]args](), false},
		{reflect.TypeFor[any](), false},
		{reflect.TypeFor[time.Time](), false}, // a struct whose JSON is a string
		{reflect.TypeFor[*time.Time](), false},
	}
	for _, tt := range tests {
		if got := argshape.IsObjectType(tt.t); got != tt.want {
			t.Errorf("IsObjectType(%v) = %t, want %t", tt.t, got, tt.want)
		}
	}
}

// TestWrappers checks the documents of the wrappers: an object of one required property, and
// nothing else.
func TestWrappers(t *testing.T) {
	t.Parallel()
	in, err := schema.For[argshape.Input[int]]()
	if err != nil {
		t.Fatal(err)
	}
	out, err := schema.For[argshape.Output[[]string]]()
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		s          *schema.Schema
		want, data string
	}{
		{in, `{"type":"object","properties":{"input":{"type":"integer"}},"required":["input"],"additionalProperties":false}`, `{"input":3}`},
		{out, `{"type":"object","properties":{"output":{"type":"array","items":{"type":"string"}}},"required":["output"],"additionalProperties":false}`, `{"output":["a"]}`},
	} {
		if got := string(tt.s.JSON()); got != tt.want {
			t.Errorf("schema = %s, want %s", got, tt.want)
		}
		if err := tt.s.Validate([]byte(tt.data)); err != nil {
			t.Errorf("Validate(%s) = %v", tt.data, err)
		}
	}
}
