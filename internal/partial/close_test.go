package partial

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/cadrehq/cadre/internal/ojson"
)

func TestCloseRules(t *testing.T) {
	t.Parallel()
	const keep, drop = true, false
	tests := []struct {
		prefix string
		keep   bool
		want   string // "" for ok == false
	}{
		// Nothing yet, or not JSON.
		{``, drop, ``},
		{" \n\t", keep, ``},
		{`x`, keep, ``},
		{`[x`, keep, ``},
		{`[1,]`, keep, ``},
		{`[,`, keep, ``},
		{`{"a" 1`, keep, ``},
		{`{1`, keep, ``},
		{`{"a":1]`, keep, ``},
		{`[1}`, keep, ``},
		{`[01`, keep, ``},
		{`[1.e`, keep, ``},
		{`[-x`, keep, ``},
		{`[trux`, keep, ``},
		{"[\"a\tb\"]", keep, ``}, // a control character in a string
		{`["\x"]`, keep, ``},
		{`["\u12g4"]`, keep, ``},
		// Containers are closed; what is not complete is left out.
		{`{`, drop, `{}`},
		{` [`, drop, `[]`},
		{`[1,`, drop, `[1]`},
		{`[1, `, drop, `[1]`},
		{`{"a":1,`, drop, `{"a":1}`},
		{`{"a`, keep, `{}`},
		{`{"a"`, keep, `{}`},
		{`{"a":`, keep, `{}`},
		{`{"a": `, keep, `{}`},
		{`{"a":{`, drop, `{"a":{}}`},
		{`{"a":[{"b":[`, drop, `{"a":[{"b":[]}]}`},
		{`[[1],[2,`, drop, `[[1],[2]]`},
		// Numbers are complete only when something follows them.
		{`[1`, drop, `[]`},
		{`[1 `, drop, `[1]`},
		{`[1,2`, drop, `[1]`},
		{`[-`, drop, `[]`},
		{`[1.`, drop, `[]`},
		{`[1e`, drop, `[]`},
		{`[1e+`, drop, `[]`},
		{`[1e+5`, drop, `[]`},
		{`{"a":-1.5e+5}`, drop, `{"a":-1.5e+5}`},
		{`1`, drop, ``},
		{`-0.5 `, drop, `-0.5`},
		{`1 2`, drop, `1`},
		{`1x`, drop, ``},
		// Literals are complete at their last letter.
		{`[tru`, drop, `[]`},
		{`[true`, drop, `[true]`},
		{`{"a":nul`, drop, `{}`},
		{`{"a":null`, drop, `{"a":null}`},
		{`fals`, drop, ``},
		{`false`, drop, `false`},
		// Strings: value strings kept with keepString, keys never.
		{`["ab`, drop, `[]`},
		{`["ab`, keep, `["ab"]`},
		{`["ab",`, drop, `["ab"]`},
		{`{"k":"ab`, drop, `{}`},
		{`{"k":"ab`, keep, `{"k":"ab"}`},
		{`{"k":"`, keep, `{"k":""}`},
		{`"ab`, drop, ``},
		{`"ab`, keep, `"ab"`},
		{`"ab"`, drop, `"ab"`},
		{`["a\`, keep, `["a"]`},
		{`["a\"`, keep, `["a\""]`},
		{`["a\u00`, keep, `["a"]`},
		{`["a\u00e9`, keep, `["a\u00e9"]`},
		{`["a\ud83d`, keep, `["a"]`},
		{`["a\ud83d\`, keep, `["a"]`},
		{`["a\ud83d\ude0`, keep, `["a"]`},
		{`["a\ud83d\ude00`, keep, `["a\ud83d\ude00"]`},
		{`["a\ud83dx`, keep, `["a\ud83dx"]`},   // a lone surrogate, final as it is
		{`["\ud83d\ud83d`, keep, `["\ud83d"]`}, // the first is lone, the second may pair
		{`["\ude00`, keep, `["\ude00"]`},       // a lone low surrogate pairs with nothing
		{"[\"a\xe4\xb8", keep, `["a"]`},        // 中 cut
		{"[\"a\xe4\xb8\xad", keep, "[\"a\xe4\xb8\xad\"]"},
		{"[\"\xf0\x9f\x98", keep, `[""]`}, // 😀 cut
		{"[\"\xff", keep, "[\"\xff\"]"},   // invalid UTF-8 is final: encoding/json reads U+FFFD
		{`{"a":"x","b`, keep, `{"a":"x"}`},
		// After the top value.
		{"{\"a\":1}  \n", drop, `{"a":1}`},
		{`{"a":1} and more`, drop, `{"a":1}`},
		{`[] [`, drop, `[]`},
		{`"a"x`, drop, `"a"`},
		{`truex`, drop, `true`},
		// White space between tokens goes.
		{" { \"a\" : [ 1 , true , \"x\" ] , \"b\" : { } } ", drop, `{"a":[1,true,"x"],"b":{}}`},
	}
	for _, tc := range tests {
		doc, ok := Close([]byte(tc.prefix), tc.keep)
		if got := string(doc); got != tc.want || ok != (tc.want != "") {
			t.Errorf("Close(%q, %v) = %#q, %v; want %#q, %v", tc.prefix, tc.keep, got, ok, tc.want, tc.want != "")
		}
	}
}

// documents are cut at every byte by TestClosePrefixes and seed FuzzClose.
var documents = []string{
	`{"name":"Ada","age":36,"address":{"city":"London","zip":null,"geo":{"lat":51.5,"lon":-0.12}}}`,
	`[{"id":1,"tags":["a","b"],"ok":true},{"id":2,"tags":[],"ok":false},{}]`,
	`["alpha","beta","","gamma delta"]`,
	`{"esc":"q\"b\\n\nu\u00e9 e\ud83d\ude00 s\/ t\t","lone":"\ud83d!","pair":"\uD83D\uDE00"}`,
	`{"raw":"é😀中文","中文":["é","😀"]}`,
	`[0,-0,12,-12.5,1e10,1E-5,-1.25e+3,0.0001,123456789012345678901234567890]`,
	`[true,false,null,[true],{"t":false,"n":null}]`,
	`{}`,
	`[]`,
	`{"a":{},"b":[],"c":[{}],"d":[[]]}`,
	" {\n  \"a\" : [ 1 ,\t2 ] ,\r\n  \"b\" : { \"c\" : \"d\" } ,\n  \"e\" : true\n} \n",
	`"a top-level string: \u00e9 😀"`,
	`true`,
	`null`,
	`[[[[1,[2,[3]]]]]]`,
	`{"k":"v"}`,
}

// TestClosePrefixes cuts each document at every byte and checks what a display of the
// partial documents relies on: each is valid JSON; once there is one, there is one for every
// longer prefix; each holds only values of the full document (a kept string, the start of
// one), and only values of the next; the whole document gives itself, compacted.
func TestClosePrefixes(t *testing.T) {
	t.Parallel()
	for _, doc := range documents {
		for _, keep := range []bool{false, true} {
			t.Run(fmt.Sprintf("%.20s/keep=%v", doc, keep), func(t *testing.T) {
				t.Parallel()
				checkPrefixes(t, []byte(doc), keep)
			})
		}
	}
}

func checkPrefixes(t *testing.T, doc []byte, keep bool) {
	t.Helper()
	full := mustParse(t, doc)
	var prev any
	shown := false
	for n := 0; n <= len(doc); n++ {
		out, ok := Close(doc[:n], keep)
		if !ok {
			if shown {
				t.Fatalf("Close(%q) = not ok, after a shorter prefix was", doc[:n])
			}
			continue
		}
		if !json.Valid(out) {
			t.Fatalf("Close(%q) = %s, not valid JSON", doc[:n], out)
		}
		got := mustParse(t, out)
		if why := within(got, full, keep); why != "" {
			t.Fatalf("Close(%q) = %s, not within the full document %s: %s", doc[:n], out, doc, why)
		}
		if shown {
			if why := within(prev, got, keep); why != "" {
				t.Fatalf("Close(%q) = %s, takes back what a shorter prefix showed: %s", doc[:n], out, why)
			}
		}
		prev, shown = got, true
	}
	var want bytes.Buffer
	if err := json.Compact(&want, doc); err != nil {
		t.Fatal(err)
	}
	out, ok := Close(doc, keep)
	if !ok || !bytes.Equal(out, want.Bytes()) {
		t.Errorf("Close(%q) = %s, %v; want %s", doc, out, ok, want.Bytes())
	}
}

func mustParse(t *testing.T, data []byte) any {
	t.Helper()
	v, err := ojson.Parse(data)
	if err != nil {
		t.Fatalf("Parse(%q): %v", data, err)
	}
	return v
}

// within describes how the partial value p is not a stage of the value f (documents without
// duplicate keys), or returns "". Each member of an object and each item of an array is
// complete but the last, which is within f's; the members come in f's order. A string is
// f's, or with keepString the start of f's. Anything else is f.
func within(p, f any, keepString bool) string {
	switch p := p.(type) {
	case *ojson.Object:
		fo, ok := f.(*ojson.Object)
		if !ok || len(p.Members) > len(fo.Members) {
			return fmt.Sprintf("%s not within %s", ojson.Encode(p), ojson.Encode(f))
		}
		for i, m := range p.Members {
			fm := fo.Members[i]
			if m.Key != fm.Key {
				return fmt.Sprintf("member %d is %q, not %q", i, m.Key, fm.Key)
			}
			if i == len(p.Members)-1 {
				return within(m.Value, fm.Value, keepString)
			}
			if !reflect.DeepEqual(m.Value, fm.Value) {
				return fmt.Sprintf("member %q is %s, not %s", m.Key, ojson.Encode(m.Value), ojson.Encode(fm.Value))
			}
		}
		return ""
	case []any:
		fa, ok := f.([]any)
		if !ok || len(p) > len(fa) {
			return fmt.Sprintf("%s not within %s", ojson.Encode(p), ojson.Encode(f))
		}
		for i := range p {
			if i == len(p)-1 {
				return within(p[i], fa[i], keepString)
			}
			if !reflect.DeepEqual(p[i], fa[i]) {
				return fmt.Sprintf("item %d is %s, not %s", i, ojson.Encode(p[i]), ojson.Encode(fa[i]))
			}
		}
		return ""
	case string:
		fs, ok := f.(string)
		if ok && (p == fs || keepString && strings.HasPrefix(fs, p)) {
			return ""
		}
	default:
		if reflect.DeepEqual(p, f) {
			return ""
		}
	}
	return fmt.Sprintf("%s is not %s", ojson.Encode(p), ojson.Encode(f))
}

// TestCloseBareNumber: a document that is only a number is the one whose whole text Close
// does not take for complete, as the number may go on; white space after it ends it.
func TestCloseBareNumber(t *testing.T) {
	t.Parallel()
	for _, doc := range []string{`0`, `-12.5e3`, `7`} {
		if out, ok := Close([]byte(doc), true); ok {
			t.Errorf("Close(%q) = %s, ok; want not ok", doc, out)
		}
		if out, ok := Close([]byte(doc+"\n"), true); !ok || string(out) != doc {
			t.Errorf("Close(%q) = %s, %v; want %s", doc+"\n", out, ok, doc)
		}
	}
}

// TestCloseSyntaxErrorEndsOk: ok stays true along the prefixes of a valid document, but text
// that goes on with a syntax error is no document, however much was shown before.
func TestCloseSyntaxErrorEndsOk(t *testing.T) {
	t.Parallel()
	text := []byte(`{"a":[1,2,]}`)
	var oks []bool
	for n := range len(text) + 1 {
		_, ok := Close(text[:n], false)
		oks = append(oks, ok)
	}
	want := []bool{false, true, true, true, true, true, true, true, true, true, true, false, false}
	if !reflect.DeepEqual(oks, want) {
		t.Errorf("ok for each prefix of %s = %v; want %v", text, oks, want)
	}
}

// TestCloseDepth: Close nests as deep as encoding/json accepts, and no deeper, so that what it
// returns is always valid for json.Valid.
func TestCloseDepth(t *testing.T) {
	t.Parallel()
	deep := []byte(strings.Repeat(`[{"a":`, maxDepth/2))
	out, ok := Close(deep, false)
	if !ok || !json.Valid(out) {
		t.Fatalf("Close of %d open containers: ok %v, valid %v", maxDepth, ok, json.Valid(out))
	}
	if out, ok := Close(append(deep, '['), false); ok {
		t.Errorf("Close of %d open containers = %.20s…, ok; want not ok", maxDepth+1, out)
	}
}

// TestCloseAllocates checks that Close allocates the document it returns and nothing else.
func TestCloseAllocates(t *testing.T) {
	prefix := []byte(benchDocument[:len(benchDocument)*2/3])
	if n := testing.AllocsPerRun(100, func() { Close(prefix, true) }); n != 1 {
		t.Errorf("Close allocates %v times; want 1", n)
	}
}

// FuzzClose: on any bytes Close does not panic and gives valid JSON when ok; on a valid
// document, every prefix gives valid JSON within the document, and the document gives itself.
func FuzzClose(f *testing.F) {
	for _, doc := range documents {
		f.Add([]byte(doc), true)
	}
	f.Add([]byte(`[1,]`), false)
	f.Add([]byte("[\"\xed\xa0\x80\"]"), true)
	f.Fuzz(func(t *testing.T, data []byte, keep bool) {
		out, ok := Close(data, keep)
		if ok && !json.Valid(out) {
			t.Fatalf("Close(%q) = %s, not valid JSON", data, out)
		}
		if !json.Valid(data) {
			return
		}
		if len(bytes.TrimSpace(data)) > 0 && !hasDuplicateKeys(data) {
			padded := append(bytes.Clone(data), ' ') // a bare number needs it to end
			checkPrefixes(t, padded, keep)
			return
		}
		for n := range len(data) {
			if out, ok := Close(data[:n], keep); ok && !json.Valid(out) {
				t.Fatalf("Close(%q) = %s, not valid JSON", data[:n], out)
			}
		}
	})
}

// hasDuplicateKeys reports whether an object of the valid document data has a key twice,
// where a decoded partial document need not be within the decoded whole.
func hasDuplicateKeys(data []byte) bool {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()            // 1e700 is valid JSON, and no float64
	var keys []map[string]bool // one set per open container; nil for an array
	expectKey := func() bool { return len(keys) > 0 && keys[len(keys)-1] != nil }
	afterKey := false
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return false
		}
		if err != nil {
			panic(err) // data is valid
		}
		switch tok {
		case json.Delim('{'):
			keys = append(keys, map[string]bool{})
			afterKey = false
			continue
		case json.Delim('['):
			keys = append(keys, nil)
			afterKey = false
			continue
		case json.Delim('}'), json.Delim(']'):
			keys = keys[:len(keys)-1]
			afterKey = false
			continue
		}
		if expectKey() && !afterKey {
			k := tok.(string)
			if keys[len(keys)-1][k] {
				return true
			}
			keys[len(keys)-1][k] = true
			afterKey = true
			continue
		}
		afterKey = false
	}
}

// benchDocument is an answer of the size an assistant streams: a few kilobytes, indented.
var benchDocument = func() string {
	var b strings.Builder
	b.WriteString("{\n  \"title\": \"Quarterly report — résumé\",\n  \"sections\": [\n")
	for i := range 20 {
		if i > 0 {
			b.WriteString(",\n")
		}
		fmt.Fprintf(&b, "    {\"heading\": \"Section %d\", \"score\": %d.5, \"draft\": false, \"body\": \"Line one.\\nLine \\\"two\\\" with é and 😀.\", \"tags\": [\"a\", \"b\", null]}", i, i)
	}
	b.WriteString("\n  ]\n}\n")
	return b.String()
}()

// BenchmarkClose closes the document cut where a stream would be two thirds through it, as
// each chunk of a stream does.
func BenchmarkClose(b *testing.B) {
	prefix := []byte(benchDocument[:len(benchDocument)*2/3])
	b.SetBytes(int64(len(prefix)))
	b.ReportAllocs()
	for b.Loop() {
		Close(prefix, true)
	}
}
