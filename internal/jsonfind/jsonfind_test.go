package jsonfind

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// decodeEach is the search Values replaces: a decode from every opener, skipping what a
// value covers. It is quadratic; Values must find what it finds.
func decodeEach(s string) []string {
	var out []string
	for i := 0; i < len(s); i++ {
		if s[i] != '{' && s[i] != '[' {
			continue
		}
		var raw json.RawMessage
		if json.NewDecoder(strings.NewReader(s[i:])).Decode(&raw) == nil {
			out = append(out, string(raw))
			i += len(raw) - 1
		}
	}
	return out
}

var corpus = []string{
	``,
	`no json here`,
	`{"a":1}`,
	`Here it is: {"name":"Ada","tags":["x","y"]} — done.`,
	`See [1] and [2]. {"a": [1, 2, {"b": null}], "c": true}`,
	`[[1],[2],[3]`,
	`{"a":{"b":[1,2}`,
	`{"a" [1]}`,
	`[1 [2]]`,
	`{"s":"[not {json}"} and [3]`,
	`{"s":"unterminated [1] {"a":2}`,
	`["\u00e9\n\"x", 1.5e-3, -0, 0.1, 1E+2, true, false, null]`,
	`[01] [1.] [.5] [-] [1e] [tru] [nul] [1,] [,1] {"a":1,} {,} {"a"} {1:2} [1]`,
	"[\"a\x01b\"] [\"ok\"]",
	`[\"\\\"\u12] ["\uZZZZ"] ["\/\b\f\n\r\t"]`,
	"{ \t\n\r\"a\" \t:\n 1 , \"b\":[ ] , \"c\" : { } }",
	`[}] {]} [{]}] {"a":[}]}`,
	"text ```json\n{\"a\":1}\n``` more [x] {\"b\":2}",
	`{"a":1}{"b":2}[3][4]`,
	`[[[[["deep"]]]]] [[[[[`,
	`{"a":"b" "c":"d"} {"e":"f"}`,
	"[\"\xff\xfe\"] [\"ok\"]",
}

func values(s string) []string { return slices.Collect(Values(s)) }

func TestValuesFindWhatDecodingFromEachOpenerFinds(t *testing.T) {
	for _, s := range corpus {
		if got, want := values(s), decodeEach(s); !slices.Equal(got, want) {
			t.Errorf("Values(%q)\n = %q\nwant %q", s, got, want)
		}
	}
}

// The depth limit of encoding/json: a decode from an opener 10,001 deep fails, and the one
// from the next opener, 10,000 deep, succeeds.
func TestValuesAtTheDepthLimit(t *testing.T) {
	nested := func(d int) string { return strings.Repeat("[", d) + strings.Repeat("]", d) }
	if !json.Valid([]byte(nested(maxDepth))) || json.Valid([]byte(nested(maxDepth+1))) {
		t.Fatalf("encoding/json's depth limit is not %d", maxDepth)
	}
	for _, depth := range []int{maxDepth - 1, maxDepth, maxDepth + 1, maxDepth + 2, 3 * maxDepth} {
		for _, tail := range []string{"", " {\"a\":1}"} {
			closed := min(depth, maxDepth)
			s := strings.Repeat("[", depth) + strings.Repeat("]", closed) + tail
			want := []string{s[depth-closed : depth+closed]}
			if tail != "" {
				want = append(want, `{"a":1}`)
			}
			if got := values(s); !slices.Equal(got, want) {
				t.Errorf("depth %d, tail %q: values of lengths %d, want %d", depth, tail, lens(got), lens(want))
			}
		}
	}
}

func lens(v []string) []int {
	out := []int{}
	for _, s := range v {
		out = append(out, len(s))
	}
	return out
}

func FuzzValues(f *testing.F) {
	for _, s := range corpus {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := values(s), decodeEach(s); !slices.Equal(got, want) {
			t.Errorf("Values(%q)\n = %q\nwant %q", s, got, want)
		}
	})
}

// The bytes all passes read grow linearly with the text, on texts that make decoding from
// each opener quadratic: unclosed openers, objects cut short, openers inside a string cut
// short, and JSON cut short again and again. A value after them is still found.
func TestValuesReadLinearly(t *testing.T) {
	const mb = 1 << 20
	for _, tc := range []struct {
		name string
		unit string
	}{
		{"arrays", "["},
		{"objects", `{"a":`},
		{"openers in a string", `["[[[[[[[[`},
		{"JSON cut short", `{"items":[{"id":1,"tags":["a","b"]},{"id":2,"tags":[`},
		{"mixed", `[{"a":[`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			read := make([]int, 2)
			for i, size := range []int{mb, 2 * mb} {
				s := strings.Repeat(tc.unit, size/len(tc.unit)) + ` {"found":true}`
				f := finder{s: s}
				var got []string
				f.values(func(v string) bool { got = append(got, v); return true })
				if len(got) == 0 || got[len(got)-1] != `{"found":true}` {
					t.Errorf("%d bytes: the value after them was not found (%d values)", len(s), len(got))
				}
				read[i] = f.read
				if f.read > 3*len(s) {
					t.Errorf("%d bytes: %d bytes read, more than three passes", len(s), f.read)
				}
			}
			t.Logf("bytes read: %d for 1 MiB, %d for 2 MiB", read[0], read[1])
			if ratio := float64(read[1]) / float64(read[0]); ratio > 2.2 {
				t.Errorf("bytes read: %d for 1 MiB, %d for 2 MiB: ×%.2f, want ×2", read[0], read[1], ratio)
			}
		})
	}
}

// A text built so that passes overlap still stops at the budget.
func TestValuesStopAtTheBudget(t *testing.T) {
	s := strings.Repeat("[", 64)
	f := finder{s: s, read: budget(len(s)) + 1}
	for range f.values {
		t.Error("a value was yielded over the budget")
	}
}
