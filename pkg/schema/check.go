package schema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/big"
	"regexp"
	"strings"

	"github.com/cadrehq/cadre/internal/ojson"
)

// A checker is the fast path of Validate: a schema compiled into a tree that checks data in one
// pass over its bytes (see scan.go), allocating nothing. It exists only when every keyword of
// the document is one it decides exactly as santhosh-tekuri/jsonschema/v6 does (see
// newChecker), and Validate uses only its "valid" answers: invalid data, and data it cannot
// decide, go to v6, which decides and words the errors. So the fast path changes how fast
// Validate answers, never what it answers.
//
// A check has three outcomes, not two, because "not" and "oneOf" turn a failing subschema into a
// passing one: a check may say invalid only when v6 would too.

type verdict uint8

const (
	valid   verdict = iota
	unsure          // not decided here: v6 decides
	invalid         // v6 rejects the value too
)

// and is the verdict of two checks that must both pass.
func and(a, b verdict) verdict { return max(a, b) }

// types is a set of JSON types.
type types uint8

const (
	typeNull types = 1 << iota
	typeBoolean
	typeObject
	typeArray
	typeNumber
	typeInteger // a number with no fraction, such as 1, 1.0 or 1e2
	typeString
)

type checker struct {
	never  bool         // the schema false
	types  types        // 0: any type
	values [][]constant // from enum and const: the value must equal one of each list

	minimum, maximum, exclusiveMinimum, exclusiveMaximum, multipleOf *decimal

	minLength, maxLength int // in characters; -1: no bound
	pattern              *regexp.Regexp

	prefixItems        []*checker // a nil entry accepts anything
	items              *checker   // nil: any
	minItems, maxItems int        // -1: no bound

	properties                   []property // the names in "properties" and in "required"
	required                     uint64     // bit i: properties[i] is required
	additional                   *checker   // nil: any
	minProperties, maxProperties int        // -1: no bound

	allOf, anyOf, oneOf []*checker // allOf holds the target of "$ref" too
	not                 *checker
}

type property struct {
	name   string
	schema *checker // nil when the name is only in "required"
}

// constant is a value of enum or const.
type constant struct {
	t   types // typeNull, typeBoolean, typeNumber or typeString
	b   bool
	num decimal
	str string
}

// maxTracked is the most names "properties" and "required" of one schema may have together
// for the fast path: it tracks which it has seen in a uint64.
const maxTracked = 64

// newChecker compiles the document tree, which it does not modify, into a checker. draft is the
// draft v6 compiled the document with. It returns an error naming what is outside the subset the
// fast path decides exactly:
//   - drafts 2020-12 and 07 only (in draft-07, "$ref" makes the other keywords of its schema
//     ignored, and "format" is asserted, so it is outside the subset);
//   - type, enum and const (of null, booleans, numbers and strings), minimum, maximum,
//     exclusiveMinimum, exclusiveMaximum, multipleOf, minLength, maxLength, pattern (v6 matches
//     it with Go's regexp, as here), properties, required, additionalProperties, items (a
//     schema), prefixItems, minItems, maxItems, uniqueItems false, minProperties,
//     maxProperties, allOf, anyOf, oneOf, not;
//   - "$ref" to "#", "#/$defs/name" or "#/definitions/name", recursion included, but no cycle of
//     references that does not read into the value (v6 reports those as errors);
//   - the annotations title, description, default, examples, $comment, deprecated, readOnly,
//     writeOnly, contentEncoding and contentMediaType (v6 asserts no content), and format in
//     2020-12 (where v6 does not assert it); $schema, $id, $defs and definitions at the root.
func newChecker(tree any, draft int) (*checker, error) {
	if draft != 2020 && draft != 7 {
		return nil, fmt.Errorf("draft %d", draft)
	}
	cc := &checkCompiler{draft7: draft == 7, defs: map[string]*checker{}}
	root := cc.new()
	cc.defs[""] = root
	var defs []ojson.Member // with keys "$defs/name" and "definitions/name"
	if o, ok := tree.(*ojson.Object); ok {
		for _, k := range []string{"$defs", "definitions"} {
			v, ok := o.Lookup(k)
			if !ok {
				continue
			}
			named, ok := v.(*ojson.Object)
			if !ok {
				return nil, fmt.Errorf("%s is not an object", k)
			}
			for _, m := range named.Members {
				defs = append(defs, ojson.Member{Key: k + "/" + m.Key, Value: m.Value})
				cc.defs[k+"/"+m.Key] = cc.new()
			}
		}
	}
	for _, d := range defs {
		cc.fill(cc.defs[d.Key], d.Value, false)
	}
	cc.fill(root, tree, true)
	if cc.err != nil {
		return nil, cc.err
	}
	if loops(cc.all) {
		return nil, fmt.Errorf("a cycle of references that reads nothing")
	}
	return root, nil
}

