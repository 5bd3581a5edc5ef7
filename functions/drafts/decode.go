package drafts

import (
	"bytes"
	"encoding/json"

	"github.com/ownersite/introductions/shared/intake"
	"github.com/ownersite/introductions/shared/jsonapi"
)

// stringFields maps each text member of the draft body to where it goes and
// the code reported when it is not a string.
var stringFields = []struct {
	name string
	code intake.Code
	set  func(*intake.Submission, string)
}{
	{"formId", intake.CodeFormVersionUnknown, func(s *intake.Submission, v string) { s.FormID = v }},
	{"formVersion", intake.CodeFormVersionUnknown, func(s *intake.Submission, v string) { s.FormVersion = v }},
	{"lang", intake.CodeFormVersionUnknown, func(s *intake.Submission, v string) { s.Lang = v }},
	{"name", intake.CodeNameInvalid, func(s *intake.Submission, v string) { s.Fields.Name = v }},
	{"company", intake.CodeCompanyInvalid, func(s *intake.Submission, v string) { s.Fields.Company = v }},
	{"role", intake.CodeRoleInvalid, func(s *intake.Submission, v string) { s.Fields.Role = v }},
	{"email", intake.CodeEmailInvalid, func(s *intake.Submission, v string) { s.Fields.Email = v }},
	{"message", intake.CodeMessageInvalid, func(s *intake.Submission, v string) { s.Fields.Message = v }},
	{"conversation", intake.CodeConversationInvalid, func(s *intake.Submission, v string) { s.Conversation = v }},
	{"altcha", intake.CodePowInvalid, func(s *intake.Submission, v string) { s.Altcha = v }},
}

// HoneypotName returns the honeypot member of a form version, "" when the
// version is unknown.
type HoneypotName func(formID, version string) string

// AddedFieldNames returns the names of the fields a form version adds
// beyond the ones every draft carries, none when the version is unknown.
type AddedFieldNames func(formID, version string) []string

// decodeDraft turns the members of a draft body into a Submission (the
// fields the version adds into Added). A member
// of the wrong JSON type is reported at its field with that field's code; a
// member the form version does not know is UNREADABLE_BODY. Absent text
// members are empty.
func decodeDraft(members map[string]json.RawMessage, honeypot HoneypotName, added AddedFieldNames) (intake.Submission, error) {
	var sub intake.Submission
	var fieldErrs []intake.FieldError
	seen := map[string]bool{}
	for _, f := range stringFields {
		raw, ok := members[f.name]
		seen[f.name] = true
		if !ok || string(raw) == "null" {
			continue
		}
		var v string
		if err := json.Unmarshal(raw, &v); err != nil {
			fieldErrs = append(fieldErrs, intake.FieldError{Field: f.name, Code: f.code, Detail: "Must be text."})
			continue
		}
		f.set(&sub, v)
	}
	consents, fe := jsonapi.ReadConsents(members["consents"])
	if fe != nil {
		fieldErrs = append(fieldErrs, *fe)
	}
	sub.Consents = consents
	seen["consents"] = true
	page, err := decodePage(members["page"])
	if err != nil {
		return intake.Submission{}, err
	}
	sub.Page = page
	seen["page"] = true
	if added != nil {
		for _, field := range added(sub.FormID, sub.FormVersion) {
			raw, ok := members[field]
			if seen[field] {
				continue
			}
			seen[field] = true
			if !ok || string(raw) == "null" {
				continue
			}
			var v string
			if err := json.Unmarshal(raw, &v); err != nil {
				fieldErrs = append(fieldErrs, intake.FieldError{Field: field, Code: intake.CodeFieldInvalid, Detail: "Must be text."})
				continue
			}
			if sub.Added == nil {
				sub.Added = map[string]string{}
			}
			sub.Added[field] = v
		}
	}
	name := honeypot(sub.FormID, sub.FormVersion)
	if name != "" && !seen[name] {
		seen[name] = true
		if raw, ok := members[name]; ok {
			var v string
			if json.Unmarshal(raw, &v) != nil {
				v = string(raw) // anything but an empty string fills the honeypot
			}
			sub.Honeypot = v
		}
	}
	// Unknown members are refused only for a known form version: for an
	// unknown one, FORM_VERSION_UNKNOWN is the clearer answer.
	for member := range members {
		if name != "" && !seen[member] {
			return intake.Submission{}, intake.Errorf(intake.CodeUnreadableBody, "The body has a member this form does not know.")
		}
	}
	if len(fieldErrs) > 0 {
		return intake.Submission{}, intake.Invalid(fieldErrs...)
	}
	return sub, nil
}

// decodePage reads the page's content-free report, the optional member
// "page": {"fillMs", "automation", "solveMs", "workers"}, each optional.
// Anything else there (another member, a wrong type, a negative number) is
// UNREADABLE_BODY, as any member not written as documented is.
func decodePage(raw json.RawMessage) (intake.PageReport, error) {
	if raw == nil || string(raw) == "null" {
		return intake.PageReport{}, nil
	}
	var p struct {
		FillMs     *int64 `json:"fillMs"`
		Automation bool   `json:"automation"`
		SolveMs    int64  `json:"solveMs"`
		Workers    int    `json:"workers"`
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil || p.SolveMs < 0 || p.Workers < 0 || p.Workers > intake.MaxReportedWorkers || p.FillMs != nil && *p.FillMs < 0 {
		return intake.PageReport{}, intake.Errorf(intake.CodeUnreadableBody, "The page report must be {fillMs, automation, solveMs, workers} with numbers at or above 0 (workers at most 64).")
	}
	r := intake.PageReport{Reported: p.FillMs != nil, Automation: p.Automation, SolveMillis: p.SolveMs, Workers: p.Workers}
	if p.FillMs != nil {
		r.FillMillis = *p.FillMs
	}
	return r, nil
}
