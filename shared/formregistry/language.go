package formregistry

import (
	"cmp"
	"embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/ownersite/introductions/shared/attachment"
	"github.com/ownersite/introductions/shared/intake"
)

// Language is what every version shown in a language shares: its names and
// direction, the notice's joining words, the page's sentences and a
// sentence per problem code.
type Language struct {
	Lang    string `json:"lang"`              // BCP 47 primary subtag: "en", "fa"
	Name    string `json:"name"`              // as its speakers write it
	Dir     string `json:"dir"`               // "ltr" or "rtl"
	Digits  string `json:"digits"`            // its ten digits, 0 to 9; empty for ASCII
	Decimal string `json:"decimal,omitempty"` // its decimal separator; empty for "."
	// Names names every language of the registry in this one.
	Names  map[string]string `json:"names"`
	Notice NoticeWording     `json:"notice"`
	// Page holds the page's sentences by key; {name} marks a value the page
	// fills in, and a key ending in .one, .two, .few, .many or .other is a
	// plural form (every plural sentence has its .other).
	Page map[string]string `json:"page"`
	// Problems holds a sentence per problem code and per PageCodes entry.
	Problems map[string]string `json:"problems"`
	// OwnerMail holds the owner's mail's sentences by key, {name} as in Page.
	OwnerMail map[string]string `json:"ownerMail"`
	// Owner holds the owner's side's sentences (the admin's), keyed and filled as Page's are.
	Owner map[string]string `json:"owner"`
}

// NoticeWording is how a language words the notice's generated parts.
type NoticeWording struct {
	FieldOptional    string `json:"fieldOptional"`
	FieldWithConsent string `json:"fieldWithConsent"`
	Purpose          string `json:"purpose"`
	Required         string `json:"required"`
	Optional         string `json:"optional"`
	FieldSeparator   string `json:"fieldSeparator"`
	ListSeparator    string `json:"listSeparator"`
	ListLast         string `json:"listLast"`
	// ListOr joins the last of a list of alternatives ("PDF or plain text").
	ListOr     string                        `json:"listOr"`
	Bases      map[intake.Basis]string       `json:"bases"`
	Recipients map[intake.Destination]string `json:"recipients"`
	Withdrawal map[intake.Destination]string `json:"withdrawal"`
	// Durations are "day", "hour" and "minute" with ".one" or ".other"; {n} is the number.
	Durations map[string]string `json:"durations"`
	// Attachment is the sentence on an attachment: {types} (named in AttachmentTypes) and {size}.
	Attachment      string            `json:"attachment"`
	AttachmentTypes map[string]string `json:"attachmentTypes"`
}

// PageCodes are the page's own codes; each has a sentence in every language.
var PageCodes = []string{"BUSY", "NETWORK", "SOLVER"}

//go:embed languages
var embeddedLanguages embed.FS

// languages are the languages the registry knows, by Lang.
var languages = func() map[string]*Language {
	sub, _ := fs.Sub(embeddedLanguages, "languages") // a valid path: no error
	langs, err := loadLanguages(sub)
	if err != nil {
		panic(err) // TestEmbeddedDataPassesEveryCheck checks them, and every rule
	}
	return langs
}()

// DefaultLang is the language of a version file, or of consent evidence, that names none.
const DefaultLang = "en"

var langPattern = regexp.MustCompile(`^[a-z]{2,3}$`)

// loadLanguages reads <lang>.json files; that each is complete is held by
// TestEmbeddedDataPassesEveryCheck, not checked at start-up.
func loadLanguages(fsys fs.FS) (map[string]*Language, error) {
	entries, err := fs.ReadDir(fsys, ".")
	if err != nil {
		return nil, err
	}
	langs := map[string]*Language{}
	var problems []string
	for _, e := range entries {
		name, ok := strings.CutSuffix(e.Name(), ".json")
		raw, err := fs.ReadFile(fsys, e.Name())
		if !ok || err != nil {
			problems = append(problems, fmt.Sprintf("%s: not a language file", e.Name()))
			continue
		}
		var l Language
		if err := json.Unmarshal(raw, &l); err != nil {
			problems = append(problems, fmt.Sprintf("%s: %v", e.Name(), err))
			continue
		}
		if l.Lang != name || !langPattern.MatchString(name) {
			problems = append(problems, fmt.Sprintf("%s: names language %q", e.Name(), l.Lang))
		}
		if l.Dir != "ltr" && l.Dir != "rtl" {
			problems = append(problems, fmt.Sprintf("%s: dir %q (want ltr or rtl)", e.Name(), l.Dir))
		}
		if l.Digits != "" && len([]rune(l.Digits)) != 10 {
			problems = append(problems, fmt.Sprintf("%s: digits must be ten", e.Name()))
		}
		langs[l.Lang] = &l
	}
	if _, ok := langs[DefaultLang]; !ok {
		problems = append(problems, "no "+DefaultLang+".json")
	}
	if len(problems) > 0 {
		slices.Sort(problems)
		return nil, fmt.Errorf("formregistry: invalid languages: %s", strings.Join(problems, "; "))
	}
	return langs, nil
}

