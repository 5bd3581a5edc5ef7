// Package strictjson is the module's one way of reading a JSON document
// from outside: exactly one JSON object, nothing before or after it but
// whitespace. Request bodies, the embedded form definitions and ALTCHA
// payloads are all read with Decode.
package strictjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
)

// Members says what Decode does with an object member that v has no field
// for.
type Members int

const (
	// RefuseUnknown makes an unknown member an error.
	RefuseUnknown Members = iota
	// IgnoreUnknown skips unknown members (for formats that grow, such as
	// an ALTCHA payload's "took").
	IgnoreUnknown
)

// Decode decodes data, which must hold exactly one JSON object with only
// JSON whitespace around it, into v. It returns an error for anything else:
// another kind of value, a syntax error, a member of the wrong type, data
// after the object, or (with RefuseUnknown) a member v does not know. The
// error describes the document's shape, never its content.
func Decode(data []byte, v any, members Members) error {
	data = bytes.Trim(data, " \t\r\n")
	if len(data) == 0 || data[0] != '{' {
		return errors.New("strictjson: not a JSON object")
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if members == RefuseUnknown {
		dec.DisallowUnknownFields()
	}
	if err := dec.Decode(v); err != nil {
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("strictjson: data after the JSON object")
	}
	return nil
}
