// Package formregistry is the registry of forms and their immutable
// versions, embedded under forms/<formId>/ and languages/: each version
// fixes its fields and limits, its purposes with their legal basis, and the
// exact consent and notice texts shown, in each of its languages. Data that
// fails validation is a load error. README.md says how to change the form.
package formregistry

import (
	"cmp"
	"embed"
	"encoding/json"
	"io/fs"
	"maps"
	"slices"

	"github.com/ownersite/introductions/shared/intake"
)

// Status says whether a version may still be submitted.
type Status string

// The statuses of a version: published ones are served and accepted,
// retired ones only stay known for checking evidence recorded under them.
const (
	StatusPublished Status = "published"
	StatusRetired   Status = "retired"
)

// FieldType is how a field is entered and which content rules apply to it.
type FieldType string

// The field types; textarea and transcript are multi-line (see Multiline).
const (
	FieldText       FieldType = "text"
	FieldEmail      FieldType = "email"
	FieldTextarea   FieldType = "textarea"
	FieldTranscript FieldType = "transcript"
)

// Multiline reports whether the field keeps newlines and counts links.
func (t FieldType) Multiline() bool { return t == FieldTextarea || t == FieldTranscript }

// Attachment is how the page labels the one file a version lets a visitor
// attach, and the purpose it serves.
type Attachment struct {
	Label   string `json:"label"`
	Hint    string `json:"hint"`
	Purpose string `json:"purpose"`
}

// Field is one field of a version, in the form definition's JSON.
type Field struct {
	// Name is the field's member in the draft body: a core field or one the version adds (see Added).
	Name     string    `json:"name"`
	Label    string    `json:"label"`
	Hint     string    `json:"hint"`
	Type     FieldType `json:"type"`
	Required bool      `json:"required"`
	// MaxLength is the limit in characters (Unicode code points).
	MaxLength int `json:"maxLength"`
	// MaxLinks is the most links a multi-line field may hold; 0 for single-line ones.
	MaxLinks     int    `json:"maxLinks"`
	Autocomplete string `json:"autocomplete,omitempty"`
	// Purpose is the consent purpose that must be given for the field to be non-empty; "" for none.
	Purpose string `json:"purpose,omitempty"`
	// Code is the problem code reported when the field fails a rule.
	Code intake.Code `json:"code"`
	// TooLongCode and TooManyLinksCode are reported over MaxLength and
	// MaxLinks; Code unless the version names more specific ones.
	TooLongCode      intake.Code `json:"-"`
	TooManyLinksCode intake.Code `json:"-"`
}

// ConsentText is the exact text shown beside a consent purpose's checkbox.
type ConsentText struct {
	// TextVersion names the text; the page sends it back with the consent.
	TextVersion string `json:"textVersion"`
	Text        string `json:"text"`
	// SHA256 is TextSHA256(Text).
	SHA256 string `json:"sha256"`
	// Control is the id of the checkbox the visitor ticks.
	Control string `json:"control"`
}

// Purpose is one use of the submitted data, with its declared legal basis.
type Purpose struct {
	ID          string       `json:"id"`
	Description string       `json:"description"`
	Basis       intake.Basis `json:"basis"`
	Required    bool         `json:"required"`
	// Consent is set exactly when Basis is consent.
	Consent *ConsentText `json:"consent,omitempty"`
}

// NoticeSection is one section of the notice template; its body may hold placeholders.
type NoticeSection struct {
	Heading string `json:"heading"`
	Body    string `json:"body"`
}

// NoticeTemplate is the version's privacy notice before it is filled in.
type NoticeTemplate struct {
	TextVersion string          `json:"textVersion"`
	Title       string          `json:"title"`
	Sections    []NoticeSection `json:"sections"`
	// SHA256 is the hex SHA-256 of the template's canonical JSON.
	SHA256 string `json:"-"`
}

// Version is one immutable version of a form. Values returned by the
// registry are shared: callers must not modify them.
type Version struct {
	FormID      string
	Version     string
	Status      Status
	Title       string
	Description string
	Fields      []Field
	// Honeypot is the name of the field people never see.
	Honeypot string
	Purposes []Purpose
	// Attachment is nil when the version offers none.
	Attachment *Attachment
	// NoticeTemplate is the privacy notice's text; Notice fills it in.
	NoticeTemplate NoticeTemplate
	// FileSHA256 is the hex SHA-256 of the version's (or language's) file.
	FileSHA256 string
	// Lang is the language of the texts above; Language is what that
	// language shares with every version.
	Lang     string
	Language *Language
	// inLang holds the version in each of its languages, langs names them
	// (the version file's first); all of them share both.
	inLang map[string]*Version
	langs  []string
}

// In returns the version with its texts in lang, and false when it is not shown in lang.
func (v *Version) In(lang string) (*Version, bool) {
	t, ok := v.inLang[lang]
	return t, ok
}

