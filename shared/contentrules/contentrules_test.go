package contentrules

import (
	"slices"
	"strings"
	"testing"

	"github.com/ownersite/introductions/shared/formregistry"
	"github.com/ownersite/introductions/shared/intake"
)

func v1(t testing.TB) *formregistry.Version {
	t.Helper()
	registry, err := formregistry.Load()
	if err != nil {
		t.Fatal(err)
	}
	v, err := registry.Version("introduction", "1")
	if err != nil {
		t.Fatal(err)
	}
	return v
}

var attach = intake.ConsentClaim{Purpose: "attach-conversation", TextVersion: "attach-conversation/1", Given: true}

// good is a submission every rule accepts.
func good() intake.Submission {
	return intake.Submission{
		FormID:      "introduction",
		FormVersion: "1",
		Fields: intake.Fields{
			Name:    "Ada Lovelace",
			Company: "Analytical Engines",
			Role:    "CTO",
			Email:   "ada@example.com",
			Message: "Hello, I would like to talk about a role.",
		},
	}
}

// set puts value into the named field of s; a conversation comes with its
// consent, so that only the field's own rules are under test.
func set(s *intake.Submission, field, value string) {
	switch field {
	case "name":
		s.Fields.Name = value
	case "company":
		s.Fields.Company = value
	case "role":
		s.Fields.Role = value
	case "email":
		s.Fields.Email = value
	case "message":
		s.Fields.Message = value
	case "conversation":
		s.Conversation = value
		s.Consents = []intake.ConsentClaim{attach}
	default:
		panic("no field " + field)
	}
}

// get returns the named field of s.
func get(s intake.Submission, field string) string {
	f := s.Fields
	values := map[string]string{"name": f.Name, "company": f.Company, "role": f.Role, "email": f.Email, "message": f.Message, "conversation": s.Conversation}
	v, ok := values[field]
	if !ok {
		panic("no field " + field)
	}
	return v
}

func links(n int, sep string) string {
	var parts []string
	for i := range n {
		parts = append(parts, "see https://example.com/"+strings.Repeat("x", i))
	}
	return strings.Join(parts, sep)
}

// emailOf builds an address with a local part of local bytes and a domain
// of three labels of label bytes each, then ".com": 3*label+6 bytes.
func emailOf(local, label int) string {
	l := strings.Repeat("d", label)
	return strings.Repeat("l", local) + "@" + l + "." + l + "." + l + ".com"
}

