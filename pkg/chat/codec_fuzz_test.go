package chat_test

import (
	"bytes"
	"testing"

	"github.com/cadrehq/cadre/pkg/chat"
	"github.com/google/go-cmp/cmp"
)

// FuzzUnmarshalMessages decodes stored messages as a store may hand them back, damaged or
// written by someone else. UnmarshalMessages never panics, and what it accepts survives a
// round trip: MarshalMessages encodes it, and decoding that gives the same messages, which
// encode to the same bytes again.
func FuzzUnmarshalMessages(f *testing.F) {
	for _, s := range []string{
		everyPartJSON,
		`[]`,
		`null`,
		`[{"role":"human","parts":null}]`,
		`[{"role":"system","parts":[{"type":"text","text":""}]},{"role":"human","parts":[{"type":"text","text":"hi"}]}]`,
		`[{"role":"ai","parts":[{"type":"tool_call"}]}]`,
		`[{"role":"human","parts":[{"type":"binary","mime_type":"image/png","data":null}]}]`,
		`[{"role":"human","parts":[{"TYPE":"text","Text":"case","text":"dup"}]}]`,
		`[{"role":"human","parts":[{"type":"text","text":"\ud800\u0000"}]}]`,
		"[{\"role\":\"\xff\",\"parts\":[{\"type\":\"text\",\"text\":\"\xfe\"}]}]",
		`[{"role":"human","parts":[{"type":"video","url":"x"}]}]`,
		`[{"role":`,
		`{"role":"human"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		msgs, err := chat.UnmarshalMessages(data)
		if err != nil {
			return
		}
		encoded, err := chat.MarshalMessages(msgs)
		if err != nil {
			t.Fatalf("MarshalMessages of what UnmarshalMessages accepted (%q): %v", data, err)
		}
		again, err := chat.UnmarshalMessages(encoded)
		if err != nil {
			t.Fatalf("UnmarshalMessages of what MarshalMessages encoded (%s): %v", encoded, err)
		}
		if diff := cmp.Diff(msgs, again); diff != "" {
			t.Errorf("round trip of %q through %s (-first +second):\n%s", data, encoded, diff)
		}
		if reencoded, err := chat.MarshalMessages(again); err != nil || !bytes.Equal(encoded, reencoded) {
			t.Errorf("encoded again (%v):\n%s\nwant\n%s", err, reencoded, encoded)
		}
	})
}
