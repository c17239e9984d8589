package schema_test

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/cadrehq/cadre/pkg/schema"
)

type lineItem struct {
	SKU      string `json:"sku"`
	Quantity int    `json:"quantity" jsonschema:"minimum=1"`
}

type order struct {
	Customer string            `json:"customer"`
	Priority string            `json:"priority" jsonschema:"enum=low,enum=high"`
	Items    []lineItem        `json:"items"`
	Note     string            `json:"note,omitempty"`
	Tags     map[string]string `json:"tags,omitempty"`
}

func TestValidate(t *testing.T) {
	t.Parallel()
	s := mustFor[order](t)
	tests := []struct {
		name string
		data string
		want []schema.FieldError // nil: valid
	}{
		{
			name: "valid",
			data: `{"customer":"ada","priority":"low","items":[{"sku":"a","quantity":2}],"tags":{"x":"y"}}`,
		},
		{
			name: "valid with white space around",
			data: " \n{\"customer\":\"ada\",\"priority\":\"high\",\"items\":[]}\n ",
		},
		{
			name: "missing required",
			data: `{"priority":"low","items":[]}`,
			want: []schema.FieldError{{Field: "", Message: `missing required property "customer"`}},
		},
		{
			name: "missing several",
			data: `{"items":[]}`,
			want: []schema.FieldError{{Field: "", Message: `missing required properties "customer", "priority"`}},
		},
		{
			name: "wrong type in an array element",
			data: `{"customer":"ada","priority":"low","items":[{"sku":"a","quantity":1},{"sku":"b","quantity":"2"}]}`,
			want: []schema.FieldError{{Field: "items[1].quantity", Message: "got string, want integer"}},
		},
		{
			name: "enum",
			data: `{"customer":"ada","priority":"urgent","items":[]}`,
			want: []schema.FieldError{{Field: "priority", Message: `value must be one of "low", "high"`}},
		},
		{
			name: "extra property",
			data: `{"customer":"ada","priority":"low","items":[],"colour":"red"}`,
			want: []schema.FieldError{{Field: "", Message: `property "colour" is not allowed`}},
		},
		{
			name: "other keywords in the validator's words",
			data: `{"customer":"ada","priority":"low","items":[{"sku":"a","quantity":0}]}`,
			want: []schema.FieldError{{Field: "items[0].quantity", Message: "minimum: got 0, want 1"}},
		},
		{
			name: "map key that is not a plain name",
			data: `{"customer":"ada","priority":"low","items":[],"tags":{"0":1,"a b":"c"}}`,
			want: []schema.FieldError{{Field: `tags["0"]`, Message: "got number, want string"}},
		},
		{
			name: "several problems, sorted by field",
			data: `{"customer":7,"priority":"low","items":[{"sku":"a"}],"extra":true}`,
			want: []schema.FieldError{
				{Field: "", Message: `property "extra" is not allowed`},
				{Field: "customer", Message: "got number, want string"},
				{Field: "items[0]", Message: `missing required property "quantity"`},
			},
		},
		{
			name: "root of the wrong type",
			data: `[1,2]`,
			want: []schema.FieldError{{Field: "", Message: "got array, want object"}},
		},
		{
			name: "number beyond what math/big reads",
			data: `{"customer":"ada","priority":"low","items":[{"sku":"a","quantity":1e1000001},{"sku":"b","quantity":-1.5E+1000002}]}`,
			want: []schema.FieldError{
				{Field: "items[0].quantity", Message: "number 1e1000001 is out of range; write a number that a float64 can hold"},
				{Field: "items[1].quantity", Message: "number -1.5E+1000002 is out of range; write a number that a float64 can hold"},
			},
		},
		{
			name: "not JSON",
			data: `{"customer": ada}`,
			want: []schema.FieldError{{Message: "not JSON: invalid character 'a' looking for beginning of value (at byte 14)"}},
		},
		{
			name: "trailing garbage",
			data: `{"customer":"ada","priority":"low","items":[]} and more`,
			want: []schema.FieldError{{Message: "not JSON: more data after the JSON value (at byte 47); write one JSON value and nothing else"}},
		},
		{
			name: "two values",
			data: `{} {}`,
			want: []schema.FieldError{{Message: "not JSON: more data after the JSON value (at byte 3); write one JSON value and nothing else"}},
		},
		{
			name: "truncated",
			data: `{"customer":"ada"`,
			want: []schema.FieldError{{Message: "not JSON: the input ends in the middle of a value (at byte 17)"}},
		},
		{
			name: "empty",
			data: ``,
			want: []schema.FieldError{{Message: "not JSON: the input is empty; write a JSON value"}},
		},
		{
			name: "only white space",
			data: " \n\t",
			want: []schema.FieldError{{Message: "not JSON: the input is empty; write a JSON value"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := s.Validate([]byte(tt.data))
			if tt.want == nil {
				if err != nil {
					t.Fatalf("Validate = %v, want nil", err)
				}
				return
			}
			var ve *schema.ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("Validate = %#v, want a *ValidationError", err)
			}
			if diff := cmp.Diff(tt.want, ve.Errors); diff != "" {
				t.Errorf("Errors mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestValidationErrorError(t *testing.T) {
	t.Parallel()
	err := &schema.ValidationError{Errors: []schema.FieldError{
		{Field: "", Message: `missing required property "name"`},
		{Field: "items[0].name", Message: "got string, want integer"},
	}}
	want := "(root): missing required property \"name\"\nitems[0].name: got string, want integer"
	if got := err.Error(); got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
}

func TestValidateConcurrent(t *testing.T) {
	t.Parallel()
	s := mustFor[order](t)
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			data := fmt.Sprintf(`{"customer":"c%d","priority":"low","items":[{"sku":"a","quantity":%d}]}`, i, i)
			err := s.Validate([]byte(data))
			if (i == 0) != (err != nil) { // quantity 0 is below the minimum
				t.Errorf("Validate(%s) = %v", data, err)
			}
		})
	}
	wg.Wait()
}

func TestCompile(t *testing.T) {
	t.Parallel()
	// An MCP server's input schema, draft-07 style.
	doc := `{
		"$schema": "http://json-schema.org/draft-07/schema#",
		"type": "object",
		"properties": {
			"path": {"type": "string", "description": "file to read"},
			"range": {"$ref": "#/definitions/range"}
		},
		"required": ["path"],
		"definitions": {
			"range": {"type": "object", "properties": {"from": {"type": "integer"}}}
		}
	}`
	s, err := schema.Compile([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	if !s.IsObject() {
		t.Error("IsObject() = false")
	}
	if diff := cmp.Diff(decode(t, []byte(doc)), decode(t, s.JSON())); diff != "" {
		t.Errorf("JSON() is not the document (-want +got):\n%s", diff)
	}
	if err := s.Validate([]byte(`{"path":"a.txt","range":{"from":3}}`)); err != nil {
		t.Errorf("Validate(valid) = %v", err)
	}
	err = s.Validate([]byte(`{"path":"a.txt","range":{"from":"3"}}`))
	if err == nil || err.Error() != "range.from: got string, want integer" {
		t.Errorf("Validate(invalid) = %v", err)
	}
}

func TestCompileErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, doc, want string
	}{
		{"not JSON", `{"type":`, "not JSON"},
		{"trailing data", `{"type":"object"} {}`, "not JSON"},
		{"not a schema", `{"type":"obj"}`, "not a valid, self-contained JSON Schema"},
		{"outside reference", `{"properties":{"a":{"$ref":"https://example.com/a.json"}}}`, "example.com/a.json"},
		{"file reference", `{"properties":{"a":{"$ref":"file:///etc/hostname"}}}`, "/etc/hostname"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s, err := schema.Compile([]byte(tt.doc))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Compile = %v, %v; want an error with %q", s, err, tt.want)
			}
		})
	}
}