func TestCheckFields(t *testing.T) {
	tests := []struct {
		name  string
		field string
		value string
		code  intake.Code // "" when accepted
		kept  string      // checked when accepted
	}{
		// name: required, single line, 100 characters.
		{"name plain", "name", "Ada Lovelace", "", "Ada Lovelace"},
		{"name trimmed", "name", "  Ada Lovelace \t\n", "", "Ada Lovelace"},
		{"name tab becomes a space", "name", "Ada\tLovelace", "", "Ada Lovelace"},
		{"name at the limit", "name", strings.Repeat("a", 100), "", strings.Repeat("a", 100)},
		{"name one over the limit", "name", strings.Repeat("a", 101), intake.CodeNameInvalid, ""},
		{"name two-byte characters at the limit", "name", strings.Repeat("é", 100), "", strings.Repeat("é", 100)},
		{"name four-byte characters at the limit", "name", strings.Repeat("𠀀", 100), "", strings.Repeat("𠀀", 100)},
		{"name emoji only has no letter", "name", "😀😀", intake.CodeNameInvalid, ""},
		{"name with an emoji beside letters", "name", "Ada 👩\u200d💻", "", "Ada 👩\u200d💻"},

		// invisible, tag and private-use characters; legitimate scripts.
		{"name zero-width spaces only", "name", "\u200b\u200b\u200b", intake.CodeNameInvalid, ""},
		{"name braille blank only", "name", "\u2800\u2800", intake.CodeNameInvalid, ""},
		{"name hangul filler only", "name", "\u3164", intake.CodeNameInvalid, ""},
		{"name byte-order mark only", "name", "\ufeff", intake.CodeNameInvalid, ""},
		{"name punctuation only", "name", "...", intake.CodeNameInvalid, ""},
		{"name zero-width space inside", "name", "Ada\u200bLovelace", intake.CodeNameInvalid, ""},
		{"name soft hyphen", "name", "Ada\u00adLovelace", intake.CodeNameInvalid, ""},
		{"name word joiner", "name", "Ada\u2060", intake.CodeNameInvalid, ""},
		{"name tag characters smuggling text", "name", "Ada\U000e0049\U000e0047\U000e004e\U000e004f\U000e0052\U000e0045", intake.CodeNameInvalid, ""},
		{"name private-use character", "name", "Ada \ue000", intake.CodeNameInvalid, ""},
		{"name noncharacter", "name", "Ada \ufdd0", intake.CodeNameInvalid, ""},
		{"name Persian with a zero-width non-joiner", "name", "نرگس می\u200cخواهد", "", "نرگس می\u200cخواهد"},
		{"name zero-width non-joiner at the end", "name", "Ada\u200c", intake.CodeNameInvalid, ""},
		{"name combining marks", "name", "Zoe\u0308 Nguye\u0302\u0303n", "", "Zoe\u0308 Nguye\u0302\u0303n"},
		{"name Devanagari conjunct with a joiner", "name", "क्\u200dष", "", "क्\u200dष"},
		{"name hanging zero-width joiner", "name", "Ada\u200d", intake.CodeNameInvalid, ""},
		{"name right-to-left mark only", "name", "\u200f", intake.CodeNameInvalid, ""},
		{"role emoji ZWJ sequence", "role", "👩🏽\u200d💻", "", "👩🏽\u200d💻"},
		{"role emoji with a presentation selector and a joiner", "role", "❤\ufe0f\u200d🔥", "", "❤\ufe0f\u200d🔥"},
		{"role flag of England tag sequence", "role", "🏴\U000e0067\U000e0062\U000e0065\U000e006e\U000e0067\U000e007f", "", "🏴\U000e0067\U000e0062\U000e0065\U000e006e\U000e0067\U000e007f"},
		{"role flag without its cancel tag", "role", "🏴\U000e0067\U000e0062", intake.CodeRoleInvalid, ""},
		{"role variation selector on nothing", "role", "\ufe0f", intake.CodeRoleInvalid, ""},
		// A variation selector belongs directly after a base that takes it,
		// one at a time: stacked selectors carry hidden bytes.
		{"role emoji with its presentation selector", "role", "CTO \u2764\ufe0f", "", "CTO \u2764\ufe0f"},
		{"role keycap sequence", "role", "Team 1\ufe0f\u20e3", "", "Team 1\ufe0f\u20e3"},
		{"role double exclamation emoji", "role", "Go\u203c\ufe0f", "", "Go\u203c\ufe0f"},
		{"role emoji selector twice", "role", "CTO \u2764\ufe0f\ufe0f", intake.CodeRoleInvalid, ""},
		{"role four presentation selectors after a letter", "role", "hello\ufe0f\ufe0f\ufe0f\ufe0f", intake.CodeRoleInvalid, ""},
		{"role emoji selector after a letter", "role", "hello\ufe0f", intake.CodeRoleInvalid, ""},
		{"role ideographic selectors in a row", "role", "x\U000e0101\U000e0102\U000e0103", intake.CodeRoleInvalid, ""},
		{"role ideographic selector after a letter", "role", "x\U000e0101", intake.CodeRoleInvalid, ""},
		{"role ideographic selector after an ideograph", "role", "\u845b\U000e0100", "", "\u845b\U000e0100"},
		{"role two ideographic selectors after an ideograph", "role", "\u845b\U000e0100\U000e0101", intake.CodeRoleInvalid, ""},
		{"role standardized variant of zero", "role", "0\ufe00", "", "0\ufe00"},
		{"role standardized selector after a letter", "role", "a\ufe00", intake.CodeRoleInvalid, ""},
		{"role selector after a combining mark", "role", "e\u0301\ufe0f", intake.CodeRoleInvalid, ""},
		{"role Mongolian free variation selector", "role", "\u1820\u180b", "", "\u1820\u180b"},
		{"role Mongolian free variation selector after a Latin letter", "role", "a\u180b", intake.CodeRoleInvalid, ""},
		{"company braille blank only", "company", "\u2800", intake.CodeCompanyInvalid, ""},
		{"company zero-width only", "company", "\u200b", intake.CodeCompanyInvalid, ""},
		{"company ideographic", "company", "株式会社", "", "株式会社"},
		{"message zero-width only", "message", "\u200b\u200b\n\u200b", intake.CodeMessageInvalid, ""},
		{"message braille blanks only", "message", "\u2800\u2800\u2800", intake.CodeMessageInvalid, ""},
		{"message hidden instruction in tags", "message", "Hello.\U000e0049\U000e0067\U000e006e\U000e006f\U000e0072\U000e0065", intake.CodeMessageInvalid, ""},
		{"conversation private use", "conversation", "Guide: \U000f0000", intake.CodeConversationInvalid, ""},
		{"name multibyte one over the limit", "name", strings.Repeat("é", 101), intake.CodeNameInvalid, ""},
		{"name surrounding spaces do not count", "name", "  " + strings.Repeat("a", 100) + "  ", "", strings.Repeat("a", 100)},
		{"name empty", "name", "", intake.CodeNameInvalid, ""},
		{"name only whitespace", "name", " \t\r\n ", intake.CodeNameInvalid, ""},
		{"name with a line break", "name", "Ada\nLovelace", intake.CodeNameInvalid, ""},
		{"name with a CR", "name", "Ada\rLovelace", intake.CodeNameInvalid, ""},
		{"name with a trailing CRLF", "name", "Ada\r\n", "", "Ada"},
		{"name with a line separator", "name", "Ada\u2028Lovelace", intake.CodeNameInvalid, ""},
		{"name with NUL", "name", "Ada\x00Lovelace", intake.CodeNameInvalid, ""},
		{"name with DEL", "name", "Ada\x7f", intake.CodeNameInvalid, ""},
		{"name with escape", "name", "Ada\x1b[31m", intake.CodeNameInvalid, ""},
		{"name with C1 control", "name", "Ada\u0085Lovelace", intake.CodeNameInvalid, ""},
		{"name invalid UTF-8", "name", "Ada\xffLovelace", intake.CodeNameInvalid, ""},
		{"name truncated UTF-8", "name", "Ad\xc3", intake.CodeNameInvalid, ""},
		{"name bidi override", "name", "Ada\u202Eecalevol", intake.CodeNameInvalid, ""},
		{"name bidi embedding", "name", "\u202BAda", intake.CodeNameInvalid, ""},
		{"name bidi isolate", "name", "\u2066Ada\u2069", intake.CodeNameInvalid, ""},
		{"name right-to-left mark allowed", "name", "\u200Fדנה כהן", "", "\u200Fדנה כהן"},
		{"name a link is no business of a name", "name", "Ada https://example.com", "", "Ada https://example.com"},

		// company and role: optional, single line, 100 characters.
		{"company empty", "company", "", "", ""},
		{"company only spaces", "company", "   ", "", ""},
		{"company at the limit", "company", strings.Repeat("c", 100), "", strings.Repeat("c", 100)},
		{"company one over the limit", "company", strings.Repeat("c", 101), intake.CodeCompanyInvalid, ""},
		{"company with a line break", "company", "Analytical\nEngines", intake.CodeCompanyInvalid, ""},
		{"company with NUL", "company", "\x00", intake.CodeCompanyInvalid, ""},
		{"company bidi isolate", "company", "Acme\u2067", intake.CodeCompanyInvalid, ""},
		{"role empty", "role", "", "", ""},
		{"role trimmed", "role", " CTO ", "", "CTO"},
		{"role at the limit", "role", strings.Repeat("r", 100), "", strings.Repeat("r", 100)},
		{"role one over the limit", "role", strings.Repeat("r", 101), intake.CodeRoleInvalid, ""},
		{"role with a control character", "role", "CTO\x07", intake.CodeRoleInvalid, ""},

		// email: required, an address with a domain, 254 characters.
		{"email plain", "email", "ada@example.com", "", "ada@example.com"},
		{"email trimmed, case kept", "email", " Ada@Example.com\n", "", "Ada@Example.com"},
		{"email with a tag", "email", "ada+jobs@example.com", "", "ada+jobs@example.com"},
		{"email with subdomains", "email", "ada.lovelace@mail.example.co.uk", "", "ada.lovelace@mail.example.co.uk"},
		{"email internationalised domain", "email", "ada@bücher.de", "", "ada@bücher.de"},
		{"email hyphen inside a label", "email", "ada@my-example.com", "", "ada@my-example.com"},
		{"email at the limit", "email", emailOf(64, 61), "", emailOf(64, 61)},
		{"email one over the limit", "email", "d" + emailOf(64, 61), intake.CodeEmailInvalid, ""},
		{"email one over the limit, each part valid", "email", strings.Replace(emailOf(64, 61), "@", "@d", 1), intake.CodeEmailInvalid, ""},
		{"email empty", "email", "", intake.CodeEmailInvalid, ""},
		{"email without @", "email", "ada.example.com", intake.CodeEmailInvalid, ""},
		{"email with two @", "email", "ada@home@example.com", intake.CodeEmailInvalid, ""},
		{"email with @@", "email", "ada@@example.com", intake.CodeEmailInvalid, ""},
		{"email without local part", "email", "@example.org", intake.CodeEmailInvalid, ""},
		{"email without domain", "email", "ada@", intake.CodeEmailInvalid, ""},
		{"email domain without a dot", "email", "ada@localhost", intake.CodeEmailInvalid, ""},
		{"email domain with a trailing dot", "email", "ada@example.", intake.CodeEmailInvalid, ""},
		{"email domain with a leading dot", "email", "ada@.example.com", intake.CodeEmailInvalid, ""},
		{"email domain with an empty label", "email", "ada@example..com", intake.CodeEmailInvalid, ""},
		{"email domain label starting with a hyphen", "email", "ada@-example.com", intake.CodeEmailInvalid, ""},
		{"email domain label ending with a hyphen", "email", "ada@example-.com", intake.CodeEmailInvalid, ""},
		{"email domain with an underscore", "email", "ada@exa_mple.com", intake.CodeEmailInvalid, ""},
		{"email domain label over 63", "email", "ada@" + strings.Repeat("d", 64) + ".com", intake.CodeEmailInvalid, ""},
		{"email numeric top-level label", "email", "ada@192.168.0.1", intake.CodeEmailInvalid, ""},
		{"email local part over 64", "email", emailOf(65, 1), intake.CodeEmailInvalid, ""},
		{"email local part at 64", "email", emailOf(64, 1), "", emailOf(64, 1)},
		{"email space inside", "email", "ada lovelace@example.com", intake.CodeEmailInvalid, ""},
		{"email leading dot", "email", ".ada@example.com", intake.CodeEmailInvalid, ""},
		{"email trailing dot", "email", "ada.@example.com", intake.CodeEmailInvalid, ""},
		{"email double dot", "email", "ada..l@example.com", intake.CodeEmailInvalid, ""},
		{"email with a quote", "email", `"ada"@example.com`, intake.CodeEmailInvalid, ""},
		{"email with angle brackets", "email", "Ada <ada@example.com>", intake.CodeEmailInvalid, ""},
		{"email with mailto header fields", "email", "x?cc=spy%40evil.example&body=hi@example.com", intake.CodeEmailInvalid, ""},
		{"email with mailto header fields, no link", "email", "x?bcc=spy%40evil&body=hi@example.com", intake.CodeEmailInvalid, ""},
		{"email with a question mark", "email", "ada?@example.com", intake.CodeEmailInvalid, ""},
		{"email with a percent sign", "email", "ada%eve@example.com", intake.CodeEmailInvalid, ""},
		{"email with other atext kept", "email", "ada!#$&'*/=^_`{|}~-x@example.com", "", "ada!#$&'*/=^_`{|}~-x@example.com"},
		{"email with NUL", "email", "ada\x00@example.com", intake.CodeEmailInvalid, ""},
		{"email with a line break", "email", "ada@example.com\nBcc: eve@example.com", intake.CodeEmailInvalid, ""},
		{"email zero-width space", "email", "ada\u200b@example.com", intake.CodeEmailInvalid, ""},
		{"email soft hyphen", "email", "a\u00adda@example.com", intake.CodeEmailInvalid, ""},
		{"email word joiner", "email", "ada@exam\u2060ple.com", intake.CodeEmailInvalid, ""},
		{"email left-to-right mark", "email", "\u200eada@example.com", intake.CodeEmailInvalid, ""},
		{"email zero-width joiner between letters", "email", "a\u200dda@example.com", intake.CodeEmailInvalid, ""},
		{"email byte-order mark", "email", "\ufeffada@example.com", intake.CodeEmailInvalid, ""},
		{"email full-width kept as NFKC", "email", "ａｄａ＠ｅｘａｍｐｌｅ．ｃｏｍ", "", "ada@example.com"},

		// message: required, multi-line, 4000 characters, 3 links.
		{"message plain", "message", "Hello.", "", "Hello."},
		{"message keeps line breaks", "message", "Hello,\n\nA role.\n", "", "Hello,\n\nA role."},
		{"message CRLF to LF", "message", "Hello,\r\nA role.", "", "Hello,\nA role."},
		{"message CR to LF", "message", "Hello,\rA role.", "", "Hello,\nA role."},
		{"message line and paragraph separators to LF", "message", "a\u2028b\u2029c", "", "a\nb\nc"},
		{"message tab becomes a space", "message", "a\tb", "", "a b"},
		{"message empty", "message", "", intake.CodeMessageInvalid, ""},
		{"message only line breaks", "message", "\r\n\r\n", intake.CodeMessageInvalid, ""},
		{"message at the limit", "message", strings.Repeat("m", 4000), "", strings.Repeat("m", 4000)},
		{"message one over the limit", "message", strings.Repeat("m", 4001), intake.CodeMessageInvalid, ""},
		{"message multibyte at the limit", "message", strings.Repeat("ü", 4000), "", strings.Repeat("ü", 4000)},
		{"message multibyte one over the limit", "message", strings.Repeat("ü", 4001), intake.CodeMessageInvalid, ""},
		{"message CRLF counts as one character", "message", strings.Repeat("m", 3998) + "\r\nm", "", strings.Repeat("m", 3998) + "\nm"},
		{"message with NUL", "message", "Hello\x00", intake.CodeMessageInvalid, ""},
		{"message with vertical tab", "message", "Hello\vthere", intake.CodeMessageInvalid, ""},
		{"message with form feed", "message", "Hello\fthere", intake.CodeMessageInvalid, ""},
		{"message invalid UTF-8", "message", "Hello \xe2\x28\xa1", intake.CodeMessageInvalid, ""},
		{"message bidi override", "message", "access := \"user\u202E \u2066// admin\u2069\u2066\"", intake.CodeMessageInvalid, ""},
		{"message bidi pop directional isolate", "message", "ok\u2069", intake.CodeMessageInvalid, ""},
		{"message three links", "message", links(3, "\n"), "", links(3, "\n")},
		{"message four links", "message", links(4, "\n"), intake.CodeMessageTooManyLinks, ""},
		{"message four links in upper case", "message", "HTTP://a.example HTTPS://b.example Www.c.example hTtPs://d.example", intake.CodeMessageTooManyLinks, ""},
		{"message four www links", "message", "www.a.com www.b.com www.c.com (www.d.com)", intake.CodeMessageTooManyLinks, ""},
		{"message www after a scheme counts once", "message", "https://www.a.com https://www.b.com https://www.c.com", "", "https://www.a.com https://www.b.com https://www.c.com"},
		{"message bare domains are not links", "message", "a.com b.com c.com d.com e.com", "", "a.com b.com c.com d.com e.com"},
		{"message too long wins over links", "message", links(4, " ") + strings.Repeat("m", 4000), intake.CodeMessageInvalid, ""},

		// conversation: optional, multi-line, 12000 characters, 3 links.
		{"conversation plain", "conversation", "Guide: Hello.\nVisitor: Hi.", "", "Guide: Hello.\nVisitor: Hi."},
		{"conversation empty", "conversation", "", "", ""},
		{"conversation CRLF to LF", "conversation", "Guide: Hello.\r\nVisitor: Hi.", "", "Guide: Hello.\nVisitor: Hi."},
		{"conversation at the limit", "conversation", strings.Repeat("c", 12000), "", strings.Repeat("c", 12000)},
		{"conversation one over the limit", "conversation", strings.Repeat("c", 12001), intake.CodeConversationTooLong, ""},
		{"conversation multibyte at the limit", "conversation", strings.Repeat("日", 12000), "", strings.Repeat("日", 12000)},
		{"conversation multibyte one over the limit", "conversation", strings.Repeat("日", 12001), intake.CodeConversationTooLong, ""},
		{"conversation three links", "conversation", links(3, "\n"), "", links(3, "\n")},
		{"conversation four links", "conversation", links(4, "\n"), intake.CodeConversationManyLinks, ""},
		{"conversation with NUL", "conversation", "Guide: \x00", intake.CodeConversationInvalid, ""},
		{"conversation bidi override", "conversation", "Guide: \u202Dhi", intake.CodeConversationInvalid, ""},
		{"conversation invalid UTF-8", "conversation", "Guide: \xc0\xaf", intake.CodeConversationInvalid, ""},
	}
	v := v1(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := good()
			set(&s, tt.field, tt.value)
			kept, errs := Check(v, s)
			if tt.code == "" {
				if errs != nil {
					t.Fatalf("Check refused %q: %+v", tt.value, errs)
				}
				if got := get(kept, tt.field); got != tt.kept {
					t.Fatalf("kept %s = %q, want %q", tt.field, got, tt.kept)
				}
				return
			}
			if len(errs) != 1 || errs[0].Field != tt.field || errs[0].Code != tt.code {
				t.Fatalf("Check(%q) errors = %+v, want one %s on %s", tt.value, errs, tt.code, tt.field)
			}
			if d := errs[0].Detail; d == "" || (len(tt.value) >= 8 && strings.Contains(d, tt.value)) {
				t.Fatalf("detail %q must tell what to change without echoing the value", d)
			}
		})
	}
}

