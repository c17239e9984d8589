package llmtest

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"math/big"
	"math/rand/v2"
	"regexp"
	"regexp/syntax"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/cadrehq/cadre/internal/ojson"
)

// This file generates a JSON value that matches a JSON Schema document, for Synthetic.

const (
	// cheapRefs is how many $refs a value may be nested in before the generator picks the
	// cheapest value (no optional property, the fewest items, null where allowed): it ends
	// recursive types.
	cheapRefs = 3
	// maxNesting stops a schema that has no finite value (a required property of its own type).
	maxNesting = 64
)

// generateValue returns a JSON value that matches the schema doc, from seed and name.
func generateValue(doc []byte, seed uint64, name string) ([]byte, error) {
	root, err := ojson.Parse(doc)
	if err != nil {
		return nil, fmt.Errorf("its schema is not JSON: %w", err)
	}
	h := fnv.New64a()
	h.Write([]byte(name))
	g := &generator{root: root, rng: rand.New(rand.NewPCG(seed, h.Sum64()))}
	return ojson.Encode(g.value(root, 0, 0)), nil
}

// without returns a shallow copy of o without the keys.
func without(o *ojson.Object, keys ...string) *ojson.Object {
	c := &ojson.Object{Members: make([]ojson.Member, 0, len(o.Members))}
	for _, m := range o.Members {
		if !slices.Contains(keys, m.Key) {
			c.Members = append(c.Members, m)
		}
	}
	return c
}

// allOf returns the schema {"allOf": schemas}.
func allOf(schemas ...any) *ojson.Object {
	return &ojson.Object{Members: []ojson.Member{{Key: "allOf", Value: schemas}}}
}

type generator struct {
	root any
	rng  *rand.Rand
}

// value returns a value for the schema s; refs counts the $refs followed to reach s, depth the
// values it is nested in.
func (g *generator) value(s any, refs, depth int) any {
	if depth > maxNesting {
		return nil
	}
	o := g.resolve(s, &refs)
	if o == nil {
		return nil // false, or a $ref to nowhere: no value is right
	}
	cheap := refs > cheapRefs
	if o.Has("const") {
		return o.Get("const")
	}
	if e, ok := o.Get("enum").([]any); ok && len(e) > 0 {
		return g.pickEnum(o, e, cheap)
	}
	for _, k := range []string{"anyOf", "oneOf"} {
		if branches, ok := o.Get(k).([]any); ok && len(branches) > 0 {
			b := g.branch(branches, cheap, &refs)
			if b == nil {
				return nil
			}
			return g.value(merge(without(o, k), b), refs, depth)
		}
	}
	switch g.typeOf(o, cheap) {
	case "null":
		return nil
	case "boolean":
		return g.rng.IntN(2) == 0
	case "object":
		return g.object(o, refs, depth, cheap)
	case "array":
		return g.array(o, refs, depth, cheap)
	case "integer":
		return g.number(o, true)
	case "number":
		return g.number(o, false)
	}
	return g.string(o)
}

// resolve returns s as an object schema with its $ref and allOf merged in; nil for the schema
// false. Each $ref followed adds to refs.
func (g *generator) resolve(s any, refs *int) *ojson.Object {
	if *refs > maxNesting {
		return nil // a schema that only refers to itself
	}
	switch s := s.(type) {
	case bool:
		if s {
			return &ojson.Object{}
		}
		return nil
	case *ojson.Object:
		o := s
		for n := 0; o.Has("$ref"); n++ {
			ref, _ := o.Get("$ref").(string)
			target := g.lookup(ref)
			if target == nil || n > maxNesting {
				return nil
			}
			*refs++
			o = merge(without(o, "$ref"), target)
		}
		if all, ok := o.Get("allOf").([]any); ok {
			o = without(o, "allOf")
			for _, b := range all {
				r := g.resolve(b, refs)
				if r == nil {
					return nil
				}
				o = merge(o, r)
			}
			return g.resolve(o, refs) // a branch may have brought a $ref or an allOf
		}
		return o
	}
	return &ojson.Object{} // not a schema: anything goes
}

