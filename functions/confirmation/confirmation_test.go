package confirmation_test

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ownersite/introductions/functions/confirmation"
	"github.com/ownersite/introductions/shared/intake"
	"github.com/ownersite/introductions/shared/intakeflow"
	"github.com/ownersite/introductions/shared/jsonapi"
	"github.com/ownersite/introductions/shared/testsupport"
)

// fakeFlow answers for id "d1" with token "tok" and refuses anything else
// as NOT_FOUND, or always with err when set.
type fakeFlow struct {
	err       error
	moves     []intakeflow.TokenRequest
	withdrawn []string
	revised   []intakeflow.RevisionRequest
}

var confirmedAt = time.Date(2026, 11, 30, 12, 5, 0, 0, time.UTC)

func (f *fakeFlow) check(id, token string) error {
	if f.err != nil {
		return f.err
	}
	if id != "d1" || token != "tok" {
		return intake.ErrNotFound
	}
	return nil
}

func (f *fakeFlow) Confirm(_ context.Context, req intakeflow.TokenRequest) (*intakeflow.Confirmation, error) {
	f.moves = append(f.moves, req)
	id, token := req.ID, req.Token
	if err := f.check(id, token); err != nil {
		return nil, err
	}
	return &intakeflow.Confirmation{ID: id, ConfirmedAt: confirmedAt, KeptUntil: confirmedAt.Add(180 * 24 * time.Hour)}, nil
}

func (f *fakeFlow) Withdraw(_ context.Context, req intakeflow.TokenRequest) error {
	f.moves = append(f.moves, req)
	id, token := req.ID, req.Token
	if err := f.check(id, token); err != nil {
		return err
	}
	f.withdrawn = append(f.withdrawn, id)
	return nil
}

var expiresAt = time.Date(2026, 11, 30, 12, 30, 0, 0, time.UTC)

func (f *fakeFlow) Revise(_ context.Context, req intakeflow.RevisionRequest) (*intakeflow.Draft, error) {
	if err := f.check(req.ID, req.Token); err != nil {
		return nil, err
	}
	f.revised = append(f.revised, req)
	return &intakeflow.Draft{
		Introduction: intake.Introduction{ID: req.ID, State: intake.StateDraft, FormID: "introduction", FormVersion: "1",
			Fields: req.Submission.Fields, HasConversation: req.Submission.Conversation != "", Consents: []intake.ConsentEvidence{},
			ExpireAt: expiresAt, Revisions: 3},
		Conversation: req.Submission.Conversation, Token: req.Token,
	}, nil
}

func serve(t *testing.T, flow confirmation.Flow) http.Handler {
	h := testsupport.Must(confirmation.New(flow, confirmation.Options{}))(t)
	return testsupport.Must(jsonapi.NewRoutes(confirmation.Routes(h), []string{testsupport.SiteOrigin}, slog.New(slog.DiscardHandler)))(t)
}

// TestMovesNameTheirRequest: a confirmation, a withdrawal and a revision
// pass on the request's trace id, which the provenance of what they write
// records.
func TestMovesNameTheirRequest(t *testing.T) {
	const trace = "105445aa7843bc8bf206b12000100000"
	flow := &fakeFlow{}
	h := serve(t, flow)
	for move, body := range map[string]string{
		"confirmation": `{"token":"tok"}`,
		"withdrawal":   `{"token":"tok"}`,
		"revision":     `{"token":"tok","name":"Ada","email":"ada@example.com","message":"Hello"}`,
	} {
		w := testsupport.Serve(h, testsupport.Request{Method: http.MethodPost, Path: "/api/introductions/d1/" + move, Body: body,
			Header: map[string]string{"X-Cloud-Trace-Context": trace + "/1;o=1"}})
		if w.Code >= 300 {
			t.Fatalf("%s: %d %s", move, w.Code, w.Body)
		}
	}
	if len(flow.moves) != 2 || len(flow.revised) != 1 {
		t.Fatalf("the flow got %d moves and %d revisions", len(flow.moves), len(flow.revised))
	}
	for _, id := range []string{flow.moves[0].RequestID, flow.moves[1].RequestID, flow.revised[0].RequestID} {
		if id != trace {
			t.Errorf("RequestID %q, want the trace id %s", id, trace)
		}
	}
}

