package eval

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cadrehq/cadre/internal/yamlconf"
	"github.com/cadrehq/cadre/pkg/assistant"
	"github.com/cadrehq/cadre/pkg/schema"
	"gopkg.in/yaml.v3"
)

//go:embed dataset.schema.json
var datasetSchema []byte

// DatasetSchema returns the JSON Schema (draft 2020-12) of a dataset file, as Load reads it,
// with a description of every key, so that an editor completes and checks the file. Write it
// next to your datasets, or serve it, and name it on the file's first line for the YAML
// language server (VS Code's YAML extension, and the editors that use it):
//
//	# yaml-language-server: $schema=./dataset.schema.json
//
// The same file is pkg/eval/dataset.schema.json in cadre's repository. The schema leaves
// input, expected and metadata open: what they hold is the dataset's Go types', which Load
// checks. The returned slice is a copy.
func DatasetSchema() []byte { return bytes.Clone(datasetSchema) }

// LoadOption configures Load and Parse.
type LoadOption func(*loadConfig)

type loadConfig struct {
	judge assistant.Runner[Verdict]
	funcs map[string]any // name -> an Evaluator[O] of some O
}

// WithJudge is the assistant that the file's judge evaluators ask (see Judge). A file with a
// judge evaluator, loaded without it, is an error.
func WithJudge(r assistant.Runner[Verdict]) LoadOption {
	return func(c *loadConfig) { c.judge = r }
}

// WithFunc registers e under name for the file's "func: name" evaluators, which are e itself.
// e must be an Evaluator of the dataset's output type; one of another type is an error where
// the file names it.
func WithFunc[O any](name string, e Evaluator[O]) LoadOption {
	return func(c *loadConfig) {
		if c.funcs == nil {
			c.funcs = map[string]any{}
		}
		c.funcs[name] = e
	}
}

// Load reads the dataset file at path (see Parse) and names it by path in errors.
func Load[I, O any](path string, opts ...LoadOption) (*Dataset[I, O], error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("eval: %w", err)
	}
	return Parse[I, O](data, path, opts...)
}

// Parse reads a dataset from a YAML document (JSON is YAML too) named file in errors
// ("dataset.yaml" when file is ""). The document is a mapping of:
//
//	name:       the dataset's name (default: the file's name without its extension)
//	evaluators: a list of the evaluators every case gets
//	cases:      a list of cases, each {name, input, expected, metadata, evaluators}; name
//	            and input are required, names are unique
//
// Keys starting with x- at the top are ignored: a place for YAML anchors. An input and an
// expected output are decoded into I and O through their JSON (json tags apply; an I of
// string takes a string), after being checked against the JSON Schema of their type as
// pkg/schema makes it (a struct's fields without omitempty are required, no other field is
// allowed). Metadata is any mapping. Text is taken as written: no ${VAR} is expanded.
//
// Each evaluator is a mapping of one key, its kind, to its settings:
//
//	equals: {tolerance: {"items.*.price": 0.01}, any_order: [tags]}   # Equals; or equals: {}
//	contains: some text                                                # Contains
//	matches: '^\d+ people$'                                            # Matches
//	max_duration: 2s                                                   # MaxDuration
//	max_tokens: 5000                                                   # MaxTokens
//	max_cost: 0.01                                                     # MaxCost
//	trajectory: {order: in_order, calls: [{tool: search, arguments: {q: oslo}}]}  # Trajectory
//	judge: {rubric: "...", threshold: 0.7, expected: true, name: tone} # Judge, WithJudge's runner
//	func: name                                                         # WithFunc's evaluator
//
// order is exactly (the default), in_order or unordered; a call may name its assistant. Two
// evaluators a case gets, its own and the dataset's, may not have the same name.
//
// Every error names the file, the line and the key path, as in
// "cases.yaml:12: cases[2].expected.population: got string, want integer" (cases are counted
// from 0); up to ten are reported at once, joined.
func Parse[I, O any](data []byte, file string, opts ...LoadOption) (*Dataset[I, O], error) {
	if file == "" {
		file = "dataset.yaml"
	}
	l := &loader[I, O]{Reader: yamlconf.NewReader(file, noEnv)}
	for _, o := range opts {
		if o != nil {
			o(&l.cfg)
		}
	}
	root, err := l.Document(data)
	if err != nil {
		return nil, err
	}
	d := l.dataset(root)
	if err := l.Err(); err != nil {
		return nil, err
	}
	return d, nil
}

// noEnv is the environment of a dataset file: none, since its text is taken as written.
func noEnv(string) (string, bool) { return "", false }

// The keys of each mapping of a dataset file.
var (
	datasetKeys   = []string{"name", "evaluators", "cases"}
	caseKeys      = []string{"name", "input", "expected", "metadata", "evaluators"}
	evaluatorKeys = []string{"equals", "contains", "matches", "max_duration", "max_tokens", "max_cost", "trajectory", "judge", "func"}
	equalsKeys    = []string{"tolerance", "any_order"}
	trajKeys      = []string{"order", "calls"}
	callKeys      = []string{"tool", "assistant", "arguments"}
	judgeKeys     = []string{"rubric", "threshold", "expected", "name"}
	orders        = map[string]Order{"exactly": Exactly, "in_order": InOrder, "unordered": Unordered}
)

// loader reads a dataset file's nodes; the Reader records the errors.
type loader[I, O any] struct {
	*yamlconf.Reader
	cfg loadConfig
}

// named is an evaluator and the line it was given on, to report a second of its name.
type named[O any] struct {
	ev   Evaluator[O]
	line int
}

func (l *loader[I, O]) dataset(root *yaml.Node) *Dataset[I, O] {
	d := &Dataset[I, O]{Name: strings.TrimSuffix(filepath.Base(l.File()), filepath.Ext(l.File()))}
	if root == nil || yamlconf.IsNull(root) {
		l.Errorf(nil, "", "the file is empty: it needs a list of cases, e.g. cases: [{name: oslo, input: Oslo}]")
		return d
	}
	top, ok := l.Entries(root, "")
	if !ok {
		return d
	}
	var shared []named[O]
	var cases *yamlconf.Entry
	for i, e := range top {
		switch e.Key {
		case "name":
			if s, ok := l.text(e.Val, "name"); ok {
				d.Name = s
			}
		case "evaluators":
			shared = l.evaluators(e.Val, "evaluators", nil)
		case "cases":
			cases = &top[i]
		default:
			if !strings.HasPrefix(e.Key, "x-") {
				l.UnknownKey(e, e.Key, datasetKeys, "; keys starting with x- are ignored")
			}
		}
	}
	for _, n := range shared {
		d.Evaluators = append(d.Evaluators, n.ev)
	}
	if cases == nil {
		l.Errorf(root, "", "no cases: add a list of them, e.g. cases: [{name: oslo, input: Oslo}]")
		return d
	}
	items, ok := l.list(cases.Val, "cases")
	if ok && len(items) == 0 {
		l.Errorf(cases.KeyNode, "cases", "empty: add at least one case")
	}
	first := map[string]int{} // case name -> the line it is first given on
	for i, item := range items {
		path := fmt.Sprintf("cases[%d]", i)
		c, nameNode := l.caseOf(item, path, shared)
		if c == nil {
			continue
		}
		if line, dup := first[c.Name]; dup {
			l.Errorf(nameNode, path+".name", "duplicate case name %q (first at line %d)", c.Name, line)
			continue
		}
		first[c.Name] = nameNode.Line
		d.Cases = append(d.Cases, *c)
	}
	return d
}

// caseOf reads one case; nil when it has no name. nameNode is where its name is written.
func (l *loader[I, O]) caseOf(n *yaml.Node, path string, shared []named[O]) (c *Case[I, O], nameNode *yaml.Node) {
	fields, ok := l.Entries(n, path)
	if !ok {
		return nil, nil
	}
	c = &Case[I, O]{}
	hasInput := false
	for _, f := range fields {
		fp := path + "." + f.Key
		switch f.Key {
		case "name":
			if s, ok := l.text(f.Val, fp); ok {
				c.Name, nameNode = s, f.Val
			}
		case "input":
			hasInput = true
			c.Input, _ = decodeAs[I](l.Reader, f, fp)
		case "expected":
			if v, ok := decodeAs[O](l.Reader, f, fp); ok {
				c.Expected = &v
			}
		case "metadata":
			if m, ok := l.value(f.Val, fp).(map[string]any); ok {
				c.Metadata = m
			} else if r := l.Resolve(f.Val); r != nil && r.Kind != yaml.MappingNode && !yamlconf.IsNull(r) {
				l.Errorf(f.Val, fp, "expected a mapping (key: value lines), found %s", yamlconf.Describe(r))
			}
		case "evaluators":
			for _, e := range l.evaluators(f.Val, fp, shared) {
				c.Evaluators = append(c.Evaluators, e.ev)
			}
		default:
			l.UnknownKey(f, fp, caseKeys, "")
		}
	}
	if !hasInput {
		l.Errorf(n, path, "missing input: the task of the case, e.g. input: Oslo")
	}
	if nameNode == nil {
		l.Errorf(n, path, "missing name: every case needs one, unique in the dataset")
		return nil, nil
	}
	return c, nameNode
}