type checkCompiler struct {
	draft7 bool
	defs   map[string]*checker // by "$defs/name" or "definitions/name"; "" is the root
	all    []*checker
	err    error // the first keyword outside the subset
}

func (cc *checkCompiler) fail(format string, args ...any) {
	if cc.err == nil {
		cc.err = fmt.Errorf(format, args...)
	}
}

func (cc *checkCompiler) new() *checker {
	c := &checker{minLength: -1, maxLength: -1, minItems: -1, maxItems: -1, minProperties: -1, maxProperties: -1}
	cc.all = append(cc.all, c)
	return c
}

// schema compiles the subschema v.
func (cc *checkCompiler) schema(v any) *checker {
	c := cc.new()
	cc.fill(c, v, false)
	return c
}

// optional compiles the subschema v, or returns nil when v is true.
func (cc *checkCompiler) optional(v any) *checker {
	if v == true {
		return nil
	}
	return cc.schema(v)
}

func (cc *checkCompiler) list(v any) []*checker {
	arr, ok := v.([]any)
	if !ok {
		cc.fail("a list of schemas is %T", v)
	}
	out := make([]*checker, len(arr))
	for i, e := range arr {
		out[i] = cc.schema(e)
	}
	return out
}

// fill compiles the schema v into c.
func (cc *checkCompiler) fill(c *checker, v any, root bool) {
	o, ok := v.(*ojson.Object)
	if !ok {
		b, ok := v.(bool)
		if !ok {
			cc.fail("a schema is %T", v)
		}
		c.never = !b
		return
	}
	if ref, ok := o.Lookup("$ref"); ok && cc.draft7 {
		c.allOf = []*checker{cc.ref(ref)} // the other keywords are ignored
		return
	}
	var required []string
	for _, m := range o.Members {
		switch m.Key {
		case "title", "description", "$comment", "default", "examples", "deprecated", "readOnly",
			"writeOnly", "contentEncoding", "contentMediaType":
		case "format":
			if cc.draft7 {
				cc.fail("format in draft-07")
			}
		case "$schema", "$id", "$defs", "definitions":
			if !root {
				cc.fail("%s below the root", m.Key)
			}
		case "type":
			c.types = cc.types(m.Value)
		case "enum":
			arr, _ := m.Value.([]any)
			c.values = append(c.values, cc.constants(arr))
		case "const":
			c.values = append(c.values, cc.constants([]any{m.Value}))
		case "minimum":
			c.minimum = cc.number(m)
		case "maximum":
			c.maximum = cc.number(m)
		case "exclusiveMinimum":
			c.exclusiveMinimum = cc.number(m)
		case "exclusiveMaximum":
			c.exclusiveMaximum = cc.number(m)
		case "multipleOf":
			if c.multipleOf = cc.number(m); c.multipleOf != nil && c.multipleOf.sign() <= 0 {
				cc.fail("multipleOf %v", m.Value)
			}
		case "minLength":
			c.minLength = cc.count(m)
		case "maxLength":
			c.maxLength = cc.count(m)
		case "pattern":
			pat, _ := m.Value.(string)
			re, err := regexp.Compile(pat) // as v6 compiles it
			if err != nil {
				cc.fail("pattern: %v", err)
			}
			c.pattern = re
		case "minItems":
			c.minItems = cc.count(m)
		case "maxItems":
			c.maxItems = cc.count(m)
		case "uniqueItems":
			if m.Value != false {
				cc.fail("uniqueItems")
			}
		case "items":
			if _, isList := m.Value.([]any); isList {
				cc.fail("items as a list")
			}
			c.items = cc.optional(m.Value)
		case "prefixItems":
			if cc.draft7 {
				cc.fail("prefixItems in draft-07")
			}
			arr, _ := m.Value.([]any)
			for _, e := range arr {
				c.prefixItems = append(c.prefixItems, cc.optional(e))
			}
		case "minProperties":
			c.minProperties = cc.count(m)
		case "maxProperties":
			c.maxProperties = cc.count(m)
		case "properties":
			named, ok := m.Value.(*ojson.Object)
			if !ok {
				cc.fail("properties is %T", m.Value)
				break
			}
			for _, p := range named.Members {
				c.properties = append(c.properties, property{p.Key, cc.schema(p.Value)})
			}
		case "required":
			arr, _ := m.Value.([]any)
			for _, name := range arr {
				s, _ := name.(string)
				required = append(required, s)
			}
		case "additionalProperties":
			c.additional = cc.optional(m.Value)
		case "allOf":
			c.allOf = append(c.allOf, cc.list(m.Value)...)
		case "anyOf":
			c.anyOf = cc.list(m.Value)
		case "oneOf":
			c.oneOf = cc.list(m.Value)
		case "not":
			c.not = cc.schema(m.Value)
		case "$ref":
			c.allOf = append(c.allOf, cc.ref(m.Value))
		default:
			cc.fail("keyword %q", m.Key)
		}
	}
	cc.require(c, required)
}