// OwnerLang is the language the owner's side (mail, admin) shows the registry's texts in.
const OwnerLang = DefaultLang

// LanguageName names the language tagged lang in the language in, with its
// tag: "Persian (fa)". An unknown tag is named by the tag alone.
func LanguageName(lang, in string) string {
	if l, ok := languages[in]; ok && l.Names[lang] != "" {
		return l.Names[lang] + " (" + lang + ")"
	}
	return lang
}

// LanguageOf returns the language the registry knows by its tag.
func LanguageOf(lang string) (*Language, bool) {
	l, ok := languages[lang]
	return l, ok
}

// number writes n in the language's digits.
func (l *Language) number(n int64) string { return l.Numerals(strconv.FormatInt(n, 10)) }

// Numerals writes the ASCII digits of s in the language's digits.
func (l *Language) Numerals(s string) string {
	if l.Digits == "" {
		return s
	}
	digits := []rune(l.Digits)
	return strings.Map(func(r rune) rune {
		if r >= '0' && r <= '9' {
			return digits[r-'0']
		}
		return r
	}, s)
}

// duration words n units ("day", "hour", "minute"), the .one form for 1 when the language has one.
func (l *Language) duration(n int64, unit string) string {
	s, ok := l.Notice.Durations[unit+".one"]
	if n != 1 || !ok {
		s = l.Notice.Durations[unit+".other"]
	}
	return strings.ReplaceAll(s, "{n}", l.number(n))
}

// join joins "a", "b" and "c" as the language does, last before the last ("a, b and c").
func (l *Language) join(parts []string, last string) string {
	if len(parts) < 2 {
		return strings.Join(parts, "")
	}
	return strings.Join(parts[:len(parts)-1], l.Notice.ListSeparator) + last + parts[len(parts)-1]
}

// attachmentRules is the notice's sentence on an attachment of at most
// maxBytes; a right-to-left language isolates each type name, as the page does.
func (l *Language) attachmentRules(maxBytes int64) string {
	var types []string
	for _, t := range attachment.Types {
		name := l.Notice.AttachmentTypes[t]
		if l.Dir == "rtl" {
			name = "\u2068" + name + "\u2069"
		}
		types = append(types, name)
	}
	return strings.NewReplacer("{types}", l.join(types, l.Notice.ListOr), "{size}", l.Size(maxBytes)).Replace(l.Notice.Attachment)
}

// Size words n bytes as the page does ("5 MiB", "۵ مگابایت"), MiB to one decimal.
func (l *Language) Size(n int64) string {
	word := func(key, number string) string {
		return strings.ReplaceAll(l.Page[key], "{n}", number)
	}
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return word("size.mib", l.number(n>>20))
	case n >= 1<<20:
		tenths := (n*10 + 1<<19) >> 20 // rounded to the nearest tenth
		if tenths%10 == 0 {
			return word("size.mib", l.number(tenths/10))
		}
		return word("size.mib", l.number(tenths/10)+cmp.Or(l.Decimal, ".")+l.number(tenths%10))
	case n >= 1<<10:
		return word("size.kib", l.number(n>>10))
	case n == 1 && l.Page["size.bytes.one"] != "":
		return word("size.bytes.one", l.number(n))
	}
	return word("size.bytes.other", l.number(n))
}

// Choose picks a language among available (the default first): the one
// query names when it is available, otherwise the best of acceptLanguage
// (an Accept-Language header: the highest q, then the first listed; a tag
// matches by its primary subtag, so fa-IR is fa), otherwise the default.
func Choose(available []string, query, acceptLanguage string) string {
	if len(available) == 0 {
		return DefaultLang
	}
	has := func(tag string) (string, bool) {
		primary, _, _ := strings.Cut(strings.ToLower(strings.TrimSpace(tag)), "-")
		return primary, primary != "" && slices.Contains(available, primary)
	}
	if l, ok := has(query); ok {
		return l
	}
	best, bestQ := "", 0.0
	for _, part := range strings.Split(acceptLanguage, ",") {
		tag, params, _ := strings.Cut(part, ";")
		q := 1.0
		if v, ok := strings.CutPrefix(strings.TrimSpace(params), "q="); ok {
			f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			if err != nil {
				continue
			}
			q = f
		}
		l, ok := has(tag)
		if strings.TrimSpace(tag) == "*" {
			l, ok = available[0], true
		}
		if ok && q > bestQ {
			best, bestQ = l, q
		}
	}
	if best != "" {
		return best
	}
	return available[0]
}
