package formregistry

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/ownersite/introductions/shared/intake"
	"github.com/ownersite/introductions/shared/strictjson"
)

// indexFile is forms/<formId>/index.json: the status of each version.
type indexFile struct {
	FormID   string            `json:"formId"`
	Versions map[string]Status `json:"versions"`
}

// versionFile is forms/<formId>/<version>.json.
type versionFile struct {
	FormID      string         `json:"formId"`
	Version     string         `json:"version"`
	Lang        string         `json:"lang"` // DefaultLang when absent
	Title       string         `json:"title"`
	Description string         `json:"description"`
	Honeypot    string         `json:"honeypot"`
	Fields      []fieldFile    `json:"fields"`
	Attachment  *Attachment    `json:"attachment"`
	Purposes    []purposeFile  `json:"purposes"`
	Notice      NoticeTemplate `json:"notice"`
}

// fieldFile is a Field with the specific codes the definition does not serve.
type fieldFile struct {
	Field
	TooLongCode      intake.Code `json:"tooLongCode"`
	TooManyLinksCode intake.Code `json:"tooManyLinksCode"`
}

type purposeFile struct {
	ID          string       `json:"id"`
	Description string       `json:"description"`
	Basis       intake.Basis `json:"basis"`
	Required    bool         `json:"required"`
	Consent     *consentFile `json:"consent"`
}

type consentFile struct {
	consentText
	Control string `json:"control"`
}

// languageFile is forms/<formId>/<version>.<lang>.json: a version's texts
// in another language, under the version file's text versions.
type languageFile struct {
	FormID      string                 `json:"formId"`
	Version     string                 `json:"version"`
	Lang        string                 `json:"lang"`
	Title       string                 `json:"title"`
	Description string                 `json:"description"`
	Fields      map[string]fieldText   `json:"fields"`
	Purposes    map[string]purposeText `json:"purposes"`
	Attachment  *fieldText             `json:"attachment"`
	Notice      NoticeTemplate         `json:"notice"`
}

type fieldText struct {
	Label string `json:"label"`
	Hint  string `json:"hint"`
}

type purposeText struct {
	Description string       `json:"description"`
	Consent     *consentText `json:"consent"`
}

type consentText struct {
	TextVersion string `json:"textVersion"`
	Text        string `json:"text"`
}

// fieldKinds is every core field, with its type and stored cap.
var fieldKinds = map[string]struct {
	typ FieldType
	cap int
}{
	"name":         {FieldText, intake.MaxStoredShortField},
	"company":      {FieldText, intake.MaxStoredShortField},
	"role":         {FieldText, intake.MaxStoredShortField},
	"email":        {FieldEmail, intake.MaxStoredEmail},
	"message":      {FieldTextarea, intake.MaxStoredMessage},
	"conversation": {FieldTranscript, intake.MaxStoredConversation},
}

// addedKinds are the types an added field may have, with their stored caps.
var addedKinds = map[FieldType]int{
	FieldText:     intake.MaxStoredShortField,
	FieldTextarea: intake.MaxStoredAdded,
}

// addedNamePattern is the name of a field a version adds.
var addedNamePattern = regexp.MustCompile(`^[a-z][a-zA-Z0-9]{0,39}$`)

// fieldCodes are the codes a field may report.
var fieldCodes = map[intake.Code]bool{intake.CodeNameInvalid: true, intake.CodeCompanyInvalid: true,
	intake.CodeRoleInvalid: true, intake.CodeEmailInvalid: true, intake.CodeMessageInvalid: true,
	intake.CodeMessageTooManyLinks: true, intake.CodeFieldInvalid: true, intake.CodeConversationInvalid: true,
	intake.CodeConversationTooLong: true, intake.CodeConversationManyLinks: true}

// bases are the legal bases a purpose may declare.
var bases = map[intake.Basis]bool{intake.BasisConsent: true, intake.BasisContract: true,
	intake.BasisLegitimateInterests: true, intake.BasisLegalObligation: true}

// reservedNames are draft-body keys the honeypot must not take.
var reservedNames = map[string]bool{"formId": true, "formVersion": true, "lang": true, "consents": true, "altcha": true}