// require adds the required names to c.properties and marks them in c.required.
func (cc *checkCompiler) require(c *checker, names []string) {
	for _, name := range names {
		i := 0
		for i < len(c.properties) && c.properties[i].name != name {
			i++
		}
		if i == len(c.properties) {
			c.properties = append(c.properties, property{name: name})
		}
		if i < maxTracked {
			c.required |= 1 << i
		}
	}
	if len(c.properties) > maxTracked {
		cc.fail("more than %d properties", maxTracked)
	}
}

func (cc *checkCompiler) ref(v any) *checker {
	ref, _ := v.(string)
	if ref == "#" {
		return cc.defs[""]
	}
	for _, k := range []string{"$defs", "definitions"} {
		name, ok := strings.CutPrefix(ref, "#/"+k+"/")
		if ok && !strings.ContainsAny(name, "~%/") && cc.defs[k+"/"+name] != nil {
			return cc.defs[k+"/"+name]
		}
	}
	cc.fail("$ref %q", ref)
	return cc.new()
}

func (cc *checkCompiler) types(v any) types {
	var names []any
	switch v := v.(type) {
	case string:
		names = []any{v}
	case []any:
		names = v
	}
	var t types
	for _, name := range names {
		switch name {
		case "null":
			t |= typeNull
		case "boolean":
			t |= typeBoolean
		case "object":
			t |= typeObject
		case "array":
			t |= typeArray
		case "number":
			t |= typeNumber
		case "integer":
			t |= typeInteger
		case "string":
			t |= typeString
		default:
			cc.fail("type %v", name)
		}
	}
	return t
}

func (cc *checkCompiler) constants(arr []any) []constant {
	out := make([]constant, len(arr))
	for i, v := range arr {
		switch v := v.(type) {
		case nil:
			out[i].t = typeNull
		case bool:
			out[i] = constant{t: typeBoolean, b: v}
		case string:
			out[i] = constant{t: typeString, str: v}
		case json.Number:
			d, ok := parseDecimal([]byte(v))
			if !ok {
				cc.fail("enum or const %s", v)
			}
			out[i] = constant{t: typeNumber, num: d}
		default:
			cc.fail("enum or const of %T", v) // objects and arrays
		}
	}
	return out
}

func (cc *checkCompiler) number(m ojson.Member) *decimal {
	n, _ := m.Value.(json.Number)
	d, ok := parseDecimal([]byte(n))
	if n == "" || !ok {
		cc.fail("%s %v", m.Key, m.Value)
		return nil
	}
	return &d
}

// count reads a non-negative integer the way v6 does (2.0 is 2).
func (cc *checkCompiler) count(m ojson.Member) int {
	n, _ := m.Value.(json.Number)
	r, ok := new(big.Rat).SetString(string(n))
	if !ok || !r.IsInt() || r.Sign() < 0 || !r.Num().IsInt64() || r.Num().Int64() > 1<<31 {
		cc.fail("%s %v", m.Key, m.Value)
		return -1
	}
	return int(r.Num().Int64())
}

