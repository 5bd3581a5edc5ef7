// Package admin is the owner's side of the service: the Admin function's
// pages under /admin/ and its JSON under /admin/api/. The owner reads
// confirmed introductions newest first, each with its message, the
// conversation as the visitor sent it, the consent evidence, the ledger
// entry and every delivery; marks one handled; retries a delivery; answers
// a data subject's access and erasure requests; and sees at a glance, as a
// server-rendered chart, what came in and what was refused, and whether the
// retention sweep runs.
//
// It is private: deployed without a public invoker, Cloud Run IAM has
// verified the caller's identity token before a request arrives, and the
// admin takes the token's email claim, unverified, as the actor it records
// in the ledger ("local owner" on the dev server, which binds to loopback).
// Every POST is refused cross-origin (net/http's CrossOriginProtection).
// Pages are html/template with embedded templates and styles, no script,
// and a CSP that allows nothing else. Nothing personal is logged: ids,
// routes, codes and counts only.
package admin

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/ownersite/introductions/shared/intake"
	"github.com/ownersite/introductions/shared/jsonapi"
)

// PageSize is how many introductions one page of the list holds.
const PageSize = 50

// RecentRuns is how many sweep runs the retention page shows.
const RecentRuns = 10

// Store is what the admin reads and writes. Every method answers intake
// errors only: NOT_FOUND for an unknown, expired or draft id (the owner
// never sees a draft), STATE_CONFLICT for a move the state refuses,
// UNAVAILABLE for an outage.
type Store interface {
	// ListIntroductions returns a page of confirmed and handled
	// introductions with their ledger entries, newest confirmation first,
	// after pos, and where the next page starts (nil at the end).
	ListIntroductions(ctx context.Context, after *intake.ListPosition, limit int, now time.Time) ([]intake.Record, *intake.ListPosition, error)
	// Record returns everything held about one confirmed introduction.
	Record(ctx context.Context, id string, now time.Time) (intake.Record, error)
	// MarkHandled applies the handle move and records actor in the ledger.
	MarkHandled(ctx context.Context, id, actor string, now time.Time) (*intake.Introduction, error)
	// Envelope returns one envelope of the handoff outbox.
	Envelope(ctx context.Context, id string) (intake.Envelope, error)
	// RecordAdminAction appends a to the ledger entry of submission id.
	RecordAdminAction(ctx context.Context, id string, a intake.AdminAction) error
	// SubjectRecords returns every live record (drafts included) of one
	// data subject.
	SubjectRecords(ctx context.Context, subjectKey string, now time.Time) ([]intake.Record, error)
	// EraseSubject erases every introduction of one data subject, leaving
	// content-free tombstones, and says how many it erased.
	EraseSubject(ctx context.Context, subjectKey string, e intake.ErasureRecord) (int, error)
	// LastSweepRuns returns the n most recent sweep runs, newest first.
	LastSweepRuns(ctx context.Context, n int) ([]intake.SweepRun, error)
	// DailyFigures returns the kept figures of the given days by day.
	DailyFigures(ctx context.Context, days []string) (map[string]intake.DailyFigures, error)
}

// Retrier sends one envelope again now. Errors: NOT_FOUND, STATE_CONFLICT
// (nothing to retry), UNAVAILABLE.
type Retrier interface {
	RetryNow(ctx context.Context, envelopeID string) error
}

// Scheduler reads the Cloud Scheduler job that calls the sweep. Errors:
// any; the admin shows the job as unreadable and logs the cause.
type Scheduler interface {
	Status(ctx context.Context) (intake.SchedulerStatus, error)
}

// Deps are the admin's dependencies.
type Deps struct {
	Store Store
	// Retrier is the delivery service; nil when none is wired, and then a
	// retry answers 503 UNAVAILABLE.
	Retrier Retrier
	// Scheduler is nil when no scheduler job is configured (locally): the
	// admin says so rather than failing.
	Scheduler Scheduler
	Clock     intake.Clock
	Logger    *slog.Logger
}

// Handler serves the admin's pages and JSON.
type Handler struct {
	Deps
	mux http.Handler
}

// New returns the admin's handler. It refuses a missing store, clock or
// logger.
func New(d Deps) (*Handler, error) {
	var errs []error
	if d.Store == nil {
		errs = append(errs, errors.New("admin: nil Store"))
	}
	if d.Clock == nil {
		errs = append(errs, errors.New("admin: nil Clock"))
	}
	if d.Logger == nil {
		errs = append(errs, errors.New("admin: nil Logger"))
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	h := &Handler{Deps: d}
	mux := http.NewServeMux()
	for _, r := range h.routes() {
		mux.Handle(r.pattern, r.handler)
	}
	cop := http.NewCrossOriginProtection()
	cop.SetDenyHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.Logger.LogAttrs(r.Context(), slog.LevelWarn, "admin: cross-origin request refused", slog.String("method", r.Method), slog.String("path", r.URL.Path))
		jsonapi.WriteError(w, r, nil, intake.Errorf(intake.CodeCrossOriginRefused, "This action is accepted from the admin's own pages only."))
	}))
	h.mux = secured(cop.Handler(mux))
	return h, nil
}