// lookup resolves a reference within the document: "#", or a JSON pointer such as
// "#/$defs/Node" or "#/definitions/Node". It returns nil for anything else.
func (g *generator) lookup(ref string) *ojson.Object {
	ptr, ok := strings.CutPrefix(ref, "#")
	if !ok {
		return nil
	}
	cur := g.root
	if ptr != "" {
		for _, tok := range strings.Split(strings.TrimPrefix(ptr, "/"), "/") {
			tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
			switch c := cur.(type) {
			case *ojson.Object:
				cur = c.Get(tok)
			case []any:
				i, err := strconv.Atoi(tok)
				if err != nil || i < 0 || i >= len(c) {
					return nil
				}
				cur = c[i]
			default:
				return nil
			}
		}
	}
	switch c := cur.(type) {
	case *ojson.Object:
		return c
	case bool:
		if c {
			return &ojson.Object{}
		}
	}
	return nil
}

// merge returns the keywords of a and b as one schema, as allOf would have them: properties
// and required lists are joined, the tighter bound is kept, a type common to both is kept, and
// for any other keyword a's wins.
func merge(a, b *ojson.Object) *ojson.Object {
	out := without(a)
	for _, m := range b.Members {
		k, bv := m.Key, m.Value
		if !out.Has(k) {
			out.Set(k, bv)
			continue
		}
		av := out.Get(k)
		switch k {
		case "properties":
			ap, ok1 := av.(*ojson.Object)
			bp, ok2 := bv.(*ojson.Object)
			if !ok1 || !ok2 {
				continue
			}
			props := without(ap)
			for _, p := range bp.Members {
				if ap, ok := props.Lookup(p.Key); ok {
					props.Set(p.Key, allOf(ap, p.Value))
				} else {
					props.Set(p.Key, p.Value)
				}
			}
			out.Set(k, props)
		case "required":
			ar, _ := av.([]any)
			br, _ := bv.([]any)
			req := slices.Clone(ar)
			for _, n := range br {
				if !slices.Contains(req, n) {
					req = append(req, n)
				}
			}
			out.Set(k, req)
		case "minimum", "exclusiveMinimum", "minLength", "minItems", "minProperties":
			if x, y, ok := bothNumbers(av, bv); ok && y.Cmp(x) > 0 {
				out.Set(k, bv)
			}
		case "maximum", "exclusiveMaximum", "maxLength", "maxItems", "maxProperties":
			if x, y, ok := bothNumbers(av, bv); ok && y.Cmp(x) < 0 {
				out.Set(k, bv)
			}
		case "type":
			if common := commonTypes(typeList(av), typeList(bv)); len(common) > 0 {
				out.Set(k, common)
			}
		case "additionalProperties":
			if bv == false {
				out.Set(k, false)
			}
		}
	}
	return out
}

func bothNumbers(a, b any) (*big.Rat, *big.Rat, bool) {
	x, ok1 := ratOf(a)
	y, ok2 := ratOf(b)
	return x, y, ok1 && ok2
}

func typeList(v any) []any {
	if list, ok := v.([]any); ok {
		return list
	}
	return []any{v}
}

// commonTypes returns the types in both a and b; an integer is a number.
func commonTypes(a, b []any) []any {
	var out []any
	for _, t := range a {
		switch {
		case slices.Contains(b, t):
			out = append(out, t)
		case t == "integer" && slices.Contains(b, "number"), t == "number" && slices.Contains(b, "integer"):
			out = append(out, "integer")
		}
	}
	return out
}

// isNull reports whether the schema s only allows null.
func isNull(s any) bool {
	o, ok := s.(*ojson.Object)
	if !ok {
		return false
	}
	if o.Has("const") {
		return o.Get("const") == nil
	}
	t := typeList(o.Get("type"))
	return len(t) == 1 && t[0] == "null"
}

// branch picks the anyOf or oneOf branch to generate from: the first that is not null, or the
// null one when the value should be cheap.
func (g *generator) branch(branches []any, cheap bool, refs *int) *ojson.Object {
	pick := -1
	for i, b := range branches {
		if isNull(b) == cheap {
			pick = i
			break
		}
	}
	if pick < 0 {
		pick = 0
	}
	return g.resolve(branches[pick], refs)
}

