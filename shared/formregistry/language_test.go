package formregistry

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"iter"
	"maps"
	"regexp"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
	"unicode"

	"github.com/ownersite/introductions/shared/attachment"
)

// Rules of the languages that the package's start-up does not check.
var (
	pluralSuffix       = regexp.MustCompile(`\.(zero|one|two|few|many|other)$`)
	sentencePlaceholer = regexp.MustCompile(`\{[a-zA-Z]+\}`)
)

// languageProblems holds the embedded language files to strictjson, and
// each language to naming every language and to the default language's
// sentences (compareLanguage).
func languageProblems(t *testing.T) []string {
	t.Helper()
	sub, _ := fs.Sub(embeddedLanguages, "languages")
	entries, err := fs.ReadDir(sub, ".")
	if err != nil {
		t.Fatal(err)
	}
	var problems []string
	for _, e := range entries {
		raw, err := fs.ReadFile(sub, e.Name())
		var l Language
		if err == nil {
			err = decode(raw, &l)
		}
		if err != nil {
			problems = append(problems, fmt.Sprintf("%s: %v", e.Name(), err))
		}
	}
	for _, l := range languages {
		for other := range languages {
			if strings.TrimSpace(l.Names[other]) == "" {
				problems = append(problems, fmt.Sprintf("%s.json: names has no name for %s", l.Lang, other))
			}
		}
		for _, p := range compareLanguage(languages[DefaultLang], l) {
			problems = append(problems, l.Lang+".json: "+p)
		}
	}
	return problems
}

// compareLanguage lists how l falls short of def.
func compareLanguage(def, l *Language) []string {
	var problems []string
	problems = append(problems, compareSentences("page", def.Page, l.Page)...)
	problems = append(problems, compareSentences("problems", def.Problems, l.Problems)...)
	problems = append(problems, compareSentences("ownerMail", def.OwnerMail, l.OwnerMail)...)
	problems = append(problems, compareSentences("owner", def.Owner, l.Owner)...)
	problems = append(problems, compareSentences("notice.durations", def.Notice.Durations, l.Notice.Durations)...)
	problems = append(problems, unworded("notice.bases: no wording for", maps.Keys(bases), l.Notice.Bases)...)
	problems = append(problems, unworded("notice.recipients: no wording for", maps.Keys(def.Notice.Recipients), l.Notice.Recipients)...)
	problems = append(problems, unworded("notice.withdrawal: no wording for", maps.Keys(def.Notice.Withdrawal), l.Notice.Withdrawal)...)
	problems = append(problems, unworded("notice.attachmentTypes: no name for", slices.Values(attachment.Types), l.Notice.AttachmentTypes)...)
	problems = append(problems, compareSentences("notice", map[string]string{"attachment": def.Notice.Attachment}, map[string]string{"attachment": l.Notice.Attachment})...)
	w := l.Notice
	for name, s := range map[string]string{"listOr": w.ListOr, "fieldOptional": w.FieldOptional, "fieldWithConsent": w.FieldWithConsent, "purpose": w.Purpose, "required": w.Required, "optional": w.Optional} {
		if strings.TrimSpace(s) == "" {
			problems = append(problems, "notice."+name+" is empty")
		}
	}
	return problems
}

// unworded lists, after what, each of keys that words has no text for.
func unworded[K ~string](what string, keys iter.Seq[K], words map[K]string) []string {
	var problems []string
	for k := range keys {
		if strings.TrimSpace(words[k]) == "" {
			problems = append(problems, what+" "+string(k))
		}
	}
	return problems
}

// compareSentences checks that got has a sentence for every key of want
// (a plural sentence: at least its .other form), none that want lacks, and
// no placeholder want's sentence does not use.
func compareSentences(where string, want, got map[string]string) []string {
	var problems []string
	base := func(k string) string { return pluralSuffix.ReplaceAllString(k, "") }
	wantPH := map[string]map[string]bool{}
	for k, s := range want {
		b := base(k)
		if wantPH[b] == nil {
			wantPH[b] = map[string]bool{}
		}
		for _, p := range sentencePlaceholer.FindAllString(s, -1) {
			wantPH[b][p] = true
		}
	}
	have := map[string]bool{}
	for k, s := range got {
		b := base(k)
		have[b] = true
		if _, ok := wantPH[b]; !ok {
			problems = append(problems, fmt.Sprintf("%s: %q is not a sentence of %s.json", where, k, DefaultLang))
			continue
		}
		if strings.TrimSpace(s) == "" {
			problems = append(problems, fmt.Sprintf("%s: %q is empty", where, k))
		}
		for _, p := range sentencePlaceholer.FindAllString(s, -1) {
			if !wantPH[b][p] {
				problems = append(problems, fmt.Sprintf("%s: %q uses %s, which %s.json's does not", where, k, p, DefaultLang))
			}
		}
		if pluralSuffix.MatchString(k) {
			if _, ok := got[b+".other"]; !ok {
				problems = append(problems, fmt.Sprintf("%s: %q has no %s.other", where, k, b))
			}
		}
	}
	for b := range wantPH {
		if !have[b] {
			problems = append(problems, fmt.Sprintf("%s: no sentence for %q", where, b))
		}
	}
	slices.Sort(problems)
	return problems
}

