package formregistry

import (
	"encoding/json"
	"errors"
	"io/fs"
	"reflect"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/ownersite/introductions/shared/intake"
)

// embeddedFile returns the raw bytes of an embedded registry file.
func embeddedFile(t *testing.T, name string) []byte {
	t.Helper()
	raw, err := fs.ReadFile(embedded, "forms/"+name)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// introductionV1 returns the embedded introduction version 1 as a generic
// JSON value, for tests to mutate.
func introductionV1(t *testing.T) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(embeddedFile(t, "introduction/1.json"), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// withVersion returns a copy of m as form version n.
func withVersion(t *testing.T, m map[string]any, n string) []byte {
	t.Helper()
	var c map[string]any
	if err := json.Unmarshal(mustJSON(t, m), &c); err != nil {
		t.Fatal(err)
	}
	c["version"] = n
	return mustJSON(t, c)
}

// TestEmbeddedDataPassesEveryCheck holds the embedded forms and languages
// to the strict reading and every rule, which Load and the package's
// start-up skip to start fast.
func TestEmbeddedDataPassesEveryCheck(t *testing.T) {
	forms, _ := fs.Sub(embedded, "forms")
	strict, err := LoadFS(forms)
	if err != nil {
		t.Fatalf("LoadFS(embedded forms) = %v; the embedded forms must be valid", err)
	}
	if p := languageProblems(t); len(p) > 0 {
		t.Fatalf("the embedded languages: %s", strings.Join(p, "; "))
	}
	if !reflect.DeepEqual(strict, loadEmbedded(t)) {
		t.Fatal("Load and LoadFS read the embedded forms differently")
	}
}

func TestDefaultLoadsEmbeddedData(t *testing.T) {
	if _, err := Load(); err != nil {
		t.Fatalf("Load() = %v; the embedded forms must be valid", err)
	}
	r := loadEmbedded(t)
	if got, want := strings.Join(r.FormIDs(), ","), "introduction"; got != want {
		t.Errorf("FormIDs() = %s, want %s", got, want)
	}
	v, ok := r.Latest("introduction")
	if !ok || v.Version != "3" || v.Status != StatusPublished || v.Honeypot != "website" {
		t.Fatalf("Latest(introduction) = %+v, %v", v, ok)
	}
}

func TestIntroductionV1Fields(t *testing.T) {
	v, err := loadEmbedded(t).Version("introduction", "1")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name      string
		typ       FieldType
		required  bool
		maxLength int
		maxLinks  int
		purpose   string
		code      intake.Code
		tooLong   intake.Code
		tooMany   intake.Code
	}{
		{"name", FieldText, true, 100, 0, "", intake.CodeNameInvalid, intake.CodeNameInvalid, intake.CodeNameInvalid},
		{"company", FieldText, false, 100, 0, "", intake.CodeCompanyInvalid, intake.CodeCompanyInvalid, intake.CodeCompanyInvalid},
		{"role", FieldText, false, 100, 0, "", intake.CodeRoleInvalid, intake.CodeRoleInvalid, intake.CodeRoleInvalid},
		{"email", FieldEmail, true, 254, 0, "", intake.CodeEmailInvalid, intake.CodeEmailInvalid, intake.CodeEmailInvalid},
		{"message", FieldTextarea, true, 4000, 3, "", intake.CodeMessageInvalid, intake.CodeMessageInvalid, intake.CodeMessageTooManyLinks},
		{"conversation", FieldTranscript, false, 12000, 3, "attach-conversation", intake.CodeConversationInvalid, intake.CodeConversationTooLong, intake.CodeConversationManyLinks},
	}
	if len(v.Fields) != len(tests) {
		t.Errorf("version 1 has %d fields, want %d", len(v.Fields), len(tests))
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, ok := v.Field(tt.name)
			if !ok {
				t.Fatalf("no field %q", tt.name)
			}
			if f.Type != tt.typ || f.Required != tt.required || f.MaxLength != tt.maxLength || f.MaxLinks != tt.maxLinks ||
				f.Purpose != tt.purpose || f.Code != tt.code || f.TooLongCode != tt.tooLong || f.TooManyLinksCode != tt.tooMany {
				t.Errorf("field %q = %+v", tt.name, *f)
			}
			if f.Label == "" || f.Hint == "" {
				t.Errorf("field %q has no label or hint", tt.name)
			}
		})
	}
	if _, ok := v.Field("website"); ok {
		t.Error("the honeypot must not be a field")
	}
}

