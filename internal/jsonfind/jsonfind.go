package jsonfind

import (
	"iter"
	"strings"
)

// maxDepth is encoding/json's limit on nesting: a decode from an opener fails where arrays and
// objects open more than this many deep.
const maxDepth = 10000

// Values yields, left to right, each JSON object or array of text that encoding/json's
// Decoder would read from one of text's '{' or '[' (whatever follows it); the search goes on
// after the end of each value yielded, so values do not overlap. The bytes read are at most
// a small multiple of len(text) (see budget): on a text built to need more, the values past
// that point are not yielded.
func Values(text string) iter.Seq[string] {
	return func(yield func(string) bool) {
		f := finder{s: text}
		f.values(yield)
	}
}

// budget bounds the bytes all passes read together: every text seen in practice, and every
// text of unclosed openers, needs at most two passes' worth. It is a guarantee of linear time
// only; a text needs many passes over the same bytes only when most of its openers sit inside
// strings of each other's values.
func budget(n int) int { return 8*n + 1<<20 }

type finder struct {
	s string
	// ends holds what a decode from each opener gave, once known: 0 not known, -1 no value,
	// e+1 a value ending before e. Made on the first pass that fails, as most texts need none.
	ends []int32
	// stack holds the arrays and objects open in the current pass, from stack[bottom] out: the
	// frames below bottom were let go at the depth limit.
	stack  []frame
	bottom int
	closed []span // values closed inside the current pass: noted in ends if the pass fails
	last   int    // the start of the value the current pass closed last at its outermost
	read   int    // bytes read by all passes so far
}

type span struct{ start, end int }

// frame is an array or object open in the current pass.
type frame struct {
	start int
	state state
}

// state is what a frame expects next.
type state uint8

const (
	arrayFirst  state = iota // a value or ']'
	arrayValue               // a value, after ','
	arrayNext                // ',' or ']'
	objectFirst              // a key or '}'
	objectKey                // a key, after ','
	objectColon              // ':'
	objectValue              // a value, after ':'
	objectNext               // ',' or '}'
)

func (f *finder) values(yield func(string) bool) {
	if len(f.s) > 1<<31-2 {
		f.s = f.s[:1<<31-2] // ends holds int32s; no answer is 2 GiB
	}
	limit := budget(len(f.s))
	for i := 0; i < len(f.s); {
		j := strings.IndexAny(f.s[i:], "{[")
		if j < 0 {
			return
		}
		k := i + j
		end := f.known(k)
		if end == 0 {
			if f.read > limit {
				return
			}
			end = f.pass(k)
		}
		if end < 0 {
			i = k + 1
			continue
		}
		if !yield(f.s[k:end]) {
			return
		}
		i = end
	}
}

// known returns what a decode from the opener at k gives, when an earlier pass told: the end
// of its value, or -1 for none; 0 when not known.
func (f *finder) known(k int) int {
	if f.ends == nil || f.ends[k] == 0 {
		return 0
	}
	if f.ends[k] < 0 {
		return -1
	}
	return int(f.ends[k]) - 1
}

// note keeps what a decode from the opener at start gives: the end of its value, or -1.
func (f *finder) note(start, end int) {
	if f.ends == nil {
		f.ends = make([]int32, len(f.s))
	}
	if end < 0 {
		f.ends[start] = -1
	} else {
		f.ends[start] = int32(end) + 1
	}
}

// pass reads the value that starts at the opener at k, as encoding/json's scanner does, and
// returns its end, or -1 when there is none. When it fails, it notes the outcome of every
// opener it read outside strings: the values closed inside it, and the failure of every array
// and object still open.
func (f *finder) pass(k int) int {
	f.stack, f.bottom, f.closed = f.stack[:0], 0, f.closed[:0]
	i := k
	defer func() { f.read += i - k }()
	for {
		if i = f.space(i); i >= len(f.s) {
			return f.fail()
		}
		c := f.s[i]
		if f.bottom < len(f.stack) {
			top := &f.stack[len(f.stack)-1]
			switch top.state {
			case arrayFirst, objectFirst:
				if c == ']' && top.state == arrayFirst || c == '}' && top.state == objectFirst {
					i++
					if f.close(i - 1) {
						return f.found(k, i)
					}
					continue
				}
			case arrayNext, objectNext:
				closer, next := byte(']'), arrayValue
				if top.state == objectNext {
					closer, next = '}', objectKey
				}
				switch c {
				case ',':
					top.state = next
				case closer:
					if f.close(i) {
						i++
						return f.found(k, i)
					}
				default:
					return f.fail()
				}
				i++
				continue
			case objectColon:
				if c != ':' {
					return f.fail()
				}
				top.state = objectValue
				i++
				continue
			}
			if top.state == objectFirst || top.state == objectKey {
				ok := c == '"'
				if ok {
					i, ok = f.str(i)
				}
				if !ok {
					return f.fail()
				}
				top.state = objectColon
				continue
			}
		}
		// A value.
		if c == '[' || c == '{' {
			f.open(i, c)
			i++
			continue
		}
		ok := false
		switch c {
		case '"':
			i, ok = f.str(i)
		case 't':
			i, ok = f.literal(i, "true")
		case 'f':
			i, ok = f.literal(i, "false")
		case 'n':
			i, ok = f.literal(i, "null")
		default:
			i, ok = f.number(i)
		}
		if !ok {
			return f.fail()
		}
		f.valueDone()
	}
}

