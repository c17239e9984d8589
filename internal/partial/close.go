package partial

import "unicode/utf8"

// maxDepth is how deep arrays and objects may nest: encoding/json refuses deeper documents, so
// a prefix that nests deeper is not the start of one.
const maxDepth = 10000

// Close returns the JSON document that prefix, the start of one JSON value, stands for so far, and
// whether there is one. The document holds what the prefix already determines and nothing it
// does not:
//
//   - Open objects and arrays are closed, at every depth.
//   - An object member is kept once its value is complete, or once its value is an object or
//     array that has begun (closed as above). A member whose key is cut, whose colon has not
//     come, or whose value has not begun or is a scalar not yet complete is left out; so is an
//     array item that is a scalar not yet complete. A trailing comma is dropped.
//   - A number is complete only when a byte that cannot continue it follows: ',', ']', '}' or
//     white space. A number at the end of the prefix could go on ("1" may become "12"), so it is
//     left out. A literal (true, false, null) is complete at its last letter; one cut short is
//     left out.
//   - A string is complete at its closing quote. A value string cut short is left out with its
//     member or item, unless keepString is set: then it is kept as far as it is written and
//     closed with '"', cut back to a whole UTF-8 character and a whole escape sequence (a cut
//     '\' or "\u00" is dropped, and so is a "\ud83d" whose low surrogate may still come). A key
//     cut short is always left out with its member.
//
// Tokens are copied as written and white space between them is dropped: when prefix is a
// whole valid JSON document, the result is that document as [encoding/json.Compact] writes it.
// The one exception is a document that is a bare number, which Close cannot tell from the
// start of a longer number: "12" gives no document, "12 " gives "12".
//
// ok is false when the prefix holds nothing but white space; when it is not the start of valid
// JSON (a syntax error in it, or arrays and objects nested more than encoding/json's 10000
// deep); and when its value is a scalar that may still go on: a number, a literal cut short, or
// a string cut short (unless keepString is set, which keeps a top-level string as it keeps one
// inside an object or array). So along the prefixes of one valid document, ok is false and
// then true, and once true it stays true; it turns false again only where the text goes on
// with a syntax error ("[1," gives [1], "[1,]" gives nothing).
//
// Once the top value is complete, what follows it is ignored, not checked: `{"a":1} and more`
// gives {"a":1}, as a model may write prose after its answer. A top-level number is complete
// only at white space; any other byte after it is a syntax error.
//
// Close reads prefix once and allocates only the buffer of the document it returns (a second
// time only when it closes more containers than the prefix's white space leaves room for, past
// 16); it does not keep or change prefix.
func Close(prefix []byte, keepString bool) (doc []byte, ok bool) {
	i := skipSpace(prefix, 0)
	if i == len(prefix) {
		return nil, false
	}
	c := closer{in: prefix, keepString: keepString}
	// The document is at most the prefix without its white space, a quote and one closer per
	// open container: room for 16 closers spares a second allocation in the common case.
	c.out = make([]byte, 0, len(prefix)-i+16)
	for i < len(prefix) {
		var r result
		i, r = c.step(i)
		switch r {
		case failed:
			return nil, false
		case done:
			return c.out, true
		}
	}
	return c.end()
}

// result is what a step of a closer found.
type result uint8

const (
	more   result = iota // the value goes on
	done                 // the top value is complete
	failed               // the prefix is not the start of a JSON value
)

// state is where a closer is in the JSON grammar.
type state uint8

const (
	stValue      state = iota // a value is due (at the top, after ':', after ',' in an array)
	stFirstValue              // after '[': a value or ']'
	stFirstKey                // after '{': a key or '}'
	stKey                     // after ',' in an object: a key
	stColon                   // after a key: ':'
	stAfter                   // after a value in an array or object: ',' or its closer
	stString                  // in a string, outside an escape
	stEscape                  // after '\' in a string
	stUnicode                 // in the four hex digits of a \u escape
	stNumber                  // in a number (see num)
	stLiteral                 // in true, false or null (see lit, litPos)
)

// numState is where a closer is in a number.
type numState uint8

const (
	numMinus numState = iota // after '-': a digit is due
	numZero                  // after a leading 0: '.', 'e' or the end
	numInt                   // in the integer digits
	numDot                   // after '.': a digit is due
	numFrac                  // in the fraction digits
	numE                     // after 'e': a sign or a digit is due
	numESign                 // after the exponent's sign: a digit is due
	numExp                   // in the exponent digits
)

// closer holds the state of one Close: it copies the prefix to out without white space, and
// remembers where out can be cut to leave out a value not yet complete.
type closer struct {
	in         []byte
	out        []byte
	keepString bool

	st    state
	depth int
	// kinds holds one bit per open container, 1 for an object: enough for maxDepth, on the
	// stack, so that nesting costs no allocation.
	kinds [maxDepth/64 + 1]uint64
	// safe is the length of out after the last complete item or member of the innermost
	// container (or after its opener): a cut there leaves out what is not complete.
	safe int

	// For the string being read: key tells a key from a value; rawStart is the length of out
	// where its current run of unescaped bytes began; strSafe is a length of out where a cut
	// leaves whole characters; escStart is where the escape being read began; hex holds its
	// \u digits, hexN of them.
	key      bool
	rawStart int
	strSafe  int
	escStart int
	hex      rune
	hexN     int

	num    numState
	lit    string
	litPos int
}