// evaluators reads a list of evaluators, checking that their names differ from each other's
// and from shared's.
func (l *loader[I, O]) evaluators(n *yaml.Node, path string, shared []named[O]) []named[O] {
	items, _ := l.list(n, path)
	out := slices.Clone(shared)
	for i, item := range items {
		ip := fmt.Sprintf("%s[%d]", path, i)
		es, ok := l.Entries(item, ip)
		if !ok {
			continue
		}
		if len(es) != 1 {
			l.Errorf(item, ip, "an evaluator is a mapping of one key, its kind (one of: %s), found %d keys", strings.Join(evaluatorKeys, ", "), len(es))
			continue
		}
		e := es[0]
		ev := l.evaluator(e, ip+"."+e.Key)
		if ev == nil {
			continue
		}
		if k := slices.IndexFunc(out, func(o named[O]) bool { return o.ev.Name() == ev.Name() }); k >= 0 {
			l.Errorf(e.KeyNode, ip+"."+e.Key, "a second evaluator named %q (first at line %d): evaluators of a case need different names", ev.Name(), out[k].line)
			continue
		}
		out = append(out, named[O]{ev, e.KeyNode.Line})
	}
	return out[len(shared):]
}

// evaluator reads one evaluator, e, whose key path is path; nil after recording an error.
func (l *loader[I, O]) evaluator(e yamlconf.Entry, path string) Evaluator[O] {
	switch e.Key {
	case "equals":
		return l.equals(e.Val, path)
	case "contains":
		if s, ok := l.text(e.Val, path); ok {
			return Contains[O](s)
		}
	case "matches":
		if s, ok := l.text(e.Val, path); ok {
			if _, err := regexp.Compile(s); err != nil {
				l.Errorf(e.Val, path, "%s is not a regular expression: %v", strconv.Quote(yamlconf.Clip(s)), strings.TrimPrefix(err.Error(), "error parsing regexp: "))
				return nil
			}
			return Matches[O](s)
		}
	case "max_duration":
		if v, ok := l.scalar(e.Val, path); ok {
			if d := l.Duration(v, 24*time.Hour); d > 0 {
				return MaxDuration[O](d)
			}
		}
	case "max_tokens":
		if v, ok := l.scalar(e.Val, path); ok {
			if n := l.Integer(v, 1, math.MaxInt, "5000"); n != nil {
				return MaxTokens[O](*n)
			}
		}
	case "max_cost":
		if v, ok := l.scalar(e.Val, path); ok {
			if c, ok := l.nonNegative(v, "0.01"); ok {
				return MaxCost[O](c)
			}
		}
	case "trajectory":
		return l.trajectory(e.Val, path)
	case "judge":
		return l.judge(e, path)
	case "func":
		return l.function(e.Val, path)
	default:
		l.UnknownKey(e, path, evaluatorKeys, "")
	}
	return nil
}

func (l *loader[I, O]) equals(n *yaml.Node, path string) Evaluator[O] {
	fields, ok := l.Entries(n, path)
	if !ok {
		return nil
	}
	var opts []EqualOption
	good := true
	for _, f := range fields {
		fp := path + "." + f.Key
		switch f.Key {
		case "tolerance":
			ts, ok := l.Entries(f.Val, fp)
			good = good && ok
			for _, t := range ts {
				if v, ok := l.scalar(t.Val, fp+"."+t.Key); ok {
					if eps, ok := l.nonNegative(v, "0.01"); ok {
						opts = append(opts, Tolerance(t.Key, eps))
						continue
					}
				}
				good = false
			}
		case "any_order":
			items, ok := l.list(f.Val, fp)
			good = good && ok
			var patterns []string
			for i, item := range items {
				if s, ok := l.text(item, fmt.Sprintf("%s[%d]", fp, i)); ok {
					patterns = append(patterns, s)
				} else {
					good = false
				}
			}
			if len(patterns) > 0 {
				opts = append(opts, AnyOrder(patterns...))
			}
		default:
			l.UnknownKey(f, fp, equalsKeys, "")
			good = false
		}
	}
	if !good {
		return nil
	}
	return Equals[O](opts...)
}

