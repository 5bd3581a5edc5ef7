package formregistry

import (
	"testing"
	"testing/fstest"
)

// onlyV1 is an index publishing version 1 alone.
const onlyV1 = `{"formId":"introduction","versions":{"1":"published"}}`

// registryOf loads a registry holding one introduction version 1 made from m.
func registryOf(t *testing.T, m map[string]any) *Registry {
	t.Helper()
	r, err := LoadFS(fstest.MapFS{
		"introduction/index.json": {Data: []byte(onlyV1)},
		"introduction/1.json":     {Data: mustJSON(t, m)},
	})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestConsentDigestFollowsConsentTextsOnly(t *testing.T) {
	base := registryOf(t, introductionV1(t)).ConsentDigest()
	embedded, err := LoadFS(fstest.MapFS{
		"introduction/index.json": {Data: []byte(onlyV1)},
		"introduction/1.json":     {Data: embeddedFile(t, "introduction/1.json")},
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := embedded.ConsentDigest(); got != base {
		t.Fatalf("the same data gives another digest: %s, %s", got, base)
	}

	described := introductionV1(t)
	described["description"] = "Another description."
	if got := registryOf(t, described).ConsentDigest(); got != base {
		t.Error("a description change moved the consent digest")
	}

	reworded := introductionV1(t)
	for _, p := range reworded["purposes"].([]any) {
		if c, ok := p.(map[string]any)["consent"].(map[string]any); ok {
			c["text"] = c["text"].(string) + " Reworded."
		}
	}
	if got := registryOf(t, reworded).ConsentDigest(); got == base {
		t.Error("a reworded consent text kept the consent digest")
	}
}

// TestConsentDigestFollowsTheLanguage: the same consent texts said to be
// in another language move the digest (evidence names its language).
func TestConsentDigestFollowsTheLanguage(t *testing.T) {
	inPersian := introductionV1(t)
	inPersian["lang"] = "fa"
	if registryOf(t, inPersian).ConsentDigest() == registryOf(t, introductionV1(t)).ConsentDigest() {
		t.Error("a version's language changed and the consent digest did not")
	}
}
