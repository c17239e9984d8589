package ojson

import (
	"encoding/json"
	"fmt"
	"unicode/utf8"
)

// Encode returns the value v as compact JSON: objects with their members in order, a nil
// *Object as {}, a json.Number as it is written, strings as encoding/json writes them with
// HTML escaping off (descriptions and patterns use <, > and &, and a model should read them as
// written). It panics when v holds anything but the package's values: the code that built v
// has a bug.
func Encode(v any) []byte {
	return Append(nil, v)
}

// Append appends the value v, as Encode writes it, to dst and returns the extended slice.
func Append(dst []byte, v any) []byte {
	switch v := v.(type) {
	case *Object:
		dst = append(dst, '{')
		if v != nil {
			for i, m := range v.Members {
				if i > 0 {
					dst = append(dst, ',')
				}
				dst = appendString(dst, m.Key)
				dst = append(dst, ':')
				dst = Append(dst, m.Value)
			}
		}
		return append(dst, '}')
	case []any:
		dst = append(dst, '[')
		for i, e := range v {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = Append(dst, e)
		}
		return append(dst, ']')
	case string:
		return appendString(dst, v)
	case json.Number:
		return append(dst, v...)
	case bool:
		if v {
			return append(dst, "true"...)
		}
		return append(dst, "false"...)
	case nil:
		return append(dst, "null"...)
	}
	panic(fmt.Sprintf("ojson: %T is not a JSON value of this package", v))
}

// appendString appends s as a JSON string, byte for byte as encoding/json's Encoder writes it
// with SetEscapeHTML(false): the short escapes where JSON has them, \u00XX for the other
// control characters, \ufffd for each byte of invalid UTF-8, and \u2028 and \u2029, which
// JavaScript does not allow in a string. It is written here, not left to an Encoder, because
// an Encoder costs allocations for every key and string: pkg/schema's BenchmarkTree went from
// 1127 to 923 allocations (36.9 to 32.1 kB) per schema with it. FuzzEncodeString checks that
// the two agree.
func appendString(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	start := 0 // s[start:i] is still to be copied as it is
	for i := 0; i < len(s); {
		b := s[i]
		if b < utf8.RuneSelf {
			if b >= ' ' && b != '"' && b != '\\' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch b {
			case '"', '\\':
				dst = append(dst, '\\', b)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hex[b>>4], hex[b&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hex[r&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}