// step reads the byte at i (a run of string bytes at once) and returns where to read next.
func (c *closer) step(i int) (int, result) {
	b := c.in[i]
	switch c.st {
	case stString:
		return c.stringRun(i)
	case stEscape:
		return i + 1, c.escape(b)
	case stUnicode:
		return i + 1, c.unicode(b)
	case stLiteral:
		return i + 1, c.literal(b)
	case stNumber:
		return c.number(i)
	}
	if isSpace(b) {
		return skipSpace(c.in, i+1), more
	}
	switch c.st {
	case stFirstValue:
		if b == ']' {
			return i + 1, c.pop(b)
		}
		return i + 1, c.begin(b)
	case stValue:
		return i + 1, c.begin(b)
	case stFirstKey, stKey:
		if b == '}' && c.st == stFirstKey {
			return i + 1, c.pop(b)
		}
		if b != '"' {
			return i, failed
		}
		c.out = append(c.out, b)
		c.startString(true)
	case stColon:
		if b != ':' {
			return i, failed
		}
		c.out = append(c.out, b)
		c.st = stValue
	case stAfter:
		return i + 1, c.after(b)
	}
	return i + 1, more
}

// begin starts the value whose first byte is b.
func (c *closer) begin(b byte) result {
	switch {
	case b == '{' || b == '[':
		return c.push(b)
	case b == '"':
		c.out = append(c.out, b)
		c.startString(false)
	case b == '-':
		c.out = append(c.out, b)
		c.st, c.num = stNumber, numMinus
	case b == '0':
		c.out = append(c.out, b)
		c.st, c.num = stNumber, numZero
	case '1' <= b && b <= '9':
		c.out = append(c.out, b)
		c.st, c.num = stNumber, numInt
	case b == 't':
		c.startLiteral("true")
	case b == 'f':
		c.startLiteral("false")
	case b == 'n':
		c.startLiteral("null")
	default:
		return failed
	}
	return more
}

// after reads b after a complete value in a container: a comma or the container's closer.
func (c *closer) after(b byte) result {
	switch b {
	case ',':
		c.out = append(c.out, b)
		if c.inObject() {
			c.st = stKey
		} else {
			c.st = stValue
		}
		return more
	case ']', '}':
		return c.pop(b)
	}
	return failed
}

// push opens the object or array that b begins.
func (c *closer) push(b byte) result {
	if c.depth == maxDepth {
		return failed
	}
	word, bit := c.depth/64, uint(c.depth%64)
	if b == '{' {
		c.kinds[word] |= 1 << bit
		c.st = stFirstKey
	} else {
		c.kinds[word] &^= 1 << bit
		c.st = stFirstValue
	}
	c.depth++
	c.out = append(c.out, b)
	c.safe = len(c.out)
	return more
}

// pop closes the innermost container with b, which must be its closer.
func (c *closer) pop(b byte) result {
	if (b == '}') != c.inObject() {
		return failed
	}
	c.depth--
	c.out = append(c.out, b)
	return c.complete()
}

// inObject reports whether the innermost open container is an object.
func (c *closer) inObject() bool {
	d := c.depth - 1
	return c.kinds[d/64]&(1<<uint(d%64)) != 0
}

// complete notes that a value has ended at the end of out.
func (c *closer) complete() result {
	if c.depth == 0 {
		return done
	}
	c.st = stAfter
	c.safe = len(c.out)
	return more
}

func (c *closer) startLiteral(lit string) {
	c.out = append(c.out, lit[0])
	c.st, c.lit, c.litPos = stLiteral, lit, 1
}

func (c *closer) literal(b byte) result {
	if b != c.lit[c.litPos] {
		return failed
	}
	c.out = append(c.out, b)
	if c.litPos++; c.litPos < len(c.lit) {
		return more
	}
	return c.complete()
}

// number reads the byte at i in a number. A byte that cannot continue the number ends it, if
// it is whole, and is then read again after the number.
func (c *closer) number(i int) (int, result) {
	b := c.in[i]
	if c.continues(b) {
		c.out = append(c.out, b)
		return i + 1, more
	}
	whole := c.num == numZero || c.num == numInt || c.num == numFrac || c.num == numExp
	if !whole {
		return i, failed
	}
	if c.depth == 0 {
		if isSpace(b) {
			return i, done
		}
		return i, failed
	}
	return i, c.complete()
}