func (l *loader[I, O]) trajectory(n *yaml.Node, path string) Evaluator[O] {
	fields, ok := l.Entries(n, path)
	if !ok {
		return nil
	}
	order, good, hasCalls := Exactly, true, false
	var calls []Call
	for _, f := range fields {
		fp := path + "." + f.Key
		switch f.Key {
		case "order":
			s, ok := l.text(f.Val, fp)
			o, known := orders[s]
			if ok && !known {
				l.Errorf(f.Val, fp, "unknown order %q (known: exactly, in_order, unordered)", s)
			}
			order, good = o, good && ok && known
		case "calls":
			hasCalls = true
			items, ok := l.list(f.Val, fp)
			good = good && ok
			for i, item := range items {
				c, ok := l.call(item, fmt.Sprintf("%s[%d]", fp, i))
				calls, good = append(calls, c), good && ok
			}
		default:
			l.UnknownKey(f, fp, trajKeys, "")
			good = false
		}
	}
	if !hasCalls {
		l.Errorf(n, path, "missing calls: the tool calls expected, e.g. calls: [{tool: search}] (calls: [] for none)")
		return nil
	}
	if !good {
		return nil
	}
	return Trajectory[O](order, calls...)
}

// call reads one expected tool call.
func (l *loader[I, O]) call(n *yaml.Node, path string) (Call, bool) {
	var c Call
	fields, ok := l.Entries(n, path)
	if !ok {
		return c, false
	}
	good := true
	for _, f := range fields {
		fp := path + "." + f.Key
		switch f.Key {
		case "tool":
			c.Tool, ok = l.text(f.Val, fp)
		case "assistant":
			c.Assistant, ok = l.text(f.Val, fp)
		case "arguments":
			c.Arguments, ok = l.value(f.Val, fp).(map[string]any)
			if !ok {
				if r := l.Resolve(f.Val); r != nil && r.Kind != yaml.MappingNode {
					l.Errorf(f.Val, fp, "expected a mapping of the arguments' members, found %s", yamlconf.Describe(r))
				}
			}
		default:
			l.UnknownKey(f, fp, callKeys, "")
			ok = false
		}
		good = good && ok
	}
	if c.Tool == "" && good {
		l.Errorf(n, path, "missing tool: the name of the tool expected, e.g. tool: search")
		good = false
	}
	return c, good
}

func (l *loader[I, O]) judge(e yamlconf.Entry, path string) Evaluator[O] {
	fields, ok := l.Entries(e.Val, path)
	if !ok {
		return nil
	}
	var rubric string
	var opts []JudgeOption
	good := true
	for _, f := range fields {
		fp := path + "." + f.Key
		switch f.Key {
		case "rubric":
			rubric, ok = l.text(f.Val, fp)
		case "threshold":
			var v yamlconf.Value
			if v, ok = l.scalar(f.Val, fp); ok {
				var t *float64
				if t = l.Number(v, 0, 1); t != nil {
					opts = append(opts, JudgeThreshold(*t))
				}
				ok = t != nil
			}
		case "expected":
			var v yamlconf.Value
			if v, ok = l.scalar(f.Val, fp); ok {
				ok = slices.Contains([]string{"true", "false"}, strings.ToLower(v.Text))
				if l.Bool(v) { // which records the error of a value that is neither
					opts = append(opts, WithExpected())
				}
			}
		case "name":
			var name string
			if name, ok = l.text(f.Val, fp); ok {
				opts = append(opts, JudgeName(name))
			}
		default:
			l.UnknownKey(f, fp, judgeKeys, "")
			ok = false
		}
		good = good && ok
	}
	if rubric == "" && good {
		l.Errorf(e.Val, path, "missing rubric: what the judge scores the output against")
		good = false
	}
	if l.cfg.judge == nil {
		l.Errorf(e.KeyNode, path, "a judge needs an assistant to ask: load the file with eval.WithJudge")
		good = false
	}
	if !good {
		return nil
	}
	return Judge[O](l.cfg.judge, rubric, opts...)
}

