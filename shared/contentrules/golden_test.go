package contentrules

import (
	"bytes"
	"crypto/sha256"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ownersite/introductions/shared/intake"
)

var update = flag.Bool("update", false, "rewrite testdata/verdicts.golden")

// verdictCases are the fixed inputs of the verdicts golden file: a good
// submission with the named changes.
var verdictCases = []struct {
	name   string
	change func(s *intake.Submission)
}{
	{"a good submission", func(s *intake.Submission) {}},
	{"surrounding whitespace trimmed", func(s *intake.Submission) {
		s.Fields.Name, s.Fields.Company, s.Fields.Role, s.Fields.Email = "  Ada Lovelace\t", " Analytical Engines ", "\nCTO\n", " ada@example.com "
	}},
	{"tabs become spaces", func(s *intake.Submission) { s.Fields.Name, s.Fields.Message = "Ada\tLovelace", "Hello\tthere." }},
	{"line breaks normalised", func(s *intake.Submission) { s.Fields.Message = "Hello,\r\nthere\rand\u2028here.\r\n" }},
	{"conversation with its consent", func(s *intake.Submission) {
		s.Conversation, s.Consents = "Guide: Hello.\r\nVisitor: Hi.", []intake.ConsentClaim{attach}
	}},
	{"conversation without consent", func(s *intake.Submission) { s.Conversation = "Guide: Hello." }},
	{"consent without conversation", func(s *intake.Submission) { s.Consents = []intake.ConsentClaim{attach} }},
	{"consent to a changed text", func(s *intake.Submission) {
		s.Conversation = "Guide: Hello."
		s.Consents = []intake.ConsentClaim{{Purpose: "attach-conversation", TextVersion: "attach-conversation/0", Given: true}}
	}},
	{"consent to an unknown purpose", func(s *intake.Submission) {
		s.Consents = []intake.ConsentClaim{{Purpose: "future-roles", TextVersion: "future-roles/1", Given: true}}
	}},
	{"name missing", func(s *intake.Submission) { s.Fields.Name = "" }},
	{"name on two lines", func(s *intake.Submission) { s.Fields.Name = "Ada\nLovelace" }},
	{"name at 100 characters", func(s *intake.Submission) { s.Fields.Name = strings.Repeat("é", 100) }},
	{"name at 101 characters", func(s *intake.Submission) { s.Fields.Name = strings.Repeat("é", 101) }},
	{"company with NUL", func(s *intake.Submission) { s.Fields.Company = "Analytical\x00Engines" }},
	{"role with a bidi override", func(s *intake.Submission) { s.Fields.Role = "CTO\u202E" }},
	{"email missing", func(s *intake.Submission) { s.Fields.Email = "" }},
	{"email without a domain dot", func(s *intake.Submission) { s.Fields.Email = "ada@localhost" }},
	{"email without a domain", func(s *intake.Submission) { s.Fields.Email = "ada@" }},
	{"email with two @", func(s *intake.Submission) { s.Fields.Email = "ada@home@example.com" }},
	{"email with a bad label", func(s *intake.Submission) { s.Fields.Email = "ada@-example.com" }},
	{"message missing", func(s *intake.Submission) { s.Fields.Message = " \r\n" }},
	{"message with invalid UTF-8", func(s *intake.Submission) { s.Fields.Message = "Hello \xff" }},
	{"message with an escape sequence", func(s *intake.Submission) { s.Fields.Message = "Hello \x1b[2J" }},
	{"message with an isolate", func(s *intake.Submission) { s.Fields.Message = "Hello \u2066x\u2069" }},
	{"message with three links", func(s *intake.Submission) { s.Fields.Message = links(3, "\n") }},
	{"message with four links", func(s *intake.Submission) { s.Fields.Message = links(4, "\n") }},
	{"message at 4000 characters", func(s *intake.Submission) { s.Fields.Message = strings.Repeat("m", 4000) }},
	{"message at 4001 characters", func(s *intake.Submission) { s.Fields.Message = strings.Repeat("m", 4001) }},
	{"conversation at 12001 characters", func(s *intake.Submission) {
		s.Conversation, s.Consents = strings.Repeat("c", 12001), []intake.ConsentClaim{attach}
	}},
	{"conversation with four links", func(s *intake.Submission) {
		s.Conversation, s.Consents = links(4, "\n"), []intake.ConsentClaim{attach}
	}},
	// Link-counting evasions: each message carries four links.
	{"four links: defanged schemes", func(s *intake.Submission) {
		s.Fields.Message = "hxxp://a.example hXXps://b.example hxxp://c.example/x hxxps://d.example"
	}},
	{"four links: bare domains with paths", func(s *intake.Submission) {
		s.Fields.Message = "a.example/x\nb.example/y\nc.example/\nd.example/z?q=1"
	}},
	{"four links: markdown scheme-relative", func(s *intake.Submission) {
		s.Fields.Message = "[a](//a.example) [b](//b.example) [c](//c.example) [d](//d.example)"
	}},
	{"four links: html scheme-relative", func(s *intake.Submission) {
		s.Fields.Message = "<a href=//a.example>a</a> <a href=//b.example>b</a> <a href='//c.example'>c</a> <a href=\"//d.example\">d</a>"
	}},
	{"four links: full-width", func(s *intake.Submission) {
		s.Fields.Message = "ｈｔｔｐｓ：／／ａ．ｅｘａｍｐｌｅ ｈｔｔｐｓ：／／ｂ．ｅｘａｍｐｌｅ ｈｔｔｐｓ：／／ｃ．ｅｘａｍｐｌｅ ｈｔｔｐｓ：／／ｄ．ｅｘａｍｐｌｅ"
	}},
	{"four links: zero-width joiner inside https", func(s *intake.Submission) {
		s.Fields.Message = "ht\u200dtps://a.example ht\u200dtps://b.example ht\u200dtps://c.example ht\u200dtps://d.example"
	}},
	{"four links: zero-width space inside https", func(s *intake.Submission) {
		s.Fields.Message = "ht\u200btps://a.example ht\u200btps://b.example ht\u200btps://c.example ht\u200btps://d.example"
	}},
	{"four links: ideographic full stops", func(s *intake.Submission) {
		s.Fields.Message = "www\u3002a\u3002example www\u3002b\u3002example www\uff0ec\uff0eexample www\uff61d\uff61example"
	}},
	{"four links: backslashes", func(s *intake.Submission) {
		s.Fields.Message = "https:/\\a.example https:\\\\b.example http:\\/c.example https:/\\d.example"
	}},
	{"four links: defanged dots", func(s *intake.Submission) {
		s.Fields.Message = "a[.]example/x b(.)example/x c[dot]example/x https[:]//d.example"
	}},
	{"four links: one of each", func(s *intake.Submission) {
		s.Fields.Message = "hxxp://a.example b.example/x [t](//c.example) ｗｗｗ．d.example"
	}},
	{"three links and ordinary text", func(s *intake.Submission) {
		s.Fields.Message = "I use Node.js and Go; e.g. and/or v1.2/3. https://a.example www.b.example c.example/x"
	}},

	// Invisible, tag and private-use characters; legitimate scripts.
	{"name of zero-width spaces", func(s *intake.Submission) { s.Fields.Name = "\u200b\u200b\u200b" }},
	{"name of braille blanks", func(s *intake.Submission) { s.Fields.Name = "\u2800\u2800" }},
	{"name of a hangul filler", func(s *intake.Submission) { s.Fields.Name = "\u3164" }},
	{"name of a byte-order mark", func(s *intake.Submission) { s.Fields.Name = "\ufeff" }},
	{"message with hidden tag text", func(s *intake.Submission) {
		s.Fields.Message = "Hello.\U000E0049\U000E0067\U000E006E\U000E006F\U000E0072\U000E0065"
	}},
	{"company with a private-use character", func(s *intake.Submission) { s.Fields.Company = "Acme \ue000" }},
	{"Persian name with a zero-width non-joiner", func(s *intake.Submission) { s.Fields.Name = "نرگس می\u200cخواهد" }},
	{"name with combining marks", func(s *intake.Submission) { s.Fields.Name = "Zoe\u0308 Nguye\u0302\u0303n" }},
	{"role with an emoji ZWJ sequence", func(s *intake.Submission) { s.Fields.Role = "Engineer 👩🏽\u200d💻" }},
	{"role with an emoji and its presentation selector", func(s *intake.Submission) { s.Fields.Role = "CTO \u2764\ufe0f" }},
	{"role with stacked presentation selectors", func(s *intake.Submission) { s.Fields.Role = "hello\ufe0f\ufe0f\ufe0f\ufe0f" }},
	{"role with ideographic selectors after a letter", func(s *intake.Submission) { s.Fields.Role = "CTO\U000e0101\U000e0102\U000e0103" }},
	{"company with an ideographic variation sequence", func(s *intake.Submission) { s.Fields.Company = "\u845b\U000e0100\u98fe" }},
	{"role with the flag of Wales", func(s *intake.Submission) {
		s.Fields.Role = "CTO 🏴\U000E0067\U000E0062\U000E0077\U000E006C\U000E0073\U000E007F"
	}},
	{"email with a zero-width space", func(s *intake.Submission) { s.Fields.Email = "ada\u200b@example.com" }},
	{"email with a soft hyphen", func(s *intake.Submission) { s.Fields.Email = "a\u00adda@example.com" }},
	{"email with a word joiner", func(s *intake.Submission) { s.Fields.Email = "ada@exam\u2060ple.com" }},
	{"email with a left-to-right mark", func(s *intake.Submission) { s.Fields.Email = "\u200eada@example.com" }},
	{"email in full-width letters", func(s *intake.Submission) { s.Fields.Email = "ａｄａ＠ｅｘａｍｐｌｅ．ｃｏｍ" }},
	{"everything wrong at once", func(s *intake.Submission) {
		*s = intake.Submission{FormID: "introduction", FormVersion: "1", Fields: intake.Fields{Company: "\x07", Email: "ada", Message: links(5, " ")}, Conversation: "\u202Ehi"}
	}},
}

