package yamlconf_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/cadrehq/cadre/internal/yamlconf"
	"github.com/google/go-cmp/cmp"
	"gopkg.in/yaml.v3"
)

// envOf looks variables up in m.
func envOf(m map[string]string) func(string) (string, bool) {
	return func(name string) (string, bool) {
		v, ok := m[name]
		return v, ok
	}
}

// doc joins lines into a document: line i+1 of the file is lines[i].
func doc(lines ...string) string { return strings.Join(lines, "\n") + "\n" }

// read parses data as conf.yaml with env and returns its root and its Reader.
func read(t *testing.T, data string, env map[string]string) (*yaml.Node, *yamlconf.Reader) {
	t.Helper()
	r := yamlconf.NewReader("conf.yaml", envOf(env))
	root, err := r.Document([]byte(data))
	if err != nil {
		t.Fatalf("Document:\n%s\nerror: %v", data, err)
	}
	return root, r
}

// errLines returns Err's errors, one a line; nil for none.
func errLines(r *yamlconf.Reader) []string {
	if err := r.Err(); err != nil {
		return strings.Split(err.Error(), "\n")
	}
	return nil
}

func TestErrorText(t *testing.T) {
	t.Parallel()
	tests := []struct {
		err  yamlconf.Error
		want string
	}{
		{yamlconf.Error{File: "a.yaml", Line: 3, Path: "x.y", Msg: "bad"}, "a.yaml:3: x.y: bad"},
		{yamlconf.Error{File: "a.yaml", Line: 3, Msg: "bad"}, "a.yaml:3: bad"},
		{yamlconf.Error{File: "a.yaml", Path: "x", Msg: "bad"}, "a.yaml: x: bad"},
		{yamlconf.Error{File: "a.yaml", Msg: "bad"}, "a.yaml: bad"},
	}
	for _, tc := range tests {
		if got := tc.err.Error(); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.err, got, tc.want)
		}
	}
}

func TestDocument(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, data string
		want       string // the error; "" for none
		empty      bool   // no root
	}{
		{name: "empty", data: "", empty: true},
		{name: "comments", data: "# nothing\n", empty: true},
		{name: "a marker", data: "---\n", empty: true}, // a null node
		{name: "a mapping", data: "a: 1\n"},
		{name: "syntax with a line", data: "a:\n  b: {}\n\tc: x\n", want: "conf.yaml:3: found character that cannot start any token (YAML syntax)"},
		{name: "syntax without a line", data: "a: *nope\n", want: "conf.yaml: unknown anchor 'nope' referenced (YAML syntax)"},
		{name: "a second document", data: "a: 1\n---\nb: 2\n", want: "conf.yaml:2: a second YAML document (after ---): put everything in one document"},
		{name: "syntax in the second document", data: "a: 1\n---\nb: [\n", want: "(YAML syntax)"},
	}
	for _, tc := range tests {
		root, err := yamlconf.NewReader("conf.yaml", nil).Document([]byte(tc.data))
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.want)
		case tc.want == "" && (root == nil || yamlconf.IsNull(root)) != tc.empty:
			t.Errorf("%s: root %v, want empty %v", tc.name, root, tc.empty)
		}
		var e *yamlconf.Error
		if err != nil && !errors.As(err, &e) {
			t.Errorf("%s: error %T, want a *yamlconf.Error", tc.name, err)
		}
	}
}

func TestEntriesKeepFileOrderAndApplyMerges(t *testing.T) {
	t.Parallel()
	root, r := read(t, doc(
		"x-base: &base {a: 1, b: 2, c: 3}",
		"x-more: &more {c: 30, d: 40}",
		"m:",
		"  z: 0",
		"  <<: [*base, *more]",
		"  b: 20",
	), nil)
	top, ok := r.Entries(root, "")
	if !ok || len(top) != 3 || top[2].Key != "m" {
		t.Fatalf("top entries %v, ok %v", top, ok)
	}
	es, ok := r.Entries(top[2].Val, "m")
	if !ok {
		t.Fatal("m is not read as a mapping")
	}
	var got []string
	for _, e := range es {
		v, _ := r.Text(e.Val, yamlconf.Join("m", e.Key), nil)
		got = append(got, fmt.Sprintf("%s=%s@%d", e.Key, v.Text, e.KeyNode.Line))
	}
	// Written keys first, in file order, then merged ones: the written b wins, and the earlier
	// mapping's c wins over the later one's.
	want := []string{"z=0@4", "b=20@6", "a=1@1", "c=3@1", "d=40@2"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("entries (-want +got):\n%s", diff)
	}
	if lines := errLines(r); lines != nil {
		t.Errorf("errors: %v", lines)
	}
}

func TestEntriesErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, data string
		want       []string
		notMapping bool
	}{
		{name: "a list", data: "- a\n", want: []string{"conf.yaml:1: top: expected a mapping (key: value lines), found a list"}, notMapping: true},
		{name: "a scalar", data: "a\n", want: []string{"conf.yaml:1: top: expected a mapping (key: value lines), found a single value"}, notMapping: true},
		{name: "a duplicate", data: doc("a: 1", "b: 2", "a: 3"), want: []string{"conf.yaml:3: top.a: duplicate key (first at line 1)"}},
		{name: "a list as a key", data: "? [a]\n: 1\n", want: []string{"conf.yaml:1: top: expected a name as a key, found a list"}},
		{name: "a merge of a scalar", data: "<<: 3\n", want: []string{"conf.yaml:1: top.<<: merges a mapping or a list of mappings, not a single value"}},
		{name: "a merge cycle", data: "&m {<<: [*m], a: 1}\n", want: []string{"conf.yaml:1: top.<<: merges a mapping that holds this merge: a cycle"}},
		{name: "null", data: "~\n"},
	}
	for _, tc := range tests {
		root, r := read(t, tc.data, nil)
		_, ok := r.Entries(root, "top")
		if ok == tc.notMapping {
			t.Errorf("%s: ok %v", tc.name, ok)
		}
		if diff := cmp.Diff(tc.want, errLines(r)); diff != "" {
			t.Errorf("%s: errors (-want +got):\n%s", tc.name, diff)
		}
	}
}

func TestNullKeyIsEmpty(t *testing.T) {
	t.Parallel()
	root, r := read(t, "~: 1\n'': 2\n", nil)
	r.Entries(root, "")
	if diff := cmp.Diff([]string{"conf.yaml:2: duplicate key (first at line 1)"}, errLines(r)); diff != "" {
		t.Errorf("a null key and an empty one are the same key (-want +got):\n%s", diff)
	}
}

func TestResolveBoundsAliasExpansion(t *testing.T) {
	t.Parallel()
	// Each list holds the one before ten times: 10^6 nodes to read from six lines.
	lines := []string{"l0: &l0 [x, x, x, x, x, x, x, x, x, x]"}
	for i := 1; i <= 5; i++ {
		lines = append(lines, fmt.Sprintf("l%d: &l%d [%s]", i, i, strings.TrimSuffix(strings.Repeat(fmt.Sprintf("*l%d, ", i-1), 10), ", ")))
	}
	root, r := read(t, doc(lines...), nil)
	var walk func(n *yaml.Node, path string)
	walk = func(n *yaml.Node, path string) { // as a reader of every value would
		switch m := r.Resolve(n); {
		case m == nil:
		case m.Kind == yaml.SequenceNode:
			for _, item := range m.Content {
				walk(item, path)
			}
		default:
			r.Text(n, path, nil)
			r.Errorf(n, path, "an error the bound hides")
		}
	}
	es, _ := r.Entries(root, "")
	for _, e := range es {
		walk(e.Val, e.Key)
	}
	want := "conf.yaml: too many nodes to read with aliases expanded (over 262144): the file repeats itself too much"
	if err := r.Err(); err == nil || err.Error() != want {
		t.Errorf("error %v, want %q alone", err, want)
	}
}

