package schema

import (
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/cadrehq/cadre/internal/ojson"
)

// The fast path may say "valid" only when v6 says so, and "invalid" only when v6 says so (not
// and oneOf depend on the second). These tests compare the two on many schemas and inputs.

// compareVerdicts checks the fast verdict on data against v6's, and that Validate agrees with
// v6. It returns both.
func compareVerdicts(t *testing.T, s *Schema, data []byte) (fast verdict, full error) {
	t.Helper()
	fast = s.check.verdict(data)
	full = s.validateFull(data)
	switch {
	case fast == valid && full != nil:
		t.Errorf("fast path accepts what v6 rejects:\nschema %s\ndata   %q\nv6     %v", s.JSON(), data, full)
	case fast == invalid && full == nil:
		t.Errorf("fast path rejects what v6 accepts:\nschema %s\ndata   %q", s.JSON(), data)
	}
	if got := s.Validate(data); (got == nil) != (full == nil) {
		t.Errorf("Validate = %v, v6 says %v:\nschema %s\ndata   %q", got, full, s.JSON(), data)
	}
	return fast, full
}

func TestFastPathDifferential(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(1, 2))
	const schemas, instances = 400, 40
	var pairs, fullValid, fastValid, fastInvalid int
	for range schemas {
		doc := randomSchema(r)
		s, err := Compile(doc)
		if err != nil {
			t.Fatalf("generated schema does not compile: %v\n%s", err, doc)
		}
		if s.check == nil {
			_, why := newChecker(mustTree(t, s.JSON()), s.validator.DraftVersion)
			t.Fatalf("generated schema is outside the fast path's subset (%v):\n%s", why, doc)
		}
		g := &instanceGen{r: r, root: decodeAny(t, doc)}
		for i := range instances {
			data := g.instance(i)
			fast, full := compareVerdicts(t, s, data)
			pairs++
			if full == nil {
				fullValid++
				if fast == valid {
					fastValid++
				}
			} else if fast == invalid {
				fastInvalid++
			}
		}
	}
	t.Logf("%d pairs: v6 accepts %d, of which the fast path decides %d; v6 rejects %d, of which the fast path says invalid %d",
		pairs, fullValid, fastValid, pairs-fullValid, fastInvalid)
	if fullValid < pairs/5 || fastValid < fullValid*9/10 {
		t.Errorf("too few valid inputs, or too few decided by the fast path: %d pairs, %d valid, %d decided", pairs, fullValid, fastValid)
	}
}

// FuzzValidate compares the verdicts of the fast path and of v6 on fuzzed data, against a fixed
// set of schemas.
func FuzzValidate(f *testing.F) {
	r := rand.New(rand.NewPCG(3, 4))
	var compiled []*Schema
	for _, doc := range fuzzSchemas {
		compiled = append(compiled, mustCompile(f, doc))
	}
	for range 20 {
		compiled = append(compiled, mustCompile(f, string(randomSchema(r))))
	}
	for i, s := range compiled {
		g := &instanceGen{r: r, root: decodeAny(f, s.JSON())}
		for j := range 8 {
			f.Add(uint8(i), g.instance(j))
		}
	}
	f.Fuzz(func(t *testing.T, which uint8, data []byte) {
		s := compiled[int(which)%len(compiled)]
		if s.check.verdict(data) == unsure {
			// Validate leaves the data to v6 alone: nothing to compare. (v6 can take tens of
			// milliseconds on a number like 1e999999, which would slow the fuzzer down.)
			return
		}
		compareVerdicts(t, s, data)
	})
}

var fuzzSchemas = []string{
	`{}`,
	`{"type":"object","properties":{"name":{"type":"string","minLength":1,"maxLength":3},"n":{"type":"integer","minimum":0,"exclusiveMaximum":10}},"required":["name"],"additionalProperties":false}`,
	`{"type":"array","items":{"type":["number","null"],"multipleOf":0.5},"minItems":1,"maxItems":4}`,
	`{"enum":["a","é","😀",1,2.5,null,true]}`,
	`{"type":"object","additionalProperties":{"type":"string","pattern":"^[a-z]+$"},"minProperties":1,"maxProperties":3}`,
	`{"oneOf":[{"type":"integer"},{"type":"number","minimum":2}],"not":{"const":7}}`,
	`{"$ref":"#/$defs/node","$defs":{"node":{"type":"object","properties":{"v":{"type":"integer"},"next":{"anyOf":[{"$ref":"#/$defs/node"},{"type":"null"}]}},"required":["v"]}}}`,
	`{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"a":{"$ref":"#/definitions/s","type":"integer"}},"definitions":{"s":{"type":"string"}}}`,
	`{"prefixItems":[{"const":"x"},{"type":"boolean"}],"items":false}`,
}