func TestCheckConsents(t *testing.T) {
	stale := intake.ConsentClaim{Purpose: "attach-conversation", TextVersion: "attach-conversation/0", Given: true}
	tests := []struct {
		name         string
		conversation string
		consents     []intake.ConsentClaim
		wantErr      bool
		wantDetail   string
	}{
		{"conversation with its consent", "Guide: Hello.", []intake.ConsentClaim{attach}, false, ""},
		{"no conversation, no consent", "", nil, false, ""},
		{"whitespace is no conversation", " \r\n ", nil, false, ""},
		{"consent given without a conversation is recorded", "", []intake.ConsentClaim{attach}, false, ""},
		{"consent refused without a conversation", "", []intake.ConsentClaim{{Purpose: "attach-conversation", TextVersion: "attach-conversation/1"}}, false, ""},
		{"conversation without a consent", "Guide: Hello.", nil, true, "tick the box"},
		{"conversation with the consent refused", "Guide: Hello.", []intake.ConsentClaim{{Purpose: "attach-conversation", TextVersion: "attach-conversation/1", Given: false}}, true, "tick the box"},
		{"conversation with a consent to another text", "Guide: Hello.", []intake.ConsentClaim{stale}, true, "changed"},
		{"stale consent without a conversation", "", []intake.ConsentClaim{stale}, true, "changed"},
		{"consent without a text version", "Guide: Hello.", []intake.ConsentClaim{{Purpose: "attach-conversation", Given: true}}, true, "changed"},
		{"consent to an unknown purpose", "", []intake.ConsentClaim{{Purpose: "future-roles", TextVersion: "future-roles/1", Given: true}}, true, "changed"},
		{"consent to a purpose that takes none", "", []intake.ConsentClaim{{Purpose: "introduction", TextVersion: "attach-conversation/1", Given: true}}, true, "changed"},
		{"the same consent twice", "Guide: Hello.", []intake.ConsentClaim{attach, attach}, true, "more than once"},
	}
	v := v1(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := good()
			s.Conversation = tt.conversation
			s.Consents = tt.consents
			kept, errs := Check(v, s)
			if !tt.wantErr {
				if errs != nil {
					t.Fatalf("Check refused: %+v", errs)
				}
				if !slices.Equal(kept.Consents, tt.consents) {
					t.Fatalf("kept consents = %+v, want %+v", kept.Consents, tt.consents)
				}
				return
			}
			if len(errs) != 1 || errs[0].Field != "consents" || errs[0].Code != intake.CodeConsentRequired || !strings.Contains(errs[0].Detail, tt.wantDetail) {
				t.Fatalf("errors = %+v, want one CONSENT_REQUIRED on consents saying %q", errs, tt.wantDetail)
			}
		})
	}
}