// Each kind of problem a model meets most is worded plainly, the others in the validator's
// words; a field's problems come sorted by their message, and object keys that are not plain
// names are written in brackets.
func TestValidateWordsEachProblem(t *testing.T) {
	t.Parallel()
	s, err := schema.Compile([]byte(`{"type":"object","properties":{
		"plan":{"const":"pro"},
		"unit":{"enum":["kg"]},
		"never":false,
		"code":{"type":"string","minLength":3,"pattern":"^[a-z]+$"},
		"keys":{"type":"object","additionalProperties":{"type":"string"}}
	},"additionalProperties":false}`))
	if err != nil {
		t.Fatal(err)
	}
	keys := []string{"AZ_az-09", "0a", "9a", "a.b", "a@", "a[", "a`", "a{", "a/", "a:", "é"}
	var b strings.Builder
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "%q:1", k)
	}
	data := `{"plan":"free","unit":"lb","never":1,"code":"A1","x":1,"y":2,"keys":{` + b.String() + `}}`
	want := []schema.FieldError{
		{Field: "", Message: `properties "x", "y" are not allowed`},
		{Field: "code", Message: "'A1' does not match pattern '^[a-z]+$'"},
		{Field: "code", Message: "minLength: got 2, want 3"},
		{Field: "never", Message: "no value is allowed here"},
		{Field: "plan", Message: `value must be "pro"`},
		{Field: "unit", Message: `value must be "kg"`},
	}
	for _, k := range keys {
		field := "keys." + k
		if k != "AZ_az-09" {
			field = "keys[" + strconv.Quote(k) + "]"
		}
		want = append(want, schema.FieldError{Field: field, Message: "got number, want string"})
	}
	var ve *schema.ValidationError
	if err := s.Validate([]byte(data)); !errors.As(err, &ve) {
		t.Fatalf("Validate = %v, want a *ValidationError", err)
	}
	if diff := cmp.Diff(want, ve.Errors, cmpopts.SortSlices(func(a, b schema.FieldError) bool { return a.Field < b.Field })); diff != "" {
		t.Errorf("Errors mismatch (-want +got):\n%s", diff)
	}
}

// The properties that are not allowed are named in order, whatever the order of the data's
// keys: the same data always gets the same words.
func TestValidateNamesPropertiesNotAllowedInOrder(t *testing.T) {
	t.Parallel()
	s := mustFor[struct{}](t)
	var names, data []string
	for c := 'a'; c <= 't'; c++ {
		names = append(names, strconv.Quote(string(c)))
		data = append(data, strconv.Quote(string(c))+":1")
	}
	want := "(root): properties " + strings.Join(names, ", ") + " are not allowed"
	for range 5 {
		if err := s.Validate([]byte("{" + strings.Join(data, ",") + "}")); err == nil || err.Error() != want {
			t.Fatalf("Validate = %v, want %s", err, want)
		}
	}
}
