package contentrules

import (
	"slices"
	"testing"
)

func TestSubjectKeyNamesOnePersonWhateverTheSpelling(t *testing.T) {
	base := SubjectKey("ada@example.com")
	for _, same := range []string{"Ada@Example.com", "  ADA@EXAMPLE.COM ", "ada+jobs@example.com", "Ada+Recruiting@example.COM"} {
		if SubjectKey(same) != base {
			t.Errorf("SubjectKey(%q) differs from ada@example.com's", same)
		}
	}
	for _, other := range []string{"adam@example.com", "ada@example.org", "a.da@example.com", ""} {
		if SubjectKey(other) == base {
			t.Errorf("SubjectKey(%q) equals ada@example.com's", other)
		}
	}
	if len(base) != 64 {
		t.Errorf("SubjectKey is %d characters, want 64 hex digits", len(base))
	}
}

// TestSubjectKeyFoldsCaseNotLetters: the local part is compared without
// case but letter for letter (ß is not ss), after NFKC; the domain in its
// IDNA ASCII form, so a domain typed in Unicode and in punycode is one.
func TestSubjectKeyFoldsCaseNotLetters(t *testing.T) {
	tests := []struct {
		name string
		a, b string
		same bool
	}{
		{"ß is not ss", "straße@example.com", "strasse@example.com", false},
		{"capital ß is ß", "STRAẞE@example.com", "straße@example.com", true},
		{"ß is not SS", "Straße@example.com", "STRASSE@example.com", false},
		{"the ﬀ ligature is ff (NFKC)", "eﬀie@example.com", "effie@example.com", true},
		{"full-width letters (NFKC)", "ａｄａ@example.com", "ada@example.com", true},
		{"the Kelvin sign is k", "\u212Aate@example.com", "kate@example.com", true},
		{"final sigma is sigma", "ΣΟΦΙΑΣ@example.gr", "σοφιας@example.gr", true},
		{"dotless i is not i", "ılker@example.com", "ilker@example.com", false},
		{"dotted capital I is not i", "İlker@example.com", "ilker@example.com", false},
		{"a Unicode domain is its punycode", "ada@bücher.example", "ada@xn--bcher-kva.example", true},
		{"punycode in upper case", "ada@bücher.example", "ADA@XN--BCHER-KVA.EXAMPLE", true},
		{"a Unicode domain in upper case", "ada@BÜCHER.example", "ada@xn--bcher-kva.example", true},
		{"ß in a domain stays ß (nontransitional)", "ada@straße.example", "ada@strasse.example", false},
		{"an ideographic full stop in a domain", "ada@bücher。example", "ada@xn--bcher-kva.example", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := SubjectKey(tt.a) == SubjectKey(tt.b); got != tt.same {
				t.Errorf("SubjectKey(%q) == SubjectKey(%q) is %v, want %v (normal forms %q, %q)", tt.a, tt.b, got, tt.same, SubjectAddress(tt.a), SubjectAddress(tt.b))
			}
		})
	}
}

// TestSubjectFindsIntroductionsKeptUnderTheV1Key: a look-up also asks for
// the key introductions kept before v2 carry, and keeps only those whose
// stored address is the subject's under v2.
func TestSubjectFindsIntroductionsKeptUnderTheV1Key(t *testing.T) {
	q := Subject("Straße@example.com")
	if len(q.Keys) != 2 || q.Keys[0] != SubjectKey("straße@example.com") {
		t.Fatalf("keys %v, want the v2 key first and the v1 key", q.Keys)
	}
	if !slices.Contains(q.Keys, legacySubjectKey("straße@example.com")) || legacySubjectKey("straße@example.com") != legacySubjectKey("strasse@example.com") {
		t.Fatalf("the v1 key of straße@ is not among %v, or v1 did not merge it with strasse@", q.Keys)
	}
	for stored, want := range map[string]bool{"straße@example.com": true, "STRAẞE+jobs@Example.com": true, "strasse@example.com": false, "STRASSE@example.com": false} {
		if got := q.Owns(stored); got != want {
			t.Errorf("Owns(%q) = %v, want %v", stored, got, want)
		}
	}
}