// persianV2 returns the embedded introduction version 2 in Persian as a
// generic JSON value, for tests to mutate.
func persianV2(t *testing.T) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(embeddedFile(t, "introduction/2.fa.json"), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// consentOf returns the consent member of a purpose in a language file.
func consentOf(m map[string]any, purpose string) map[string]any {
	return m["purposes"].(map[string]any)[purpose].(map[string]any)["consent"].(map[string]any)
}

// withPersian loads versions 1 and 2 as embedded, version 2's Persian
// texts as fa, and version 3 (version 2's file as version 3) with fa3 as
// its Persian texts when fa3 is not nil.
func withPersian(t *testing.T, fa, fa3 map[string]any) error {
	t.Helper()
	var v2 map[string]any
	if err := json.Unmarshal(embeddedFile(t, "introduction/2.json"), &v2); err != nil {
		t.Fatal(err)
	}
	fsys := fstest.MapFS{
		"introduction/index.json": {Data: []byte(`{"formId":"introduction","versions":{"1":"published","2":"published","3":"published"}}`)},
		"introduction/1.json":     {Data: embeddedFile(t, "introduction/1.json")},
		"introduction/2.json":     {Data: embeddedFile(t, "introduction/2.json")},
		"introduction/2.fa.json":  {Data: mustJSON(t, fa)},
		"introduction/3.json":     {Data: withVersion(t, v2, "3")},
	}
	if fa3 != nil {
		fsys["introduction/3.fa.json"] = &fstest.MapFile{Data: withVersion(t, fa3, "3")}
	}
	_, err := LoadFS(fsys)
	return err
}

func TestPersianTextsLoad(t *testing.T) {
	base, _ := loadEmbedded(t).Latest("introduction")
	if got := strings.Join(base.Langs(), ","); got != "en,fa" {
		t.Fatalf("Langs() = %s, want en,fa", got)
	}
	fa, ok := base.In("fa")
	if !ok || fa.Lang != "fa" || fa.Language.Dir != "rtl" {
		t.Fatalf("In(fa) = %+v, %v", fa, ok)
	}
	if fa.Version != base.Version || len(fa.Fields) != len(base.Fields) || fa.Fields[4].MaxLength != base.Fields[4].MaxLength {
		t.Error("the Persian version does not share the version's fields and limits")
	}
	for i, p := range fa.Purposes {
		en := base.Purposes[i]
		if p.Consent == nil {
			continue
		}
		if p.Consent.TextVersion != en.Consent.TextVersion || p.Consent.Control != en.Consent.Control {
			t.Errorf("%s: Persian consent names %s/%s, want %s/%s", p.ID, p.Consent.TextVersion, p.Consent.Control, en.Consent.TextVersion, en.Consent.Control)
		}
		if p.Consent.SHA256 == en.Consent.SHA256 || p.Consent.SHA256 != TextSHA256(p.Consent.Text) {
			t.Errorf("%s: the Persian consent text is not hashed on its own", p.ID)
		}
	}
	if _, ok := base.In("de"); ok {
		t.Error("In(de) found a language the version is not shown in")
	}
}

// TestPersianTextsAreWrittenInPersian guards against a half-translated
// file: every text of the Persian version is in Arabic script, writes
// numbers in Persian digits, and uses Persian punctuation.
func TestPersianTextsAreWrittenInPersian(t *testing.T) {
	base, _ := loadEmbedded(t).Latest("introduction")
	fa, _ := base.In("fa")
	texts := []string{fa.Title, fa.Description}
	for _, f := range fa.Fields {
		texts = append(texts, f.Label, f.Hint)
	}
	for _, p := range fa.Purposes {
		texts = append(texts, p.Description)
		if p.Consent != nil {
			texts = append(texts, p.Consent.Text)
		}
	}
	notice := fa.Notice(testLimits).text()
	texts = append(texts, notice)
	for _, s := range fa.Language.Page {
		texts = append(texts, s)
	}
	for _, s := range fa.Language.Problems {
		texts = append(texts, s)
	}
	for _, s := range texts {
		// A sentence of placeholders and punctuation alone ("{name} — {type}، {size}")
		// has no words to be in Persian.
		words := strings.ContainsFunc(sentencePlaceholer.ReplaceAllString(s, ""), unicode.IsLetter)
		if words && !strings.ContainsFunc(s, func(r rune) bool { return unicode.Is(unicode.Arabic, r) }) && !strings.HasPrefix(s, "introduction-receipt") {
			t.Errorf("not in Persian: %q", s)
		}
		if strings.ContainsAny(s, "0123456789") && !strings.Contains(s, "U+202E") && !strings.Contains(s, "GDPR") {
			t.Errorf("ASCII digits in a Persian text: %q", s)
		}
		if strings.ContainsAny(s, "?;“”") || strings.Contains(s, ", ") {
			t.Errorf("Latin punctuation in a Persian text: %q", s)
		}
	}
	for _, want := range []string{"۳۰ دقیقه", "۱۸۰ روز", "۷ روز", "«", "؛"} {
		if !strings.Contains(notice, want) {
			t.Errorf("the Persian notice has no %q:\n%s", want, notice)
		}
	}
}

func TestLanguageFilesRefuseInvalidTexts(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(m map[string]any)
		want   string
	}{
		{"a consent text under another text version", func(m map[string]any) { consentOf(m, "future-roles")["textVersion"] = "future-roles/2" }, "want the version file's"},
		{"a consent purpose without its text", func(m map[string]any) {
			delete(m["purposes"].(map[string]any)["future-roles"].(map[string]any), "consent")
		}, "needs a consent text"},
		{"a missing field", func(m map[string]any) { delete(m["fields"].(map[string]any), "email") }, `field "email": label is required`},
		{"a field the version lacks", func(m map[string]any) { m["fields"].(map[string]any)["phone"] = map[string]any{"label": "تلفن"} }, "not a field of version 2"},
		{"a missing purpose", func(m map[string]any) { delete(m["purposes"].(map[string]any), "introduction") }, `purpose "introduction": description is required`},
		{"a language the registry lacks", func(m map[string]any) { m["lang"] = "de" }, `lang "de"`},
		{"an unknown placeholder in the notice", func(m map[string]any) {
			m["notice"].(map[string]any)["sections"].([]any)[0].(map[string]any)["body"] = "{fields} {purposes} {draftRetention} {introductionRetention} {rejectedAttemptRetention} {oops}"
		}, "unknown placeholder {oops}"},
		{"a notice under another text version", func(m map[string]any) { m["notice"].(map[string]any)["textVersion"] = "introduction-notice/9" }, "want the version file's"},
		{"a control in the language file", func(m map[string]any) { consentOf(m, "future-roles")["control"] = "x" }, "unknown field"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := persianV2(t)
			tt.mutate(m)
			err := withPersian(t, m, nil)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("LoadFS error = %v\nwant it to mention %q", err, tt.want)
			}
		})
	}
	if err := withPersian(t, persianV2(t), persianV2(t)); err != nil {
		t.Fatalf("the unchanged Persian texts do not load: %v", err)
	}
}