func TestCheckReportsEveryFailingFieldInOrder(t *testing.T) {
	s := intake.Submission{
		Fields: intake.Fields{
			Name: "", Company: strings.Repeat("c", 101), Role: "a\x00", Email: "ada", Message: links(4, " "),
		},
		Conversation: strings.Repeat("c", 12001),
	}
	_, errs := Check(v1(t), s)
	var got []string
	for _, e := range errs {
		got = append(got, e.Field+":"+string(e.Code))
	}
	want := []string{
		"name:NAME_INVALID", "company:COMPANY_INVALID", "role:ROLE_INVALID", "email:EMAIL_INVALID",
		"message:MESSAGE_TOO_MANY_LINKS", "conversation:CONVERSATION_TOO_LONG", "consents:CONSENT_REQUIRED",
	}
	if !slices.Equal(got, want) {
		t.Fatalf("errors = %v\nwant %v", got, want)
	}
}

func TestCheckLeavesOtherChecksAlone(t *testing.T) {
	s := good()
	s.Honeypot = " http://spam.example \x00"
	s.Altcha = " eyJhbGdvcml0aG0iOiJTSEEtMjU2In0= "
	s.FormID, s.FormVersion = " introduction", "1 "
	kept, errs := Check(v1(t), s)
	if errs != nil {
		t.Fatalf("Check refused: %+v", errs)
	}
	if kept.Honeypot != s.Honeypot || kept.Altcha != s.Altcha || kept.FormID != s.FormID || kept.FormVersion != s.FormVersion {
		t.Fatalf("kept = %+v; honeypot, altcha and form must pass untouched", kept)
	}
}

