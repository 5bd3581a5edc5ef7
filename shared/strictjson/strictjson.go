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
	"reflect"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/cases"
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

var errAmbiguousMembers = errors.New("strictjson: a member named twice (perhaps in different case)")

// checkMemberNames refuses an object in data's first value that names a member twice, by
// case folding.
func checkMemberNames(body []byte) error {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	// frame is one open object or array.
	type frame struct {
		object    bool
		expectKey bool
		seen      map[string]bool
	}
	var stack []*frame
	fold := cases.Fold() // not shared: a Caser is stateful
	valueDone := func() {
		if len(stack) > 0 && stack[len(stack)-1].object {
			stack[len(stack)-1].expectKey = true
		}
	}
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if len(stack) > 0 {
			if top := stack[len(stack)-1]; top.object && top.expectKey {
				if name, ok := tok.(string); ok {
					name = fold.String(name)
					if top.seen[name] {
						return errAmbiguousMembers
					}
					top.seen[name] = true
					top.expectKey = false
					continue
				}
			}
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, &frame{object: true, expectKey: true, seen: map[string]bool{}})
		case json.Delim('['):
			stack = append(stack, &frame{})
		case json.Delim('}'), json.Delim(']'):
			stack = stack[:len(stack)-1]
			valueDone()
		default:
			valueDone()
		}
		if len(stack) == 0 {
			return nil // the first value is whole; what follows is Decode's business
		}
	}
}

// exactMembers refuses a top-level member naming a field of v in another case than its tag.
func exactMembers(data []byte, v any) error {
	t := reflect.TypeOf(v)
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil || t.Kind() != reflect.Struct {
		return nil
	}
	fold := cases.Fold()
	exact, folded := map[string]bool{}, map[string]bool{}
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		switch name {
		case "-":
			continue
		case "":
			name = f.Name
		}
		exact[name], folded[fold.String(name)] = true, true
	}
	var members map[string]json.RawMessage
	if err := json.NewDecoder(bytes.NewReader(data)).Decode(&members); err != nil {
		return err // the first value only: what follows is Decode's business
	}
	for m := range members {
		if !exact[m] && folded[fold.String(m)] {
			return errors.New("strictjson: a member named in another case than its field")
		}
	}
	return nil
}