func mustCompile(tb testing.TB, doc string) *Schema {
	tb.Helper()
	s, err := Compile([]byte(doc))
	if err != nil {
		tb.Fatalf("%v\n%s", err, doc)
	}
	if s.check == nil {
		tb.Fatalf("no fast path for %s", doc)
	}
	return s
}

func mustTree(tb testing.TB, doc []byte) any {
	tb.Helper()
	tree, err := ojson.Parse(doc)
	if err != nil {
		tb.Fatal(err)
	}
	return tree
}

func decodeAny(tb testing.TB, doc []byte) any {
	tb.Helper()
	var v any
	dec := json.NewDecoder(strings.NewReader(string(doc)))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		tb.Fatal(err)
	}
	return v
}

// Random schemas, from the subset the fast path decides.

type schemaGen struct {
	r      *rand.Rand
	draft7 bool
	refs   []string // the references the document can make
}

// words are strings and property names that need care: escapes, non-ASCII, astral
// characters, an empty one.
var words = []string{"", "a", "b", "low", "high", "x y", "é", "日本語", "😀", `q"uote`, `back\slash`,
	"tab\t", "new\nline", "nul\x00", "</p>&", "ab", "abc", "Zz"}

var numbers = []string{"0", "-1", "1", "2", "2.5", "-0.5", "10", "1e2", "0.1", "3", "100", "1.0", "-7", "0.3"}

func (g *schemaGen) pick(list []string) string { return list[g.r.IntN(len(list))] }

