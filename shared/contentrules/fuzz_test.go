package contentrules

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/ownersite/introductions/shared/intake"
)

// FuzzCheck asserts that Check never panics, that whatever it accepts is
// storable text within the version's limits, and that it is idempotent: the
// kept submission passes again, unchanged.
func FuzzCheck(f *testing.F) {
	seeds := []struct {
		name, company, role, email, message, conversation string
		consent                                           bool
	}{
		{"Ada Lovelace", "Analytical Engines", "CTO", "ada@example.com", "Hello.", "", false},
		{" Ada\t", "", "", " Ada+x@Example.com ", "Hi,\r\nthere\rfriend\u2028", "Guide: hi\r\nVisitor: hi", true},
		{"Ada\x00", "\u202E", "\xff", "a@b", "https://a www.b http://c https://d", "Guide: \x7f", false},
		{"דנה\u200F", "日本", "😀", "ädä@bücher.de", strings.Repeat("ü", 4000), strings.Repeat("c", 12001), true},
		{"", "", "", "", "", "x", true},
	}
	for _, s := range seeds {
		f.Add(s.name, s.company, s.role, s.email, s.message, s.conversation, s.consent)
	}
	v := v1(f)
	f.Fuzz(func(t *testing.T, name, company, role, email, message, conversation string, consent bool) {
		s := intake.Submission{
			FormID: "introduction", FormVersion: "1",
			Fields:       intake.Fields{Name: name, Company: company, Role: role, Email: email, Message: message},
			Conversation: conversation,
			Honeypot:     message,
		}
		if consent {
			s.Consents = []intake.ConsentClaim{attach}
		}
		kept, errs := Check(v, s)
		if kept.Honeypot != s.Honeypot {
			t.Fatal("the honeypot was changed")
		}
		if errs != nil {
			for _, e := range errs {
				if e.Detail == "" || e.Code == "" || e.Field == "" {
					t.Fatalf("incomplete field error %+v", e)
				}
			}
			return
		}
		for _, fv := range fieldValues(&kept) {
			field, _ := v.Field(fv.name)
			value := *fv.value
			if !utf8.ValidString(value) {
				t.Fatalf("accepted %s is not valid UTF-8: %q", fv.name, value)
			}
			if n := utf8.RuneCountInString(value); n > field.MaxLength {
				t.Fatalf("accepted %s has %d characters, over %d", fv.name, n, field.MaxLength)
			}
			if field.Required && value == "" {
				t.Fatalf("accepted an empty %s", fv.name)
			}
			if field.Type.Multiline() && CountLinks(value) > field.MaxLinks {
				t.Fatalf("accepted %s with %d links", fv.name, CountLinks(value))
			}
			for _, r := range value {
				if (unicode.IsControl(r) && !(r == '\n' && field.Type.Multiline())) || isBidiControl(r) ||
					unicode.Is(unicode.Co, r) || isNoncharacter(r) || r == '\u200B' || r == '\u00AD' || r == '\u2060' || r == '\uFEFF' {
					t.Fatalf("accepted %s holds %U: %q", fv.name, r, value)
				}
			}
			if field.Required && !strings.ContainsFunc(value, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) {
				t.Fatalf("accepted required %s without a letter or digit: %q", fv.name, value)
			}
			if value != strings.TrimSpace(value) {
				t.Fatalf("accepted %s is not trimmed: %q", fv.name, value)
			}
		}
		if kept.Conversation != "" && !consent {
			t.Fatal("accepted a conversation without its consent")
		}
		if kept.Fields.Email != "" && checkEmail(kept.Fields.Email) != "" {
			t.Fatalf("accepted email %q", kept.Fields.Email)
		}
		again, errs := Check(v, kept)
		if errs != nil {
			t.Fatalf("kept submission refused on a second check: %+v", errs)
		}
		if again.Fields != kept.Fields || again.Conversation != kept.Conversation || len(again.Consents) != len(kept.Consents) {
			t.Fatalf("Check is not idempotent:\n%+v\n%+v", kept, again)
		}
	})
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