// TestLoadFSRefusesAChangedPersianTextUnderAnOldTextVersion: a Persian
// consent text is bound to its text version as the English one is; a
// later version that rewords it under the same text version fails the
// load, though the English text is unchanged.
func TestLoadFSRefusesAChangedPersianTextUnderAnOldTextVersion(t *testing.T) {
	fa3 := persianV2(t)
	consentOf(fa3, "attach-conversation")["text"] = "گفت‌وگوی من پیوست شود."
	err := withPersian(t, persianV2(t), fa3)
	if err == nil || !strings.Contains(err.Error(), `version 3 changes the fa text of "attach-conversation/1"`) {
		t.Fatalf("LoadFS error = %v, want a refused Persian text change", err)
	}
}

func TestLanguagesHaveEverySentence(t *testing.T) {
	en, _ := LanguageOf("en")
	fa, _ := LanguageOf("fa")
	if en == nil || fa == nil {
		t.Fatal("the registry lacks en or fa")
	}
	if p := compareLanguage(en, fa); len(p) > 0 {
		t.Fatalf("fa.json: %s", strings.Join(p, "; "))
	}
	missing := map[string]string{"page": "review.confirm", "problems": "RATE_LIMITED"}
	for where, key := range missing {
		l := *fa
		l.Page, l.Problems = clone(fa.Page), clone(fa.Problems)
		if where == "page" {
			delete(l.Page, key)
		} else {
			delete(l.Problems, key)
		}
		if p := compareLanguage(en, &l); len(p) == 0 || !strings.Contains(strings.Join(p, ";"), key) {
			t.Errorf("a missing %s sentence %s went unnoticed: %v", where, key, p)
		}
	}
	l := *fa
	l.OwnerMail = clone(fa.OwnerMail)
	delete(l.OwnerMail, "subject.withdrawn")
	if p := compareLanguage(en, &l); !strings.Contains(strings.Join(p, ";"), "subject.withdrawn") {
		t.Errorf("a missing owner-mail sentence went unnoticed: %v", p)
	}
	l = *fa
	l.Problems = clone(fa.Problems)
	l.Problems["NAME_INVALID"] = "{maxx}"
	if p := compareLanguage(en, &l); !strings.Contains(strings.Join(p, ";"), "{maxx}") {
		t.Errorf("a misspelt placeholder went unnoticed: %v", p)
	}
}