// Shown returns v in the language the page showed it in: lang, or the
// version file's own for "". A language v is not shown in is
// FORM_VERSION_UNKNOWN on lang.
func (v *Version) Shown(lang string) (*Version, error) {
	if in, ok := v.In(cmp.Or(lang, v.langs[0])); ok {
		return in, nil
	}
	return nil, intake.Invalid(intake.FieldError{Field: "lang", Code: intake.CodeFormVersionUnknown,
		Detail: "This form is not shown in this language any more. Please reload the page and send your introduction again."})
}

// Langs returns the version's languages: the version file's first, then the others sorted.
func (v *Version) Langs() []string { return slices.Clone(v.langs) }

// Purpose returns the version's purpose with the given id.
func (v *Version) Purpose(id string) (*Purpose, bool) {
	for i := range v.Purposes {
		if v.Purposes[i].ID == id {
			return &v.Purposes[i], true
		}
	}
	return nil, false
}

// Added reports whether a version adds the field beyond the core ones (kept in Introduction.Added).
func (f *Field) Added() bool {
	_, core := fieldKinds[f.Name]
	return !core
}

// Field returns the version's field with the given name.
func (v *Version) Field(name string) (*Field, bool) {
	for i := range v.Fields {
		if v.Fields[i].Name == name {
			return &v.Fields[i], true
		}
	}
	return nil, false
}

// Registry holds every form and its versions; read-only, safe for concurrent use.
type Registry struct {
	forms map[string]map[string]*Version
}

// Version returns the version a submission names. An unknown form, an
// unknown version and a retired version are all an *intake.Error of code
// FORM_VERSION_UNKNOWN on field formVersion.
func (r *Registry) Version(formID, version string) (*Version, error) {
	v, ok := r.Find(formID, version)
	if !ok || v.Status != StatusPublished {
		return nil, intake.Invalid(intake.FieldError{
			Field:  "formVersion",
			Code:   intake.CodeFormVersionUnknown,
			Detail: "This form has changed since the page was loaded. Please reload the page and send your introduction again.",
		})
	}
	return v, nil
}

// Resolve returns the published version sub names as shown in sub.Lang, and
// sub with its ReadMembers. Errors: as Version, Shown and ReadMembers, in that order.
func (r *Registry) Resolve(sub intake.Submission, members map[string]json.RawMessage) (*Version, intake.Submission, error) {
	v, err := r.Version(sub.FormID, sub.FormVersion)
	if err != nil {
		return nil, sub, err
	}
	read, memberErr := v.ReadMembers(sub, members)
	if v, err = v.Shown(sub.Lang); err != nil {
		return nil, sub, err
	}
	return v, read, memberErr
}

// ReadMembers reads into sub v's added fields (FIELD_INVALID when not
// text) and honeypot; an unknown member is UNREADABLE_BODY.
func (v *Version) ReadMembers(sub intake.Submission, members map[string]json.RawMessage) (intake.Submission, error) {
	var errs []intake.FieldError
	for _, f := range v.Fields {
		if !f.Added() {
			continue
		}
		name := f.Name
		raw, ok := members[name]
		var text string
		switch {
		case !ok || string(raw) == "null":
		case json.Unmarshal(raw, &text) != nil:
			errs = append(errs, intake.FieldError{Field: name, Code: intake.CodeFieldInvalid, Detail: "Must be text."})
		default:
			if sub.Added == nil {
				sub.Added = map[string]string{}
			}
			sub.Added[name] = text
		}
	}
	for name, raw := range members {
		if v.Honeypot != "" && name == v.Honeypot {
			if json.Unmarshal(raw, &sub.Honeypot) != nil {
				sub.Honeypot = string(raw)
			}
		} else if f, ok := v.Field(name); !ok || !f.Added() {
			return intake.Submission{}, intake.Errorf(intake.CodeUnreadableBody, "The body has a member this form does not know.")
		}
	}
	if len(errs) > 0 {
		return intake.Submission{}, intake.Invalid(errs...)
	}
	return sub, nil
}

// Find returns any version the registry knows, retired ones included.
func (r *Registry) Find(formID, version string) (*Version, bool) {
	v, ok := r.forms[formID][version]
	return v, ok
}

// Latest returns the form's highest-numbered published version, false when none.
func (r *Registry) Latest(formID string) (*Version, bool) {
	versions := sortedVersions(r.forms[formID])
	for i := len(versions) - 1; i >= 0; i-- {
		if v := r.forms[formID][versions[i]]; v.Status == StatusPublished {
			return v, true
		}
	}
	return nil, false
}

// FormIDs returns the ids of every form, sorted.
func (r *Registry) FormIDs() []string { return slices.Sorted(maps.Keys(r.forms)) }

//go:embed forms
var embedded embed.FS

// Load loads the embedded forms as LoadFS does but with encoding/json, for a
// fast cold start: TestEmbeddedDataPassesEveryCheck holds them to LoadFS.
func Load() (*Registry, error) {
	sub, _ := fs.Sub(embedded, "forms") // a valid path: no error
	return loadFS(sub, json.Unmarshal)
}
