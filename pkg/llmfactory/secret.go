package llmfactory

import (
	"fmt"
	"log/slog"
	"strconv"
)

// Secret is an API key. It prints redacted everywhere — String, GoString, fmt with every verb
// (%v %s %q %x %#v ...), slog (LogValue), encoding/json (MarshalJSON) and every encoder that
// uses encoding.TextMarshaler (MarshalText) — as "[redacted]", or as "" when it is empty, so
// that a key never reaches a log line, an error or an event, while an unset key still shows as
// unset. Reveal returns the key, for the client that sends it and nothing else.
//
// fmt and slog can only call a Secret's methods when they can reach it: keep a Secret in an
// exported field, or print the struct that holds it through a method of its own, because fmt
// prints an unexported field's raw string.
//
// A Secret is a string: it is safe for concurrent use, and comparing it with == is fine.
type Secret string

const redacted = "[redacted]"

// Reveal returns the key itself. Call it only to hand the key to the client that sends it.
func (s Secret) Reveal() string { return string(s) }

// String returns "[redacted]", or "" for an empty Secret.
func (s Secret) String() string {
	if s == "" {
		return ""
	}
	return redacted
}

// GoString returns the redacted form quoted as a Go string, for %#v.
func (s Secret) GoString() string { return strconv.Quote(s.String()) }

// Format prints the redacted form for every verb: quoted for %q and %#v, as is otherwise.
// Width, precision and flags are ignored; the key's length is not shown.
func (s Secret) Format(f fmt.State, verb rune) {
	switch {
	case verb == 'q', verb == 'v' && f.Flag('#'):
		fmt.Fprint(f, s.GoString())
	default:
		fmt.Fprint(f, s.String())
	}
}

// LogValue makes slog print the redacted form.
func (s Secret) LogValue() slog.Value { return slog.StringValue(s.String()) }

// MarshalJSON encodes the redacted form as a JSON string.
func (s Secret) MarshalJSON() ([]byte, error) { return []byte(strconv.Quote(s.String())), nil }

// MarshalText returns the redacted form (encoding/xml, yaml and others use it).
func (s Secret) MarshalText() ([]byte, error) { return []byte(s.String()), nil }
