package llmfactory

import (
	"encoding/json"
	"testing"
)

// mistralBody takes whatever JSON object a request holds: what it does not recognise goes
// out as it came.
func TestMistralBodyOfOddRequests(t *testing.T) {
	t.Parallel()
	for _, in := range []string{
		`{}`,
		`{"messages": null}`,
		`{"messages": [null, {"tool_calls": [null, 3, {"id": 7}]}, {"tool_call_id": null}]}`,
		`{"messages": "not a list", "seed": 1}`,
	} {
		body, err := parseObject([]byte(in))
		if err != nil {
			t.Fatal(err)
		}
		mistralBody(&body) // must not panic
		if _, ok := body.get("seed"); ok {
			t.Errorf("%s: seed left in", in)
		}
	}
}

// The same tool call id always becomes the same one Mistral takes, so that a call made in one
// request is answered under the same id in the next; ids Mistral takes stay as they are.
func TestMistralIDs(t *testing.T) {
	t.Parallel()
	id := func(s string) string {
		obj := map[string]json.RawMessage{"id": json.RawMessage(`"` + s + `"`)}
		mistralID(obj, "id")
		var out string
		if err := json.Unmarshal(obj["id"], &out); err != nil {
			t.Fatal(err)
		}
		return out
	}
	a, b := id("call_abc123XYZ"), id("call_abc123XYZ")
	if a != b || !isMistralID(a) {
		t.Errorf("call_abc123XYZ became %q, then %q: want the same nine letters and digits", a, b)
	}
	if c := id("toolu_01XYZ"); c == a || !isMistralID(c) {
		t.Errorf("toolu_01XYZ became %q (call_abc123XYZ: %q)", c, a)
	}
	if got := id("Ab3xK9mP2"); got != "Ab3xK9mP2" {
		t.Errorf("Ab3xK9mP2, an id Mistral takes, became %q", got)
	}
	// Every letter and digit, the ends of their ranges included; the characters next to them are none.
	for _, good := range []string{"azAZ09zZ9", "aaaaaaaaa", "zzzzzzzzz", "AAAAAAAAA", "ZZZZZZZZZ", "000000000", "999999999"} {
		if !isMistralID(good) {
			t.Errorf("isMistralID(%q) = false", good)
		}
	}
	for _, bad := range []string{"", "abc", "abcdefgh_", "abcdefghij", "ábcdefgh",
		"abcdefgh`", "abcdefgh{", "abcdefgh@", "abcdefgh[", "abcdefgh/", "abcdefgh:"} {
		if isMistralID(bad) {
			t.Errorf("isMistralID(%q) = true", bad)
		}
	}
}

// The rewritten body keeps the text as written: <, > and & are not escaped.
func TestMarshalKeepsTheText(t *testing.T) {
	t.Parallel()
	out, err := marshal(map[string]json.RawMessage{"content": json.RawMessage(`"<b>a & b</b>"`)})
	if err != nil {
		t.Fatal(err)
	}
	if string(out) != `{"content":"<b>a & b</b>"}` {
		t.Errorf("marshal = %s", out)
	}
}