// show quotes a value in ASCII (control and bidi characters escaped, so the
// golden file itself is plain); a long value shows its start, length and
// hash.
func show(s string) string {
	if len(s) <= 100 {
		return strconv.QuoteToASCII(s)
	}
	sum := sha256.Sum256([]byte(s))
	return fmt.Sprintf("%s… (%d characters, sha256 %x)", strconv.QuoteToASCII(string([]rune(s)[:20])), utf8.RuneCountInString(s), sum[:6])
}

// values lists a submission's fields and consents by name.
func values(s intake.Submission) [][2]string {
	out := [][2]string{}
	for _, fv := range fieldValues(&s) {
		out = append(out, [2]string{fv.name, show(*fv.value)})
	}
	out = append(out, [2]string{"consents", fmt.Sprintf("%+v", s.Consents)})
	return out
}

func TestVerdictsGolden(t *testing.T) {
	v := v1(t)
	var b bytes.Buffer
	b.WriteString("# Content-rule verdicts on introduction version 1: each case is the good\n# submission with changes; \"kept\" lists only what normalisation changed.\n# Regenerate with: go test ./shared/contentrules -update\n")
	base := values(good())
	for _, c := range verdictCases {
		s := good()
		c.change(&s)
		fmt.Fprintf(&b, "\n== %s\n", c.name)
		in := values(s)
		for i, kv := range in {
			if kv != base[i] {
				fmt.Fprintf(&b, "input %s: %s\n", kv[0], kv[1])
			}
		}
		kept, errs := Check(v, s)
		if errs == nil {
			b.WriteString("verdict: ACCEPTED\n")
		} else {
			b.WriteString("verdict: REFUSED\n")
		}
		for _, e := range errs {
			fmt.Fprintf(&b, "error %s %s: %s\n", e.Field, e.Code, e.Detail)
		}
		for i, kv := range values(kept) {
			if kv != in[i] {
				fmt.Fprintf(&b, "kept %s: %s\n", kv[0], kv[1])
			}
		}
	}
	path := filepath.Join("testdata", "verdicts.golden")
	if *update {
		if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./shared/contentrules -update to create it)", err)
	}
	if !bytes.Equal(b.Bytes(), want) {
		t.Errorf("verdicts differ from %s; if the change is intended, run go test -update and review the diff.\ngot:\n%s", path, b.Bytes())
	}
}