// continues reports whether b continues the number, and moves num past it if so.
func (c *closer) continues(b byte) bool {
	digit := '0' <= b && b <= '9'
	switch c.num {
	case numMinus:
		switch {
		case b == '0':
			c.num = numZero
		case digit:
			c.num = numInt
		default:
			return false
		}
	case numZero, numInt, numFrac:
		switch {
		case digit && c.num != numZero:
		case b == '.' && c.num != numFrac:
			c.num = numDot
		case b == 'e' || b == 'E':
			c.num = numE
		default:
			return false
		}
	case numDot:
		if !digit {
			return false
		}
		c.num = numFrac
	case numE:
		switch {
		case b == '+' || b == '-':
			c.num = numESign
		case digit:
			c.num = numExp
		default:
			return false
		}
	case numESign, numExp:
		if !digit {
			return false
		}
		c.num = numExp
	}
	return true
}

// startString notes that a string has begun at the end of out, after its quote.
func (c *closer) startString(key bool) {
	c.st, c.key = stString, key
	c.rawStart, c.strSafe = len(c.out), len(c.out)
}

// stringRun copies the string's bytes from i up to its end, an escape or the end of the
// prefix.
func (c *closer) stringRun(i int) (int, result) {
	j := i
	for j < len(c.in) && c.in[j] != '"' && c.in[j] != '\\' && c.in[j] >= ' ' {
		j++
	}
	c.out = append(c.out, c.in[i:j]...)
	if j == len(c.in) {
		return j, more
	}
	switch b := c.in[j]; b {
	case '"':
		c.out = append(c.out, b)
		if c.key {
			c.st = stColon
			return j + 1, more
		}
		return j + 1, c.complete()
	case '\\':
		if len(c.out) > c.rawStart {
			// The bytes before an escape are final, a stray byte of UTF-8 as much as a whole
			// character: encoding/json reads each stray byte as U+FFFD.
			c.strSafe = len(c.out)
		}
		c.escStart = len(c.out)
		c.out = append(c.out, b)
		c.st = stEscape
		return j + 1, more
	}
	return j, failed // a control character
}

func (c *closer) escape(b byte) result {
	switch b {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		c.out = append(c.out, b)
		c.escaped(false)
	case 'u':
		c.out = append(c.out, b)
		c.st, c.hex, c.hexN = stUnicode, 0, 0
	default:
		return failed
	}
	return more
}

func (c *closer) unicode(b byte) result {
	var h byte
	switch {
	case '0' <= b && b <= '9':
		h = b - '0'
	case 'a' <= b && b <= 'f':
		h = b - 'a' + 10
	case 'A' <= b && b <= 'F':
		h = b - 'A' + 10
	default:
		return failed
	}
	c.out = append(c.out, b)
	c.hex = c.hex<<4 | rune(h)
	if c.hexN++; c.hexN == 4 {
		c.escaped(0xD800 <= c.hex && c.hex < 0xDC00)
	}
	return more
}

// escaped notes that an escape sequence has ended at the end of out. A high surrogate is not
// a whole character yet: the low surrogate that may follow makes one with it, where
// encoding/json reads a lone one as U+FFFD. So a cut goes before it until the next
// character, or escape, is read.
func (c *closer) escaped(highSurrogate bool) {
	if highSurrogate {
		c.strSafe = c.escStart
	} else {
		c.strSafe = len(c.out)
	}
	c.rawStart = len(c.out)
	c.st = stString
}

// stringCut returns the length of out at which the string being read, cut short, holds only
// whole characters.
func (c *closer) stringCut() int {
	if c.st != stString {
		return c.strSafe // in an escape
	}
	if cut := c.rawStart + wholeRunes(c.out[c.rawStart:]); cut > c.rawStart {
		return cut
	}
	return c.strSafe
}

// wholeRunes returns the length of b without the start of a UTF-8 character that its last
// bytes begin and do not finish.
func wholeRunes(b []byte) int {
	for k := 1; k < utf8.UTFMax && k <= len(b); k++ {
		if utf8.RuneStart(b[len(b)-k]) {
			if !utf8.FullRune(b[len(b)-k:]) {
				return len(b) - k
			}
			break
		}
	}
	return len(b)
}

// end makes the document at the end of the prefix: it cuts out what is not complete and
// closes what is open.
func (c *closer) end() ([]byte, bool) {
	inString := c.st == stString || c.st == stEscape || c.st == stUnicode
	keep := inString && c.keepString && !c.key
	switch {
	case keep:
		c.out = append(c.out[:c.stringCut()], '"')
	case c.depth == 0:
		return nil, false // a scalar that may go on
	default:
		c.out = c.out[:c.safe]
	}
	for c.depth > 0 {
		closer := byte(']')
		if c.inObject() {
			closer = '}'
		}
		c.out = append(c.out, closer)
		c.depth--
	}
	return c.out, true
}

func isSpace(b byte) bool {
	return b == ' ' || b == '\t' || b == '\n' || b == '\r'
}

// skipSpace returns the offset of the first byte at or after i in data that is not JSON white
// space.
func skipSpace(data []byte, i int) int {
	for i < len(data) && isSpace(data[i]) {
		i++
	}
	return i
}