func TestIntroductionV1Purposes(t *testing.T) {
	v, _ := loadEmbedded(t).Version("introduction", "1")
	tests := []struct {
		id          string
		basis       intake.Basis
		required    bool
		textVersion string
		control     string
	}{
		{"introduction", intake.BasisLegitimateInterests, true, "", ""},
		{"attach-conversation", intake.BasisConsent, false, "attach-conversation/1", "consent-attach-conversation"},
	}
	if len(v.Purposes) != len(tests) {
		t.Errorf("version 1 has %d purposes, want %d", len(v.Purposes), len(tests))
	}
	for _, tt := range tests {
		t.Run(tt.id, func(t *testing.T) {
			p, ok := v.Purpose(tt.id)
			if !ok {
				t.Fatalf("no purpose %q", tt.id)
			}
			if p.Basis != tt.basis || p.Required != tt.required || p.Description == "" {
				t.Errorf("purpose %q = %+v", tt.id, *p)
			}
			switch {
			case tt.textVersion == "" && p.Consent != nil:
				t.Errorf("purpose %q has a consent text", tt.id)
			case tt.textVersion != "" && p.Consent == nil:
				t.Errorf("purpose %q has no consent text", tt.id)
			case p.Consent != nil:
				c := p.Consent
				if c.TextVersion != tt.textVersion || c.Control != tt.control || c.SHA256 != TextSHA256(c.Text) || len(c.SHA256) != 64 {
					t.Errorf("purpose %q consent = %+v", tt.id, *c)
				}
			}
		})
	}
	if _, ok := v.Purpose("marketing"); ok {
		t.Error("Purpose(marketing) found a purpose that does not exist")
	}
}

// twoVersions is a registry with version 1 retired and version 2 published.
func twoVersions(t *testing.T) *Registry {
	t.Helper()
	m := introductionV1(t)
	r, err := LoadFS(fstest.MapFS{
		"introduction/index.json": {Data: []byte(`{"formId":"introduction","versions":{"1":"retired","2":"published"}}`)},
		"introduction/1.json":     {Data: embeddedFile(t, "introduction/1.json")},
		"introduction/2.json":     {Data: withVersion(t, m, "2")},
	})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestVersion(t *testing.T) {
	tests := []struct {
		name     string
		registry *Registry
		formID   string
		version  string
		wantErr  bool
	}{
		{"published version", loadEmbedded(t), "introduction", "1", false},
		{"version 2, beside 1", loadEmbedded(t), "introduction", "2", false},
		{"unknown version", loadEmbedded(t), "introduction", "4", true},
		{"empty version", loadEmbedded(t), "introduction", "", true},
		{"unknown form", loadEmbedded(t), "newsletter", "1", true},
		{"retired version", twoVersions(t), "introduction", "1", true},
		{"the version after a retired one", twoVersions(t), "introduction", "2", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := tt.registry.Version(tt.formID, tt.version)
			if !tt.wantErr {
				if err != nil || v.FormID != tt.formID || v.Version != tt.version {
					t.Fatalf("Version(%q, %q) = %+v, %v", tt.formID, tt.version, v, err)
				}
				return
			}
			var e *intake.Error
			if !errors.As(err, &e) || e.Code != intake.CodeFormVersionUnknown || len(e.Fields) != 1 ||
				e.Fields[0].Field != "formVersion" || e.Fields[0].Code != intake.CodeFormVersionUnknown || e.Fields[0].Detail == "" {
				t.Fatalf("Version(%q, %q) error = %#v, want FORM_VERSION_UNKNOWN on formVersion", tt.formID, tt.version, err)
			}
		})
	}
}

