package assistant_test

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/cadrehq/cadre/pkg/assistant"
	"github.com/cadrehq/cadre/pkg/llmtest"
	"github.com/cadrehq/cadre/pkg/schema"
)

// census is the output type of the output fuzz target: a struct whose schema has what a
// model gets wrong — a required string that must not be empty, a bounded integer, an optional
// pointer, a bounded list, an enum.
type census struct {
	Name       string   `json:"name" jsonschema:"minLength=1"`
	Population int      `json:"population" jsonschema:"minimum=0"`
	Country    *string  `json:"country,omitempty"`
	Tags       []string `json:"tags,omitempty" jsonschema:"maxItems=3"`
	Kind       string   `json:"kind,omitempty" jsonschema:"enum=city,enum=town"`
}

// outputAnswers are answers as models write them: the seeds of FuzzOutput, each used as the
// first and as the second answer.
var outputAnswers = []string{
	`{"name":"Oslo","population":709000}`,
	"\n  {\"name\":\"Oslo\",\"population\":709000,\"country\":\"Norway\",\"tags\":[\"capital\"],\"kind\":\"city\"}\n",
	"```json\n{\"name\":\"Oslo\",\"population\":709000}\n```",
	"Here it is:\n```\n{\"name\":\"Bergen\",\"population\":291000,\"kind\":\"town\"}\n```\nAnything else?",
	`Oslo is the largest city [1]. {"name":"Oslo","population":709000}`,
	`Using {city} as the key: {"name":"Oslo","population":709000}`,
	`{"answer":{"name":"Oslo","population":709000}}`,
	`[{"name":"Oslo","population":-1},{"name":"Oslo","population":1}]`,
	`{"name":"","population":1}`,
	`{"name":"Oslo","population":1.5}`,
	`{"name":"Oslo","population":1e400}`,
	`{"name":"Oslo","population":99999999999999999999}`,
	`{"name":"Oslo","population":5,"population":-5}`,
	`{"name":"Oslo","population":5,"Population":-5}`,
	`{"name":"Oslo","population":5,"tags":["a","b","c","d"]}`,
	`{"name":"Oslo","population":5,"kind":"village"}`,
	`{"name":"Oslo","population":5,"country":null}`,
	`{"name":"\ud800","population":5}`,
	"{\"name\":\"\xff\",\"population\":5}",
	"```json\n{\"name\":\"Oslo\",\n```",
	"Oslo, I think. {not JSON at all",
	"",
	`null`,
	`[[[[{"name":"Oslo","population":0}`,
}

// FuzzOutput feeds model text to an assistant answering a census, first answer and second
// (the one the correction asks for). The run ends with an Output that is valid for census's
// schema and that one of the answers holds as a JSON value (Result.Text, which decodes to the
// Output), or with an *assistant.OutputError after both answers; it never panics.
func FuzzOutput(f *testing.F) {
	for i, a := range outputAnswers {
		f.Add(a, outputAnswers[(i+1)%len(outputAnswers)])
	}
	s, err := schema.For[census]()
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, first, second string) {
		m := llmtest.NewScripted(llmtest.Text(first), llmtest.Text(second)).WithoutTools().NoRecord()
		a := assistant.New[census]("census", assistant.WithModel(m))
		res, err := a.Run(testContext(t), assistant.Input{Prompt: "Which city?"})
		if err != nil {
			var oerr *assistant.OutputError
			if !errors.As(err, &oerr) {
				t.Fatalf("Run: %v; want an *assistant.OutputError", err)
			}
			if len(oerr.Attempts) != 2 || oerr.Raw != second {
				t.Errorf("OutputError: %d attempts, Raw %q; want 2 attempts, the second answer as Raw", len(oerr.Attempts), abbrev(oerr.Raw))
			}
			return
		}
		if !strings.Contains(first, res.Text) && !strings.Contains(second, res.Text) {
			t.Errorf("Text %q is in neither answer", abbrev(res.Text))
		}
		if err := s.Validate([]byte(res.Text)); err != nil {
			t.Errorf("Text %q is not valid for the schema: %v", abbrev(res.Text), err)
		}
		var want census
		if err := json.Unmarshal([]byte(res.Text), &want); err != nil || !reflect.DeepEqual(res.Output, want) {
			t.Errorf("Output %+v; Text %q decodes to %+v (%v)", res.Output, abbrev(res.Text), want, err)
		}
		out, err := json.Marshal(res.Output)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Validate(out); err != nil {
			t.Errorf("Output %s (from %q) is not valid for the schema: %v", out, abbrev(res.Text), err)
		}
	})
}