// loops reports whether a checker reaches itself through allOf, anyOf, oneOf, not and $ref
// alone, without reading into the value: v6 reports such a cycle as an error.
func loops(all []*checker) bool {
	const (
		visiting = 1
		done     = 2
	)
	state := map[*checker]int{}
	var visit func(c *checker) bool
	visit = func(c *checker) bool {
		switch state[c] {
		case visiting:
			return true
		case done:
			return false
		}
		state[c] = visiting
		subs := append(append(append([]*checker{c.not}, c.allOf...), c.anyOf...), c.oneOf...)
		for _, sub := range subs {
			if sub != nil && visit(sub) {
				return true
			}
		}
		state[c] = done
		return false
	}
	for _, c := range all {
		if visit(c) {
			return true
		}
	}
	return false
}

// verdict checks that data is one JSON value, with only white space around it, that matches
// the schema.
func (c *checker) verdict(data []byte) verdict {
	s := scanner{data: data}
	s.skipSpace()
	v := c.check(&s, 0)
	s.skipSpace()
	if s.fail || s.i != len(data) {
		return unsure
	}
	return v
}

// check reads one value and checks it against c and its subschemas; each subschema that applies
// to the value itself reads the value again.
func (c *checker) check(s *scanner, depth int) verdict {
	start := s.i
	v := c.value(s, depth)
	end := s.i
	for _, sub := range c.allOf {
		if v == invalid || s.fail {
			break
		}
		s.i = start
		v = and(v, sub.check(s, depth))
	}
	if len(c.anyOf) > 0 && v != invalid && !s.fail {
		v = and(v, anyOf(c.anyOf, s, start, depth))
	}
	if len(c.oneOf) > 0 && v != invalid && !s.fail {
		v = and(v, oneOf(c.oneOf, s, start, depth))
	}
	if c.not != nil && v != invalid && !s.fail {
		s.i = start
		switch c.not.check(s, depth) {
		case valid:
			v = invalid
		case unsure:
			v = unsure
		}
	}
	if s.fail {
		return unsure
	}
	s.i = end
	return v
}

func anyOf(subs []*checker, s *scanner, start, depth int) verdict {
	v := invalid
	for _, sub := range subs {
		s.i = start
		switch sub.check(s, depth) {
		case valid:
			return valid
		case unsure:
			v = unsure
		}
	}
	return v
}

func oneOf(subs []*checker, s *scanner, start, depth int) verdict {
	matched, undecided := 0, false
	for _, sub := range subs {
		s.i = start
		switch sub.check(s, depth) {
		case valid:
			if matched++; matched > 1 {
				return invalid
			}
		case unsure:
			undecided = true
		}
	}
	switch {
	case undecided:
		return unsure
	case matched == 1:
		return valid
	}
	return invalid
}

// value reads one value and checks it against the keywords of c that are not subschemas of
// the value itself.
func (c *checker) value(s *scanner, depth int) verdict {
	if depth > maxDepth {
		s.fail = true
		return unsure
	}
	if c.never {
		s.skip(depth)
		return invalid
	}
	switch s.peek() {
	case '{':
		if !c.allows(typeObject) || len(c.values) > 0 { // enum and const hold no objects
			s.skip(depth)
			return invalid
		}
		return c.object(s, depth)
	case '[':
		if !c.allows(typeArray) || len(c.values) > 0 {
			s.skip(depth)
			return invalid
		}
		return c.array(s, depth)
	case '"':
		raw, escaped, runes := s.str()
		if s.fail {
			return unsure
		}
		return c.string(raw, escaped, runes)
	case 't', 'f', 'n':
		t, b := s.literal()
		if s.fail {
			return unsure
		}
		if !c.allows(t) || !c.listed(t, b, nil, nil, false) {
			return invalid
		}
		return valid
	}
	d := s.num()
	if s.fail {
		return unsure
	}
	return c.number(&d)
}

func (c *checker) allows(t types) bool { return c.types == 0 || c.types&t != 0 }

