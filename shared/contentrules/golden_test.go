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