// pickEnum picks one of the values of enum that fit the schema's type, at random; null only
// when nothing else fits or when the value should be cheap.
func (g *generator) pickEnum(o *ojson.Object, enum []any, cheap bool) any {
	types := typeList(o.Get("type"))
	if !o.Has("type") {
		types = nil
	}
	var fit []any
	for _, v := range enum {
		if v == nil {
			if cheap {
				return nil
			}
			continue
		}
		t := jsonType(v)
		if types == nil || slices.Contains(types, any(t)) || t == "integer" && slices.Contains(types, any("number")) {
			fit = append(fit, v)
		}
	}
	if len(fit) == 0 {
		return enum[0]
	}
	return fit[g.rng.IntN(len(fit))]
}

func jsonType(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case json.Number:
		if r, ok := ratOf(v); ok && r.IsInt() {
			return "integer"
		}
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	}
	return "object"
}

// typeOf returns the type of value to generate: the first type listed that is not null (null
// when the value should be cheap and null is allowed), else the type the keywords suggest.
func (g *generator) typeOf(o *ojson.Object, cheap bool) string {
	if t := o.Get("type"); t != nil {
		list := typeList(t)
		if cheap && (slices.Contains(list, "null") || o.Get("nullable") == true) {
			return "null"
		}
		for _, t := range list {
			if s, ok := t.(string); ok && s != "null" {
				return s
			}
		}
		return "null"
	}
	if cheap && o.Get("nullable") == true {
		return "null"
	}
	has := func(keys ...string) bool { return slices.ContainsFunc(keys, o.Has) }
	switch {
	case has("properties", "required", "additionalProperties", "patternProperties", "minProperties", "maxProperties", "propertyNames"):
		return "object"
	case has("items", "prefixItems", "minItems", "maxItems", "contains", "uniqueItems"):
		return "array"
	case has("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"):
		return "number"
	}
	return "string" // also for {}: any value would do
}

func (g *generator) object(o *ojson.Object, refs, depth int, cheap bool) any {
	props, _ := o.Get("properties").(*ojson.Object)
	required := map[string]bool{}
	var names []string // required, in order
	for _, r := range asList(o.Get("required")) {
		if s, ok := r.(string); ok && !required[s] {
			required[s] = true
			names = append(names, s)
		}
	}
	out := &ojson.Object{Members: make([]ojson.Member, 0, len(names))}
	if props != nil {
		for _, p := range props.Members {
			if !required[p.Key] && (cheap || p.Value == false) {
				continue
			}
			out.Set(p.Key, g.value(p.Value, refs, depth+1))
		}
	}
	addl := o.Get("additionalProperties")
	for _, k := range names {
		if !out.Has(k) {
			out.Set(k, g.value(g.otherProperty(o, k), refs, depth+1))
		}
	}
	want := count(o.Get("minProperties"), 0)
	if _, isSchema := addl.(*ojson.Object); isSchema && props == nil && !cheap {
		want = max(want, 1) // a map: give it an entry
	}
	_, patterned := o.Get("patternProperties").(*ojson.Object)
	if addl != false || patterned {
		for i := 1; len(out.Members) < want && i < want+16; i++ {
			k := g.propertyName(o, i)
			if !out.Has(k) {
				out.Set(k, g.value(g.otherProperty(o, k), refs, depth+1))
			}
		}
	}
	if limit := count(o.Get("maxProperties"), -1); limit >= 0 {
		for i := len(out.Members) - 1; i >= 0 && len(out.Members) > limit; i-- {
			if k := out.Members[i].Key; !required[k] {
				out.Delete(k)
			}
		}
	}
	return out
}

// otherProperty returns the schema of the property k that is not in "properties".
func (g *generator) otherProperty(o *ojson.Object, k string) any {
	if pp, ok := o.Get("patternProperties").(*ojson.Object); ok {
		for _, p := range pp.Members {
			if re, err := regexp.Compile(p.Key); err == nil && re.MatchString(k) {
				return p.Value
			}
		}
	}
	if a := o.Get("additionalProperties"); a != nil {
		return a
	}
	return true
}

