package textrules

import "testing"

// TestBadCharacter: what real writing needs passes, on one line and on
// several; what hides or turns text around is named.
func TestBadCharacter(t *testing.T) {
	for _, tc := range []struct {
		name      string
		text      string
		multiline bool
		refused   bool
	}{
		{"plain", "Ada Lovelace", false, false},
		{"a line break on one line", "Ada\nLovelace", false, true},
		{"a line break in a message", "Hello\nthere", true, false},
		{"a tab", "Ada\tLovelace", true, true},
		{"a bidi override", "Bob\u202Eevil", false, true},
		{"a bidi isolate", "\u2066x\u2069", true, true},
		{"a right-to-left mark", "\u200Fדנה", false, false},
		{"a zero-width space", "Ada\u200bLovelace", false, true},
		{"Persian with a zero-width non-joiner", "می\u200cخواهد", false, false},
		{"a zero-width non-joiner after a space", "a \u200cb", false, true},
		{"an emoji ZWJ sequence", "👩🏽\u200d💻", false, false},
		{"an emoji with its presentation selector, joined", "❤\ufe0f\u200d🔥", false, false},
		{"a keycap", "1\ufe0f\u20e3", false, false},
		{"stacked presentation selectors", "hello\ufe0f\ufe0f\ufe0f\ufe0f", false, true},
		{"a presentation selector after a letter", "a\ufe0f", false, true},
		{"two presentation selectors after an emoji", "❤\ufe0f\ufe0f", false, true},
		{"an ideographic variation sequence", "葛\U000e0100", false, false},
		{"ideographic selectors after a letter", "x\U000e0101\U000e0102", false, true},
		{"a standardized variant of zero", "0\ufe00", false, false},
		{"a selector at the start", "\ufe0f", false, true},
		{"tag text", "Hi\U000e0049\U000e0047", true, true},
		{"the flag of Wales", "🏴\U000E0067\U000E0062\U000E0077\U000E006C\U000E0073\U000E007F", false, false},
		{"a private-use character", "Acme \ue000", false, true},
		{"a noncharacter", "Ada \ufdd0", false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := BadCharacter(tc.text, tc.multiline); (got != "") != tc.refused {
				t.Fatalf("BadCharacter(%q, %v) = %q, want refused %v", tc.text, tc.multiline, got, tc.refused)
			}
		})
	}
}
