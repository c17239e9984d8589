package eval_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cadrehq/cadre/pkg/assistant"
	"github.com/cadrehq/cadre/pkg/eval"
	"github.com/cadrehq/cadre/pkg/llmtest"
	"github.com/cadrehq/cadre/pkg/model"
	"github.com/cadrehq/cadre/pkg/schema"
	"github.com/cadrehq/cadre/pkg/usage"
	"github.com/google/go-cmp/cmp"
	"github.com/tmc/langchaingo/llms"
	"gopkg.in/yaml.v3"
)

// citiesFile is a dataset with every kind of evaluator, dataset-level and case-level.
const citiesFile = `# yaml-language-server: $schema=dataset.schema.json
name: cities
x-oslo: &oslo {name: Oslo, population: 709000}
evaluators:
  - equals: {tolerance: {population: 1000}, any_order: [tags]}
  - max_duration: 1m
  - max_tokens: 5000
  - max_cost: 0.01
cases:
  - name: oslo
    input: Oslo
    expected: *oslo
    metadata: {region: europe, size: 3}
    evaluators:
      - contains: Oslo
      - matches: '"population":\d+'
      - trajectory:
          order: in_order
          calls: [{tool: lookup, arguments: {city: Oslo}}]
      - trajectory: {order: unordered, calls: [{tool: lookup}]}
      - judge: {rubric: Names the city., threshold: 0.7, expected: true, name: tone}
      - func: has-name
  - name: lima
    input: Lima
    expected:
      name: Lima
      population: 10000000
      tags: [coast, capital]
    evaluators:
      - trajectory: {calls: [{tool: lookup, assistant: geo}]}
      - judge:
          rubric: |
            Is polite.
`

// judgeOf is an assistant that judges every output score.
func judgeOf(score string) *assistant.Assistant[eval.Verdict] {
	m := llmtest.NewFunc(func(context.Context, llmtest.Request) llmtest.Reply {
		return llmtest.Reply{ToolCalls: []llms.ToolCall{llmtest.Call("final_result", `{"score":`+score+`,"reason":"fine"}`)}}
	})
	return assistant.New[eval.Verdict]("judge", assistant.WithModel(m))
}

func hasName() eval.Evaluator[city] {
	return eval.Func("has name", func(_ context.Context, o *eval.Observation[city]) (eval.Grade, error) {
		if o.Output.Name == "" {
			return eval.Failed("no name"), nil
		}
		return eval.Passed("named"), nil
	})
}

// TestLoadAFileOfEveryEvaluator: a file read from disk gives the dataset it says, and each of
// its evaluators grades with the settings the file gives (a tolerance, an order, a threshold).
func TestLoadAFileOfEveryEvaluator(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "cities.yaml")
	if err := os.WriteFile(path, []byte(citiesFile), 0o600); err != nil {
		t.Fatal(err)
	}
	d, err := eval.Load[string, city](path, eval.WithJudge(judgeOf("0.8")), eval.WithFunc("has-name", hasName()))
	if err != nil {
		t.Fatal(err)
	}
	if d.Name != "cities" || len(d.Cases) != 2 || len(d.Evaluators) != 4 {
		t.Fatalf("dataset %q: %d cases, %d evaluators", d.Name, len(d.Cases), len(d.Evaluators))
	}
	oslo, lima := d.Cases[0], d.Cases[1]
	if oslo.Name != "oslo" || oslo.Input != "Oslo" || !cmp.Equal(oslo.Expected, &city{Name: "Oslo", Population: 709000}) {
		t.Errorf("oslo: %+v", oslo)
	}
	if diff := cmp.Diff(map[string]any{"region": "europe", "size": json.Number("3")}, oslo.Metadata); diff != "" {
		t.Errorf("oslo's metadata (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(&city{Name: "Lima", Population: 10_000_000, Tags: []string{"coast", "capital"}}, lima.Expected); diff != "" {
		t.Errorf("lima's expected (-want +got):\n%s", diff)
	}

	a := geo(func(p string) string {
		if p == "Oslo" {
			return `{"name":"Oslo","population":709900}` // within the tolerance
		}
		return `{"name":"Lima","population":10000000,"tags":["capital","coast"]}` // in another order
	}, usage.Usage{InputTokens: 10, OutputTokens: 2})
	rep, err := eval.Evaluate(testContext(t), d, a, eval.WithPrices(map[string]model.Price{"func": {Input: 1, Output: 2}}))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{
		"oslo": {"equals", "max duration", "max tokens", "max cost", `contains "Oslo"`, `matches "\"population\":\\d+"`,
			"trajectory in order", "trajectory in any order", "tone", "has name"},
		"lima": {"equals", "max duration", "max tokens", "max cost", "trajectory exactly", "judge"},
	}
	if rep.Cases[0].Name != "oslo" || rep.Cases[1].Name != "lima" || rep.Cases[0].Metadata["region"] != "europe" {
		t.Errorf("the report's cases %q and %q, oslo's metadata %v: want each case's name and metadata",
			rep.Cases[0].Name, rep.Cases[1].Name, rep.Cases[0].Metadata)
	}
	for _, c := range rep.Cases {
		var names []string
		for _, g := range c.Runs[0].Grades {
			names = append(names, g.Evaluator)
			if !g.Pass {
				t.Errorf("%s: %s failed: %s", c.Name, g.Evaluator, g.Reason)
			}
			if g.Evaluator == "tone" && g.Threshold != 0.7 {
				t.Errorf("tone's threshold %v, want the file's 0.7", g.Threshold)
			}
		}
		if diff := cmp.Diff(want[c.Name], names); diff != "" {
			t.Errorf("%s's evaluators (-want +got):\n%s", c.Name, diff)
		}
	}
}