// function reads a func evaluator: one registered WithFunc.
func (l *loader[I, O]) function(n *yaml.Node, path string) Evaluator[O] {
	name, ok := l.text(n, path)
	if !ok {
		return nil
	}
	f, found := l.cfg.funcs[name]
	if !found {
		known := slices.Sorted(func(yield func(string) bool) {
			for k := range l.cfg.funcs {
				if !yield(k) {
					return
				}
			}
		})
		if len(known) == 0 {
			l.Errorf(n, path, "unknown func %q: none is registered (load the file with eval.WithFunc)", name)
		} else {
			l.Errorf(n, path, "unknown func %q (registered with eval.WithFunc: %s)", name, strings.Join(known, ", "))
		}
		return nil
	}
	ev, ok := f.(Evaluator[O])
	if !ok {
		l.Errorf(n, path, "func %q is a %T, not an evaluator of this dataset's output, %s", name, f, reflect.TypeFor[O]())
		return nil
	}
	return ev
}

// text reads the scalar n as text, taken as written; ok is false after recording an error
// for anything else (null included).
func (l *loader[I, O]) text(n *yaml.Node, path string) (string, bool) {
	v, ok := l.scalar(n, path)
	return v.Text, ok
}

// scalar reads the scalar n, taken as written, as a Value for the Reader's typed readers;
// ok is false after recording an error for anything else (null included).
func (l *loader[I, O]) scalar(n *yaml.Node, path string) (yamlconf.Value, bool) {
	s := l.Resolve(n)
	switch {
	case s == nil:
		return yamlconf.Value{}, false
	case s.Kind != yaml.ScalarNode || yamlconf.IsNull(s):
		l.Errorf(n, path, "expected a single value, found %s", yamlconf.Describe(s))
		return yamlconf.Value{}, false
	}
	return yamlconf.Value{Text: s.Value, Node: n, Path: path}, true
}

// nonNegative parses v as a finite number of 0 or more.
func (l *loader[I, O]) nonNegative(v yamlconf.Value, example string) (float64, bool) {
	f, err := strconv.ParseFloat(v.Text, 64)
	switch {
	case err != nil && !errors.Is(err, strconv.ErrRange):
		l.Errorf(v.Node, v.Path, "%s is not a number (write e.g. %s)", v.Quoted(), example)
	case err != nil || math.IsNaN(f) || math.IsInf(f, 0):
		l.Errorf(v.Node, v.Path, "%s is out of range", v.Quoted())
	case f < 0:
		l.Errorf(v.Node, v.Path, "%s: must be 0 or more", v.Quoted())
	default:
		return f, true
	}
	return 0, false
}

// list returns the items of the list n; a null n is an empty list. ok is false after
// recording an error when n is not a list.
func (l *loader[I, O]) list(n *yaml.Node, path string) (items []*yaml.Node, ok bool) {
	s := l.Resolve(n)
	switch {
	case s == nil:
		return nil, false
	case yamlconf.IsNull(s):
		return nil, true
	case s.Kind != yaml.SequenceNode:
		l.Errorf(n, path, "expected a list (- item lines, or [a, b]), found %s", yamlconf.Describe(s))
		return nil, false
	}
	return s.Content, true
}

func (l *loader[I, O]) value(n *yaml.Node, path string) any {
	v, _ := jsonValue(l.Reader, n, path)
	return v
}

// jsonValue turns the node n into the value encoding/json would decode from its JSON, numbers
// as json.Number; ok is false after recording an error for what JSON cannot hold (.inf, .nan).
func jsonValue(r *yamlconf.Reader, n *yaml.Node, path string) (v any, ok bool) {
	s := r.Resolve(n)
	if s == nil {
		return nil, false
	}
	switch s.Kind {
	case yaml.MappingNode:
		es, ok := r.Entries(n, path)
		m := make(map[string]any, len(es))
		for _, e := range es {
			var good bool
			m[e.Key], good = jsonValue(r, e.Val, yamlconf.Join(path, e.Key))
			ok = ok && good
		}
		return m, ok
	case yaml.SequenceNode:
		items, ok := make([]any, len(s.Content)), true
		for i, item := range s.Content {
			var good bool
			items[i], good = jsonValue(r, item, fmt.Sprintf("%s[%d]", path, i))
			ok = ok && good
		}
		return items, ok
	}
	switch s.ShortTag() {
	case "!!null":
		return nil, true
	case "!!bool":
		var b bool
		if s.Decode(&b) == nil {
			return b, true
		}
	case "!!int":
		var i int64
		if s.Decode(&i) == nil {
			return json.Number(strconv.FormatInt(i, 10)), true
		}
		var u uint64
		if s.Decode(&u) == nil {
			return json.Number(strconv.FormatUint(u, 10)), true
		}
		r.Errorf(n, path, "%s is out of range of a 64-bit integer", strconv.Quote(yamlconf.Clip(s.Value)))
		return nil, false
	case "!!float":
		var f float64
		if s.Decode(&f) == nil && !math.IsInf(f, 0) && !math.IsNaN(f) {
			return json.Number(strconv.FormatFloat(f, 'g', -1, 64)), true
		}
		r.Errorf(n, path, "%s is not a number JSON can hold: quote it for text", strconv.Quote(yamlconf.Clip(s.Value)))
		return nil, false
	}
	return s.Value, true
}

