package schema_test

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/cadrehq/cadre/pkg/schema"
)

type address struct {
	City string `json:"city" jsonschema:"description=the city"`
	Zip  string `json:"zip,omitempty"`
}

type person struct {
	Name   string    `json:"name" jsonschema_description:"full name"`
	Age    int       `json:"age,omitempty" jsonschema:"minimum=0,maximum=150"`
	Role   string    `json:"role" jsonschema:"enum=admin,enum=user"`
	Home   address   `json:"home"`
	Past   []address `json:"past,omitzero"`
	Secret string    `json:"-"`
}

// node is recursive through a slice; its meta is not and must be inlined.
type node struct {
	Name     string  `json:"name"`
	Children []node  `json:"children"`
	Meta     address `json:"meta,omitempty"`
}

// team and member are mutually recursive.
type team struct {
	Name    string   `json:"name"`
	Members []member `json:"members"`
}

type member struct {
	Name string `json:"name"`
	Team *team  `json:"team,omitempty"`
}

// list is generic and recursive: list[int] and list[string] must not share a definition.
type list[T any] struct {
	Value T        `json:"value"`
	Next  *list[T] `json:"next,omitempty"`
}

type lists struct {
	Ints    list[int]    `json:"ints"`
	Strings list[string] `json:"strings"`
}

// ring and link embed each other: flattened into each other, they would never end.
type ring struct {
	*link
	Name string `json:"name"`
}

type link struct{ *ring }

// decode decodes JSON for comparisons that ignore key order.
func decode(t *testing.T, data []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatalf("invalid JSON %s: %v", data, err)
	}
	return v
}

var cmpSorted = cmpopts.SortSlices(func(a, b string) bool { return a < b })

func asValidationError(err error, target **schema.ValidationError) bool {
	return errors.As(err, target)
}

func mustFor[T any](t *testing.T) *schema.Schema {
	t.Helper()
	s, err := schema.For[T]()
	if err != nil {
		t.Fatalf("For[%s]: %v", reflect.TypeFor[T](), err)
	}
	return s
}

