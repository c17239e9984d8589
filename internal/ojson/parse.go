package ojson

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
)

// Parse decodes data, which must hold one JSON value and nothing after it but white space.
// Objects become *Object with their members in document order; a key written twice keeps its
// first place and its last value, as encoding/json keeps the last. Numbers become json.Number,
// as written. The errors are encoding/json's, and "more data after the JSON value (at byte N)"
// where something follows the value.
func Parse(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := decode(dec)
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

// decode reads the next value of dec.
func decode(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	d, ok := tok.(json.Delim)
	if !ok {
		return tok, nil // string, json.Number, bool or nil
	}
	switch d {
	case '{':
		o := &Object{}
		for dec.More() {
			key, err := dec.Token()
			if err != nil {
				return nil, err
			}
			val, err := decode(dec)
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
			val, err := decode(dec)
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