var (
	idPattern        = regexp.MustCompile(`^[a-z][a-z0-9]*(-[a-z0-9]+)*$`)
	versionPattern   = regexp.MustCompile(`^[1-9][0-9]{0,8}$`)
	languageFileName = regexp.MustCompile(`^([1-9][0-9]{0,8})\.([a-z]{2,3})\.json$`)
	controlPattern   = regexp.MustCompile(`^[a-z][a-z0-9-]*$`)
	honeypotPattern  = regexp.MustCompile(`^[a-z][a-zA-Z0-9_-]*$`)
)

// LoadFS loads and validates a registry laid out as <formId>/index.json and
// <formId>/<version>.json; the error of a failed load lists every problem.
func LoadFS(fsys fs.FS) (*Registry, error) { return loadFS(fsys, decode) }

// loadFS loads fsys, reading each file with dec.
func loadFS(fsys fs.FS, dec func([]byte, any) error) (*Registry, error) {
	entries, err := fs.ReadDir(fsys, ".")
	if err != nil {
		return nil, fmt.Errorf("formregistry: %w", err)
	}
	r := &Registry{forms: map[string]map[string]*Version{}}
	var problems []error
	for _, e := range entries {
		if !e.IsDir() {
			problems = append(problems, fmt.Errorf("%s: not a form directory", e.Name()))
			continue
		}
		versions, errs := loadForm(fsys, e.Name(), dec)
		problems = append(problems, errs...)
		if len(versions) > 0 {
			r.forms[e.Name()] = versions
		}
	}
	if len(entries) == 0 {
		problems = append(problems, errors.New("no forms"))
	}
	problems = append(problems, checkTextVersions(r)...)
	if len(problems) > 0 {
		return nil, fmt.Errorf("formregistry: invalid form data: %w", errors.Join(problems...))
	}
	return r, nil
}

// loadForm loads one form directory.
func loadForm(fsys fs.FS, formID string, dec func([]byte, any) error) (map[string]*Version, []error) {
	var problems []error
	fail := func(format string, args ...any) {
		problems = append(problems, fmt.Errorf(formID+": "+format, args...))
	}
	if !idPattern.MatchString(formID) {
		fail("form id must be lower-case words joined by hyphens")
	}
	read := func(name string) ([]byte, bool) {
		raw, err := fs.ReadFile(fsys, path.Join(formID, name))
		if err != nil {
			fail("%v", err)
		}
		return raw, err == nil
	}
	var index indexFile
	raw, ok := read("index.json")
	if !ok {
		return nil, problems
	}
	if err := dec(raw, &index); err != nil {
		fail("index.json: %v", err)
		return nil, problems
	}
	if index.FormID != formID {
		fail("index.json names form %q", index.FormID)
	}
	if len(index.Versions) == 0 {
		fail("index.json lists no versions")
	}
	files, err := fs.ReadDir(fsys, formID)
	if err != nil {
		fail("%v", err)
		return nil, problems
	}
	versions := map[string]*Version{}
	var inOtherLanguages []fs.DirEntry
	for _, f := range files {
		if f.Name() == "index.json" {
			continue
		}
		if !f.IsDir() && languageFileName.MatchString(f.Name()) {
			inOtherLanguages = append(inOtherLanguages, f)
			continue
		}
		name, ok := strings.CutSuffix(f.Name(), ".json")
		if f.IsDir() || !ok || !versionPattern.MatchString(name) {
			fail("%s: not a version file (want <number>.json)", f.Name())
			continue
		}
		status, listed := index.Versions[name]
		if !listed {
			fail("version %s is not listed in index.json", name)
			continue
		}
		raw, ok := read(f.Name())
		if !ok {
			continue
		}
		v, errs := parseVersion(raw, formID, name, status, dec)
		for _, e := range errs {
			fail("version %s: %v", name, e)
		}
		if len(errs) == 0 {
			versions[name] = v
		}
	}
	for _, f := range inOtherLanguages {
		m := languageFileName.FindStringSubmatch(f.Name())
		v, ok := versions[m[1]]
		if !ok {
			fail("%s: no valid version %s to translate", f.Name(), m[1])
			continue
		}
		raw, ok := read(f.Name())
		if !ok {
			continue
		}
		t, errs := parseLanguage(raw, v, m[2], dec)
		for _, e := range errs {
			fail("%s: %v", f.Name(), e)
		}
		if len(errs) == 0 {
			v.inLang[t.Lang] = t
			v.langs = append(v.langs, t.Lang)
		}
	}
	for _, v := range versions {
		slices.Sort(v.langs[1:])
		for _, t := range v.inLang {
			t.langs = v.langs
		}
	}
	for name, status := range index.Versions {
		if !versionPattern.MatchString(name) {
			fail("index.json: version %q is not a number", name)
		}
		if status != StatusPublished && status != StatusRetired {
			fail("index.json: version %s has status %q (want published or retired)", name, status)
		}
		if _, err := fs.Stat(fsys, path.Join(formID, name+".json")); err != nil {
			fail("index.json lists version %s, which has no file", name)
		}
	}
	return versions, problems
}