// propertyName returns the name of the i-th added property (from 1): one generated from
// propertyNames, else one that matches the first patternProperties pattern, else "key<i>".
func (g *generator) propertyName(o *ojson.Object, i int) string {
	if pn := o.Get("propertyNames"); pn != nil {
		if s, ok := g.value(pn, 0, maxNesting).(string); ok {
			return s
		}
	}
	fallback := "key" + strconv.Itoa(i)
	if pp, ok := o.Get("patternProperties").(*ojson.Object); ok && len(pp.Members) > 0 {
		if s, ok := g.matching(pp.Members[0].Key, 0, -1, fallback); ok {
			return s
		}
	}
	return fallback
}

func (g *generator) array(o *ojson.Object, refs, depth int, cheap bool) any {
	prefix, _ := o.Get("prefixItems").([]any)
	rest := o.Get("items")
	if tuple, ok := rest.([]any); ok { // draft-07 and before
		prefix, rest = tuple, o.Get("additionalItems")
	}
	if rest == nil {
		rest = true
	}
	n := count(o.Get("minItems"), 0)
	if !cheap {
		n = max(n, 1, len(prefix))
	}
	if limit := count(o.Get("maxItems"), -1); limit >= 0 {
		n = min(n, limit)
	}
	if rest == false {
		n = min(n, len(prefix))
	}
	contains := o.Get("contains")
	if contains != nil && n <= len(prefix) && rest != false {
		n = len(prefix) + 1
	}
	unique := o.Get("uniqueItems") == true
	items := make([]any, 0, n)
	seen := map[string]bool{}
	for i := range n {
		var s any
		switch {
		case i < len(prefix):
			s = prefix[i]
		case i == len(prefix) && contains != nil:
			s = allOf(rest, contains)
		default:
			s = rest
		}
		v := g.value(s, refs, depth+1)
		for try := 0; unique && try < 16; try++ {
			if key := string(ojson.Encode(v)); !seen[key] {
				seen[key] = true
				break
			}
			v = g.value(s, refs, depth+1)
		}
		items = append(items, v)
	}
	return items
}

// word returns one of the words strings are made of, at random.
func (g *generator) word() string {
	return [...]string{"alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliett"}[g.rng.IntN(10)]
}

func (g *generator) string(o *ojson.Object) string {
	minLen := count(o.Get("minLength"), 0)
	maxLen := count(o.Get("maxLength"), -1)
	base := g.words(minLen, maxLen)
	if f, ok := o.Get("format").(string); ok {
		if s, ok := g.formatted(f); ok && fits(s, minLen, maxLen) {
			base = s
		}
	}
	if p, ok := o.Get("pattern").(string); ok {
		if s, ok := g.matching(p, minLen, maxLen, base); ok {
			return s
		}
	}
	return base
}

// fits reports whether s has a length in [minLen, maxLen]; maxLen < 0 means no maximum.
func fits(s string, minLen, maxLen int) bool {
	n := utf8.RuneCountInString(s)
	return n >= minLen && (maxLen < 0 || n <= maxLen)
}

// words returns words separated by spaces, of a length in [minLen, maxLen] (maxLen < 0: no
// maximum).
func (g *generator) words(minLen, maxLen int) string {
	s := g.word()
	for len(s) < minLen {
		s += " " + g.word()
	}
	if maxLen >= 0 && len(s) > maxLen {
		s = strings.TrimRight(s[:maxLen], " ") // the words are ASCII
		for len(s) < minLen {
			s += "x"
		}
	}
	return s
}

// formatted returns a valid value of the format f, when the generator knows f.
func (g *generator) formatted(f string) (string, bool) {
	r := g.rng
	switch f {
	case "date-time":
		return fmt.Sprintf("2024-%02d-%02dT%02d:%02d:%02dZ", 1+r.IntN(12), 1+r.IntN(28), r.IntN(24), r.IntN(60), r.IntN(60)), true
	case "date":
		return fmt.Sprintf("2024-%02d-%02d", 1+r.IntN(12), 1+r.IntN(28)), true
	case "time":
		return fmt.Sprintf("%02d:%02d:%02dZ", r.IntN(24), r.IntN(60), r.IntN(60)), true
	case "duration":
		return fmt.Sprintf("P%dD", 1+r.IntN(30)), true
	case "email", "idn-email":
		return g.word() + "@example.com", true
	case "hostname", "idn-hostname":
		return g.word() + ".example.com", true
	case "uri", "iri", "url":
		return "https://example.com/" + g.word(), true
	case "uri-reference", "iri-reference":
		return "/" + g.word(), true
	case "ipv4":
		return fmt.Sprintf("192.0.2.%d", 1+r.IntN(254)), true
	case "ipv6":
		return fmt.Sprintf("2001:db8::%x", 1+r.IntN(0xfffe)), true
	case "uuid":
		return fmt.Sprintf("%08x-%04x-4%03x-%x%03x-%012x", r.Uint32(), r.IntN(1<<16), r.IntN(1<<12), 8+r.IntN(4), r.IntN(1<<12), r.Int64N(1<<48)), true
	}
	return "", false
}

