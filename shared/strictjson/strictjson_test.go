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