func clone(m map[string]string) map[string]string {
	c := make(map[string]string, len(m))
	for k, v := range m {
		c[k] = v
	}
	return c
}

func TestChoose(t *testing.T) {
	avail := []string{"en", "fa"}
	tests := []struct{ query, accept, want string }{
		{"", "", "en"},
		{"fa", "", "fa"},
		{"FA", "en", "fa"},
		{"de", "fa-IR,fa;q=0.9,en;q=0.8", "fa"},
		{"", "fa-IR", "fa"},
		{"", "de-DE,de;q=0.9,en;q=0.5,fa;q=0.4", "en"},
		{"", "de-DE, fa;q=0.7", "fa"},
		{"", "en;q=0.3, fa;q=0.9", "fa"},
		{"", "*", "en"},
		{"", "fa;q=0", "en"},
		{"", "fa;q=oops", "en"},
	}
	for _, tt := range tests {
		if got := Choose(avail, tt.query, tt.accept); got != tt.want {
			t.Errorf("Choose(%q, %q) = %s, want %s", tt.query, tt.accept, got, tt.want)
		}
	}
}

// TestSizesAreWordedAsThePageWordsThem: the notice's sizes come from the
// page's size sentences, in the language's digits and decimal separator.
func TestSizesAreWordedAsThePageWordsThem(t *testing.T) {
	en, _ := LanguageOf("en")
	fa, _ := LanguageOf("fa")
	tests := []struct {
		n      int64
		en, fa string
	}{
		{5 << 20, "5 MiB", "۵ مگابایت"},
		{11 << 19, "5.5 MiB", "۵٫۵ مگابایت"},
		{5<<20 + 1, "5 MiB", "۵ مگابایت"},
		{256 << 10, "256 KiB", "۲۵۶ کیلوبایت"},
		{1, "1 byte", "۱ بایت"},
		{900, "900 bytes", "۹۰۰ بایت"},
	}
	for _, tt := range tests {
		if got := en.Size(tt.n); got != tt.en {
			t.Errorf("en size(%d) = %q, want %q", tt.n, got, tt.en)
		}
		if got := fa.Size(tt.n); got != tt.fa {
			t.Errorf("fa size(%d) = %q, want %q", tt.n, got, tt.fa)
		}
	}
}

// TestEnglishSizesAreTheServicesOwn: the notice and the page word a size
// as the service's own sentences and the owner's mail do, roundings
// included, so a limit reads the same everywhere.
func TestEnglishSizesAreTheServicesOwn(t *testing.T) {
	en, _ := LanguageOf("en")
	for _, n := range []int64{1, 2, 1023, 1024, 300 << 10, 1 << 20, 1<<20 + 1, 5 << 20, 5505024, 6250000, 10<<20 - 1} {
		if got, want := en.Size(n), attachment.HumanSize(n); got != want {
			t.Errorf("%d bytes: the language says %q, the service %q", n, got, want)
		}
	}
}
