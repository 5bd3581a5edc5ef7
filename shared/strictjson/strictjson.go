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
	"unicode/utf8"
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
// bytes that are not valid UTF-8, another kind of value, a syntax error, an
// object (at any depth) that names a member twice — also in different case,
// as encoding/json matches names —, a member that names a field of v in
// another case than its json tag, a member of the wrong type, data after
// the object, or (with RefuseUnknown) a member v does not know. The error
// describes the document's shape, never its content.
func Decode(data []byte, v any, members Members) error {
	if !utf8.Valid(data) {
		return errors.New("strictjson: not valid UTF-8")
	}
	data = bytes.Trim(data, " \t\r\n")
	if len(data) == 0 || data[0] != '{' {
		return errors.New("strictjson: not a JSON object")
	}
	if err := checkMemberNames(data); err != nil {
		return err
	}
	if err := exactMembers(data, v); err != nil {
		return err
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