// parseVersion decodes and validates one version file.
func parseVersion(raw []byte, formID, version string, status Status, dec func([]byte, any) error) (*Version, []error) {
	var problems []error
	fail := func(format string, args ...any) { problems = append(problems, fmt.Errorf(format, args...)) }
	var f versionFile
	if err := dec(raw, &f); err != nil {
		return nil, []error{err}
	}
	if f.FormID != formID || f.Version != version {
		fail("file says form %q version %q", f.FormID, f.Version)
	}
	if strings.TrimSpace(f.Title) == "" || strings.TrimSpace(f.Description) == "" {
		fail("title and description are required")
	}
	v := &Version{FormID: formID, Version: version, Status: status, Title: f.Title, Description: f.Description,
		Honeypot: f.Honeypot, FileSHA256: TextSHA256(string(raw)), Lang: cmp.Or(f.Lang, DefaultLang)}
	var ok bool
	if v.Language, ok = LanguageOf(v.Lang); !ok {
		fail("lang %q is not a language of the registry (languages/)", v.Lang)
	}
	v.inLang = map[string]*Version{v.Lang: v}
	v.langs = []string{v.Lang}

	purposeIDs := map[string]Purpose{}
	textVersions := map[string]bool{}
	controls := map[string]bool{}
	hasRequired := false
	for i, pf := range f.Purposes {
		p := Purpose{ID: pf.ID, Description: pf.Description, Basis: pf.Basis, Required: pf.Required}
		where := fmt.Sprintf("purpose %d (%q)", i, pf.ID)
		if !idPattern.MatchString(pf.ID) {
			fail("%s: id must be lower-case words joined by hyphens", where)
		}
		if _, dup := purposeIDs[pf.ID]; dup {
			fail("%s: id used twice", where)
		}
		if strings.TrimSpace(pf.Description) == "" {
			fail("%s: description is required", where)
		}
		switch {
		case pf.Basis == "":
			fail("%s: has no legal basis", where)
		case !bases[pf.Basis]:
			fail("%s: unknown legal basis %q", where, pf.Basis)
		}
		hasRequired = hasRequired || pf.Required
		if pf.Basis == intake.BasisConsent {
			if pf.Required {
				fail("%s: a consent purpose must be optional (consent required to send is not freely given)", where)
			}
			if pf.Consent == nil {
				fail("%s: a consent purpose needs a consent text", where)
			}
		} else if pf.Consent != nil {
			fail("%s: only a consent purpose has a consent text", where)
		}
		if c := pf.Consent; c != nil {
			if strings.TrimSpace(c.Text) == "" || strings.TrimSpace(c.TextVersion) == "" {
				fail("%s: consent text and textVersion are required", where)
			}
			if textVersions[c.TextVersion] {
				fail("%s: consent textVersion %q used twice", where, c.TextVersion)
			}
			textVersions[c.TextVersion] = true
			if !controlPattern.MatchString(c.Control) {
				fail("%s: consent control must be an element id", where)
			}
			if controls[c.Control] {
				fail("%s: consent control %q used twice", where, c.Control)
			}
			controls[c.Control] = true
			p.Consent = &ConsentText{TextVersion: c.TextVersion, Text: c.Text, SHA256: TextSHA256(c.Text), Control: c.Control}
		}
		v.Purposes = append(v.Purposes, p)
		purposeIDs[pf.ID] = p
	}
	if len(f.Purposes) == 0 || !hasRequired {
		fail("a version needs at least one required purpose")
	}

	if len(f.Fields) == 0 {
		fail("a version needs fields")
	}
	names := map[string]bool{}
	added := 0
	for i, ff := range f.Fields {
		where := fmt.Sprintf("field %d (%q)", i, ff.Name)
		kind, known := fieldKinds[ff.Name]
		if !known {
			// A field this version adds: a text or textarea whose value
			// is kept among the introduction's added fields.
			cap, ok := addedKinds[ff.Type]
			kind.typ, kind.cap = ff.Type, cap
			switch {
			case !addedNamePattern.MatchString(ff.Name) || reservedNames[ff.Name] || ff.Name == "altcha":
				fail("%s: an added field needs a name of letters and digits that no other member of the body uses", where)
			case !ok:
				fail("%s: an added field is text or textarea, not %q", where, ff.Type)
			}
			added++
		}
		switch {
		case names[ff.Name]:
			fail("%s: name used twice", where)
		case ff.Type != kind.typ:
			fail("%s: type %q, want %q", where, ff.Type, kind.typ)
		case ff.MaxLength < 1 || ff.MaxLength > kind.cap:
			fail("%s: maxLength %d outside 1..%d (the stored cap)", where, ff.MaxLength, kind.cap)
		}
		names[ff.Name] = true
		if strings.TrimSpace(ff.Label) == "" {
			fail("%s: label is required", where)
		}
		if ff.MaxLinks < 0 || (!ff.Type.Multiline() && ff.MaxLinks != 0) {
			fail("%s: maxLinks %d (single-line fields have no link rule: 0)", where, ff.MaxLinks)
		}
		if ff.MaxLinks > intake.MaxStoredLinks {
			fail("%s: maxLinks %d over %d (the stored cap)", where, ff.MaxLinks, intake.MaxStoredLinks)
		}
		field := ff.Field
		field.TooLongCode, field.TooManyLinksCode = cmp.Or(ff.TooLongCode, field.Code), cmp.Or(ff.TooManyLinksCode, field.Code)
		for _, c := range []intake.Code{field.Code, field.TooLongCode, field.TooManyLinksCode} {
			switch {
			case !fieldCodes[c]:
				fail("%s: %q is not a field code", where, c)
			case !known && c != intake.CodeFieldInvalid:
				fail("%s: an added field reports %s, not %s", where, intake.CodeFieldInvalid, c)
			}
		}
		if ff.Purpose != "" {
			p, ok := purposeIDs[ff.Purpose]
			switch {
			case !ok:
				fail("%s: purpose %q is not a purpose of this version", where, ff.Purpose)
			case p.Basis != intake.BasisConsent:
				fail("%s: purpose %q is not consent-based", where, ff.Purpose)
			case ff.Required:
				fail("%s: a field bound to a consent purpose must be optional", where)
			}
		}
		v.Fields = append(v.Fields, field)
	}
	if added > intake.MaxStoredAddedFields {
		fail("%d added fields, at most %d", added, intake.MaxStoredAddedFields)
	}
	if !honeypotPattern.MatchString(f.Honeypot) || names[f.Honeypot] || reservedNames[f.Honeypot] {
		fail("honeypot %q must be a field name no other key of the body uses", f.Honeypot)
	}

	if a := f.Attachment; a != nil {
		p, ok := purposeIDs[a.Purpose]
		switch {
		case strings.TrimSpace(a.Label) == "":
			fail("attachment: label is required")
		case !ok:
			fail("attachment: purpose %q is not a purpose of this version", a.Purpose)
		case p.Required:
			fail("attachment: purpose %q is required, and an attachment is optional", a.Purpose)
		}
		v.Attachment = a
	}

	v.NoticeTemplate = f.Notice
	for _, err := range checkNotice(&v.NoticeTemplate) {
		fail("notice: %v", err)
	}
	return v, problems
}

