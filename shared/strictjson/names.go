package strictjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"reflect"
	"strings"

	"golang.org/x/text/cases"
)

// The threat: encoding/json lets the last of two equal member names win,
// matches member names to struct fields ignoring case, and turns invalid
// UTF-8 into U+FFFD before any rule can see it, so {"given": false,
// "GIVEN": true} reads as a consent the page never showed ticked, and a
// proxy, a log or a second parser that takes the first member sees
// something else than the service did. A document whose members are
// ambiguous, or whose bytes are not text, is refused instead of guessed at.

// errAmbiguousMembers is the refusal of a document with duplicate or
// case-variant member names.
var errAmbiguousMembers = errors.New("strictjson: a member named twice (perhaps in different case)")

// checkMemberNames walks the first JSON value of data and refuses an object
// that names a member twice, comparing names by Unicode case folding as encoding/json
// matches them.
func checkMemberNames(body []byte) error {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	// frame is one open object or array; in an object, tokens alternate
	// between a key and a value (which may open a frame of its own).
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

// exactMembers refuses a document whose top-level members name one of v's
// fields in another case than its json tag spells it: encoding/json would
// match "TOKEN" to "token", and DisallowUnknownFields does not object.
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