func TestConfirm(t *testing.T) {
	w := testsupport.Serve(serve(t, &fakeFlow{}), testsupport.Request{Method: http.MethodPost, Path: "/api/introductions/d1/confirmation", Body: `{"token":"tok"}`})
	var c confirmation.Confirmed
	if w.Code != http.StatusOK || json.Unmarshal(w.Body.Bytes(), &c) != nil || c.ID != "d1" || c.State != "CONFIRMED" || !c.ConfirmedAt.Equal(confirmedAt) ||
		c.Withdrawal.Path != intakeflow.WithdrawalPath("d1") || c.Withdrawal.Method != "POST" {
		t.Fatalf("%d %s", w.Code, w.Body)
	}
}

func TestWithdraw(t *testing.T) {
	flow := &fakeFlow{}
	w := testsupport.Serve(serve(t, flow), testsupport.Request{Method: http.MethodPost, Path: "/api/introductions/d1/withdrawal", Body: `{"token":"tok"}`})
	if w.Code != http.StatusNoContent || w.Body.Len() != 0 || len(flow.withdrawn) != 1 {
		t.Fatalf("%d %s %v", w.Code, w.Body, flow.withdrawn)
	}
}

func TestRevise(t *testing.T) {
	flow := &fakeFlow{}
	w := testsupport.Serve(serve(t, flow), testsupport.Request{Method: http.MethodPost, Path: "/api/introductions/d1/revision",
		Body: `{"token":"tok","name":"Ada","company":"","role":"","email":"ada@example.com","message":"Hello again","conversation":"You: hi","consents":[{"purpose":"attach-conversation","textVersion":"attach-conversation/1","given":true}]}`})
	if w.Code != http.StatusOK {
		t.Fatalf("%d %s", w.Code, w.Body)
	}
	var got map[string]any
	if err := json.Unmarshal(w.Body.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	// The same members as the drafts function's 201, plus the count.
	for _, member := range []string{"id", "state", "expiresAt", "token", "formId", "formVersion", "introduction", "consents", "revisions"} {
		if _, ok := got[member]; !ok {
			t.Errorf("no %q in %s", member, w.Body)
		}
	}
	kept := got["introduction"].(map[string]any)
	if got["id"] != "d1" || got["token"] != "tok" || got["state"] != "DRAFT" || got["expiresAt"] != "2026-11-30T12:30:00Z" || got["revisions"] != 3.0 ||
		kept["message"] != "Hello again" || kept["conversation"] != "You: hi" {
		t.Errorf("answer %s", w.Body)
	}
	if len(flow.revised) != 1 || flow.revised[0].Submission.Fields.Email != "ada@example.com" || len(flow.revised[0].Submission.Consents) != 1 {
		t.Errorf("flow got %+v", flow.revised)
	}
}

func TestRefusals(t *testing.T) {
	cases := []struct {
		name, path, contentType, body string
		flowErr                       error
		status                        int
		code                          string
	}{
		{"wrong token", "/api/introductions/d1/confirmation", "", `{"token":"other"}`, nil, 404, "NOT_FOUND"},
		{"unknown id", "/api/introductions/d2/withdrawal", "", `{"token":"tok"}`, nil, 404, "NOT_FOUND"},
		{"no such action", "/api/introductions/d1/deletion", "", `{"token":"tok"}`, nil, 404, "NOT_FOUND"},
		{"no id", "/api/introductions//confirmation", "", `{"token":"tok"}`, nil, 404, "NOT_FOUND"},
		{"not JSON", "/api/introductions/d1/confirmation", "text/plain", `{"token":"tok"}`, nil, 415, "UNSUPPORTED_MEDIA_TYPE"},
		{"unknown member", "/api/introductions/d1/confirmation", "", `{"token":"tok","admin":true}`, nil, 400, "UNREADABLE_BODY"},
		{"two objects", "/api/introductions/d1/withdrawal", "", `{"token":"tok"}{}`, nil, 400, "UNREADABLE_BODY"},
		{"too large", "/api/introductions/d1/withdrawal", "", `{"token":"` + strings.Repeat("t", 65<<10) + `"}`, nil, 413, "BODY_TOO_LARGE"},
		{"withdrawing a draft", "/api/introductions/d1/withdrawal", "", `{"token":"tok"}`, intake.Errorf(intake.CodeStateConflict, "never confirmed"), 409, "STATE_CONFLICT"},
		{"revision, wrong token", "/api/introductions/d1/revision", "", `{"token":"other","name":"Ada"}`, nil, 404, "NOT_FOUND"},
		{"revision, unknown member", "/api/introductions/d1/revision", "", `{"token":"tok","altcha":"x"}`, nil, 400, "UNREADABLE_BODY"},
		{"revision, too often", "/api/introductions/d1/revision", "", `{"token":"tok"}`, &intake.Error{Code: intake.CodeRateLimited, Detail: "revised 20 times", RetryAfter: time.Minute}, 429, "RATE_LIMITED"},
		{"revision, refused content", "/api/introductions/d1/revision", "", `{"token":"tok"}`, intake.Invalid(intake.FieldError{Field: "name", Code: intake.CodeNameInvalid, Detail: "Please fill this in."}), 422, "NAME_INVALID"},
		// Consents are read as a draft reads them (jsonapi.ReadConsents).
		{"revision, consent member in another case", "/api/introductions/d1/revision", "", `{"token":"tok","consents":[{"purpose":"future-roles","textVersion":"future-roles/1","GIVEN":true}]}`, nil, 422, "CONSENT_REQUIRED"},
		{"revision, consent purpose in another case", "/api/introductions/d1/revision", "", `{"token":"tok","consents":[{"Purpose":"future-roles","textVersion":"future-roles/1","given":true}]}`, nil, 422, "CONSENT_REQUIRED"},
		{"revision, consent with an unknown member", "/api/introductions/d1/revision", "", `{"token":"tok","consents":[{"purpose":"future-roles","textVersion":"future-roles/1","given":true,"scope":"all"}]}`, nil, 422, "CONSENT_REQUIRED"},
		{"revision, consent given as text", "/api/introductions/d1/revision", "", `{"token":"tok","consents":[{"purpose":"future-roles","textVersion":"future-roles/1","given":"yes"}]}`, nil, 422, "CONSENT_REQUIRED"},
		{"revision, consents not a list", "/api/introductions/d1/revision", "", `{"token":"tok","consents":"yes"}`, nil, 422, "CONSENT_REQUIRED"},
		{"store down", "/api/introductions/d1/confirmation", "", `{"token":"tok"}`, intake.Unavailable(errors.New("secret"), time.Second), 503, "UNAVAILABLE"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w := testsupport.Serve(serve(t, &fakeFlow{err: tc.flowErr}), testsupport.Request{Method: http.MethodPost, Path: tc.path, ContentType: tc.contentType, Body: tc.body})
			if code := testsupport.ProblemCode(t, w); w.Code != tc.status || code != tc.code || strings.Contains(w.Body.String(), "secret") {
				t.Fatalf("%d %s: %s", w.Code, code, w.Body)
			}
		})
	}
}

func TestEdges(t *testing.T) {
	h := serve(t, &fakeFlow{})
	t.Run("confirmation", func(t *testing.T) { testsupport.CheckEdges(t, h, "/api/introductions/d1/confirmation", "POST") })
	t.Run("withdrawal", func(t *testing.T) { testsupport.CheckEdges(t, h, "/api/introductions/d1/withdrawal", "POST") })
	t.Run("revision", func(t *testing.T) { testsupport.CheckEdges(t, h, "/api/introductions/d1/revision", "POST") })
}

func TestNewRefusesNoFlow(t *testing.T) {
	if _, err := confirmation.New(nil, confirmation.Options{}); err == nil || !strings.Contains(err.Error(), "Flow") {
		t.Fatalf("New(nil) error = %v", err)
	}
}