// Route is one entry of the admin's route table: a ServeMux pattern and
// its handler.
type Route struct {
	Pattern string
	Handler http.Handler
}

type route struct {
	pattern string
	handler http.Handler
}

// routes is the admin's whole route table.
func (h *Handler) routes() []route {
	return []route{
		{"GET /admin/api/introductions", http.HandlerFunc(h.apiList)},
		{"GET /admin/api/introductions/{id}", http.HandlerFunc(h.apiDetail)},
		{"POST /admin/api/introductions/{id}/handled", http.HandlerFunc(h.apiHandled)},
		{"POST /admin/api/deliveries/{envelopeId}/retry", http.HandlerFunc(h.apiRetry)},
		{"GET /admin/api/subjects", http.HandlerFunc(h.apiSubject)},
		{"POST /admin/api/subjects/erasure", http.HandlerFunc(h.apiErasure)},
		{"GET /admin/api/health", http.HandlerFunc(h.apiHealth)},
		{"/admin/api/", http.HandlerFunc(jsonapi.NotFound)},

		{"GET /admin/{$}", http.HandlerFunc(h.pageList)},
		{"GET /admin/introductions/{id}", http.HandlerFunc(h.pageDetail)},
		{"POST /admin/introductions/{id}/handled", http.HandlerFunc(h.pageHandled)},
		{"POST /admin/deliveries/{envelopeId}/retry", http.HandlerFunc(h.pageRetry)},
		{"GET /admin/subjects", http.HandlerFunc(h.pageSubjectForm)},
		{"POST /admin/subjects", http.HandlerFunc(h.pageSubject)},
		{"POST /admin/subjects/export", http.HandlerFunc(h.pageExport)},
		{"POST /admin/subjects/erasure", http.HandlerFunc(h.pageErasure)},
		{"GET /admin/retention", http.HandlerFunc(h.pageRetention)},
		{"GET /admin/assets/admin.css", http.HandlerFunc(serveCSS)},
		{"GET /admin/assets/icon.svg", http.HandlerFunc(serveIcon)},
		{"GET /admin", http.RedirectHandler("/admin/", http.StatusMovedPermanently)},
		{"GET /{$}", http.RedirectHandler("/admin/", http.StatusFound)},
		{"/admin/", http.HandlerFunc(h.pageNotFound)},
	}
}

// Routes lists the admin's routes for a route table that mounts them
// beside other functions'. Each handler carries the admin's headers and
// cross-origin protection.
func (h *Handler) Routes() []Route {
	var out []Route
	for _, r := range h.routes() {
		if r.pattern == "GET /{$}" {
			continue // the dev server's / is the form page
		}
		out = append(out, Route{Pattern: r.pattern, Handler: h.mux})
	}
	return out
}

func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) { h.mux.ServeHTTP(w, r) }

// PageCSP is the admin's Content-Security-Policy: its own stylesheet and
// nothing else, no framing, forms only to itself.
const PageCSP = "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'"

// secured sets the headers every admin answer carries.
func secured(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", PageCSP)
		h.Set("Cache-Control", "no-store")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("X-Frame-Options", "DENY")
		next.ServeHTTP(w, r)
	})
}

// LocalOwner is the actor recorded when a request carries no identity
// token: the dev server's owner.
const LocalOwner = "local owner"

// actor names who made the request, for the ledger: the email claim of the
// identity token Cloud Run IAM verified before the request arrived (its
// signature removed, so it is read, not verified, here), LocalOwner
// without a token, and "unidentified caller" for a token without an email.
// It is never logged.
func actor(r *http.Request) string {
	auth := r.Header.Get("Authorization")
	if auth == "" {
		return LocalOwner
	}
	token, ok := strings.CutPrefix(auth, "Bearer ")
	parts := strings.Split(token, ".")
	if !ok || len(parts) < 2 {
		return "unidentified caller"
	}
	payload, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(parts[1], "="))
	if err != nil {
		return "unidentified caller"
	}
	var claims struct {
		Email string `json:"email"`
	}
	if json.Unmarshal(payload, &claims) != nil || claims.Email == "" || len(claims.Email) > intake.MaxStoredLabel {
		return "unidentified caller"
	}
	return claims.Email
}

// logAction logs an admin action without content: the action, ids, codes.
func (h *Handler) logAction(r *http.Request, action string, err error, attrs ...slog.Attr) {
	attrs = append(attrs, slog.String("action", action), slog.String("code", string(intake.CodeOf(err))))
	level := slog.LevelInfo
	if c := intake.CodeOf(err); c == intake.CodeUnavailable || c == intake.CodeInternal {
		level = slog.LevelError
	}
	h.Logger.LogAttrs(r.Context(), level, "admin action", attrs...)
}