func TestText(t *testing.T) {
	t.Parallel()
	env := map[string]string{"KEY": "sk-1", "EMPTY": ""}
	root, r := read(t, doc(
		"plain: hello",
		"var: 'Bearer ${KEY}'",
		"default: ${UNSET:-30s}",
		"empty: ${EMPTY}",
		"nothing: ~",
		"quoted-null: '~'",
		"deferred: ${UNSET}/${OTHER}",
		"now: ${UNSET}",
		"list: [a]",
		"bad: ${BAD NAME}",
	), env)
	es, _ := r.Entries(root, "")
	type result struct {
		Text  string
		State yamlconf.State
	}
	var missing []string
	got := map[string]result{}
	for _, e := range es {
		var m *[]string
		if e.Key == "deferred" {
			m = &missing
		}
		v, st := r.Text(e.Val, e.Key, m)
		got[e.Key] = result{v.Text, st}
	}
	want := map[string]result{
		"plain":       {"hello", yamlconf.Present},
		"var":         {"Bearer sk-1", yamlconf.Present},
		"default":     {"30s", yamlconf.Present},
		"empty":       {"", yamlconf.Absent},
		"nothing":     {"", yamlconf.Absent},
		"quoted-null": {"~", yamlconf.Present},
		"deferred":    {"", yamlconf.Skipped},
		"now":         {"", yamlconf.Skipped},
		"list":        {"", yamlconf.Skipped},
		"bad":         {"", yamlconf.Skipped},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("values (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"UNSET", "OTHER"}, missing); diff != "" {
		t.Errorf("missing (-want +got):\n%s", diff)
	}
	wantErrs := []string{
		"conf.yaml:8: now: environment variable UNSET is not set: set it, or give a default as in ${UNSET:-...}",
		"conf.yaml:9: list: expected a single value, found a list",
		"conf.yaml:10: bad: ${BAD NAME}: BAD NAME is not a variable name (letters, digits and _, not starting with a digit); write ${NAME} or ${NAME:-default}",
	}
	if diff := cmp.Diff(wantErrs, errLines(r)); diff != "" {
		t.Errorf("errors (-want +got):\n%s", diff)
	}
}

func TestTexts(t *testing.T) {
	t.Parallel()
	root, r := read(t, doc(
		"one: a",
		"list: [a, ~, '', b]",
		"x: &l [c]",
		"alias: *l",
	), nil)
	es, _ := r.Entries(root, "")
	got := map[string][]string{}
	for _, e := range es {
		got[e.Key] = r.Texts(e.Val, e.Key, nil)
	}
	want := map[string][]string{"one": {"a"}, "list": {"a", "b"}, "x": {"c"}, "alias": {"c"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("texts (-want +got):\n%s", diff)
	}
}

// value reads the document "k: <text>" and returns k's value.
func value(t *testing.T, text string, env map[string]string) (yamlconf.Value, *yamlconf.Reader) {
	t.Helper()
	root, r := read(t, "k: "+text+"\n", env)
	es, _ := r.Entries(root, "")
	v, st := r.Text(es[0].Val, "k", nil)
	if st != yamlconf.Present {
		t.Fatalf("k: %s is %v", text, st)
	}
	return v, r
}

func TestTypedValues(t *testing.T) {
	t.Parallel()
	tests := []struct {
		text string
		read func(*yamlconf.Reader, yamlconf.Value) any
		want any
		err  string // "" for none
	}{
		{"90s", duration, 90 * time.Second, ""},
		{"60", duration, time.Duration(0), `conf.yaml:1: k: "60" is not a duration (write e.g. 60s or 2m)`},
		{"-1s", duration, time.Duration(0), `conf.yaml:1: k: "-1s": must be more than 0`},
		{"61m", duration, time.Duration(0), `conf.yaml:1: k: "61m" is out of range (more than 0, at most 1h0m0s)`},
		{"0.5", number, 0.5, ""},
		{"warm", number, (*float64)(nil), `conf.yaml:1: k: "warm" is not a number (write e.g. 1)`},
		{"3", number, (*float64)(nil), `conf.yaml:1: k: "3" is out of range (0 to 2)`},
		{".nan", number, (*float64)(nil), `conf.yaml:1: k: ".nan" is not a number (write e.g. 1)`},
		{"1e999", number, (*float64)(nil), `conf.yaml:1: k: "1e999" is out of range (0 to 2)`},
		{"7", integer, 7, ""},
		{"0", integer, (*int)(nil), `conf.yaml:1: k: "0" is out of range (1 to 100)`},
		{"101", integer, (*int)(nil), `conf.yaml:1: k: "101" is out of range (1 to 100)`},
		{"4.5", integer, (*int)(nil), `conf.yaml:1: k: "4.5" is not a whole number (write e.g. 42)`},
		{"99999999999999999999", integer, (*int)(nil), `conf.yaml:1: k: "99999999999999999999" is out of range`},
		{"TRUE", boolean, true, ""},
		{"False", boolean, false, ""},
		{"yes", boolean, false, `conf.yaml:1: k: "yes" is not true or false`},
		{"https://h/v1", isURL, true, ""},
		{"localhost:8000/v1", isURL, false, `conf.yaml:1: k: "localhost:8000/v1" is not an absolute http(s) URL (write e.g. http://localhost:8000/v1)`},
		{"ftp://h/v1", isURL, false, `conf.yaml:1: k: "ftp://h/v1" is not an absolute http(s) URL (write e.g. http://localhost:8000/v1)`},
	}
	for _, tc := range tests {
		v, r := value(t, tc.text, nil)
		got := tc.read(r, v)
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%s: value (-want +got):\n%s", tc.text, diff)
		}
		var wantErrs []string
		if tc.err != "" {
			wantErrs = []string{tc.err}
		}
		if diff := cmp.Diff(wantErrs, errLines(r)); diff != "" {
			t.Errorf("%s: errors (-want +got):\n%s", tc.text, diff)
		}
	}
}

func duration(r *yamlconf.Reader, v yamlconf.Value) any { return r.Duration(v, time.Hour) }
func boolean(r *yamlconf.Reader, v yamlconf.Value) any  { return r.Bool(v) }
func isURL(r *yamlconf.Reader, v yamlconf.Value) any    { return r.URL(v) }

func number(r *yamlconf.Reader, v yamlconf.Value) any {
	if f := r.Number(v, 0, 2); f != nil {
		return *f
	}
	return (*float64)(nil)
}

func integer(r *yamlconf.Reader, v yamlconf.Value) any {
	if i := r.Integer(v, 1, 100, "42"); i != nil {
		return *i
	}
	return (*int)(nil)
}

func TestErrorsQuoteTheFileNotTheEnvironment(t *testing.T) {
	t.Parallel()
	const secret = "SECRET-VALUE-42"
	v, r := value(t, "'${T}'", map[string]string{"T": secret})
	r.Duration(v, time.Hour)
	if got, want := v.Quoted(), `the value of "${T}"`; got != want {
		t.Errorf("Quoted() = %q, want %q", got, want)
	}
	if err := r.Err(); err == nil || strings.Contains(err.Error(), secret) {
		t.Errorf("error %v: want one that does not show the variable's value", err)
	}
	if got := (yamlconf.Value{Text: "10s (the default)"}).Quoted(); got != "10s (the default)" {
		t.Errorf("a default's Quoted() = %q, want it as it is", got)
	}
}

func TestErrSortsDropsRepeatsAndCaps(t *testing.T) {
	t.Parallel()
	r := yamlconf.NewReader("conf.yaml", nil)
	at := func(line int) *yaml.Node { return &yaml.Node{Line: line} }
	r.Errorf(at(3), "c", "third")
	r.Errorf(nil, "", "the whole file")
	r.Errorf(at(1), "a", "first")
	r.Errorf(at(3), "c", "third")
	want := []string{"conf.yaml: the whole file", "conf.yaml:1: a: first", "conf.yaml:3: c: third"}
	if diff := cmp.Diff(want, errLines(r)); diff != "" {
		t.Errorf("errors (-want +got):\n%s", diff)
	}

	r = yamlconf.NewReader("conf.yaml", nil)
	for i := range 13 {
		r.Errorf(at(i+1), "k", "bad")
	}
	got := errLines(r)
	if len(got) != 11 || got[9] != "conf.yaml:10: k: bad" || got[10] != "conf.yaml: and 3 more errors" {
		t.Errorf("13 errors gave %q; want ten and a count of the rest", got)
	}

	r = yamlconf.NewReader("conf.yaml", nil)
	r.Errorf(at(2), "k", "alone")
	var e *yamlconf.Error
	if err := r.Err(); !errors.As(err, &e) || e.Line != 2 || e.Path != "k" || e.Msg != "alone" {
		t.Errorf("one error: %#v, want the *yamlconf.Error itself", err)
	}
}

func TestDescribeAndJoin(t *testing.T) {
	t.Parallel()
	root, r := read(t, doc("m: {a: 1}", "l: [1]", "s: x", "n: ~", "q: ''"), nil)
	es, _ := r.Entries(root, "")
	var got []string
	for _, e := range es {
		got = append(got, yamlconf.Describe(r.Resolve(e.Val)))
	}
	want := []string{"a mapping", "a list", "a single value", "nothing", "a single value"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Describe (-want +got):\n%s", diff)
	}
	if got := yamlconf.Describe(nil); got != "nothing" {
		t.Errorf("Describe(nil) = %q", got)
	}
	if a, b := yamlconf.Join("", "k"), yamlconf.Join("p.q", "k"); a != "k" || b != "p.q.k" {
		t.Errorf("Join: %q, %q", a, b)
	}
}