func TestFindKeepsRetiredVersions(t *testing.T) {
	v, ok := twoVersions(t).Find("introduction", "1")
	if !ok || v.Status != StatusRetired {
		t.Fatalf("Find(introduction, 1) = %+v, %v; want the retired version", v, ok)
	}
}

func TestLatest(t *testing.T) {
	m := introductionV1(t)
	tests := []struct {
		name   string
		index  string
		files  []string
		formID string
		want   string
	}{
		{"highest number, not the last string", `{"1":"published","2":"published","10":"published"}`, []string{"1", "2", "10"}, "introduction", "10"},
		{"a retired newest version is skipped", `{"1":"published","2":"retired"}`, []string{"1", "2"}, "introduction", "1"},
		{"no published version", `{"1":"retired"}`, []string{"1"}, "introduction", ""},
		{"unknown form", `{"1":"published"}`, []string{"1"}, "newsletter", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fsys := fstest.MapFS{"introduction/index.json": {Data: []byte(`{"formId":"introduction","versions":` + tt.index + `}`)}}
			for _, n := range tt.files {
				fsys["introduction/"+n+".json"] = &fstest.MapFile{Data: withVersion(t, m, n)}
			}
			r, err := LoadFS(fsys)
			if err != nil {
				t.Fatal(err)
			}
			v, ok := r.Latest(tt.formID)
			switch {
			case tt.want == "" && ok:
				t.Errorf("Latest(%q) = %s, want none", tt.formID, v.Version)
			case tt.want != "" && (!ok || v.Version != tt.want):
				t.Errorf("Latest(%q) = %+v, %v; want %s", tt.formID, v, ok, tt.want)
			}
		})
	}
}

// field returns the i-th field of a version file value.
func field(m map[string]any, name string) map[string]any {
	for _, f := range m["fields"].([]any) {
		if f.(map[string]any)["name"] == name {
			return f.(map[string]any)
		}
	}
	panic("no field " + name)
}

// purpose returns the purpose of a version file value with the given id.
func purpose(m map[string]any, id string) map[string]any {
	for _, p := range m["purposes"].([]any) {
		if p.(map[string]any)["id"] == id {
			return p.(map[string]any)
		}
	}
	panic("no purpose " + id)
}

func section(m map[string]any, i int) map[string]any {
	return m["notice"].(map[string]any)["sections"].([]any)[i].(map[string]any)
}

