package contentrules

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/ownersite/introductions/shared/intake"
	"github.com/ownersite/introductions/shared/textrules"
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
			if field.Type.Multiline() && textrules.CountLinks(value) > field.MaxLinks {
				t.Fatalf("accepted %s with %d links", fv.name, textrules.CountLinks(value))
			}
			for _, r := range value {
				if (unicode.IsControl(r) && !(r == '\n' && field.Type.Multiline())) || textrules.IsBidiControl(r) ||
					unicode.Is(unicode.Co, r) || textrules.IsNoncharacter(r) || r == '\u200B' || r == '\u00AD' || r == '\u2060' || r == '\uFEFF' {
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