// TestLoadStructInputAndStringOutput: an input decodes into a struct through its JSON (json
// tags apply), an expected output into a string; JSON is read as YAML.
func TestLoadStructInputAndStringOutput(t *testing.T) {
	t.Parallel()
	type trip struct {
		City string   `json:"city"`
		Days int      `json:"days,omitempty"`
		Legs []string `json:"legs,omitempty"`
	}
	d, err := eval.Parse[trip, string]([]byte(`{"cases": [
		{"name": "short", "input": {"city": "Oslo", "days": 2, "legs": ["a", "b"]}, "expected": "Go by train.",
		 "evaluators": [{"contains": "train"}]},
		{"name": "plain", "input": {"city": "Lima"}, "evaluators": [{"equals": {}}]}
	]}`), "trips.json")
	if err != nil {
		t.Fatal(err)
	}
	if d.Name != "trips" {
		t.Errorf("name %q, want the file's name without its extension", d.Name)
	}
	if diff := cmp.Diff(trip{City: "Oslo", Days: 2, Legs: []string{"a", "b"}}, d.Cases[0].Input); diff != "" {
		t.Errorf("input (-want +got):\n%s", diff)
	}
	if d.Cases[0].Expected == nil || *d.Cases[0].Expected != "Go by train." || d.Cases[1].Expected != nil {
		t.Errorf("expected %v, %v", d.Cases[0].Expected, d.Cases[1].Expected)
	}
	if len(d.Cases[0].Evaluators) != 1 || d.Cases[0].Evaluators[0].Name() != `contains "train"` ||
		len(d.Cases[1].Evaluators) != 1 || d.Cases[1].Evaluators[0].Name() != "equals" {
		t.Errorf("evaluators %v, %v", d.Cases[0].Evaluators, d.Cases[1].Evaluators)
	}
}