func randomSchema(r *rand.Rand) []byte {
	g := &schemaGen{r: r, draft7: r.IntN(6) == 0}
	root := map[string]any{}
	defsKey := "$defs"
	if g.draft7 {
		root["$schema"] = "http://json-schema.org/draft-07/schema#"
		defsKey = "definitions"
	}
	if r.IntN(3) == 0 {
		node, leaf := "#/"+defsKey+"/node", "#/"+defsKey+"/leaf"
		g.refs = []string{node, leaf}
		root[defsKey] = map[string]any{
			"leaf": g.leaf(),
			"node": map[string]any{
				"type": "object",
				"properties": map[string]any{
					"v":    map[string]any{"$ref": leaf},
					"next": map[string]any{"anyOf": []any{map[string]any{"$ref": node}, map[string]any{"type": "null"}}},
					"kids": map[string]any{"type": "array", "items": map[string]any{"$ref": node}, "maxItems": json.Number("3")},
				},
				"required": []any{"v"},
			},
		}
	}
	body := g.schema(3)
	m, ok := body.(map[string]any)
	switch {
	case ok:
		for k, v := range m {
			root[k] = v
		}
	case len(root) == 0:
		return mustJSON(body) // true or false
	default:
		root["allOf"] = []any{body}
	}
	return mustJSON(root)
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

func (g *schemaGen) schema(depth int) any {
	if depth <= 0 {
		return g.leaf()
	}
	var s map[string]any
	switch g.r.IntN(12) {
	case 0, 1, 2:
		s = g.object(depth)
	case 3, 4:
		s = g.array(depth)
	case 5:
		s = map[string]any{"anyOf": g.list(depth)}
	case 6:
		s = map[string]any{"oneOf": g.list(depth)}
	case 7:
		s = map[string]any{"allOf": g.list(depth)}
	case 8:
		s = map[string]any{"not": g.schema(depth - 1)}
		if g.r.IntN(2) == 0 {
			s["type"] = g.pick([]string{"string", "integer", "object"})
		}
	case 9:
		if len(g.refs) == 0 {
			return g.leaf()
		}
		s = map[string]any{"$ref": g.pick(g.refs)}
		if g.r.IntN(3) == 0 {
			s["type"] = "object" // ignored in draft-07
		}
	default:
		return g.leaf()
	}
	g.annotate(s)
	return s
}

func (g *schemaGen) list(depth int) []any {
	out := make([]any, 1+g.r.IntN(3))
	for i := range out {
		out[i] = g.schema(depth - 1)
	}
	return out
}

func (g *schemaGen) leaf() any {
	switch g.r.IntN(14) {
	case 0, 1, 2:
		return g.str()
	case 3, 4, 5:
		return g.number()
	case 6:
		return map[string]any{"type": "boolean"}
	case 7:
		return map[string]any{"type": "null"}
	case 8:
		s := g.str()
		s["type"] = []any{"string", "null"}
		return s
	case 9:
		return map[string]any{"type": []any{"integer", "string", "boolean"}}
	case 10:
		return map[string]any{"const": g.constant()}
	case 11:
		return map[string]any{"enum": distinct(g.constant(), g.constant(), g.constant())}
	case 12:
		return g.r.IntN(4) != 0 // mostly true
	}
	return map[string]any{}
}

// distinct returns the values that differ from those before them (draft-07 wants enum values
// unique, and 1 is 1.0).
func distinct(values ...any) []any {
	var out []any
	seen := map[string]bool{}
	for _, v := range values {
		key := string(mustJSON(v))
		if n, ok := v.(json.Number); ok {
			d, _ := parseDecimal([]byte(n))
			key = fmt.Sprint(d.neg, string(d.digits[:d.n]), d.point)
		}
		if !seen[key] {
			seen[key] = true
			out = append(out, v)
		}
	}
	return out
}

func (g *schemaGen) constant() any {
	switch g.r.IntN(4) {
	case 0:
		return g.pick(words)
	case 1:
		return json.Number(g.pick(numbers))
	case 2:
		return g.r.IntN(2) == 0
	}
	return nil
}

func (g *schemaGen) str() map[string]any {
	s := map[string]any{"type": "string"}
	if g.r.IntN(2) == 0 {
		lo := g.r.IntN(3)
		s["minLength"] = json.Number(strconv.Itoa(lo))
		s["maxLength"] = json.Number(strconv.Itoa(lo + g.r.IntN(5)))
	}
	switch g.r.IntN(8) {
	case 0, 1:
		s["enum"] = distinct(g.pick(words), g.pick(words), g.pick(words))
	case 2:
		s["pattern"] = g.pick([]string{"^a", "b$", "^[a-z]*$", "é", "^.{2,4}$", `\d`})
	case 3:
		s["const"] = g.pick(words)
	case 4:
		if !g.draft7 {
			s["format"] = "email" // an annotation in 2020-12
		}
	}
	return s
}

func (g *schemaGen) number() map[string]any {
	s := map[string]any{"type": g.pick([]string{"number", "integer"})}
	for _, k := range []string{"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"} {
		if g.r.IntN(4) == 0 {
			s[k] = json.Number(g.pick(numbers))
		}
	}
	switch g.r.IntN(6) {
	case 0:
		s["multipleOf"] = json.Number(g.pick([]string{"2", "0.5", "3", "0.1", "1e-2", "1.5"}))
	case 1:
		s["enum"] = distinct(json.Number(g.pick(numbers)), json.Number(g.pick(numbers)), "x")
	}
	return s
}

func (g *schemaGen) object(depth int) map[string]any {
	s := map[string]any{"type": "object"}
	props := map[string]any{}
	var required []any
	for range g.r.IntN(5) {
		name := g.pick(words)
		if props[name] != nil {
			continue
		}
		props[name] = g.schema(depth - 1)
		if g.r.IntN(2) == 0 {
			required = append(required, name)
		}
	}
	if len(props) > 0 || g.r.IntN(2) == 0 {
		s["properties"] = props
	}
	if g.r.IntN(6) == 0 {
		required = append(required, "extra") // required but not in properties
	}
	if len(required) > 0 {
		s["required"] = required
	}
	switch g.r.IntN(5) {
	case 0, 1:
		s["additionalProperties"] = false
	case 2:
		s["additionalProperties"] = g.schema(depth - 1)
	}
	if g.r.IntN(6) == 0 {
		s["minProperties"] = json.Number(strconv.Itoa(g.r.IntN(3)))
	}
	if g.r.IntN(6) == 0 {
		s["maxProperties"] = json.Number(strconv.Itoa(1 + g.r.IntN(4)))
	}
	return s
}

func (g *schemaGen) array(depth int) map[string]any {
	s := map[string]any{"type": "array"}
	if g.r.IntN(4) != 0 {
		s["items"] = g.schema(depth - 1)
	}
	if !g.draft7 && g.r.IntN(4) == 0 {
		s["prefixItems"] = g.list(depth)
	}
	if g.r.IntN(3) == 0 {
		lo := g.r.IntN(3)
		s["minItems"] = json.Number(strconv.Itoa(lo))
		s["maxItems"] = json.Number(strconv.Itoa(lo + g.r.IntN(3)))
	}
	return s
}

func (g *schemaGen) annotate(s map[string]any) {
	if g.r.IntN(4) == 0 {
		s["description"] = g.pick(words)
		s["title"] = "t"
		s["examples"] = []any{map[string]any{"a": 1}}
		s["default"] = nil
		s["$comment"] = "c"
	}
}

// Random instances of a schema: most built to match it and written in one of the many ways JSON
// allows, then some changed so that they may no longer match, or no longer be JSON.

// obj is an object whose members keep their order and may repeat names.
type obj []kv

type kv struct {
	k string
	v any
}

type instanceGen struct {
	r    *rand.Rand
	root any
}

func (g *instanceGen) instance(i int) []byte {
	v := g.value(g.root, 6)
	if i%3 == 1 {
		v = g.mutate(v)
	}
	var b []byte
	if g.r.IntN(4) == 0 {
		b = append(b, " \t\n\r"[:1+g.r.IntN(4)]...)
	}
	b = g.write(b, v)
	if i%5 == 4 {
		b = g.corrupt(b)
	}
	return b
}

// value returns a value meant to match the schema s.
func (g *instanceGen) value(s any, depth int) any {
	m, ok := s.(map[string]any)
	if !ok || depth <= 0 {
		return g.random(1)
	}
	if ref, ok := m["$ref"].(string); ok {
		return g.value(g.resolve(ref), depth-1)
	}
	if c, ok := m["const"]; ok {
		return fromJSON(c)
	}
	if e, ok := m["enum"].([]any); ok {
		return fromJSON(e[g.r.IntN(len(e))])
	}
	for _, k := range []string{"anyOf", "oneOf", "allOf"} {
		if list, ok := m[k].([]any); ok {
			return g.value(list[g.r.IntN(len(list))], depth-1)
		}
	}
	t := m["type"]
	if list, ok := t.([]any); ok {
		t = list[g.r.IntN(len(list))]
	}
	switch t {
	case "string":
		n := intOf(m["minLength"], 0) + g.r.IntN(3)
		if max := intOf(m["maxLength"], -1); max >= 0 && n > max {
			n = max
		}
		var sb strings.Builder
		for range n {
			sb.WriteString(g.pick([]string{"a", "b", "z", "é", "😀", "日", "\"", "\\", "/", "\n", "\x01", "1"}))
		}
		return sb.String()
	case "integer", "number":
		return g.num(m, t == "integer")
	case "boolean":
		return g.r.IntN(2) == 0
	case "null":
		return nil
	case "object":
		return g.object(m, depth)
	case "array":
		var out []any
		prefix, _ := m["prefixItems"].([]any)
		n := intOf(m["minItems"], 0) + g.r.IntN(3)
		if max := intOf(m["maxItems"], -1); max >= 0 && n > max {
			n = max
		}
		for i := range n {
			if i < len(prefix) {
				out = append(out, g.value(prefix[i], depth-1))
			} else {
				out = append(out, g.value(m["items"], depth-1))
			}
		}
		return out
	}
	return g.random(2)
}

func (g *instanceGen) resolve(ref string) any {
	v := g.root
	for _, tok := range strings.Split(strings.TrimPrefix(ref, "#/"), "/") {
		v = v.(map[string]any)[tok]
	}
	return v
}

func (g *instanceGen) object(m map[string]any, depth int) obj {
	var o obj
	props, _ := m["properties"].(map[string]any)
	required := map[string]bool{}
	list, _ := m["required"].([]any)
	for _, name := range list {
		required[name.(string)] = true
	}
	for _, name := range slices.Sorted(maps.Keys(props)) {
		if required[name] || g.r.IntN(3) != 0 {
			o = append(o, kv{name, g.value(props[name], depth-1)})
		}
	}
	if required["extra"] && props["extra"] == nil {
		o = append(o, kv{"extra", g.value(m["additionalProperties"], depth-1)})
	}
	if ap, ok := m["additionalProperties"]; ok && ap != false && g.r.IntN(2) == 0 {
		o = append(o, kv{"more", g.value(ap, depth-1)})
	}
	g.r.Shuffle(len(o), func(i, j int) { o[i], o[j] = o[j], o[i] })
	return o
}

func (g *instanceGen) num(m map[string]any, integer bool) json.Number {
	lo, hi := -20.0, 20.0
	for _, b := range []struct {
		key   string
		bound *float64
	}{{"minimum", &lo}, {"exclusiveMinimum", &lo}, {"maximum", &hi}, {"exclusiveMaximum", &hi}} {
		if n, ok := m[b.key].(json.Number); ok {
			*b.bound, _ = n.Float64()
		}
	}
	if mult, ok := m["multipleOf"].(json.Number); ok {
		f, _ := mult.Float64()
		k := g.r.IntN(9) - 4
		return json.Number(strconv.FormatFloat(float64(k)*f, 'g', -1, 64))
	}
	x := lo + g.r.Float64()*(hi-lo)
	if integer || g.r.IntN(2) == 0 {
		return json.Number(strconv.Itoa(int(x)))
	}
	return json.Number(strconv.FormatFloat(x, 'f', g.r.IntN(4), 64))
}

func intOf(v any, def int) int {
	if n, ok := v.(json.Number); ok {
		i, _ := strconv.Atoi(string(n))
		return i
	}
	return def
}

// fromJSON turns a decoded constant into an instance value.
func fromJSON(v any) any {
	switch v := v.(type) {
	case map[string]any:
		var o obj
		for _, k := range slices.Sorted(maps.Keys(v)) {
			o = append(o, kv{k, fromJSON(v[k])})
		}
		return o
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = fromJSON(e)
		}
		return out
	}
	return v
}

