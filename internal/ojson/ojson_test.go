package ojson_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cadrehq/cadre/internal/ojson"
)

func TestParseEncodeKeepsOrder(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in, want string
	}{
		{"object", `{"z": 1, "a": 2, "m": 3}`, `{"z":1,"a":2,"m":3}`},
		{"nested", `{"b": {"y": [true, false, null], "x": {}}, "a": []}`, `{"b":{"y":[true,false,null],"x":{}},"a":[]}`},
		{"numbers as written", `[1.0, -0, 1e3, 12345678901234567890123]`, `[1.0,-0,1e3,12345678901234567890123]`},
		{"strings", `"<a & b> \u00e9 \n \" \\ \/"`, `"<a & b> é \n \" \\ /"`},
		{"duplicate key: first place, last value", `{"a": 1, "b": 2, "a": 3}`, `{"a":3,"b":2}`},
		{"white space around", " \t\r\n{\"a\":1} \n", `{"a":1}`},
		{"scalar", `"x"`, `"x"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			v, err := ojson.Parse([]byte(tc.in))
			if err != nil {
				t.Fatalf("Parse(%q): %v", tc.in, err)
			}
			if got := string(ojson.Encode(v)); got != tc.want {
				t.Errorf("Encode(Parse(%q)) = %s, want %s", tc.in, got, tc.want)
			}
		})
	}
}

func TestParseValues(t *testing.T) {
	t.Parallel()
	v, err := ojson.Parse([]byte(`{"s":"x","n":1.5,"t":true,"z":null,"a":[1,{"k":"v"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	want := &ojson.Object{Members: []ojson.Member{
		{Key: "s", Value: "x"},
		{Key: "n", Value: json.Number("1.5")},
		{Key: "t", Value: true},
		{Key: "z", Value: nil},
		{Key: "a", Value: []any{json.Number("1"), &ojson.Object{Members: []ojson.Member{{Key: "k", Value: "v"}}}}},
	}}
	if diff := cmp.Diff(want, v); diff != "" {
		t.Errorf("Parse (-want +got):\n%s", diff)
	}
}

func TestParseErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in, want string
	}{
		{``, "EOF"},
		{`{"a":`, "EOF"},
		{`{"a":1} x`, "more data after the JSON value (at byte 8)"},
		{`{} {}`, "more data after the JSON value (at byte 3)"},
		{"1\n\n]", "more data after the JSON value (at byte 3)"},
		{`[1,]`, "invalid character ']' looking for beginning of value"},
		{`{1:2}`, "invalid character '1'"},
	}
	for _, tc := range tests {
		v, err := ojson.Parse([]byte(tc.in))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Parse(%q) = %v, %v; want an error with %q", tc.in, v, err, tc.want)
		}
	}
}

// TestParseDepth checks that Parse nests as deep as encoding/json and no deeper.
func TestParseDepth(t *testing.T) {
	t.Parallel()
	for _, n := range []int{10000, 10001} {
		data := []byte(strings.Repeat("[", n) + strings.Repeat("]", n))
		if _, err := ojson.Parse(data); (err == nil) != json.Valid(data) {
			t.Errorf("%d nested arrays: Parse error %v; json.Valid says %v", n, err, json.Valid(data))
		}
	}
	deep := []byte(strings.Repeat(`{"a":[`, 5001)) // 10002 deep, cut short: refused at the 10001st
	const want = "arrays and objects nested more than 10000 deep (at byte 30000)"
	if _, err := ojson.Parse(deep); err == nil || err.Error() != want {
		t.Errorf("Parse of 10002 nested values = %v, want %q", err, want)
	}
}

func TestObject(t *testing.T) {
	t.Parallel()
	o := &ojson.Object{}
	o.Set("b", json.Number("1"))
	o.Set("a", nil)
	o.Set("c", "x")
	o.Set("b", "replaced") // keeps its place
	if got, want := string(ojson.Encode(o)), `{"b":"replaced","a":null,"c":"x"}`; got != want {
		t.Errorf("after Set: %s, want %s", got, want)
	}
	if v, ok := o.Lookup("a"); v != nil || !ok {
		t.Errorf(`Lookup("a") = %v, %v; want nil, true`, v, ok)
	}
	if v, ok := o.Lookup("nope"); v != nil || ok {
		t.Errorf(`Lookup("nope") = %v, %v; want nil, false`, v, ok)
	}
	if !o.Has("a") || o.Has("nope") {
		t.Errorf(`Has("a"), Has("nope") = %v, %v; want true, false`, o.Has("a"), o.Has("nope"))
	}
	if got := o.Get("c"); got != "x" {
		t.Errorf(`Get("c") = %v, want x`, got)
	}
	o.Delete("a")
	o.Delete("nope")
	if got, want := string(ojson.Encode(o)), `{"b":"replaced","c":"x"}`; got != want {
		t.Errorf("after Delete: %s, want %s", got, want)
	}

	var none *ojson.Object
	if v, ok := none.Lookup("a"); v != nil || ok || none.Has("a") || none.Get("a") != nil {
		t.Errorf("a nil *Object finds a key")
	}
	if got := string(ojson.Encode(none)); got != "{}" {
		t.Errorf("Encode(nil *Object) = %s, want {}", got)
	}
}

func TestCopyIsDeep(t *testing.T) {
	t.Parallel()
	v, err := ojson.Parse([]byte(`{"a":{"b":[1,{"c":2}]},"d":"e"}`))
	if err != nil {
		t.Fatal(err)
	}
	before := string(ojson.Encode(v))
	c := ojson.Copy(v).(*ojson.Object)
	c.Set("d", "changed")
	a := c.Get("a").(*ojson.Object)
	a.Delete("b")
	a.Set("new", true)
	if after := string(ojson.Encode(v)); after != before {
		t.Errorf("changing the copy changed the original: %s, was %s", after, before)
	}
	if got, want := string(ojson.Encode(c)), `{"a":{"new":true},"d":"changed"}`; got != want {
		t.Errorf("copy = %s, want %s", got, want)
	}
}

func TestAppend(t *testing.T) {
	t.Parallel()
	got := ojson.Append([]byte("x="), []any{"a", json.Number("2")})
	if string(got) != `x=["a",2]` {
		t.Errorf("Append = %s", got)
	}
}

func TestEncodePanicsOnForeignValue(t *testing.T) {
	t.Parallel()
	defer func() {
		if r := recover(); r == nil {
			t.Error("Encode of a map did not panic")
		}
	}()
	ojson.Encode([]any{map[string]any{"a": 1}})
}

// stringCorpus holds every byte that JSON escapes, invalid UTF-8, and the runes that
// encoding/json escapes for JavaScript.
var stringCorpus = []string{
	"", "plain", "<a href=\"x\">&amp;</a>", "tab\there\nnew\rline\bback\fform",
	"\x00\x01\x1f\x7f", "\\ \" /", "é ü 日本", "\u2028\u2029", "\xff\xfe", "a\xc3", "\xed\xa0\x80",
}

// FuzzEncodeString checks that a string is written byte for byte as encoding/json's Encoder
// writes it with HTML escaping off.
func FuzzEncodeString(f *testing.F) {
	for _, s := range stringCorpus {
		f.Add(s)
	}
	for b := range 0x20 {
		f.Add(string(rune(b)))
	}
	f.Fuzz(func(t *testing.T, s string) {
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(s); err != nil {
			t.Fatal(err)
		}
		if got := string(ojson.Encode(s)); got != strings.TrimSuffix(want.String(), "\n") {
			t.Errorf("Encode(%q) = %s, encoding/json writes %s", s, got, want.String())
		}
	})
}

// FuzzParse checks Parse against encoding/json: it accepts what json.Valid accepts, decodes
// to the same values, and what Encode writes parses back to the same document.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		`{"z":1,"a":[true,null,"x"],"m":{"k":1.5e3}}`, `[]`, `{}`, `"\u00e9\ud800"`, `{"a":1,"a":2}`,
		`{"a":1} x`, `[1,]`, ` 0 `, `-`, `{"a":{"b":{"c":[[[]]]}}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := ojson.Parse(data)
		if (err == nil) != json.Valid(data) {
			t.Fatalf("Parse(%q) error %v; json.Valid says %v", data, err, json.Valid(data))
		}
		if err != nil {
			return
		}
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.UseNumber()
		var want any
		if err := dec.Decode(&want); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, plain(v)); diff != "" {
			t.Errorf("Parse(%q) differs from encoding/json (-json +ojson):\n%s", data, diff)
		}
		enc := ojson.Encode(v)
		again, err := ojson.Parse(enc)
		if err != nil {
			t.Fatalf("Parse(Encode(Parse(%q))) = %v; Encode wrote %s", data, err, enc)
		}
		if diff := cmp.Diff(v, again); diff != "" {
			t.Errorf("Encode then Parse changed %q (-before +after):\n%s", data, diff)
		}
	})
}

// plain turns a value of ojson into what encoding/json decodes: maps for objects.
func plain(v any) any {
	switch v := v.(type) {
	case *ojson.Object:
		m := make(map[string]any, len(v.Members))
		for _, mb := range v.Members {
			m[mb.Key] = plain(mb.Value)
		}
		return m
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = plain(e)
		}
		return out
	}
	return v
}