// TestLoadFSRefusesInvalidData feeds bad data through the same loader the
// embedded data goes through: every case must fail the load, naming why.
func TestLoadFSRefusesInvalidData(t *testing.T) {
	const index = `{"formId":"introduction","versions":{"1":"published"}}`
	tests := []struct {
		name   string
		mutate func(m map[string]any)
		index  string
		extra  fstest.MapFS
		want   string
	}{
		{name: "purpose without a basis", mutate: func(m map[string]any) { delete(purpose(m, "introduction"), "basis") }, want: "has no legal basis"},
		{name: "purpose with an empty basis", mutate: func(m map[string]any) { purpose(m, "introduction")["basis"] = "" }, want: "has no legal basis"},
		{name: "purpose with an unknown basis", mutate: func(m map[string]any) { purpose(m, "introduction")["basis"] = "vital_interest" }, want: "unknown legal basis"},
		{name: "consent purpose without a consent text", mutate: func(m map[string]any) { delete(purpose(m, "attach-conversation"), "consent") }, want: "needs a consent text"},
		{name: "non-consent purpose with a consent text", mutate: func(m map[string]any) {
			purpose(m, "attach-conversation")["basis"] = "legitimate_interests"
		}, want: "only a consent purpose has a consent text"},
		{name: "required consent purpose", mutate: func(m map[string]any) { purpose(m, "attach-conversation")["required"] = true }, want: "must be optional"},
		{name: "empty consent text", mutate: func(m map[string]any) {
			purpose(m, "attach-conversation")["consent"].(map[string]any)["text"] = " "
		}, want: "consent text and textVersion are required"},
		{name: "consent control that is not an id", mutate: func(m map[string]any) {
			purpose(m, "attach-conversation")["consent"].(map[string]any)["control"] = "Tick me"
		}, want: "consent control must be an element id"},
		{name: "a hash in the file is refused", mutate: func(m map[string]any) {
			purpose(m, "attach-conversation")["consent"].(map[string]any)["sha256"] = "00"
		}, want: "unknown field"},
		{name: "duplicate purpose id", mutate: func(m map[string]any) { purpose(m, "attach-conversation")["id"] = "introduction" }, want: "id used twice"},
		{name: "no required purpose", mutate: func(m map[string]any) { purpose(m, "introduction")["required"] = false }, want: "at least one required purpose"},
		{name: "name over the stored cap", mutate: func(m map[string]any) { field(m, "name")["maxLength"] = intake.MaxStoredShortField + 1 }, want: "outside 1..200"},
		{name: "email over the stored cap", mutate: func(m map[string]any) { field(m, "email")["maxLength"] = intake.MaxStoredEmail + 1 }, want: "outside 1..254"},
		{name: "message over the stored cap", mutate: func(m map[string]any) { field(m, "message")["maxLength"] = intake.MaxStoredMessage + 1 }, want: "outside 1..8000"},
		{name: "conversation over the stored cap", mutate: func(m map[string]any) {
			field(m, "conversation")["maxLength"] = intake.MaxStoredConversation + 1
		}, want: "outside 1..12000"},
		{name: "message links over the stored cap", mutate: func(m map[string]any) { field(m, "message")["maxLinks"] = intake.MaxStoredLinks + 1 }, want: "maxLinks 4 over 3"},
		{name: "zero max length", mutate: func(m map[string]any) { field(m, "role")["maxLength"] = 0 }, want: "outside 1..200"},
		{name: "added field with a core field's code", mutate: func(m map[string]any) { field(m, "role")["name"] = "phone" }, want: "an added field reports FIELD_INVALID, not ROLE_INVALID"},
		{name: "added field named like a body key", mutate: func(m map[string]any) {
			field(m, "role")["name"], field(m, "role")["code"] = "consents", "FIELD_INVALID"
		}, want: "an added field needs a name"},
		{name: "added field of a kind that cannot be added", mutate: func(m map[string]any) {
			field(m, "email")["name"], field(m, "email")["code"] = "workEmail", "FIELD_INVALID"
		}, want: `an added field is text or textarea, not "email"`},
		{name: "added field over its stored cap", mutate: func(m map[string]any) {
			field(m, "role")["name"], field(m, "role")["code"], field(m, "role")["maxLength"] = "phone", "FIELD_INVALID", 201
		}, want: "outside 1..200"},
		{name: "duplicate field", mutate: func(m map[string]any) { field(m, "role")["name"] = "company" }, want: "name used twice"},
		{name: "wrong field type", mutate: func(m map[string]any) { field(m, "message")["type"] = "text" }, want: `type "text", want "textarea"`},
		{name: "link limit on a single-line field", mutate: func(m map[string]any) { field(m, "name")["maxLinks"] = 1 }, want: "single-line fields have no link rule"},
		{name: "negative link limit", mutate: func(m map[string]any) { field(m, "message")["maxLinks"] = -1 }, want: "maxLinks -1"},
		{name: "unknown field code", mutate: func(m map[string]any) { field(m, "name")["code"] = "NAME_BAD" }, want: `"NAME_BAD" is not a field code`},
		{name: "missing field code", mutate: func(m map[string]any) { delete(field(m, "name"), "code") }, want: `"" is not a field code`},
		{name: "request code as a field code", mutate: func(m map[string]any) { field(m, "message")["tooManyLinksCode"] = "RATE_LIMITED" }, want: `"RATE_LIMITED" is not a field code`},
		{name: "field bound to an unknown purpose", mutate: func(m map[string]any) { field(m, "conversation")["purpose"] = "archive" }, want: `purpose "archive" is not a purpose of this version`},
		{name: "field bound to a non-consent purpose", mutate: func(m map[string]any) { field(m, "conversation")["purpose"] = "introduction" }, want: "is not consent-based"},
		{name: "required field bound to a consent purpose", mutate: func(m map[string]any) { field(m, "conversation")["required"] = true }, want: "bound to a consent purpose must be optional"},
		{name: "honeypot named like a field", mutate: func(m map[string]any) { m["honeypot"] = "email" }, want: "honeypot"},
		{name: "honeypot named like a body key", mutate: func(m map[string]any) { m["honeypot"] = "altcha" }, want: "honeypot"},
		{name: "no honeypot", mutate: func(m map[string]any) { delete(m, "honeypot") }, want: "honeypot"},
		{name: "no title", mutate: func(m map[string]any) { m["title"] = "" }, want: "title and description are required"},
		{name: "unknown key", mutate: func(m map[string]any) { m["theme"] = "dark" }, want: "unknown field"},
		{name: "file names another version", mutate: func(m map[string]any) { m["version"] = "2" }, want: `file says form "introduction" version "2"`},
		{name: "notice with an unknown placeholder", mutate: func(m map[string]any) { section(m, 0)["body"] = "{fields} {owner}" }, want: "unknown placeholder {owner}"},
		{name: "notice without the retention", mutate: func(m map[string]any) { section(m, 2)["body"] = "Not long." }, want: "placeholder {draftRetention} is never used"},
		{name: "notice without the purposes", mutate: func(m map[string]any) { section(m, 1)["body"] = "Reasons." }, want: "placeholder {purposes} is never used"},
		{name: "notice heading with a placeholder", mutate: func(m map[string]any) { section(m, 0)["heading"] = "{fields}" }, want: "a heading cannot hold a placeholder"},
		{name: "notice without a text version", mutate: func(m map[string]any) { delete(m["notice"].(map[string]any), "textVersion") }, want: "textVersion and title are required"},
		{name: "retired is the only other status", index: `{"formId":"introduction","versions":{"1":"draft"}}`, want: `status "draft"`},
		{name: "index lists a version without a file", index: `{"formId":"introduction","versions":{"1":"published","2":"published"}}`, want: "lists version 2, which has no file"},
		{name: "version file not in the index", extra: fstest.MapFS{"introduction/3.json": {Data: []byte(`{}`)}}, want: "version 3 is not listed"},
		{name: "stray file", extra: fstest.MapFS{"introduction/notes.txt": {Data: []byte(`hi`)}}, want: "not a version file"},
		{name: "index of another form", index: `{"formId":"newsletter","versions":{"1":"published"}}`, want: `index.json names form "newsletter"`},
		{name: "trailing data", extra: fstest.MapFS{"introduction/index.json": {Data: []byte(index + `{}`)}}, want: "data after the JSON object"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := introductionV1(t)
			if tt.mutate != nil {
				tt.mutate(m)
			}
			idx := index
			if tt.index != "" {
				idx = tt.index
			}
			fsys := fstest.MapFS{
				"introduction/index.json": {Data: []byte(idx)},
				"introduction/1.json":     {Data: mustJSON(t, m)},
			}
			for k, v := range tt.extra {
				fsys[k] = v
			}
			r, err := LoadFS(fsys)
			if err == nil {
				t.Fatalf("LoadFS accepted invalid data: %+v", r)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("LoadFS error = %v\nwant it to mention %q", err, tt.want)
			}
		})
	}
}