// open opens an array or object at i.
func (f *finder) open(i int, c byte) {
	if len(f.stack)-f.bottom == maxDepth {
		// The decode from the outermost opener fails here, one level too deep; the one from
		// the next opener in reads the same bytes one level shallower: go on as that one.
		f.note(f.stack[f.bottom].start, -1)
		f.bottom++
		if f.bottom == maxDepth { // keep the stack's memory to twice the depth
			f.stack = append(f.stack[:0], f.stack[f.bottom:]...)
			f.bottom = 0
		}
	}
	s := arrayFirst
	if c == '{' {
		s = objectFirst
	}
	f.stack = append(f.stack, frame{start: i, state: s})
}

// valueDone moves the innermost frame past a value.
func (f *finder) valueDone() {
	top := &f.stack[len(f.stack)-1]
	if top.state == objectValue {
		top.state = objectNext
	} else {
		top.state = arrayNext
	}
}

// close closes the innermost frame at its closing byte i, and reports whether it was the
// pass's outermost.
func (f *finder) close(i int) bool {
	top := f.stack[len(f.stack)-1]
	f.stack = f.stack[:len(f.stack)-1]
	if len(f.stack) == f.bottom {
		f.last = top.start
		return true
	}
	f.closed = append(f.closed, span{top.start, i + 1})
	f.valueDone()
	return false
}

// found ends the pass from k that closed its outermost value before end: k's own, or, when
// the depth limit let k go, that of an opener further in, which is noted for when the search
// gets there.
func (f *finder) found(k, end int) int {
	if f.last == k {
		return end
	}
	f.note(f.last, end)
	return -1
}

// fail ends a pass that found no value: every frame still open has none, and every value
// closed inside them is one.
func (f *finder) fail() int {
	for _, sp := range f.closed {
		f.note(sp.start, sp.end)
	}
	for _, fr := range f.stack[f.bottom:] {
		f.note(fr.start, -1)
	}
	return -1
}

func (f *finder) space(i int) int {
	for i < len(f.s) {
		switch f.s[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// The scalar readers below take the index of a scalar's first byte and return the index
// after it, or, with ok false, the index of the byte where it went wrong.

func (f *finder) str(i int) (int, bool) {
	for i++; i < len(f.s); i++ {
		switch c := f.s[i]; {
		case c == '"':
			return i + 1, true
		case c < 0x20:
			return i, false
		case c == '\\':
			i++
			if i >= len(f.s) {
				return i, false
			}
			switch f.s[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				for range 4 {
					if i++; i >= len(f.s) || !isHex(f.s[i]) {
						return i, false
					}
				}
			default:
				return i, false
			}
		}
	}
	return i, false
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func (f *finder) literal(i int, word string) (int, bool) {
	for j := range len(word) {
		if i+j >= len(f.s) || f.s[i+j] != word[j] {
			return i + j, false
		}
	}
	return i + len(word), true
}

// number reads a number by JSON's grammar.
func (f *finder) number(i int) (int, bool) {
	s := f.s
	if i < len(s) && s[i] == '-' {
		i++
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case i < len(s) && '1' <= s[i] && s[i] <= '9':
		i = digits(s, i)
	default:
		return i, false
	}
	if i < len(s) && s[i] == '.' {
		if i++; i >= len(s) || !isDigit(s[i]) {
			return i, false
		}
		i = digits(s, i)
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if i >= len(s) || !isDigit(s[i]) {
			return i, false
		}
		i = digits(s, i)
	}
	return i, true
}

func digits(s string, i int) int {
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	return i
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }
