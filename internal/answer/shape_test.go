package answer_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/cadrehq/cadre/internal/answer"
	"github.com/cadrehq/cadre/pkg/model"
	"github.com/tmc/langchaingo/llms"
)

type city struct {
	Name string `json:"name"`
}

type counts map[string]int // an object whose additionalProperties is open: no strict form

func mustShape[O any](t *testing.T) *answer.Shape {
	t.Helper()
	s, err := answer.For[O]()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestFor: a string output is text; an object is final_result's arguments as it is; anything
// else is wrapped as {"output": O}; a type without a JSON Schema is refused, naming it.
func TestFor(t *testing.T) {
	t.Parallel()
	if s := mustShape[string](t); !s.Text || s.Prompt != "" || s.Schema != nil {
		t.Errorf("For[string] = %+v; want a text shape without a prompt or schema", s)
	}
	obj := mustShape[city](t)
	if obj.Text || obj.Wrapped || obj.Final != obj.Schema {
		t.Errorf("For[city]: Text %t, Wrapped %t, Final is Schema %t; want an object's arguments as they are", obj.Text, obj.Wrapped, obj.Final == obj.Schema)
	}
	if want := string(obj.Schema.JSON()); !strings.HasSuffix(obj.Prompt, ":\n"+want) || !strings.HasPrefix(obj.Prompt, "Answer with only a JSON value") {
		t.Errorf("For[city].Prompt = %q; want the instructions ending in the schema %s", obj.Prompt, want)
	}
	list := mustShape[[]city](t)
	if !list.Wrapped || list.Final.Validate([]byte(`{"output":[{"name":"Oslo"}]}`)) != nil || list.Final.Validate([]byte(`[{"name":"Oslo"}]`)) == nil {
		t.Errorf("For[[]city]: Wrapped %t, Final %s; want final_result's arguments to be {\"output\": O}", list.Wrapped, list.Final.JSON())
	}
	if _, err := answer.For[chan int](); err == nil || !strings.Contains(err.Error(), "chan int") {
		t.Errorf("For[chan int] = %v; want an error naming the type", err)
	}
}

// TestDefinition: final_result goes in its strict form only to a model that takes strict
// tools, and only when the form is one such a provider takes (every object closed).
func TestDefinition(t *testing.T) {
	t.Parallel()
	strict, plain := model.Model{Name: "s", StrictTools: true}, model.Model{Name: "p"}
	for _, tt := range []struct {
		name  string
		s     *answer.Shape
		m     model.Model
		want  bool
		check string // a valid answer under the definition sent
	}{
		{"object, strict model", mustShape[city](t), strict, true, `{"name":"Oslo"}`},
		{"object, other model", mustShape[city](t), plain, false, `{"name":"Oslo"}`},
		{"open map, strict model", mustShape[counts](t), strict, false, `{"a":1}`},
		{"wrapped, strict model", mustShape[int](t), strict, true, `{"output":3}`},
	} {
		def, err := tt.s.Definition(tt.m)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		f := def.Function
		if def.Type != "function" || f.Name != answer.Tool || f.Strict != tt.want || tt.s.SendsStrict(tt.m) != tt.want {
			t.Errorf("%s: definition %+v, SendsStrict %t; want final_result, strict %t", tt.name, f, tt.s.SendsStrict(tt.m), tt.want)
		}
		want := tt.s.Final.JSON()
		if tt.want {
			want = tt.s.Final.Strict()
		}
		if got, _ := f.Parameters.(json.RawMessage); string(got) != string(want) {
			t.Errorf("%s: parameters %s; want %s", tt.name, got, want)
		}
	}
}

// TestUnwrap: the answer inside final_result's arguments, for what a run takes and what a
// history of text keeps.
func TestUnwrap(t *testing.T) {
	t.Parallel()
	obj, wrapped := mustShape[city](t), mustShape[[]int](t)
	if got, err := obj.Unwrap([]byte(`{"name":"Oslo"}`)); err != nil || string(got) != `{"name":"Oslo"}` {
		t.Errorf("object Unwrap = %s, %v; want the arguments themselves", got, err)
	}
	if got, err := wrapped.Unwrap([]byte(`{"output":[1,2]}`)); err != nil || string(got) != `[1,2]` {
		t.Errorf("wrapped Unwrap = %s, %v; want what the arguments wrap", got, err)
	}
	if _, err := wrapped.Unwrap([]byte(`{"output":`)); err == nil || !strings.Contains(err.Error(), "do not decode") {
		t.Errorf("wrapped Unwrap of a cut document = %v; want an error saying it does not decode", err)
	}
	for _, tt := range []struct {
		s          *answer.Shape
		call       llms.FunctionCall
		want       string
		wantAnswer bool
	}{
		{wrapped, llms.FunctionCall{Name: answer.Tool, Arguments: `{"output":[1]}`}, `[1]`, true},
		{wrapped, llms.FunctionCall{Name: answer.Tool, Arguments: `{"other":1}`}, `{"other":1}`, true}, // wraps nothing: as it is
		{wrapped, llms.FunctionCall{Name: answer.Tool, Arguments: `not json`}, `not json`, true},
		{obj, llms.FunctionCall{Name: answer.Tool, Arguments: `{"name":"Oslo"}`}, `{"name":"Oslo"}`, true},
		{obj, llms.FunctionCall{Name: "weather", Arguments: `{}`}, "", false},
	} {
		if got, ok := tt.s.InCall(tt.call); got != tt.want || ok != tt.wantAnswer {
			t.Errorf("InCall(%+v) = %q, %t; want %q, %t", tt.call, got, ok, tt.want, tt.wantAnswer)
		}
	}
}

// TestTexts: what the model is told about answers says why the last one failed and how to
// answer in the way it is asked: prose, a final_result call, or JSON quoting the schema.
func TestTexts(t *testing.T) {
	t.Parallel()
	text, obj := mustShape[string](t), mustShape[city](t)
	why := errors.New("missing name")
	schemaDoc := string(obj.Schema.JSON())
	for _, tt := range []struct {
		name, got string
		want      []string
		not       []string
	}{
		{"text correction", text.Correction(why, false), []string{"could not be used: missing name", "Answer again"}, []string{"JSON"}},
		{"call correction", obj.Correction(why, true), []string{"missing name", "calling the final_result tool"}, []string{schemaDoc}},
		{"prompted correction", obj.Correction(why, false), []string{"missing name", schemaDoc}, []string{"final_result"}},
		{"call's result", obj.CallCorrection(why), []string{"error: your final_result arguments could not be used: missing name", `{"type":"object"`}, []string{"\n  "}},
		{"last request, calls", obj.LastRequest(true), []string{"budget for this task is spent", "calling final_result."}, []string{schemaDoc}},
		{"last request, prompted", obj.LastRequest(false), []string{"no tool will run any more", schemaDoc}, []string{"final_result"}},
		{"last request, text", text.LastRequest(false), []string{"Give your best final answer now"}, []string{"JSON", "final_result"}},
	} {
		for _, w := range tt.want {
			if !strings.Contains(tt.got, w) {
				t.Errorf("%s: %q does not say %q", tt.name, tt.got, w)
			}
		}
		for _, n := range tt.not {
			if strings.Contains(tt.got, n) {
				t.Errorf("%s: %q says %q", tt.name, tt.got, n)
			}
		}
	}
}

type named struct {
	Name string `json:"name" jsonschema:"minLength=2"`
}

// TestStrictOnlyInTheSubset: the strict form goes (as a tool, and in the native schema) only
// when strict mode takes every keyword of the type: minLength it refuses, a map too.
func TestStrictOnlyInTheSubset(t *testing.T) {
	strictModel := model.Model{Name: "m", StrictTools: true}
	for _, tc := range []struct {
		shape  *answer.Shape
		strict bool
	}{
		{mustShape[city](t), true},
		{mustShape[named](t), false},
		{mustShape[counts](t), false},
	} {
		if got := tc.shape.SendsStrict(strictModel); got != tc.strict {
			t.Errorf("%s: SendsStrict = %v", tc.shape.Final.JSON(), got)
		}
		if got := tc.shape.Native.Strict != nil; got != tc.strict {
			t.Errorf("%s: native strict form %v", tc.shape.Final.JSON(), got)
		}
		if tc.shape.Native.Schema == nil || tc.shape.Native.Name == "" {
			t.Errorf("%s: native schema %+v", tc.shape.Final.JSON(), tc.shape.Native)
		}
	}
	if got := mustShape[city](t).Native.Name; got != "city" {
		t.Errorf("the schema of city is named %q", got)
	}
	if got := mustShape[[]string](t).Native.Name; got != "output" {
		t.Errorf("the schema of []string is named %q", got)
	}
}

// TestPartialTakesWhatMayGrowIntoAnAnswer: a document missing required members may still
// become an answer; one with a member of the wrong type may not.
func TestPartialTakesWhatMayGrowIntoAnAnswer(t *testing.T) {
	s := mustShape[named](t)
	for doc, want := range map[string]bool{`{}`: true, `{"name":"a"}`: false, `{"name":"ab"}`: true, `{"name":3}`: false} {
		if got := s.Partial([]byte(doc)); got != want {
			t.Errorf("Partial(%s) = %v; want %v", doc, got, want)
		}
	}
}
