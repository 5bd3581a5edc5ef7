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

// Members says what Decode does with a member v has no field for.
type Members int

const (
	RefuseUnknown Members = iota // an unknown member is an error
	IgnoreUnknown                // unknown members are skipped
)

// Decode decodes data, exactly one JSON object, into v. It refuses invalid UTF-8, another
// value, a member named twice (in any case), a member in another case than its tag, a wrong
// type, trailing data, and with RefuseUnknown an unknown member. Its error never quotes content.
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
