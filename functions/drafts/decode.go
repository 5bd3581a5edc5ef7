package drafts

import (
	"bytes"
	"encoding/json"
	"maps"

	"github.com/ownersite/introductions/shared/intake"
	"github.com/ownersite/introductions/shared/jsonapi"
)

// stringFields maps each text member to where it goes and its code when not text.
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

// decodeDraft reads the members every draft carries into a Submission
// (one of the wrong type is refused at its field) and returns the others
// as rest, for the service.
func decodeDraft(members map[string]json.RawMessage) (sub intake.Submission, rest map[string]json.RawMessage, err error) {
	var fieldErrs []intake.FieldError
	rest = maps.Clone(members)
	for _, f := range stringFields {
		raw, ok := members[f.name]
		delete(rest, f.name)
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
	if sub.Page, err = decodePage(members["page"]); err != nil {
		return intake.Submission{}, nil, err
	}
	delete(rest, "consents")
	delete(rest, "page")
	if len(fieldErrs) > 0 {
		return intake.Submission{}, nil, intake.Invalid(fieldErrs...)
	}
	return sub, rest, nil
}

// decodePage reads the optional "page": {"fillMs", "automation",
// "solveMs", "workers"}; anything else there is UNREADABLE_BODY.
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
