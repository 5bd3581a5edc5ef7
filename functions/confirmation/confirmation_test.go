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
	"github.com/ownersite/introductions/functions/wiring"
	"github.com/ownersite/introductions/shared/intake"
	"github.com/ownersite/introductions/shared/intakeflow"
	"github.com/ownersite/introductions/shared/testsupport"
)

// fakeFlow answers for id "d1" with token "tok" and refuses anything else
// as NOT_FOUND, or always with err when set.
type fakeFlow struct {
	err       error
	withdrawn []string
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

func (f *fakeFlow) Confirm(_ context.Context, id, token string) (*intakeflow.Confirmation, error) {
	if err := f.check(id, token); err != nil {
		return nil, err
	}
	return &intakeflow.Confirmation{ID: id, ConfirmedAt: confirmedAt, KeptUntil: confirmedAt.Add(180 * 24 * time.Hour)}, nil
}

func (f *fakeFlow) Withdraw(_ context.Context, id, token string) error {
	if err := f.check(id, token); err != nil {
		return err
	}
	f.withdrawn = append(f.withdrawn, id)
	return nil
}

func serve(t *testing.T, flow confirmation.Flow) http.Handler {
	h := testsupport.Must(confirmation.New(flow))(t)
	return testsupport.Must(wiring.Serve(&wiring.Handlers{Confirmation: h}, "Confirmation", []string{testsupport.SiteOrigin}, slog.New(slog.DiscardHandler)))(t)
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
}

func TestNewRefusesNoFlow(t *testing.T) {
	if _, err := confirmation.New(nil); err == nil || !strings.Contains(err.Error(), "Flow") {
		t.Fatalf("New(nil) error = %v", err)
	}
}