func TestCheckDoesNotAliasTheInput(t *testing.T) {
	s := good()
	set(&s, "conversation", "Guide: Hello.")
	kept, _ := Check(v1(t), s)
	kept.Consents[0].Given = false
	if !s.Consents[0].Given {
		t.Fatal("changing kept changed the submission")
	}
}

// TestCheckDropsFieldsTheVersionLacks uses a version without company, role
// and conversation: their values are not stored, and not refused.
func TestCheckDropsFieldsTheVersionLacks(t *testing.T) {
	full := v1(t)
	var fields []formregistry.Field
	for _, f := range full.Fields {
		if f.Name == "name" || f.Name == "email" || f.Name == "message" {
			fields = append(fields, f)
		}
	}
	short := &formregistry.Version{FormID: "introduction", Version: "9", Status: formregistry.StatusPublished, Fields: fields, Purposes: full.Purposes[:1]}
	s := good()
	s.Conversation = "Guide: Hello."
	s.Fields.Role = "\x00"
	kept, errs := Check(short, s)
	if errs != nil {
		t.Fatalf("Check refused: %+v", errs)
	}
	if kept.Fields.Company != "" || kept.Fields.Role != "" || kept.Conversation != "" || kept.Fields.Name != "Ada Lovelace" {
		t.Fatalf("kept = %+v; fields the version lacks must be dropped", kept)
	}
}