// listed reports whether the value is one of each list of c.values; num is set for a number,
// raw and escaped for a string.
func (c *checker) listed(t types, b bool, num *decimal, raw []byte, escaped bool) bool {
	for _, list := range c.values {
		found := false
		for i := 0; i < len(list) && !found; i++ {
			w := &list[i]
			if w.t != t {
				continue
			}
			switch t {
			case typeNull:
				found = true
			case typeBoolean:
				found = w.b == b
			case typeNumber:
				found = w.num.cmp(num) == 0
			case typeString:
				found = equalString(raw, escaped, w.str)
			}
		}
		if !found {
			return false
		}
	}
	return true
}

func (c *checker) number(d *decimal) verdict {
	switch {
	case !c.allows(typeNumber) && !(c.allows(typeInteger) && d.isInteger()),
		!c.listed(typeNumber, false, d, nil, false),
		c.minimum != nil && d.cmp(c.minimum) < 0,
		c.maximum != nil && d.cmp(c.maximum) > 0,
		c.exclusiveMinimum != nil && d.cmp(c.exclusiveMinimum) <= 0,
		c.exclusiveMaximum != nil && d.cmp(c.exclusiveMaximum) >= 0:
		return invalid
	}
	if c.multipleOf != nil {
		yes, sure := d.multipleOf(c.multipleOf)
		switch {
		case !sure:
			return unsure
		case !yes:
			return invalid
		}
	}
	return valid
}

func (c *checker) string(raw []byte, escaped bool, runes int) verdict {
	switch {
	case !c.allows(typeString),
		!c.listed(typeString, false, nil, raw, escaped),
		c.minLength >= 0 && runes < c.minLength,
		c.maxLength >= 0 && runes > c.maxLength:
		return invalid
	}
	if c.pattern != nil {
		if escaped {
			return unsure // matching would need the unescaped string
		}
		if !c.pattern.Match(raw) {
			return invalid
		}
	}
	return valid
}

func (c *checker) array(s *scanner, depth int) verdict {
	v := valid
	n := 0
	s.i++
	for more := s.first(']'); more && !s.fail; more = s.next(']') {
		sub := c.items
		if n < len(c.prefixItems) {
			sub = c.prefixItems[n]
		}
		if sub == nil || v == invalid {
			s.skip(depth + 1)
		} else {
			v = and(v, sub.check(s, depth+1))
		}
		n++
	}
	switch {
	case s.fail:
		return unsure
	case c.minItems >= 0 && n < c.minItems, c.maxItems >= 0 && n > c.maxItems:
		return invalid
	}
	return v
}

func (c *checker) object(s *scanner, depth int) verdict {
	v := valid
	var seen uint64   // bit i: properties[i] is present
	var buf [8][]byte // the raw names of the other properties
	others := buf[:0]
	duplicate := false // two properties may have the same name
	n := 0
	s.i++
	for more := s.first('}'); more && !s.fail; more = s.next('}') {
		name, escaped := s.key()
		if s.fail {
			break
		}
		n++
		var sub *checker
		if i := c.lookup(name, escaped); i >= 0 {
			duplicate = duplicate || seen&(1<<i) != 0
			seen |= 1 << i
			sub = c.properties[i].schema
		} else {
			others = append(others, name)
			duplicate = duplicate || escaped // compared below unescaped only
		}
		if sub == nil {
			sub = c.additional
		}
		if sub == nil || v == invalid {
			s.skip(depth + 1)
		} else {
			v = and(v, sub.check(s, depth+1))
		}
	}
	if s.fail {
		return unsure
	}
	if seen&c.required != c.required {
		v = invalid
	}
	// v6 sees only the last value of a repeated name, and counts the name once. Valid values
	// stay valid when some of them are dropped, but nothing else is certain.
	if v == valid && c.minProperties < 0 && c.maxProperties < 0 {
		return valid
	}
	if duplicate || hasDuplicate(others) {
		return unsure
	}
	if c.minProperties >= 0 && n < c.minProperties || c.maxProperties >= 0 && n > c.maxProperties {
		return invalid
	}
	return v
}

// lookup returns the index of the property name in c.properties, or -1.
func (c *checker) lookup(name []byte, escaped bool) int {
	for i := range c.properties {
		if equalString(name, escaped, c.properties[i].name) {
			return i
		}
	}
	return -1
}

func hasDuplicate(names [][]byte) bool {
	for i := range names {
		for j := range i {
			if bytes.Equal(names[i], names[j]) {
				return true
			}
		}
	}
	return false
}
