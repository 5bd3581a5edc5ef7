package jsonapi

import (
	"testing"

	"github.com/ownersite/introductions/shared/formregistry"
)

// TestEveryProblemCodeHasASentenceInEveryLanguage: whatever the service
// answers, the page has a sentence for it in the visitor's language.
func TestEveryProblemCodeHasASentenceInEveryLanguage(t *testing.T) {
	codes := formregistry.PageCodes
	for c := range statusOf {
		codes = append(codes, string(c))
	}
	for _, lang := range []string{"en", "fa"} {
		l, ok := formregistry.LanguageOf(lang)
		if !ok {
			t.Fatalf("the form registry has no language %s", lang)
		}
		for _, c := range codes {
			if l.Problems[c] == "" {
				t.Errorf("%s: no sentence for %s in languages/%s.json", lang, c, lang)
			}
		}
	}
}
