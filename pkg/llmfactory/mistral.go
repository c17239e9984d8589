package llmfactory

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
)

// mistralBody puts a request in the form Mistral's API takes. It refuses with a 422 ("Extra
// inputs are not permitted") every field it does not know: the seed goes as random_seed, the
// token limit as max_tokens, and stream_options, which it does not take, is left out (its
// stream ends with the usage anyway). And it takes only tool call ids of nine letters and
// digits: the ids of calls another provider made, as in a conversation that falls back to
// Mistral, are mapped to such ids.
func mistralBody(body *object) {
	maxTokensField(body)
	body.rename("seed", "random_seed")
	body.delete("stream_options")
	raw, _ := body.get("messages")
	var msgs []map[string]json.RawMessage
	if json.Unmarshal(raw, &msgs) != nil {
		return
	}
	changed := false
	for _, m := range msgs {
		changed = mistralID(m, "tool_call_id") || changed
		var calls []map[string]json.RawMessage
		if json.Unmarshal(m["tool_calls"], &calls) != nil {
			continue
		}
		callsChanged := false
		for _, c := range calls {
			callsChanged = mistralID(c, "id") || callsChanged
		}
		if callsChanged {
			if v, err := marshal(calls); err == nil {
				m["tool_calls"], changed = v, true
			}
		}
	}
	if changed {
		if v, err := marshal(msgs); err == nil {
			body.set("messages", v)
		}
	}
}

// mistralID replaces the tool call id obj[key] with one Mistral takes, if it takes it not,
// and reports whether it did. The same id always becomes the same one, so that a call and its
// result still match, in this request and the next.
func mistralID(obj map[string]json.RawMessage, key string) bool {
	var id string
	if json.Unmarshal(obj[key], &id) != nil || isMistralID(id) {
		return false
	}
	const alphabet = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	sum := sha256.Sum256([]byte(id))
	var out [9]byte
	for i := range out {
		out[i] = alphabet[int(sum[i])%len(alphabet)]
	}
	v, err := json.Marshal(string(out[:]))
	if err != nil {
		return false
	}
	obj[key] = v
	return true
}

// isMistralID reports whether id is nine letters and digits, the only tool call ids Mistral
// takes ("Tool call id was ... but must be a-z, A-Z, 0-9, with a length of 9").
func isMistralID(id string) bool {
	if len(id) != 9 {
		return false
	}
	for _, c := range []byte(id) {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9') {
			return false
		}
	}
	return true
}

// marshal encodes v as json.Marshal does, but leaves <, > and & as they are written: the
// messages go out as the client wrote them.
func marshal(v any) (json.RawMessage, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}
