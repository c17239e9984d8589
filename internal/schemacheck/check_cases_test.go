package schemacheck

import (
	"strings"
	"testing"
)

// TestVerdicts checks the verdicts on data that needs care: numbers written in many ways,
// escapes, invalid JSON, repeated names, subschemas that may not decide.
func TestVerdicts(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, doc, data string
		want            verdict
	}{
		{"integer written with a fraction", `{"type":"integer"}`, `1.0`, valid},
		{"integer written with an exponent", `{"type":"integer"}`, `1e2`, valid},
		{"integer from a fraction and an exponent", `{"type":"integer"}`, `25E-1`, invalid},
		{"integer 250e-2 is not", `{"type":"integer"}`, `250e-2`, invalid},
		{"integer 2500e-2 is", `{"type":"integer"}`, `2500e-2`, valid},
		{"negative zero", `{"type":"integer","minimum":0,"maximum":0}`, `-0.0`, valid},
		{"minimum exactly", `{"minimum":1.5}`, `15e-1`, valid},
		{"below the minimum by a little", `{"minimum":1}`, `0.99999999999999999999`, invalid},
		{"above the maximum by less than a float64 tells", `{"maximum":1}`, `1.0000000000000000000001`, invalid},
		{"exclusive bounds", `{"exclusiveMinimum":0,"exclusiveMaximum":1}`, `0.5`, valid},
		{"exclusive maximum reached", `{"exclusiveMinimum":0,"exclusiveMaximum":1}`, `1.0`, invalid},
		{"bounds apply to numbers only", `{"minimum":1}`, `[0]`, valid},
		{"exclusive minimum reached", `{"exclusiveMinimum":0}`, `0`, invalid},
		{"multipleOf a fraction", `{"multipleOf":0.1}`, `0.3`, valid},
		{"not a multipleOf", `{"multipleOf":0.1}`, `0.35`, invalid},
		{"multipleOf with far exponents", `{"multipleOf":3}`, `3e300`, valid},
		{"multipleOf too small to be one", `{"multipleOf":7}`, `7e-30`, invalid},
		{"a number too long to compare", `{"maximum":10}`, `1.` + strings.Repeat("0", 50), unsure},
		{"a long number needs no comparing", `{"type":"number"}`, `1.` + strings.Repeat("0", 50), unsure},
		{"a huge exponent", `{"type":"number"}`, `1e999999`, unsure},
		{"a long number where a string goes", `{"type":"string"}`, `1.` + strings.Repeat("0", 50), unsure},
		{"a number where a string goes", `{"type":"string"}`, `1.5`, invalid},
		{"a huge exponent where anything goes", `{}`, `[1e1000001]`, unsure},
		{"enum 1 is 1.0", `{"enum":[1,"a"]}`, `1.0`, valid},
		{"enum string escaped", `{"enum":["é😀\n"]}`, `"\u00e9\ud83d\ude00\n"`, valid},
		{"enum string escaped, different", `{"enum":["é😀"]}`, `"\u00e9\ud83d\ude01"`, invalid},
		{"enum holds no objects", `{"enum":[null]}`, `{}`, invalid},
		{"const null", `{"const":null}`, `null`, valid},
		{"const false is not 0", `{"const":false}`, `0`, invalid},
		{"length in characters", `{"minLength":2,"maxLength":2}`, `"😀é"`, valid},
		{"length after unescaping", `{"maxLength":1}`, `"\ud83d\ude00"`, valid},
		{"too long", `{"maxLength":1}`, `"ab"`, invalid},
		{"pattern", `{"pattern":"^[a-z]+$"}`, `"abc"`, valid},
		{"pattern fails", `{"pattern":"^[a-z]+$"}`, `"abC"`, invalid},
		{"pattern on an escaped string", `{"pattern":"^[a-z]+$"}`, `"a\u0062c"`, unsure},
		{"format is not asserted", `{"format":"email"}`, `"not an email"`, valid},
		{"invalid UTF-8", `{"type":"string"}`, "\"a\xffb\"", unsure},
		{"a surrogate in UTF-8", `{"type":"string"}`, "\"\xed\xa0\x80\"", unsure},
		{"a lone surrogate escape", `{"type":"string"}`, `"\ud800"`, unsure},
		{"a control character", `{"type":"string"}`, "\"a\tb\"", unsure},
		{"trailing data", `{}`, `{} x`, unsure},
		{"two values", `{}`, `1 2`, unsure},
		{"truncated", `{}`, `{"a":[1,`, unsure},
		{"empty", `{}`, ``, unsure},
		{"a byte order mark", `{}`, "\ufeff{}", unsure},
		{"white space around", `{}`, " \t\r\n{ } \n", valid},
		{"nested within the limit", `{}`, strings.Repeat("[", maxDepth) + strings.Repeat("]", maxDepth), valid},
		{"nested beyond the limit", `{}`, strings.Repeat("[", maxDepth+2) + strings.Repeat("]", maxDepth+2), unsure},
		{"leading zero", `{}`, `01`, unsure},
		{"trailing comma", `{}`, `[1,]`, unsure},
		{"required", `{"required":["a"]}`, `{"b":1}`, invalid},
		{"required, escaped", `{"required":["a"]}`, `{"\u0061":1}`, valid},
		{"additional property", `{"properties":{"a":{}},"additionalProperties":false}`, `{"a":1,"b":2}`, invalid},
		{"additional property schema", `{"properties":{"a":{}},"additionalProperties":{"type":"string"}}`, `{"a":1,"b":"x"}`, valid},
		{"required only, checked as additional", `{"required":["a"],"additionalProperties":{"type":"string"}}`, `{"a":1}`, invalid},
		{"duplicate name, both valid", `{"properties":{"a":{"type":"integer"}}}`, `{"a":1,"a":2}`, valid},
		{"duplicate name, first invalid", `{"properties":{"a":{"type":"integer"}}}`, `{"a":"x","a":2}`, unsure},
		{"duplicate name counted once", `{"minProperties":2}`, `{"a":1,"a":2}`, unsure},
		{"distinct names counted", `{"minProperties":2,"maxProperties":2}`, `{"a":1,"b":2}`, valid},
		{"prefixItems then items", `{"prefixItems":[{"type":"string"}],"items":{"type":"integer"}}`, `["a",1,2]`, valid},
		{"prefixItems then items, wrong", `{"prefixItems":[{"type":"string"}],"items":{"type":"integer"}}`, `["a","b"]`, invalid},
		{"minItems", `{"minItems":2}`, `[1]`, invalid},
		{"oneOf matching two", `{"oneOf":[{"type":"integer"},{"type":"number"}]}`, `1`, invalid},
		{"oneOf matching one", `{"oneOf":[{"type":"integer"},{"type":"string"}]}`, `1`, valid},
		{"oneOf matching none", `{"oneOf":[{"type":"integer"},{"type":"string"}]}`, `true`, invalid},
		{"oneOf undecided", `{"oneOf":[{"type":"integer"},{"pattern":"a"}]}`, `"\u0061"`, unsure},
		{"not of invalid", `{"not":{"type":"string"}}`, `1`, valid},
		{"not of undecided", `{"not":{"pattern":"a"}}`, `"\u0061"`, unsure},
		{"anyOf", `{"anyOf":[{"type":"string"},{"type":"null"}]}`, `null`, valid},
		{"allOf", `{"allOf":[{"minimum":1},{"maximum":2}]}`, `3`, invalid},
		{"false schema", `{"properties":{"a":false}}`, `{"a":null}`, invalid},
		{"recursive reference", `{"$defs":{"n":{"type":"object","properties":{"next":{"$ref":"#/$defs/n"}},"additionalProperties":false}},"$ref":"#/$defs/n"}`, `{"next":{"next":{}}}`, valid},
		{"recursive reference, wrong deep down", `{"$defs":{"n":{"type":"object","properties":{"next":{"$ref":"#/$defs/n"}},"additionalProperties":false}},"$ref":"#/$defs/n"}`, `{"next":{"next":{"x":1}}}`, invalid},
		{"references beside a root $id", `{"$id":"https://example.com/s.json","$defs":{"s":{"type":"string"}},"items":{"$ref":"#/$defs/s"}}`, `["a",1]`, invalid},
		{"reference to the root", `{"type":"array","items":{"$ref":"#"}}`, `[[],[[]]]`, valid},
		{"draft-07 ignores keywords beside $ref", `{"$schema":"http://json-schema.org/draft-07/schema#","definitions":{"s":{"type":"string"}},"properties":{"a":{"$ref":"#/definitions/s","maxLength":1}}}`, `{"a":"long"}`, valid},
		{"draft 2020-12 applies keywords beside $ref", `{"$defs":{"s":{"type":"string"}},"properties":{"a":{"$ref":"#/$defs/s","maxLength":1}}}`, `{"a":"long"}`, invalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := mustCompile(t, tt.doc)
			if got, _ := compareVerdicts(t, c, []byte(tt.data)); got != tt.want {
				t.Errorf("verdict = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestCompileSubset checks which documents Compile compiles: only those whose every keyword the
// checker decides exactly as v6 does.
func TestCompileSubset(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, doc string
		fast      bool
	}{
		{"empty", `{}`, true},
		{"true", `true`, true},
		{"false", `false`, true},
		{"annotations", `{"title":"t","description":"d","default":1,"examples":[1],"$comment":"c","deprecated":true,"readOnly":true,"writeOnly":false,"format":"date-time","contentEncoding":"base64"}`, true},
		{"root $schema and $id", `{"$schema":"https://json-schema.org/draft/2020-12/schema","$id":"https://example.com/s.json","$defs":{"a":{"type":"string"}},"items":{"$ref":"#/$defs/a"}}`, true},
		{"draft-07", `{"$schema":"http://json-schema.org/draft-07/schema#","definitions":{"a":{"type":"string"}},"items":{"$ref":"#/definitions/a"}}`, true},
		{"draft-07 asserts format", `{"$schema":"http://json-schema.org/draft-07/schema#","format":"email"}`, false},
		{"draft-07 items as a list", `{"$schema":"http://json-schema.org/draft-07/schema#","items":[{"type":"string"}]}`, false},
		{"draft-04", `{"$schema":"http://json-schema.org/draft-04/schema#","type":"string"}`, false},
		{"draft 2019-09", `{"$schema":"https://json-schema.org/draft/2019-09/schema","type":"string"}`, false},
		{"$id below the root", `{"properties":{"a":{"$id":"a.json"}}}`, false},
		{"$defs below the root", `{"properties":{"a":{"$defs":{}}}}`, false},
		{"$anchor", `{"$anchor":"a"}`, false},
		{"patternProperties", `{"patternProperties":{"^a":{}}}`, false},
		{"propertyNames", `{"propertyNames":{"maxLength":2}}`, false},
		{"if", `{"if":{"type":"string"},"then":{"minLength":1}}`, false},
		{"uniqueItems", `{"uniqueItems":true}`, false},
		{"uniqueItems false", `{"uniqueItems":false}`, true},
		{"contains", `{"contains":{"type":"string"}}`, false},
		{"dependentRequired", `{"dependentRequired":{"a":["b"]}}`, false},
		{"unevaluatedProperties", `{"unevaluatedProperties":false}`, false},
		{"enum of an object", `{"enum":[{"a":1}]}`, false},
		{"const of an array", `{"const":[1]}`, false},
		{"a long bound", `{"maximum":1.` + strings.Repeat("0", 50) + `}`, false},
		{"unknown keyword", `{"x-kind":"y"}`, false},
		{"reference elsewhere in the document", `{"properties":{"a":{"type":"string"},"b":{"$ref":"#/properties/a"}}}`, false},
		{"a cycle of references that reads nothing", `{"$defs":{"a":{"$ref":"#/$defs/b"},"b":{"anyOf":[{"$ref":"#/$defs/a"}]}},"$ref":"#/$defs/a"}`, false},
		{"a reference to the root that reads nothing", `{"not":{"$ref":"#"}}`, false},
		{"too many properties", `{"properties":{` + manyProperties(65) + `}}`, false},
		{"as many properties as it tracks", `{"properties":{` + manyProperties(64) + `}}`, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, why := compile(t, []byte(tt.doc))
			if got := c.check != nil; got != tt.fast {
				t.Errorf("compiled = %v, want %v (%v)", got, tt.fast, why)
			}
		})
	}
}

func manyProperties(n int) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`"p` + string(rune('A'+i/26)) + string(rune('a'+i%26)) + `":{}`)
	}
	return b.String()
}