func TestLoadFSRefusesAChangedTextUnderAnOldTextVersion(t *testing.T) {
	m := introductionV1(t)
	purpose(m, "attach-conversation")["consent"].(map[string]any)["text"] = "Attach my conversation."
	_, err := LoadFS(fstest.MapFS{
		"introduction/index.json": {Data: []byte(`{"formId":"introduction","versions":{"1":"retired","2":"published"}}`)},
		"introduction/1.json":     {Data: embeddedFile(t, "introduction/1.json")},
		"introduction/2.json":     {Data: withVersion(t, m, "2")},
	})
	if err == nil || !strings.Contains(err.Error(), `changes the en text of "attach-conversation/1"`) {
		t.Fatalf("LoadFS error = %v, want a refused text change", err)
	}
}

func TestLoadFSRefusesAnEmptyRegistry(t *testing.T) {
	if _, err := LoadFS(fstest.MapFS{}); err == nil {
		t.Fatal("LoadFS accepted a registry without forms")
	}
}

func TestLoadFSUnchangedDataLoads(t *testing.T) {
	// The mutation harness itself must produce loadable data, or every
	// refusal above would prove nothing.
	_, err := LoadFS(fstest.MapFS{
		"introduction/index.json": {Data: []byte(`{"formId":"introduction","versions":{"1":"published"}}`)},
		"introduction/1.json":     {Data: mustJSON(t, introductionV1(t))},
	})
	if err != nil {
		t.Fatalf("LoadFS(unchanged re-encoded data) = %v", err)
	}
}

