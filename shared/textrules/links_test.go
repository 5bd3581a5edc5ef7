package textrules

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// links is n links, each "see https://example.com/…", joined by sep.
func links(n int, sep string) string {
	var parts []string
	for i := range n {
		parts = append(parts, "see https://example.com/"+strings.Repeat("x", i))
	}
	return strings.Join(parts, sep)
}

func TestCountLinks(t *testing.T) {
	tests := []struct {
		name string
		text string
		want int
	}{
		{"none", "Hello there.", 0},
		{"http", "see http://example.com", 1},
		{"https", "see https://example.com", 1},
		{"upper case", "HTTPS://EXAMPLE.COM", 1},
		{"mixed case", "hTtP://example.com", 1},
		{"www at the start", "www.example.com", 1},
		{"www after a space", "see www.example.com", 1},
		{"www in brackets", "(www.example.com)", 1},
		{"www after a line break", "see\nwww.example.com", 1},
		{"www in upper case", "WWW.EXAMPLE.COM", 1},
		{"www after a scheme is one link", "https://www.example.com", 1},
		{"www inside a word", "awww.so", 0},
		{"www after a dot", "sub.www.example.com", 0},
		{"www inside a path", "https://a.example/www.b", 1},
		{"www inside an address", "ada@www.example.com", 0},
		{"bare domain", "example.com", 0},
		{"scheme without slashes", "http:example.com", 0},
		{"two links without space", "https://a.example,https://b.example", 2},
		{"link inside a link", "https://a.example/?next=https://b.example", 2},
		{"after a multibyte letter", "éwww.example.com", 0},
		{"after a multibyte space", "\u00a0www.example.com", 1},
		{"three", links(3, " "), 3},
		{"four", links(4, " "), 4},
		{"truncated prefix", "https:/", 0},
		{"empty", "", 0},

		// Evasions: each is counted as the link it is.
		{"defanged scheme hxxp", "hxxp://a.example", 1},
		{"defanged scheme hXXps", "hXXps://a.example/x", 1},
		{"defanged dots", "a[.]example/x", 1},
		{"bare domain with a path", "a.example/path", 1},
		{"bare domain with an empty path", "a.example/", 1},
		{"bare subdomain with a path", "go.a.example/x?y=1", 1},
		{"bare internationalised domain with a path", "bücher.de/angebot", 1},
		{"markdown scheme-relative", "[text](//host.example)", 1},
		{"html scheme-relative", "<a href=//host.example/x>", 1},
		{"quoted scheme-relative", `<a href="//host.example">`, 1},
		{"full-width scheme", "ｈｔｔｐｓ：／／ａ．ｅｘａｍｐｌｅ", 1},
		{"zero-width space inside https", "ht\u200btps://a.example", 1},
		{"zero-width joiner inside https", "ht\u200dtps://a.example", 1},
		{"soft hyphen inside www", "ww\u00adw.a.example", 1},
		{"ideographic full stops", "www。a。example", 1},
		{"half-width ideographic full stops", "a｡example/x", 1},
		{"full-width full stops", "a．example/x", 1},
		{"backslash for a slash", "https:/\\a.example", 1},
		{"backslashes only", "https:\\\\a.example", 1},
		{"one slash", "https:/a.example", 1},
		{"ftp", "ftp://a.example", 1},
		{"after a colon", "url:https://a.example", 1},
		{"scheme-relative after a scheme is one", "https://a.example//b.example", 1},
		{"domain in a path is not another", "https://a.example/b.example/c", 1},
		{"domain in an address is not a link", "ada@a.example/x", 0},
		{"one-letter scheme is a drive", "C:/Users/ada", 0},
		{"a comment is not scheme-relative", "x // see above", 0},
		{"abbreviations are not domains", "e.g./i.e./U.S./v1.2/3", 0},
		{"a path without a domain", "and/or src/main", 0},
		{"four mixed evasions", "hxxp://a.example b.example/x [t](//c.example) ｗｗｗ．d.example", 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := CountLinks(tt.text); got != tt.want {
				t.Errorf("CountLinks(%q) = %d, want %d", tt.text, got, tt.want)
			}
		})
	}
}

// FuzzCountLinks asserts that CountLinks never panics and that hiding an
// invisible character anywhere in a text (between any two characters) never
// changes its count: a zero-width character cannot split a link away.
func FuzzCountLinks(f *testing.F) {
	for _, s := range []string{
		"see https://a.example", "hxxp://a.example b.example/x [t](//c.example) www.d.example",
		"ｈｔｔｐｓ：／／ａ．ｅｘａｍｐｌｅ", "www。a。example", "https:/\\a.example", "a[.]example/x", "e.g./i.e.",
		"ada@a.example/x", "C:/Users", "",
	} {
		f.Add(s, 3, uint8(0))
	}
	hidden := []string{"\u200B", "\u200C", "\u200D", "\u00AD", "\u2060", "\uFEFF", "\uFE0F", "\U000E0041"}
	f.Fuzz(func(t *testing.T, s string, at int, which uint8) {
		if !utf8.ValidString(s) {
			return
		}
		n := CountLinks(s)
		if n < 0 || n > len(s) {
			t.Fatalf("CountLinks(%q) = %d", s, n)
		}
		rs := []rune(s)
		if at < 0 {
			at = -at
		}
		at %= len(rs) + 1
		with := string(rs[:at]) + hidden[int(which)%len(hidden)] + string(rs[at:])
		if got := CountLinks(with); got != n {
			t.Fatalf("CountLinks(%q) = %d but %d with an invisible character at %d: %q", s, n, got, at, with)
		}
	})
}

func TestLinkHosts(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		want       []string
	}{
		{"none", "hello there, see example.com", nil},
		{"scheme", "see https://Bit.ly/x1 and http://example.org/", []string{"bit.ly", "example.org"}},
		{"bare with path", "go to tinyurl.com/abc now", []string{"tinyurl.com"}},
		{"www", "www.example.com is mine", []string{"www.example.com"}},
		{"full-width", "ｈｔｔｐｓ：／／ｂｉｔ．ｌｙ／ｘ", []string{"bit.ly"}},
		{"defanged", "hxxps://bit[.]ly/x", []string{"bit.ly"}},
		{"scheme relative", "[x](//t.co/abc)", []string{"t.co"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := LinkHosts(tc.text)
			if !slices.Equal(got, tc.want) {
				t.Errorf("LinkHosts(%q) = %q, want %q", tc.text, got, tc.want)
			}
			if len(got) != CountLinks(tc.text) {
				t.Errorf("LinkHosts found %d, CountLinks %d", len(got), CountLinks(tc.text))
			}
		})
	}
}
