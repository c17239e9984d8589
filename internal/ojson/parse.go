package ojson

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
)

// maxDepth is how deep arrays and objects may nest, as in encoding/json, whose Decoder does not
// check it token by token: deeper input is refused rather than recursed into.
const maxDepth = 10000

// Parse decodes data, which must hold one JSON value and nothing after it but white space.
// Objects become *Object with their members in document order; a key written twice keeps its
// first place and its last value, as encoding/json keeps the last. Numbers become json.Number,
// as written. Parse accepts what encoding/json accepts: its errors are encoding/json's, "more
// data after the JSON value (at byte N)" where something follows the value, and "arrays and
// objects nested more than 10000 deep" where encoding/json refuses the depth.
func Parse(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := decode(dec, 0)
	if err != nil {
		return nil, err
	}
	end := int(dec.InputOffset())
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("more data after the JSON value (at byte %d)", skipSpace(data, end))
	}
	return v, nil
}

// skipSpace returns the offset of the first byte at or after i in data that is not JSON white
// space.
func skipSpace(data []byte, i int) int {
	for i < len(data) && (data[i] == ' ' || data[i] == '\t' || data[i] == '\r' || data[i] == '\n') {
		i++
	}
	return i
}

// decode reads the next value of dec, which depth arrays and objects hold.
func decode(dec *json.Decoder, depth int) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	d, ok := tok.(json.Delim)
	if !ok {
		return tok, nil // string, json.Number, bool or nil
	}
	if depth++; depth > maxDepth {
		return nil, fmt.Errorf("arrays and objects nested more than %d deep (at byte %d)", maxDepth, dec.InputOffset()-1)
	}
	switch d {
	case '{':
		o := &Object{}
		for dec.More() {
			key, err := dec.Token()
			if err != nil {
				return nil, err
			}
			val, err := decode(dec, depth)
			if err != nil {
				return nil, err
			}
			o.Set(key.(string), val) // the Decoder gives only a string where a key is due
		}
		_, err := dec.Token() // '}'
		return o, err
	case '[':
		arr := []any{}
		for dec.More() {
			val, err := decode(dec, depth)
			if err != nil {
				return nil, err
			}
			arr = append(arr, val)
		}
		_, err := dec.Token() // ']'
		return arr, err
	}
	return nil, fmt.Errorf("unexpected %v at byte %d", d, dec.InputOffset())
}