// parseLanguage returns v with its texts in lang, read from raw.
func parseLanguage(raw []byte, v *Version, lang string, dec func([]byte, any) error) (*Version, []error) {
	var problems []error
	fail := func(format string, args ...any) { problems = append(problems, fmt.Errorf(format, args...)) }
	var f languageFile
	if err := dec(raw, &f); err != nil {
		return nil, []error{err}
	}
	if f.FormID != v.FormID || f.Version != v.Version || f.Lang != lang {
		fail("file says form %q version %q lang %q", f.FormID, f.Version, f.Lang)
	}
	l, ok := LanguageOf(lang)
	switch {
	case !ok:
		fail("lang %q is not a language of the registry (languages/)", lang)
	case lang == v.Lang:
		fail("the version file is already in %s", lang)
	}
	if strings.TrimSpace(f.Title) == "" || strings.TrimSpace(f.Description) == "" {
		fail("title and description are required")
	}
	t := *v
	t.Title, t.Description, t.Lang, t.Language, t.FileSHA256 = f.Title, f.Description, lang, l, TextSHA256(string(raw))

	t.Fields = slices.Clone(v.Fields)
	for i := range t.Fields {
		ft, ok := f.Fields[t.Fields[i].Name]
		if !ok || strings.TrimSpace(ft.Label) == "" {
			fail("field %q: label is required", t.Fields[i].Name)
		}
		t.Fields[i].Label, t.Fields[i].Hint = ft.Label, ft.Hint
	}
	for name := range f.Fields {
		if _, ok := v.Field(name); !ok {
			fail("field %q is not a field of version %s", name, v.Version)
		}
	}
	switch a := f.Attachment; {
	case v.Attachment == nil && a != nil:
		fail("attachment: version %s offers none", v.Version)
	case v.Attachment != nil && (a == nil || strings.TrimSpace(a.Label) == ""):
		fail("attachment: label is required")
	case v.Attachment != nil:
		t.Attachment = &Attachment{Label: a.Label, Hint: a.Hint, Purpose: v.Attachment.Purpose}
	}
	t.Purposes = slices.Clone(v.Purposes)
	for i := range t.Purposes {
		p := &t.Purposes[i]
		pt, ok := f.Purposes[p.ID]
		if !ok || strings.TrimSpace(pt.Description) == "" {
			fail("purpose %q: description is required", p.ID)
		}
		p.Description = pt.Description
		switch c := pt.Consent; {
		case p.Consent == nil && c != nil:
			fail("purpose %q: only a consent purpose has a consent text", p.ID)
		case p.Consent != nil && c == nil:
			fail("purpose %q: a consent purpose needs a consent text", p.ID)
			p.Consent = nil
		case c != nil:
			if c.TextVersion != p.Consent.TextVersion {
				fail("purpose %q: consent textVersion %q, want the version file's %q", p.ID, c.TextVersion, p.Consent.TextVersion)
			}
			if strings.TrimSpace(c.Text) == "" {
				fail("purpose %q: consent text is required", p.ID)
			}
			p.Consent = &ConsentText{TextVersion: c.TextVersion, Text: c.Text, SHA256: TextSHA256(c.Text), Control: p.Consent.Control}
		}
	}
	for id := range f.Purposes {
		if _, ok := v.Purpose(id); !ok {
			fail("purpose %q is not a purpose of version %s", id, v.Version)
		}
	}
	t.NoticeTemplate = f.Notice
	for _, err := range checkNotice(&t.NoticeTemplate) {
		fail("notice: %v", err)
	}
	if t.NoticeTemplate.TextVersion != v.NoticeTemplate.TextVersion {
		fail("notice: textVersion %q, want the version file's %q", t.NoticeTemplate.TextVersion, v.NoticeTemplate.TextVersion)
	}
	return &t, problems
}

