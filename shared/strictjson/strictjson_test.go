package strictjson

import "testing"

func TestDecode(t *testing.T) {
	type doc struct {
		A int `json:"a"`
	}
	cases := []struct {
		name    string
		data    string
		members Members
		ok      bool
	}{
		{"one object", `{"a":1}`, RefuseUnknown, true},
		{"JSON whitespace around it", " \n\t{\"a\":1}\r\n", RefuseUnknown, true},
		{"an unknown member refused", `{"a":1,"b":2}`, RefuseUnknown, false},
		{"an unknown member ignored", `{"a":1,"b":2}`, IgnoreUnknown, true},
		{"empty", ``, RefuseUnknown, false},
		{"null", `null`, IgnoreUnknown, false},
		{"an array", `[{"a":1}]`, IgnoreUnknown, false},
		{"a string", `"a"`, IgnoreUnknown, false},
		{"two objects", `{"a":1}{"a":2}`, IgnoreUnknown, false},
		{"a stray brace after it", `{"a":1}}`, IgnoreUnknown, false},
		{"cut short", `{"a":`, IgnoreUnknown, false},
		{"a member of the wrong type", `{"a":"1"}`, IgnoreUnknown, false},
		{"other whitespace before it", "\u00a0{\"a\":1}", IgnoreUnknown, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var d doc
			err := Decode([]byte(tc.data), &d, tc.members)
			if (err == nil) != tc.ok {
				t.Fatalf("Decode(%q) error = %v, want ok %v", tc.data, err, tc.ok)
			}
			if tc.ok && d.A != 1 {
				t.Fatalf("decoded %+v", d)
			}
		})
	}
}

func TestDecodeRefusesAmbiguousMembersAndInvalidText(t *testing.T) {
	type claim struct {
		Purpose string `json:"purpose"`
		Given   bool   `json:"given"`
	}
	type doc struct {
		Token  string          `json:"token"`
		Claims []claim         `json:"claims"`
		Nested map[string]bool `json:"nested"`
	}
	cases := []struct {
		name, data string
		members    Members
		ok         bool
	}{
		{"exact names", `{"token":"a","claims":[{"purpose":"p","given":true}]}`, RefuseUnknown, true},
		{"the same name in sibling objects", `{"claims":[{"given":true},{"given":false}],"nested":{"given":true}}`, RefuseUnknown, true},
		{"a string value equal to a key", `{"token":"token"}`, RefuseUnknown, true},
		{"a member in another case", `{"TOKEN":"a"}`, RefuseUnknown, false},
		{"a member in another case, unknown ignored", `{"Token":"a"}`, IgnoreUnknown, false},
		{"a member twice", `{"token":"a","token":"b"}`, IgnoreUnknown, false},
		{"a member twice in different case", `{"token":"a","TOKEN":"b"}`, IgnoreUnknown, false},
		{"a member twice in a nested object", `{"claims":[{"given":false,"GIVEN":true}]}`, IgnoreUnknown, false},
		{"a member twice in a map", `{"nested":{"a":true,"A":false}}`, IgnoreUnknown, false},
		{"case folding beyond ASCII", `{"nested":{"straße":true,"STRASSE":false}}`, IgnoreUnknown, false},
		{"the Kelvin sign folds to k", "{\"nested\":{\"k\":true,\"\u212a\":false}}", IgnoreUnknown, false},
		{"invalid UTF-8 in a string", "{\"token\":\"a\xff\"}", IgnoreUnknown, false},
		{"invalid UTF-8 after the object", "{\"token\":\"a\"}\xc0", IgnoreUnknown, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var d doc
			if err := Decode([]byte(tc.data), &d, tc.members); (err == nil) != tc.ok {
				t.Fatalf("Decode(%q) = %v, want ok=%v", tc.data, err, tc.ok)
			}
		})
	}
}