// matching returns a string that the pattern p (unanchored, as JSON Schema reads it) matches,
// of a length in [minLen, maxLen] (maxLen < 0: no maximum): one derived from p, or one of a few
// common strings. It reports false when it finds none, or when Go cannot read p.
func (g *generator) matching(p string, minLen, maxLen int, base string) (string, bool) {
	re, err := regexp.Compile(p)
	if err != nil {
		return "", false
	}
	candidates := []string{base}
	if tree, err := syntax.Parse(p, syntax.Perl); err == nil {
		tree = tree.Simplify()
		for _, extra := range []int{0, 1, 3, 8, minLen} {
			if s, ok := g.derive(tree, extra); ok {
				candidates = append(candidates, s)
			}
		}
	}
	candidates = append(candidates, "a", "abc", "A1", "1", "123", "2024-01-02", "user@example.com", "")
	for _, s := range candidates {
		if fits(s, minLen, maxLen) && re.MatchString(s) {
			return s, true
		}
	}
	return "", false
}

// derive writes a string the regexp re matches, repeating each repeatable part extra times
// more than its minimum (within its maximum).
func (g *generator) derive(re *syntax.Regexp, extra int) (string, bool) {
	var b strings.Builder
	var walk func(re *syntax.Regexp) bool
	walk = func(re *syntax.Regexp) bool {
		switch re.Op {
		case syntax.OpNoMatch:
			return false
		case syntax.OpLiteral:
			b.WriteString(string(re.Rune))
		case syntax.OpCharClass:
			if len(re.Rune) < 2 {
				return false
			}
			i := 2 * g.rng.IntN(len(re.Rune)/2)
			lo, hi := re.Rune[i], re.Rune[i+1]
			if lo < ' ' && hi >= ' ' {
				lo = ' ' // printable where the class allows it
			}
			b.WriteRune(lo + rune(g.rng.IntN(int(min(hi-lo, 25))+1)))
		case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
			b.WriteByte('a')
		case syntax.OpCapture:
			return walk(re.Sub[0])
		case syntax.OpStar, syntax.OpPlus, syntax.OpQuest, syntax.OpRepeat:
			lo, hi := 0, -1
			switch re.Op {
			case syntax.OpPlus:
				lo = 1
			case syntax.OpQuest:
				hi = 1
			case syntax.OpRepeat:
				lo, hi = re.Min, re.Max
			}
			n := lo + extra
			if hi >= 0 {
				n = min(n, hi)
			}
			for range n {
				if !walk(re.Sub[0]) {
					return false
				}
			}
		case syntax.OpConcat:
			for _, s := range re.Sub {
				if !walk(s) {
					return false
				}
			}
		case syntax.OpAlternate:
			return walk(re.Sub[0])
		}
		return true // anchors, boundaries, the empty string: nothing to write
	}
	if !walk(re) {
		return "", false
	}
	return b.String(), true
}