func (g *instanceGen) pick(list []string) string { return list[g.r.IntN(len(list))] }

func (g *instanceGen) random(depth int) any {
	switch g.r.IntN(7) {
	case 0:
		return nil
	case 1:
		return g.r.IntN(2) == 0
	case 2:
		return json.Number(g.pick(numbers))
	case 3:
		return g.pick(words)
	case 4:
		if depth > 0 {
			return []any{g.random(depth - 1)}
		}
	case 5:
		if depth > 0 {
			return obj{{g.pick(words), g.random(depth - 1)}}
		}
	}
	return "s"
}

// mutate changes one value somewhere in v.
func (g *instanceGen) mutate(v any) any {
	switch v := v.(type) {
	case obj:
		if len(v) > 0 && g.r.IntN(3) != 0 {
			o := append(obj(nil), v...)
			i := g.r.IntN(len(o))
			o[i].v = g.mutate(o[i].v)
			return o
		}
	case []any:
		if len(v) > 0 && g.r.IntN(3) != 0 {
			a := append([]any(nil), v...)
			i := g.r.IntN(len(a))
			a[i] = g.mutate(a[i])
			return a
		}
	}
	return g.change(v)
}

// change replaces v with something near it, or of another type.
func (g *instanceGen) change(v any) any {
	switch v := v.(type) {
	case obj:
		switch g.r.IntN(4) {
		case 0:
			if len(v) > 0 { // drop a member
				i := g.r.IntN(len(v))
				return append(append(obj(nil), v[:i]...), v[i+1:]...)
			}
		case 1: // repeat a member, with another value or the same
			if len(v) > 0 {
				m := v[g.r.IntN(len(v))]
				if g.r.IntN(2) == 0 {
					m.v = g.random(1)
				}
				return append(append(obj(nil), v...), m)
			}
		case 2:
			return append(append(obj(nil), v...), kv{g.pick(words), g.random(1)})
		}
	case []any:
		if g.r.IntN(2) == 0 {
			return append(append([]any(nil), v...), g.random(1))
		}
		if len(v) > 0 {
			return v[1:]
		}
	case json.Number:
		f, _ := v.Float64()
		delta := []float64{1, -1, 0.5, -0.5, 1e-9, 100}[g.r.IntN(6)]
		return json.Number(strconv.FormatFloat(f+delta, 'g', -1, 64))
	case string:
		if g.r.IntN(2) == 0 {
			return v + g.pick([]string{"x", "é", "😀"})
		}
	}
	return g.random(1)
}