// decodeAs decodes the node n into a T through its JSON, after checking that JSON against T's
// schema; ok is false after recording an error naming the field and what is wrong.
func decodeAs[T any](r *yamlconf.Reader, e yamlconf.Entry, path string) (t T, ok bool) {
	n := e.Val
	// where is the node of field: the key's for the value as a whole.
	where := func(field string) *yaml.Node {
		if field == "" {
			return e.KeyNode
		}
		return locate(r, n, field)
	}
	v, ok := jsonValue(r, n, path)
	if !ok {
		return t, false
	}
	doc, err := json.Marshal(v)
	if err != nil { // not expected of a tree of maps, lists, strings, numbers and booleans
		r.Errorf(n, path, "%v", err)
		return t, false
	}
	if s, err := schema.For[T](); err == nil {
		var ve *schema.ValidationError
		if err := s.Validate(doc); errors.As(err, &ve) {
			for _, fe := range ve.Errors {
				field, msg := fe.Field, fe.Message
				if rest, cut := strings.CutPrefix(msg, "property "); cut && strings.HasSuffix(rest, " is not allowed") {
					if name, err := strconv.Unquote(strings.TrimSuffix(rest, " is not allowed")); err == nil {
						field, msg = joinField(field, name), fmt.Sprintf("unknown field (not one of %s's)", reflect.TypeFor[T]())
					}
				}
				r.Errorf(where(field), joinField(path, field), "%s", msg)
			}
			return t, false
		}
	}
	if err := json.Unmarshal(doc, &t); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			r.Errorf(where(te.Field), joinField(path, te.Field), "got %s, want %s", te.Value, te.Type)
		} else {
			r.Errorf(e.KeyNode, path, "does not decode into %s: %v", reflect.TypeFor[T](), strings.TrimPrefix(err.Error(), "json: "))
		}
		return t, false
	}
	return t, true
}

// joinField joins a field path of pkg/schema's ("items[0].name", `tags["a b"]`) to path.
func joinField(path, field string) string {
	switch {
	case field == "":
		return path
	case path == "" || strings.HasPrefix(field, "["):
		return path + field
	}
	return path + "." + field
}

// locate finds the node of field (a path as pkg/schema writes it) below n: the deepest node
// the path reaches, n itself when it reaches none.
func locate(r *yamlconf.Reader, n *yaml.Node, field string) *yaml.Node {
	at := n
	for field != "" {
		var key string
		index := -1
		switch {
		case strings.HasPrefix(field, `["`):
			q, err := strconv.QuotedPrefix(field[1:])
			if err != nil {
				return at
			}
			key, _ = strconv.Unquote(q)
			field = strings.TrimPrefix(field[1+len(q):], "]")
		case strings.HasPrefix(field, "["):
			end := strings.IndexByte(field, ']')
			i, err := strconv.Atoi(field[1:max(end, 1)])
			if end < 0 || err != nil {
				return at
			}
			index, field = i, field[end+1:]
		default:
			end := strings.IndexAny(field, ".[")
			if end < 0 {
				end = len(field)
			}
			key, field = field[:end], field[end:]
		}
		field = strings.TrimPrefix(field, ".")
		s := r.Resolve(at)
		if s == nil {
			return at
		}
		next := (*yaml.Node)(nil)
		switch {
		case index >= 0 && s.Kind == yaml.SequenceNode && index < len(s.Content):
			next = s.Content[index]
		case index < 0 && s.Kind == yaml.MappingNode:
			for i := 0; i+1 < len(s.Content); i += 2 {
				if s.Content[i].Value == key {
					next = s.Content[i+1]
					if field == "" && next.Line != s.Content[i].Line { // a value under its key: the key's line
						next = s.Content[i]
					}
				}
			}
		}
		if next == nil {
			return at
		}
		at = next
	}
	return at
}
