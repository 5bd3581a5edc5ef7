package drafts_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/ownersite/introductions/functions/drafts"
	"github.com/ownersite/introductions/shared/intake"
	"github.com/ownersite/introductions/shared/intakeflow"
	"github.com/ownersite/introductions/shared/jsonapi"
	"github.com/ownersite/introductions/shared/testsupport"
)

const path = "/api/introductions"

// fakeFlow keeps every draft it is given, or refuses with err.
type fakeFlow struct {
	err      error
	replayed bool
	got      []intakeflow.DraftRequest
}

func (f *fakeFlow) Attach(context.Context, intakeflow.AttachRequest) (*intake.Attachment, error) {
	return nil, f.err
}

func (f *fakeFlow) Detach(context.Context, intakeflow.TokenRequest) error { return f.err }

func (f *fakeFlow) Draft(_ context.Context, req intakeflow.DraftRequest) (*intakeflow.Draft, error) {
	f.got = append(f.got, req)
	if f.err != nil {
		return nil, f.err
	}
	sub := req.Submission
	return &intakeflow.Draft{
		Introduction: intake.Introduction{ID: "d1", State: intake.StateDraft, FormID: sub.FormID, FormVersion: sub.FormVersion,
			Fields: sub.Fields, ExpireAt: time.Date(2026, 11, 30, 12, 30, 0, 0, time.UTC)},
		Conversation: sub.Conversation, Token: "tok", Replayed: f.replayed,
	}, nil
}

func serve(t *testing.T, flow drafts.Flow) http.Handler {
	h := testsupport.Must(drafts.New(flow, drafts.Options{ForwardedForPosition: 1}))(t)
	return testsupport.Must(jsonapi.NewRoutes(drafts.Routes(h), []string{testsupport.SiteOrigin}, slog.New(slog.DiscardHandler)))(t)
}

const body = `{"formId":"introduction","formVersion":"1","name":"Ada","email":"ada@example.com","message":"Hello","website":"","altcha":"p"}`

func TestCreate(t *testing.T) {
	flow := &fakeFlow{}
	w := testsupport.Serve(serve(t, flow), testsupport.Request{Method: http.MethodPost, Path: path, Body: body, Origin: testsupport.SiteOrigin,
		Header: map[string]string{"X-Forwarded-For": "198.51.100.1, 203.0.113.7", "Idempotency-Key": `"key-123456789"`}})
	var c jsonapi.KeptDraft
	if w.Code != http.StatusCreated || json.Unmarshal(w.Body.Bytes(), &c) != nil || c.ID != "d1" || c.Token != "tok" || c.Kept.Name != "Ada" ||
		w.Header().Get("Idempotent-Replayed") != "" || w.Header().Get("Access-Control-Allow-Origin") != testsupport.SiteOrigin {
		t.Fatalf("%d %v %s", w.Code, w.Header(), w.Body)
	}
	req := flow.got[0]
	if req.Client != netip.MustParseAddr("203.0.113.7") || req.IdempotencyKey != "key-123456789" || req.RequestID == "" ||
		req.Submission.Altcha != "p" || req.Submission.Fields.Email != "ada@example.com" {
		t.Fatalf("the flow got %+v", req)
	}
}

// TestIdempotencyKeyHeader: the key is read quoted or bare; a header
// present but empty, or sent twice, is passed on as malformed, never as no
// key.
func TestIdempotencyKeyHeader(t *testing.T) {
	tests := []struct {
		name      string
		values    []string
		key       string
		malformed bool
	}{
		{"absent", nil, "", false},
		{"quoted", []string{`"key-123456789"`}, "key-123456789", false},
		{"bare", []string{" key-123456789 "}, "key-123456789", false},
		{"empty", []string{""}, "", true},
		{"empty quoted", []string{`""`}, "", true},
		{"sent twice", []string{"key-123456789", "key-123456789"}, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			flow := &fakeFlow{}
			r := httptest.NewRequest(http.MethodPost, path, strings.NewReader(body))
			r.Header.Set("Content-Type", "application/json")
			r.Header["Idempotency-Key"] = tt.values
			w := httptest.NewRecorder()
			serve(t, flow).ServeHTTP(w, r)
			if w.Code != http.StatusCreated || len(flow.got) != 1 {
				t.Fatalf("%d %s", w.Code, w.Body)
			}
			if got := flow.got[0]; got.IdempotencyKey != tt.key || got.IdempotencyKeyMalformed != tt.malformed {
				t.Fatalf("the flow got key %q, malformed %v; want %q, %v", got.IdempotencyKey, got.IdempotencyKeyMalformed, tt.key, tt.malformed)
			}
		})
	}
}

func TestReplayIsMarked(t *testing.T) {
	w := testsupport.Serve(serve(t, &fakeFlow{replayed: true}), testsupport.Request{Method: http.MethodPost, Path: path, Body: body})
	if w.Code != http.StatusCreated || w.Header().Get("Idempotent-Replayed") != "true" {
		t.Fatalf("%d %v", w.Code, w.Header())
	}
}