// write appends v as JSON, choosing among the ways to write it.
func (g *instanceGen) write(b []byte, v any) []byte {
	space := func() {
		if g.r.IntN(6) == 0 {
			b = append(b, g.pick([]string{" ", "\n", "\t ", "\r\n  "})...)
		}
	}
	switch v := v.(type) {
	case nil:
		b = append(b, "null"...)
	case bool:
		b = strconv.AppendBool(b, v)
	case json.Number:
		b = g.writeNumber(b, string(v))
	case string:
		b = g.writeString(b, v)
	case []any:
		b = append(b, '[')
		for i, e := range v {
			if i > 0 {
				b = append(b, ',')
			}
			space()
			b = g.write(b, e)
			space()
		}
		b = append(b, ']')
	case obj:
		b = append(b, '{')
		for i, m := range v {
			if i > 0 {
				b = append(b, ',')
			}
			space()
			b = g.writeString(b, m.k)
			space()
			b = append(b, ':')
			space()
			b = g.write(b, m.v)
		}
		space()
		b = append(b, '}')
	default:
		panic(fmt.Sprintf("%T", v))
	}
	return b
}

// writeNumber writes n, or the same number written otherwise: 2 as 2.0, 2e0 or 20E-1.
func (g *instanceGen) writeNumber(b []byte, n string) []byte {
	if strings.ContainsAny(n, ".eE") || g.r.IntN(2) == 0 {
		return append(b, n...)
	}
	switch g.r.IntN(4) {
	case 0:
		return append(b, n+".0"...)
	case 1:
		return append(b, n+"e0"...)
	case 2:
		return append(b, n+"0E-1"...)
	}
	return append(b, n+".000e+00"...)
}