func TestEmail(t *testing.T) {
	tests := []struct {
		name  string
		email string
		want  bool
	}{
		{"plain", "ada@example.com", true},
		{"tagged", "ada+jobs@example.com", true},
		{"unicode local part", "ädä@example.com", true},
		{"no domain dot", "ada@example", false},
		{"no at", "ada", false},
		{"two ats", "a@b@example.com", false},
		{"surrounding space is not trimmed here", " ada@example.com", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := checkEmail(tt.email) == ""; got != tt.want {
				t.Errorf("checkEmail(%q) accepts: %v, want %v", tt.email, got, tt.want)
			}
		})
	}
}

func TestNormaliseEmail(t *testing.T) {
	tests := []struct {
		name  string
		email string
		want  string
	}{
		{"plain", "ada@example.com", "ada@example.com"},
		{"lower-cased", "Ada@Example.COM", "ada@example.com"},
		{"trimmed", "  ada@example.com\n", "ada@example.com"},
		{"tag removed", "ada+jobs@example.com", "ada@example.com"},
		{"everything after the first plus", "ada+a+b@example.com", "ada@example.com"},
		{"all at once", " Ada+Jobs@Example.com ", "ada@example.com"},
		{"plus in the domain kept", "ada@ex+ample.com", "ada@ex+ample.com"},
		{"leading plus kept", "+ada@example.com", "+ada@example.com"},
		{"no at", "Ada+x", "ada+x"},
		{"zero-width space removed", "ada\u200b@example.com", "ada@example.com"},
		{"soft hyphen removed", "a\u00adda@example.com", "ada@example.com"},
		{"word joiner removed", "ada@exam\u2060ple.com", "ada@example.com"},
		{"left-to-right mark removed", "\u200eada@example.com", "ada@example.com"},
		{"full-width letters", "ＡＤＡ＠ｅｘａｍｐｌｅ．ｃｏｍ", "ada@example.com"},
		{"case folding beyond ASCII", "STRAẞE@Example.com", "strasse@example.com"},
		{"Greek final sigma folds", "ΣΟΦΙΑΣ@example.com", "σοφιασ@example.com"},
		{"composed and decomposed are one", "ade\u0301le@example.com", "adéle@example.com"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := NormaliseEmail(tt.email); got != tt.want {
				t.Errorf("NormaliseEmail(%q) = %q, want %q", tt.email, got, tt.want)
			}
		})
	}
}

// fieldValues returns the submission's carried field values by name.
func fieldValues(s *intake.Submission) []struct {
	name  string
	value *string
} {
	return []struct {
		name  string
		value *string
	}{{"name", &s.Fields.Name}, {"company", &s.Fields.Company}, {"role", &s.Fields.Role},
		{"email", &s.Fields.Email}, {"message", &s.Fields.Message}, {"conversation", &s.Conversation}}
}