// TestRefusals covers every code the handler answers itself and, through
// the fake, that the flow's refusals reach the visitor as their documented
// status with Retry-After where one applies.
func TestRefusals(t *testing.T) {
	cases := []struct {
		name        string
		contentType string
		body        string
		flowErr     error
		status      int
		code        string
		retryAfter  bool
	}{
		{"not JSON", "text/plain", body, nil, 415, "UNSUPPORTED_MEDIA_TYPE", false},
		{"too large", "", `{"message":"` + strings.Repeat("x", 65<<10) + `"}`, nil, 413, "BODY_TOO_LARGE", false},
		{"unreadable", "", `{"name":`, nil, 400, "UNREADABLE_BODY", false},
		{"not an object", "", `["a"]`, nil, 400, "UNREADABLE_BODY", false},
		{"a field of the wrong type", "", `{"formId":"introduction","formVersion":"1","name":7}`, nil, 422, "NAME_INVALID", false},
		{"refused by a check", "", body, intake.Invalid(intake.FieldError{Field: "altcha", Code: intake.CodePowSpent, Detail: "spent"}), 422, "POW_SPENT", false},
		{"rate limited", "", body, &intake.Error{Code: intake.CodeRateLimited, Detail: "later", RetryAfter: time.Minute}, 429, "RATE_LIMITED", true},
		{"idempotency key invalid", "", body, intake.Errorf(intake.CodeIdempotencyKeyInvalid, "bad"), 400, "IDEMPOTENCY_KEY_INVALID", false},
		{"idempotency key reused", "", body, intake.Errorf(intake.CodeIdempotencyKeyReused, "reused"), 422, "IDEMPOTENCY_KEY_REUSED", false},
		{"idempotency key in flight", "", body, intake.Errorf(intake.CodeIdempotencyInFlight, "wait"), 409, "IDEMPOTENCY_IN_FLIGHT", false},
		{"store down", "", body, intake.Unavailable(errors.New("secret grpc detail"), 0), 503, "UNAVAILABLE", true},
		{"internal", "", body, intake.Internal(errors.New("secret detail")), 500, "INTERNAL", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w := testsupport.Serve(serve(t, &fakeFlow{err: tc.flowErr}), testsupport.Request{Method: http.MethodPost, Path: path, ContentType: tc.contentType, Body: tc.body})
			code := testsupport.ProblemCode(t, w)
			if w.Code != tc.status || code != tc.code || (w.Header().Get("Retry-After") != "") != tc.retryAfter || strings.Contains(w.Body.String(), "secret") {
				t.Fatalf("%d %s Retry-After %q: %s", w.Code, code, w.Header().Get("Retry-After"), w.Body)
			}
		})
	}
}

func TestEdges(t *testing.T) {
	testsupport.CheckEdges(t, serve(t, &fakeFlow{}), path, "POST")
}

func TestNewRefusesANilFlow(t *testing.T) {
	_, err := drafts.New(nil, drafts.Options{})
	if err == nil || !strings.Contains(err.Error(), "Flow") {
		t.Fatalf("New(nil, {}) error = %v", err)
	}
}

// readingFlow reads an attachment's body to its end, as the service does.
type readingFlow struct {
	fakeFlow
	read int
}

func (f *readingFlow) Attach(_ context.Context, req intakeflow.AttachRequest) (*intake.Attachment, error) {
	n, err := io.Copy(io.Discard, req.Body)
	f.read = int(n)
	if err != nil {
		return nil, intake.Errorf(intake.CodeUnreadableBody, "cut off: %v", err)
	}
	return &intake.Attachment{Type: "text/plain", Size: n, SHA256: strings.Repeat("0", 64)}, nil
}

// TestAnUploadOutlastsTheServersReadTimeout: a server whose read timeout
// suits a form's words (the dev server's) still takes a file that arrives
// slowly, as on a poor mobile link; the timeout here is short and the body
// trickles in for several times as long.
func TestAnUploadOutlastsTheServersReadTimeout(t *testing.T) {
	flow := &readingFlow{}
	srv := httptest.NewUnstartedServer(serve(t, flow))
	srv.Config.ReadTimeout = 100 * time.Millisecond
	srv.Start()
	defer srv.Close()
	pr, pw := io.Pipe()
	go func() {
		for range 5 {
			time.Sleep(80 * time.Millisecond)
			pw.Write([]byte("line of a text file\n"))
		}
		pw.Close()
	}()
	req, _ := http.NewRequest(http.MethodPut, srv.URL+path+"/d1/attachment", pr)
	req.Header.Set("Authorization", "Bearer tok")
	req.Header.Set("Content-Type", "text/plain; charset=utf-8")
	req.Header.Set("Origin", testsupport.SiteOrigin)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("the upload was cut off: %v", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK || flow.read != 100 {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("upload: %d after %d bytes: %s", resp.StatusCode, flow.read, b)
	}
}