// TestLoadErrors: every mistake is reported with the file, its line and its key path.
func TestLoadErrors(t *testing.T) {
	t.Parallel()
	const head = "cases:\n  - name: oslo\n    input: Oslo\n" // lines 1-3
	tests := []struct {
		name, doc string
		opts      []eval.LoadOption
		want      string
	}{
		{"empty", "# nothing\n", nil,
			"cases.yaml: the file is empty: it needs a list of cases, e.g. cases: [{name: oslo, input: Oslo}]"},
		{"syntax", "cases: [\n", nil, ""},
		{"not a mapping", "- a\n", nil, "cases.yaml:1: expected a mapping (key: value lines), found a list"},
		{"unknown key", "nmae: x\n" + head, nil,
			"cases.yaml:1: nmae: unknown key (known: name, evaluators, cases; keys starting with x- are ignored)"},
		{"no cases", "name: x\n", nil, "cases.yaml:1: no cases: add a list of them, e.g. cases: [{name: oslo, input: Oslo}]"},
		{"empty cases", "cases: []\n", nil, "cases.yaml:1: cases: empty: add at least one case"},
		{"cases not a list", "cases: {a: 1}\n", nil, "cases.yaml:1: cases: expected a list (- item lines, or [a, b]), found a mapping"},
		{"unknown case key", head + "    expect: {}\n", nil,
			"cases.yaml:4: cases[0].expect: unknown key (known: name, input, expected, metadata, evaluators)"},
		{"missing name", head + "  - input: Lima\n", nil,
			"cases.yaml:4: cases[1]: missing name: every case needs one, unique in the dataset"},
		{"missing input", head + "  - name: lima\n", nil,
			"cases.yaml:4: cases[1]: missing input: the task of the case, e.g. input: Oslo"},
		{"duplicate name", head + "  - name: oslo\n    input: Lima\n", nil,
			`cases.yaml:4: cases[1].name: duplicate case name "oslo" (first at line 2)`},
		{"input of the wrong type", "cases:\n  - name: oslo\n    input: {city: Oslo}\n", nil,
			"cases.yaml:3: cases[0].input: got object, want string"},
		{"expected field of the wrong type", head + "    expected:\n      name: Oslo\n      population: many\n", nil,
			"cases.yaml:6: cases[0].expected.population: got string, want integer"},
		{"expected field unknown", head + "    expected: {name: Oslo, population: 1, country: NO}\n", nil,
			"cases.yaml:4: cases[0].expected.country: unknown field (not one of eval_test.city's)"},
		{"expected field missing", head + "    expected:\n      name: Oslo\n", nil,
			`cases.yaml:4: cases[0].expected: missing required property "population"`},
		{"expected list item", head + "    expected:\n      name: Oslo\n      population: 1\n      tags: [a, 2, {b: c}]\n", nil,
			"cases.yaml:7: cases[0].expected.tags[1]: got number, want string\n" +
				"cases.yaml:7: cases[0].expected.tags[2]: got object, want string"},
		{"expected infinite", head + "    expected: {name: Oslo, population: .inf}\n", nil,
			`cases.yaml:4: cases[0].expected.population: ".inf" is not a number JSON can hold: quote it for text`},
		{"metadata not a mapping", head + "    metadata: [a]\n", nil,
			"cases.yaml:4: cases[0].metadata: expected a mapping (key: value lines), found a list"},
		{"unknown evaluator", "evaluators:\n  - contain: x\n" + head, nil,
			"cases.yaml:2: evaluators[0].contain: unknown key (known: equals, contains, matches, max_duration, max_tokens, max_cost, trajectory, judge, func)"},
		{"two keys", "evaluators:\n  - {contains: x, matches: y}\n" + head, nil,
			"cases.yaml:2: evaluators[0]: an evaluator is a mapping of one key, its kind (one of: equals, contains, matches, max_duration, max_tokens, max_cost, trajectory, judge, func), found 2 keys"},
		{"bad regexp", head + "    evaluators:\n      - matches: 'a('\n", nil,
			"cases.yaml:5: cases[0].evaluators[0].matches: \"a(\" is not a regular expression: missing closing ): `a(`"},
		{"contains a list", head + "    evaluators:\n      - contains: [a]\n", nil,
			"cases.yaml:5: cases[0].evaluators[0].contains: expected a single value, found a list"},
		{"duration", "evaluators:\n  - max_duration: 60\n" + head, nil,
			`cases.yaml:2: evaluators[0].max_duration: "60" is not a duration (write e.g. 60s or 2m)`},
		{"tokens", "evaluators:\n  - max_tokens: 0\n" + head, nil,
			`cases.yaml:2: evaluators[0].max_tokens: "0": must be at least 1`},
		{"cost", "evaluators:\n  - max_cost: -1\n" + head, nil,
			`cases.yaml:2: evaluators[0].max_cost: "-1": must be 0 or more`},
		{"equals key", "evaluators:\n  - equals: {tolerence: {x: 1}}\n" + head, nil,
			"cases.yaml:2: evaluators[0].equals.tolerence: unknown key (known: tolerance, any_order)"},
		{"tolerance", "evaluators:\n  - equals:\n      tolerance: {population: lots}\n" + head, nil,
			`cases.yaml:3: evaluators[0].equals.tolerance.population: "lots" is not a number (write e.g. 0.01)`},
		{"order", "evaluators:\n  - trajectory: {order: sorted, calls: []}\n" + head, nil,
			`cases.yaml:2: evaluators[0].trajectory.order: unknown order "sorted" (known: exactly, in_order, unordered)`},
		{"no calls", "evaluators:\n  - trajectory: {order: exactly}\n" + head, nil,
			"cases.yaml:2: evaluators[0].trajectory: missing calls: the tool calls expected, e.g. calls: [{tool: search}] (calls: [] for none)"},
		{"call without tool", "evaluators:\n  - trajectory:\n      calls:\n        - {assistant: geo}\n" + head, nil,
			"cases.yaml:4: evaluators[0].trajectory.calls[0]: missing tool: the name of the tool expected, e.g. tool: search"},
		{"call key", "evaluators:\n  - trajectory:\n      calls:\n        - tool: lookup\n          args: {}\n" + head, nil,
			"cases.yaml:5: evaluators[0].trajectory.calls[0].args: unknown key (known: tool, assistant, arguments)"},
		{"call arguments", "evaluators:\n  - trajectory: {calls: [{tool: lookup, arguments: oslo}]}\n" + head, nil,
			"cases.yaml:2: evaluators[0].trajectory.calls[0].arguments: expected a mapping of the arguments' members, found a single value"},
		{"judge without a runner", head + "    evaluators:\n      - judge: {rubric: Polite.}\n", nil,
			"cases.yaml:5: cases[0].evaluators[0].judge: a judge needs an assistant to ask: load the file with eval.WithJudge"},
		{"judge without a rubric", "evaluators:\n  - judge: {name: tone}\n" + head, []eval.LoadOption{eval.WithJudge(judgeOf("1"))},
			"cases.yaml:2: evaluators[0].judge: missing rubric: what the judge scores the output against"},
		{"judge threshold", "evaluators:\n  - judge: {rubric: x, threshold: 2, expected: maybe}\n" + head, []eval.LoadOption{eval.WithJudge(judgeOf("1"))},
			`cases.yaml:2: evaluators[0].judge.threshold: "2" is out of range (0 to 1)` + "\n" +
				`cases.yaml:2: evaluators[0].judge.expected: "maybe" is not true or false`},
		{"unknown func", "evaluators:\n  - func: nope\n" + head, []eval.LoadOption{eval.WithFunc("has-name", hasName())},
			`cases.yaml:2: evaluators[0].func: unknown func "nope" (registered with eval.WithFunc: has-name)`},
		{"no func", "evaluators:\n  - func: nope\n" + head, nil,
			`cases.yaml:2: evaluators[0].func: unknown func "nope": none is registered (load the file with eval.WithFunc)`},
		{"func of another type", "evaluators:\n  - func: f\n" + head, []eval.LoadOption{eval.WithFunc("f", eval.Contains[string]("x"))},
			`cases.yaml:2: evaluators[0].func: func "f" is a eval.funcEvaluator[string], not an evaluator of this dataset's output, eval_test.city`},
		{"two evaluators of one name", "evaluators:\n  - contains: x\n" + head + "    evaluators:\n      - contains: x\n", nil,
			`cases.yaml:7: cases[0].evaluators[0].contains: a second evaluator named "contains \"x\"" (first at line 2): evaluators of a case need different names`},
		{"several at once", "cases:\n  - name: a\n    input: [x]\n  - name: a\n    inptu: y\n", nil,
			"cases.yaml:3: cases[0].input: got array, want string\n" +
				"cases.yaml:4: cases[1]: missing input: the task of the case, e.g. input: Oslo\n" +
				`cases.yaml:4: cases[1].name: duplicate case name "a" (first at line 2)` + "\n" +
				"cases.yaml:5: cases[1].inptu: unknown key (known: name, input, expected, metadata, evaluators)"},
	}
	for _, tc := range tests {
		_, err := eval.Parse[string, city]([]byte(tc.doc), "cases.yaml", tc.opts...)
		if err == nil {
			t.Errorf("%s: no error", tc.name)
			continue
		}
		if tc.want == "" { // only its place
			if !strings.HasPrefix(err.Error(), "cases.yaml:") {
				t.Errorf("%s: %v", tc.name, err)
			}
			continue
		}
		if err.Error() != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.name, err, tc.want)
		}
	}
}