// checkTextVersions makes sure a textVersion names one text per language across a form's versions.
func checkTextVersions(r *Registry) []error {
	var problems []error
	for _, formID := range r.FormIDs() {
		seen := map[textID]string{}
		for _, n := range sortedVersions(r.forms[formID]) {
			for id, sum := range r.forms[formID][n].texts() {
				if prev, ok := seen[id]; ok && prev != sum {
					problems = append(problems, fmt.Errorf("%s: version %s changes the %s text of %q: a changed text needs a new textVersion", formID, n, id.Lang, id.TextVersion))
				}
				seen[id] = sum
			}
		}
	}
	return problems
}

type textID struct{ Lang, TextVersion string }

// texts maps each notice and consent text of v, in every language, to its SHA-256.
func (v *Version) texts() map[textID]string {
	texts := map[textID]string{}
	for _, t := range v.inLang {
		texts[textID{t.Lang, t.NoticeTemplate.TextVersion}] = t.NoticeTemplate.SHA256
		for _, p := range t.Purposes {
			if p.Consent != nil {
				texts[textID{t.Lang, p.Consent.TextVersion}] = p.Consent.SHA256
			}
		}
	}
	return texts
}

// TextSHA256 returns the lower-case hex SHA-256 of text: the hash consent evidence records.
func TextSHA256(text string) string {
	sum := sha256.Sum256([]byte(text))
	return hex.EncodeToString(sum[:])
}

// decode reads exactly one JSON object whose members the registry knows.
func decode(raw []byte, into any) error {
	return strictjson.Decode(raw, into, strictjson.RefuseUnknown)
}
