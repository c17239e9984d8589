package schemacheck

import (
	"bytes"
	"math/bits"
	"unicode/utf16"
	"unicode/utf8"
)

// A Checker reads the data in place with a scanner: it decodes nothing into Go values and
// allocates nothing. The scanner accepts only what encoding/json accepts and reads it the same
// way. Whenever the data is not JSON, or is JSON whose reading the checker does not want to
// vouch for (invalid UTF-8 in a string, which encoding/json replaces with U+FFFD; a lone
// surrogate escape; a number too long to compare exactly; nesting deeper than maxDepth), the
// scanner sets fail and the checker leaves the data to v6.

// maxDepth is the deepest nesting of arrays and objects that the checker reads.
const maxDepth = 500

// maxNumber is the length of the longest number the checker reads, in bytes. A number of at
// most this many bytes, with an exponent of at most maxExponent, is always read exactly by both
// the checker and math/big, which v6 uses. Every other number fails the scan, even one the
// schema does not look at: pkg/schema rejects those math/big cannot read before v6 sees them.
const (
	maxNumber   = 40
	maxExponent = 100_000
)

type scanner struct {
	data []byte
	i    int  // the next byte to read
	fail bool // the data is not JSON, or not JSON the checker decides
}

func (s *scanner) skipSpace() {
	for s.i < len(s.data) {
		switch s.data[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// peek returns the next byte, or 0 at the end of the data.
func (s *scanner) peek() byte {
	if s.i < len(s.data) {
		return s.data[s.i]
	}
	return 0
}

// first is called after the '[' or '{' of a container. It reports whether the container has an
// element, leaving the scanner on it; when it is empty, first reads the closing byte.
func (s *scanner) first(closing byte) bool {
	s.skipSpace()
	if s.peek() == closing {
		s.i++
		return false
	}
	return true
}

// next is called after an element of a container. It reports whether another element follows,
// leaving the scanner on it; at the end of the container, next reads the closing byte.
func (s *scanner) next(closing byte) bool {
	s.skipSpace()
	switch s.peek() {
	case ',':
		s.i++
		s.skipSpace()
		return true
	case closing:
		s.i++
		return false
	}
	s.fail = true
	return false
}

// key reads an object key and the ':' after it, leaving the scanner on the value.
func (s *scanner) key() (raw []byte, escaped bool) {
	if s.peek() != '"' {
		s.fail = true
		return nil, false
	}
	raw, escaped, _ = s.str()
	s.skipSpace()
	if s.peek() != ':' {
		s.fail = true
		return nil, false
	}
	s.i++
	s.skipSpace()
	return raw, escaped
}

// str reads a string. It returns its raw bytes between the quotes, whether they hold escapes,
// and the number of characters (code points) the string has once unescaped.
func (s *scanner) str() (raw []byte, escaped bool, runes int) {
	start := s.i + 1
	for i := start; i < len(s.data); runes++ {
		switch c := s.data[i]; {
		case c == '"':
			s.i = i + 1
			return s.data[start:i], escaped, runes
		case c == '\\':
			_, n := unescape(s.data[i:])
			if n == 0 {
				s.fail = true
				return nil, false, 0
			}
			escaped = true
			i += n
		case c < 0x20:
			s.fail = true // a control character must be escaped
			return nil, false, 0
		case c < utf8.RuneSelf:
			i++
		default:
			r, n := utf8.DecodeRune(s.data[i:])
			if r == utf8.RuneError && n == 1 {
				s.fail = true
				return nil, false, 0
			}
			i += n
		}
	}
	s.fail = true // no closing quote
	return nil, false, 0
}

// unescape decodes the escape at the start of b. It returns the character and the length of the
// escape: 2, 6, or 12 for a surrogate pair; the length is 0 when b does not start with a valid
// escape, or with a lone surrogate.
func unescape(b []byte) (rune, int) {
	if len(b) < 2 || b[0] != '\\' {
		return 0, 0
	}
	switch b[1] {
	case '"', '\\', '/':
		return rune(b[1]), 2
	case 'b':
		return '\b', 2
	case 'f':
		return '\f', 2
	case 'n':
		return '\n', 2
	case 'r':
		return '\r', 2
	case 't':
		return '\t', 2
	case 'u':
		r := hex4(b[2:])
		if r < 0 {
			return 0, 0
		}
		if !utf16.IsSurrogate(r) {
			return r, 6
		}
		if len(b) >= 12 && b[6] == '\\' && b[7] == 'u' {
			if pair := utf16.DecodeRune(r, hex4(b[8:])); pair != utf8.RuneError {
				return pair, 12
			}
		}
	}
	return 0, 0
}

// hex4 decodes the four hexadecimal digits at the start of b, or returns -1.
func hex4(b []byte) rune {
	if len(b) < 4 {
		return -1
	}
	var r rune
	for _, c := range b[:4] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c -= 'a' - 10
		case 'A' <= c && c <= 'F':
			c -= 'A' - 10
		default:
			return -1
		}
		r = r<<4 | rune(c)
	}
	return r
}

// equalString reports whether the raw bytes of a string read by str, escaped or not, are want
// once unescaped.
func equalString(raw []byte, escaped bool, want string) bool {
	if !escaped {
		return string(raw) == want
	}
	j := 0
	for i := 0; i < len(raw); {
		if raw[i] != '\\' {
			if j >= len(want) || raw[i] != want[j] {
				return false
			}
			i++
			j++
			continue
		}
		r, n := unescape(raw[i:])
		var enc [utf8.UTFMax]byte
		k := utf8.EncodeRune(enc[:], r)
		if len(want)-j < k || string(enc[:k]) != want[j:j+k] {
			return false
		}
		i += n
		j += k
	}
	return j == len(want)
}

// num reads a number as the JSON grammar has it.
func (s *scanner) num() decimal {
	start, i := s.i, s.i
	if i < len(s.data) && s.data[i] == '-' {
		i++
	}
	if i < len(s.data) && s.data[i] == '0' {
		i++
	} else if i = digits(s.data, i); i == -1 {
		s.fail = true
		return decimal{}
	}
	if i < len(s.data) && s.data[i] == '.' {
		if i = digits(s.data, i+1); i == -1 {
			s.fail = true
			return decimal{}
		}
	}
	if i < len(s.data) && (s.data[i] == 'e' || s.data[i] == 'E') {
		i++
		if i < len(s.data) && (s.data[i] == '+' || s.data[i] == '-') {
			i++
		}
		if i = digits(s.data, i); i == -1 {
			s.fail = true
			return decimal{}
		}
	}
	s.i = i
	d, ok := parseDecimal(s.data[start:i])
	if !ok {
		s.fail = true
	}
	return d
}

// digits returns the offset after the decimal digits at offset i of b, or -1 if there are none.
func digits(b []byte, i int) int {
	start := i
	for i < len(b) && '0' <= b[i] && b[i] <= '9' {
		i++
	}
	if i == start {
		return -1
	}
	return i
}

// literal reads true, false or null.
func (s *scanner) literal() (t types, b bool) {
	rest := s.data[s.i:]
	switch {
	case hasWord(rest, "true"):
		s.i += 4
		return typeBoolean, true
	case hasWord(rest, "false"):
		s.i += 5
		return typeBoolean, false
	case hasWord(rest, "null"):
		s.i += 4
		return typeNull, false
	}
	s.fail = true
	return 0, false
}

func hasWord(b []byte, word string) bool {
	return len(b) >= len(word) && string(b[:len(word)]) == word
}

// skip reads one value of any kind.
func (s *scanner) skip(depth int) {
	if depth > maxDepth {
		s.fail = true
		return
	}
	switch s.peek() {
	case '{':
		s.i++
		for more := s.first('}'); more && !s.fail; more = s.next('}') {
			s.key()
			if !s.fail {
				s.skip(depth + 1)
			}
		}
	case '[':
		s.i++
		for more := s.first(']'); more && !s.fail; more = s.next(']') {
			s.skip(depth + 1)
		}
	case '"':
		s.str()
	case 't', 'f', 'n':
		s.literal()
	default:
		s.num()
	}
}

// decimal is a number read exactly: its value is 0.digits × 10^point, negative when neg. The
// digits have no leading or trailing zeros; zero has none at all.
type decimal struct {
	digits [maxNumber]byte
	n      int // how many digits
	point  int
	neg    bool
}

// parseDecimal reads a number that the JSON grammar accepts; ok is false when it is too long,
// or its exponent too large, to read here.
func parseDecimal(raw []byte) (d decimal, ok bool) {
	if len(raw) > maxNumber {
		return d, false
	}
	i := 0
	if raw[0] == '-' {
		d.neg = true
		i++
	}
	fraction := false
	for ; i < len(raw) && raw[i] != 'e' && raw[i] != 'E'; i++ {
		switch c := raw[i]; {
		case c == '.':
			fraction = true
		case c == '0' && d.n == 0: // a leading zero
			if fraction {
				d.point--
			}
		default:
			d.digits[d.n] = c
			d.n++
			if !fraction {
				d.point++
			}
		}
	}
	if i < len(raw) { // the exponent
		i++
		neg := raw[i] == '-'
		if raw[i] == '-' || raw[i] == '+' {
			i++
		}
		exp := 0
		for ; i < len(raw); i++ {
			if exp = exp*10 + int(raw[i]-'0'); exp > maxExponent {
				return d, false
			}
		}
		if neg {
			exp = -exp
		}
		d.point += exp
	}
	for d.n > 0 && d.digits[d.n-1] == '0' {
		d.n--
	}
	if d.n == 0 {
		return decimal{}, true
	}
	return d, true
}

// isInteger reports whether d has no fraction.
func (d *decimal) isInteger() bool { return d.n <= d.point }

func (d *decimal) sign() int {
	switch {
	case d.n == 0:
		return 0
	case d.neg:
		return -1
	}
	return 1
}

// cmp compares d and e as numbers: -1 when d < e, 0 when d == e, +1 when d > e.
func (d *decimal) cmp(e *decimal) int {
	ds, es := d.sign(), e.sign()
	switch {
	case ds != es:
		return compareInts(ds, es)
	case ds == 0:
		return 0
	case d.point != e.point:
		return ds * compareInts(d.point, e.point)
	}
	return ds * bytes.Compare(d.digits[:d.n], e.digits[:e.n])
}

// multipleOf reports whether d is an integer multiple of m, which is positive. sure is false when
// either has more digits than a uint64 holds, or their exponents are far apart.
func (d *decimal) multipleOf(m *decimal) (yes, sure bool) {
	if d.n == 0 {
		return true, true
	}
	if d.n > 19 || m.n > 19 {
		return false, false
	}
	// d = dd × 10^(d.point-d.n) and m = mm × 10^(m.point-m.n), with dd and mm integers.
	dd, mm := d.integer(), m.integer()
	e := (d.point - d.n) - (m.point - m.n)
	switch {
	case e > 1000:
		return false, false
	case e >= 0: // is dd × 10^e a multiple of mm?
		r := dd % mm
		for ; e > 0 && r != 0; e-- {
			hi, lo := bits.Mul64(r, 10)
			r = bits.Rem64(hi, lo, mm)
		}
		return r == 0, true
	}
	// Is dd a multiple of mm × 10^-e? Not if that is more than a uint64 holds, as dd is not 0.
	for ; e < 0; e++ {
		hi, lo := bits.Mul64(mm, 10)
		if hi != 0 {
			return false, true
		}
		mm = lo
	}
	return dd%mm == 0, true
}

// integer returns the digits of d as an integer; d has at most 19.
func (d *decimal) integer() uint64 {
	var v uint64
	for _, c := range d.digits[:d.n] {
		v = v*10 + uint64(c-'0')
	}
	return v
}

func compareInts(a, b int) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