func TestLoadAMissingFile(t *testing.T) {
	t.Parallel()
	_, err := eval.Load[string, city](filepath.Join(t.TempDir(), "none.yaml"))
	if !errors.Is(err, os.ErrNotExist) || !strings.HasPrefix(err.Error(), "eval: ") {
		t.Errorf("error %v, want one that wraps os.ErrNotExist", err)
	}
}

// TestDatasetSchema: the good files validate against the file's JSON Schema, and a file with
// a key Load rejects does not.
func TestDatasetSchema(t *testing.T) {
	t.Parallel()
	s, err := schema.Compile(eval.DatasetSchema())
	if err != nil {
		t.Fatal(err)
	}
	asJSON := func(doc string) []byte {
		t.Helper()
		var v any
		if err := yaml.Unmarshal([]byte(doc), &v); err != nil {
			t.Fatal(err)
		}
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	good := []string{citiesFile, "cases: [{name: a, input: {city: Oslo}, metadata: ~, evaluators: [{equals: ~}, {func: f}]}]\n"}
	for _, doc := range good {
		if err := s.Validate(asJSON(doc)); err != nil {
			t.Errorf("a good file does not validate: %v\n%s", err, doc)
		}
	}
	bad := map[string]string{
		"cases: [{name: a, input: x, expect: y}]\n":                        `cases[0]: property "expect" is not allowed`,
		"nmae: x\ncases: [{name: a, input: x}]\n":                          `(root): property "nmae" is not allowed`,
		"cases: [{name: a, input: x, evaluators: [{contain: x}]}]\n":       `cases[0].evaluators[0]: property "contain" is not allowed`,
		"cases: [{name: a, input: x, evaluators: [{max_tokens: lots}]}]\n": "cases[0].evaluators[0].max_tokens: got string, want integer",
		"cases: [{input: x}]\n":                                            `cases[0]: missing required property "name"`,
	}
	for doc, want := range bad {
		err := s.Validate(asJSON(doc))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want %q", doc, err, want)
		}
	}
}