func TestForDocuments(t *testing.T) {
	t.Parallel()
	addressDoc := `{"type":"object","properties":{"city":{"type":"string","description":"the city"},
		"zip":{"type":"string"}},"required":["city"],"additionalProperties":false}`
	tests := []struct {
		name string
		for_ func() (*schema.Schema, error)
		want string
	}{
		{"string", schema.For[string], `{"type":"string"}`},
		{"int", schema.For[int64], `{"type":"integer"}`},
		{"float", schema.For[float32], `{"type":"number"}`},
		{"bool", schema.For[bool], `{"type":"boolean"}`},
		{"slice", schema.For[[]string], `{"type":"array","items":{"type":"string"}}`},
		{"map", schema.For[map[string]int], `{"type":"object","additionalProperties":{"type":"integer"}}`},
		{"any", schema.For[any], `{}`},
		{"struct", schema.For[address], addressDoc},
		{"pointer to struct", schema.For[*address], addressDoc},
		{"nested structs", schema.For[person], `{
			"type":"object",
			"properties":{
				"name":{"type":"string","description":"full name"},
				"age":{"type":"integer","minimum":0,"maximum":150},
				"role":{"type":"string","enum":["admin","user"]},
				"home":` + addressDoc + `,
				"past":{"type":"array","items":` + addressDoc + `}
			},
			"required":["name","role","home"],
			"additionalProperties":false}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s, err := tt.for_()
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(decode(t, []byte(tt.want)), decode(t, s.JSON())); diff != "" {
				t.Errorf("JSON() mismatch (-want +got):\n%s\ngot %s", diff, s.JSON())
			}
			for _, banned := range []string{`"$ref"`, `"$defs"`, `"$schema"`, `"$id"`} {
				if strings.Contains(string(s.JSON()), banned) {
					t.Errorf("JSON() has %s: %s", banned, s.JSON())
				}
			}
		})
	}
}

func TestForKeepsFieldOrder(t *testing.T) {
	t.Parallel()
	doc := string(mustFor[person](t).JSON())
	last := -1
	for _, name := range []string{`"name"`, `"age"`, `"role"`, `"home"`, `"past"`} {
		i := strings.Index(doc, name)
		if i < last {
			t.Fatalf("property %s is out of field order in %s", name, doc)
		}
		last = i
	}
}

func TestForIsObject(t *testing.T) {
	t.Parallel()
	if !mustFor[person](t).IsObject() || !mustFor[map[string]int](t).IsObject() || !mustFor[node](t).IsObject() {
		t.Error("IsObject() = false for a struct, a map or a recursive struct")
	}
	if mustFor[string](t).IsObject() || mustFor[[]node](t).IsObject() {
		t.Error("IsObject() = true for a string or a slice")
	}
}

func TestForCachesPerType(t *testing.T) {
	t.Parallel()
	const n = 16
	got := make([]*schema.Schema, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			s, err := schema.For[struct {
				Cached string `json:"cached"`
			}]()
			if err != nil {
				t.Error(err)
			}
			got[i] = s
		})
	}
	wg.Wait()
	for i := range got {
		if got[i] != got[0] {
			t.Fatalf("call %d returned a different *Schema", i)
		}
	}
	of, err := schema.Of(reflect.TypeFor[struct {
		Cached string `json:"cached"`
	}]())
	if err != nil || of != got[0] {
		t.Errorf("Of(the same type) = %p, %v; want %p", of, err, got[0])
	}
}

// forTwoNodes returns the schema of a struct holding two recursive types named node: the
// package's and one of its own.
func forTwoNodes(t *testing.T) *schema.Schema {
	type tree = node // the package's
	type node struct {
		ID   int   `json:"id"`
		Next *node `json:"next,omitempty"`
	}
	type nodes struct {
		Tree tree `json:"tree"`
		Path node `json:"path"`
	}
	return mustFor[nodes](t)
}

func TestForRecursive(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		s       *schema.Schema
		defs    []string // the names expected in $defs
		valid   string
		invalid string
		field   string // where invalid is wrong
	}{
		{
			name:    "self",
			s:       mustFor[node](t),
			defs:    []string{"node"},
			valid:   `{"name":"a","children":[{"name":"b","children":[]}]}`,
			invalid: `{"name":"a","children":[{"name":"b","children":[{"name":3,"children":[]}]}]}`,
			field:   "children[0].children[0].name",
		},
		{
			name:    "mutual",
			s:       mustFor[team](t),
			defs:    []string{"member", "team"},
			valid:   `{"name":"t","members":[{"name":"m","team":{"name":"u","members":[]}}]}`,
			invalid: `{"name":"t","members":[{"name":"m","team":{"name":"u","members":[{"team":{}}]}}]}`,
			field:   "members[0].team.members[0]",
		},
		{
			name:    "generic instances",
			s:       mustFor[lists](t),
			defs:    []string{"list_int", "list_string"},
			valid:   `{"ints":{"value":1,"next":{"value":2}},"strings":{"value":"a","next":{"value":"b"}}}`,
			invalid: `{"ints":{"value":1,"next":{"value":2}},"strings":{"value":"a","next":{"value":2}}}`,
			field:   "strings.next.value",
		},
		{
			name:    "two types of one name",
			s:       forTwoNodes(t),
			defs:    []string{"node", "node2"},
			valid:   `{"tree":{"name":"a","children":[{"name":"b","children":[]}]},"path":{"id":1,"next":{"id":2}}}`,
			invalid: `{"tree":{"name":"a","children":[]},"path":{"id":1,"next":{"id":"2"}}}`,
			field:   "path.next.id",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var doc struct {
				Type string                     `json:"type"`
				Defs map[string]json.RawMessage `json:"$defs"`
			}
			if err := json.Unmarshal(tt.s.JSON(), &doc); err != nil {
				t.Fatal(err)
			}
			if doc.Type != "object" {
				t.Errorf("root type = %q, want object (the root must be inlined): %s", doc.Type, tt.s.JSON())
			}
			var names []string
			for name := range doc.Defs {
				names = append(names, name)
			}
			if diff := cmp.Diff(tt.defs, names, cmpSorted); diff != "" {
				t.Errorf("$defs names (-want +got):\n%s\n%s", diff, tt.s.JSON())
			}
			if err := tt.s.Validate([]byte(tt.valid)); err != nil {
				t.Errorf("Validate(valid) = %v", err)
			}
			var ve *schema.ValidationError
			err := tt.s.Validate([]byte(tt.invalid))
			if !asValidationError(err, &ve) || len(ve.Errors) == 0 || ve.Errors[0].Field != tt.field {
				t.Errorf("Validate(invalid) = %v, want an error at %s", err, tt.field)
			}
		})
	}
}

func TestForRecursiveInlinesTheRest(t *testing.T) {
	t.Parallel()
	doc := string(mustFor[node](t).JSON())
	if strings.Contains(doc, `"address"`) || strings.Count(doc, `"$ref"`) != 2 {
		t.Errorf("want only the two references to node (root's and its definition's children), got %s", doc)
	}
}

func TestForUnsupported(t *testing.T) {
	t.Parallel()
	type withFunc struct {
		Name string `json:"name"`
		Hook func() `json:"hook"`
	}
	type loop struct {
		*loop
		Name string `json:"name"`
	}
	_ = loop{loop: nil}
	_ = ring{link: &link{ring: nil}}
	type holdsLoop struct {
		Name string `json:"name"`
		Loop []loop `json:"loop"`
	}
	type inlinesItself struct {
		Name string         `json:"name"`
		More *inlinesItself `json:",inline"`
	}
	tests := []struct {
		name string
		for_ func() (*schema.Schema, error)
		want string // in the error
	}{
		{"chan", schema.For[chan int], "chan int"},
		{"func", schema.For[func()], "func()"},
		{"complex", schema.For[complex128], "complex128"},
		{"func field", schema.For[withFunc], "func()"},
		{"nested func field", schema.For[[]map[string]withFunc], "func()"},
		{"embeds itself", schema.For[loop], "embeds itself"},
		{"a field's type embeds itself", schema.For[holdsLoop], "embeds itself"},
		{"inlines itself", schema.For[inlinesItself], "embeds itself"},
		{"embeds itself through another", schema.For[ring], "embeds itself"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s, err := tt.for_()
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("For = %v, %v; want an error naming %q", s, err, tt.want)
			}
		})
	}
}

func TestForSkipsIgnoredFields(t *testing.T) {
	t.Parallel()
	type withIgnored struct {
		Name string   `json:"name"`
		Hook func()   `json:"-"`
		ch   chan int // unexported: not part of the JSON
	}
	_ = withIgnored{ch: nil}
	s := mustFor[withIgnored](t)
	want := `{"type":"object","properties":{"name":{"type":"string"}},"required":["name"],"additionalProperties":false}`
	if diff := cmp.Diff(decode(t, []byte(want)), decode(t, s.JSON())); diff != "" {
		t.Errorf("JSON() mismatch (-want +got):\n%s", diff)
	}
}

func TestOfNil(t *testing.T) {
	t.Parallel()
	if _, err := schema.Of(nil); err == nil {
		t.Error("Of(nil) returned no error")
	}
}