// loadEmbedded returns the registry embedded in the binary.
func loadEmbedded(t testing.TB) *Registry {
	t.Helper()
	r, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestAVersionCanAddAField: a new version declares a field beyond the ones
// every submission carries; the registry loads it as an added field (kept
// in the introduction's Added fields), and the version before it is unchanged.
func TestAVersionCanAddAField(t *testing.T) {
	m := introductionV1(t)
	fields := m["fields"].([]any)
	m["fields"] = append(fields, map[string]any{
		"name": "availability", "label": "When you are free to talk", "hint": "Optional.", "type": "text",
		"required": false, "maxLength": 120, "code": "FIELD_INVALID",
	})
	fsys := fstest.MapFS{
		"introduction/index.json": {Data: []byte(`{"formId":"introduction","versions":{"1":"published","3":"published"}}`)},
		"introduction/1.json":     {Data: embeddedFile(t, "introduction/1.json")},
		"introduction/3.json":     {Data: withVersion(t, m, "3")},
	}
	r, err := LoadFS(fsys)
	if err != nil {
		t.Fatal(err)
	}
	v3, _ := r.Find("introduction", "3")
	f, ok := v3.Field("availability")
	if !ok || !f.Added() || f.Code != intake.CodeFieldInvalid || f.TooLongCode != intake.CodeFieldInvalid {
		t.Fatalf("added field = %+v, %v", f, ok)
	}
	if got := addedFields(v3); len(got) != 1 || got[0] != "availability" {
		t.Fatalf("AddedFields = %v", got)
	}
	v1, _ := r.Find("introduction", "1")
	if len(addedFields(v1)) != 0 {
		t.Fatal("version 1 adds no field")
	}
	if !strings.Contains(v3.Notice(Limits{Retention: intake.DefaultRetention, Destinations: nil, AttachmentMaxBytes: 5 << 20}).text(), "When you are free to talk (optional)") {
		t.Error("the notice does not name the added field")
	}
}

// addedFields returns the names of the fields v adds, in order.
func addedFields(v *Version) []string {
	var out []string
	for _, f := range v.Fields {
		if f.Added() {
			out = append(out, f.Name)
		}
	}
	return out
}