// number returns a number (an integer when integer is set) within the schema's bounds and a
// multiple of its multipleOf, picked at random, preferably among integers.
func (g *generator) number(o *ojson.Object, integer bool) json.Number {
	lo, loEx := bound(o, "minimum", "exclusiveMinimum", -1)
	hi, hiEx := bound(o, "maximum", "exclusiveMaximum", 1)

	step := big.NewRat(1, 1)
	m, hasStep := ratOf(o.Get("multipleOf"))
	if hasStep && m.Sign() > 0 {
		step = m
		if integer && !m.IsInt() {
			// k·p/q (in lowest terms) is an integer exactly when k is a multiple of q.
			step = new(big.Rat).SetInt(m.Num())
		}
	} else {
		hasStep = false
	}

	// Multiples k·step with k in [kLo, kHi].
	var kLo, kHi *big.Int
	if lo != nil {
		kLo = ceilDiv(lo, step, loEx)
	}
	if hi != nil {
		kHi = floorDiv(hi, step, hiEx)
	}
	span := new(big.Rat).Quo(big.NewRat(100, 1), step) // an open side gets about 100 of room
	spanK := new(big.Int).Quo(span.Num(), span.Denom())
	if spanK.Sign() == 0 {
		spanK.SetInt64(1)
	}
	switch {
	case kLo == nil && kHi == nil:
		kLo, kHi = new(big.Int), spanK
	case kLo == nil:
		kLo = new(big.Int).Sub(kHi, spanK)
	case kHi == nil:
		kHi = new(big.Int).Add(kLo, spanK)
	}
	if kLo.Cmp(kHi) > 0 {
		if !integer && !hasStep && lo != nil && hi != nil {
			mid := new(big.Rat).Add(lo, hi)
			return ratNumber(mid.Quo(mid, big.NewRat(2, 1)))
		}
		if lo != nil {
			return ratNumber(lo) // no value fits
		}
		return ratNumber(hi)
	}
	k := new(big.Int).Sub(kHi, kLo)
	if k.IsInt64() && k.Int64() < 1<<62 {
		k.SetInt64(g.rng.Int64N(k.Int64() + 1))
	} else {
		k.SetInt64(g.rng.Int64N(101))
	}
	k.Add(k, kLo)
	return ratNumber(new(big.Rat).Mul(new(big.Rat).SetInt(k), step))
}

// bound returns the tighter of the inclusive and the exclusive bound named, and whether it is
// exclusive; dir is -1 for a lower bound and 1 for an upper one. A boolean exclusive keyword
// (draft 4) makes the inclusive bound exclusive.
func bound(o *ojson.Object, inclusive, exclusive string, dir int) (*big.Rat, bool) {
	v, ok := ratOf(o.Get(inclusive))
	if !ok {
		v = nil
	}
	switch e := o.Get(exclusive).(type) {
	case bool:
		return v, e && v != nil
	case json.Number:
		x, ok := ratOf(e)
		if ok && (v == nil || x.Cmp(v)*dir <= 0) {
			return x, true
		}
	}
	return v, false
}

// ceilDiv returns the least k with k·step ≥ r (> r when strict).
func ceilDiv(r, step *big.Rat, strict bool) *big.Int {
	q := new(big.Rat).Quo(r, step)
	k := new(big.Int).Div(q.Num(), q.Denom()) // Euclidean: floor for a positive divisor
	if !q.IsInt() || strict {
		k.Add(k, big.NewInt(1))
	}
	return k
}

// floorDiv returns the greatest k with k·step ≤ r (< r when strict).
func floorDiv(r, step *big.Rat, strict bool) *big.Int {
	q := new(big.Rat).Quo(r, step)
	k := new(big.Int).Div(q.Num(), q.Denom())
	if q.IsInt() && strict {
		k.Sub(k, big.NewInt(1))
	}
	return k
}

// ratNumber writes r as a JSON number: exactly when its decimal expansion ends.
func ratNumber(r *big.Rat) json.Number {
	if r.IsInt() {
		return json.Number(r.Num().String())
	}
	for digits := 1; digits <= 40; digits++ {
		s := r.FloatString(digits)
		if x, ok := new(big.Rat).SetString(s); ok && x.Cmp(r) == 0 {
			return json.Number(s)
		}
	}
	return json.Number(r.FloatString(40))
}

func ratOf(v any) (*big.Rat, bool) {
	n, ok := v.(json.Number)
	if !ok {
		return nil, false
	}
	return new(big.Rat).SetString(string(n))
}

// count reads a non-negative integer keyword, or returns def.
func count(v any, def int) int {
	r, ok := ratOf(v)
	if !ok || r.Sign() < 0 {
		return def
	}
	n := new(big.Int).Quo(r.Num(), r.Denom())
	if !n.IsInt64() || n.Int64() > 1<<20 {
		return 1 << 20
	}
	return int(n.Int64())
}

func asList(v any) []any {
	list, _ := v.([]any)
	return list
}
