package contentrules

import "testing"

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