// writeString writes s, escaping some characters that need no escape.
func (g *instanceGen) writeString(b []byte, s string) []byte {
	b = append(b, '"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b = append(b, '\\', byte(r))
		case r < 0x20 || g.r.IntN(8) == 0:
			if r == '\n' && g.r.IntN(2) == 0 {
				b = append(b, `\n`...)
				continue
			}
			if r == '/' {
				b = append(b, `\/`...)
				continue
			}
			if r >= 0x10000 {
				r1, r2 := surrogates(r)
				b = fmt.Appendf(b, `\u%04x\u%04X`, r1, r2)
				continue
			}
			b = fmt.Appendf(b, `\u%04x`, r)
		default:
			b = utf8.AppendRune(b, r)
		}
	}
	return append(b, '"')
}

func surrogates(r rune) (rune, rune) {
	r -= 0x10000
	return 0xd800 + r>>10, 0xdc00 + r&0x3ff
}

// corrupt changes the bytes of an instance so that it is no longer JSON, or becomes JSON the
// fast path may not decide.
func (g *instanceGen) corrupt(b []byte) []byte {
	switch g.r.IntN(9) {
	case 0:
		return b[:g.r.IntN(len(b)+1)] // truncated
	case 1:
		return append(b, g.pick([]string{"x", "}", " 1", ",", " {}", "\x00"})...)
	case 2: // invalid UTF-8, or a lone surrogate, in the first string
		if i := strings.IndexByte(string(b), '"'); i >= 0 {
			bad := g.pick([]string{"\xff", "\xed\xa0\x80", `\ud800`, `\udc00x`, "\x1f", `\x`})
			return append(append(append([]byte(nil), b[:i+1]...), bad...), b[i+1:]...)
		}
	case 3: // deep nesting
		n := maxDepth - 5 + g.r.IntN(10)
		return []byte(strings.Repeat("[", n) + string(b) + strings.Repeat("]", n))
	case 4:
		return append([]byte("\ufeff"), b...)
	case 5: // a long number
		return fmt.Appendf(nil, `[%s, 1%se5]`, b, strings.Repeat("0", 50))
	case 6:
		return append(b, b...)
	case 7: // a byte changed
		if len(b) > 0 {
			c := append([]byte(nil), b...)
			c[g.r.IntN(len(c))] = g.pick([]string{"{", "]", ":", "0", "-", "e", ".", `"`, "\\", " "})[0]
			return c
		}
	}
	return []byte(" \n")
}
