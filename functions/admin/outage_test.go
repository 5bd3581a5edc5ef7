package admin_test

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/ownersite/introductions/functions/admin"
	"github.com/ownersite/introductions/shared/intake"
	"github.com/ownersite/introductions/shared/jsonapi"
)

// downStore is Firestore down, at the admin's own interface.
type downStore struct{}

var errDown = intake.Unavailable(errors.New("firestore: connection refused"), 3*time.Second)

func (downStore) ListIntroductions(context.Context, string, *intake.ListPosition, int, time.Time) ([]intake.Record, *intake.ListPosition, error) {
	return nil, nil, errDown
}
func (downStore) MarkSpam(context.Context, string, string, bool, time.Time) (*intake.Introduction, error) {
	return nil, errDown
}
func (downStore) CountSpam(context.Context) (int, error) { return 0, errDown }
func (downStore) EraseSpam(context.Context, intake.ErasureRecord, func(string) []intake.Envelope) ([]string, []string, error) {
	return nil, nil, errDown
}
func (downStore) CountWaiting(context.Context) (int, error) { return 0, errDown }
func (downStore) Record(context.Context, string, time.Time) (intake.Record, error) {
	return intake.Record{}, errDown
}
func (downStore) MarkOpened(context.Context, string, string, time.Time) (*intake.Introduction, error) {
	return nil, errDown
}
func (downStore) MarkHandled(context.Context, string, string, time.Time) (*intake.Introduction, error) {
	return nil, errDown
}
func (downStore) Envelope(context.Context, string, time.Time) (intake.Envelope, error) {
	return intake.Envelope{}, errDown
}
func (downStore) RecordAdminAction(context.Context, string, intake.AdminAction) error { return errDown }
func (downStore) SubjectRecords(context.Context, intake.SubjectQuery, time.Time) ([]intake.Record, error) {
	return nil, errDown
}
func (downStore) Tombstone(context.Context, string) (intake.LedgerEntry, error) {
	return intake.LedgerEntry{}, errDown
}
func (downStore) EraseSubject(context.Context, intake.SubjectQuery, intake.ErasureRecord, func(string) []intake.Envelope) ([]string, []string, error) {
	return nil, nil, errDown
}
func (downStore) LedgerEntries(context.Context, time.Time, time.Time, time.Time, func([]intake.LedgerEntry) error) error {
	return errDown
}
func (downStore) ExportIntroductions(context.Context, string, time.Time, time.Time, time.Time, intake.AdminAction) ([]intake.Record, error) {
	return nil, errDown
}
func (downStore) LastRuns(context.Context, int) ([]intake.SweepRun, error) { return nil, errDown }
func (downStore) DailyFigures(context.Context, []string) (map[string]intake.DailyFigures, error) {
	return nil, errDown
}

// TestFirestoreDownAnswers503: every route answers 503 with Retry-After
// (problem+json for the API, a page saying so for the pages), and the
// cause is logged, never shown.
func TestFirestoreDownAnswers503(t *testing.T) {
	logs := &syncBuffer{}
	h, err := admin.New(admin.Deps{Store: downStore{}, Keys: testKeys(t, "1"), Clock: fixedClock{now}, Logger: slog.New(slog.NewJSONHandler(logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	served, err := jsonapi.NewRoutes(admin.Routes(h), nil, slog.New(slog.NewJSONHandler(logs, nil)))
	if err != nil {
		t.Fatal(err)
	}
	for _, rq := range []struct{ method, path, body, contentType string }{
		{"GET", "/admin/api/introductions", "", ""},
		{"GET", "/admin/api/introductions/x", "", ""},
		{"POST", "/admin/api/introductions/x/handled", "", ""},
		{"POST", "/admin/api/deliveries/x/retry", "", ""},
		{"POST", "/admin/api/introductions/x/spam", `{"spam":true}`, "application/json"},
		{"POST", "/admin/api/spam/erasure", `{"confirm":true}`, "application/json"},
		{"GET", "/admin/api/subjects?email=a@example.com", "", ""},
		{"POST", "/admin/api/subjects/erasure", `{"email":"a@example.com"}`, "application/json"},
		{"GET", "/admin/api/health", "", ""},
		{"GET", "/admin/api/ledger?from=2026-11-01&to=2026-11-30", "", ""},
		{"GET", "/admin/", "", ""},
		{"GET", "/admin/introductions/x", "", ""},
		{"POST", "/admin/introductions/x/handled", "", ""},
		{"POST", "/admin/introductions/x/spam", "spam=yes", "application/x-www-form-urlencoded"},
		{"POST", "/admin/spam/erasure", "", "application/x-www-form-urlencoded"},
		{"POST", "/admin/spam/erasure", "confirm=yes", "application/x-www-form-urlencoded"},
		{"POST", "/admin/subjects", "email=a%40example.com", "application/x-www-form-urlencoded"},
		{"POST", "/admin/subjects/erasure", "email=a%40example.com&confirm=yes", "application/x-www-form-urlencoded"},
		{"GET", "/admin/retention", "", ""},
		{"GET", "/admin/ledger/export?from=2026-11-01&to=2026-11-30", "", ""},
		{"GET", "/admin/introductions/export?format=json&from=2026-11-01&to=2026-11-30", "", ""},
	} {
		r := httptest.NewRequest(rq.method, rq.path, strings.NewReader(rq.body))
		if rq.contentType != "" {
			r.Header.Set("Content-Type", rq.contentType)
		}
		w := httptest.NewRecorder()
		served.ServeHTTP(w, r)
		if w.Code != http.StatusServiceUnavailable || w.Header().Get("Retry-After") == "" {
			t.Errorf("%s %s: %d, Retry-After %q", rq.method, rq.path, w.Code, w.Header().Get("Retry-After"))
		}
		if strings.Contains(w.Body.String(), "connection refused") {
			t.Errorf("%s %s shows the cause", rq.method, rq.path)
		}
		if strings.HasPrefix(rq.path, "/admin/api/") != (w.Header().Get("Content-Type") == "application/problem+json") {
			t.Errorf("%s %s answers %s", rq.method, rq.path, w.Header().Get("Content-Type"))
		}
	}
	if !strings.Contains(logs.String(), "connection refused") {
		t.Error("the cause was not logged")
	}
}
