// Package admin is the owner's side of the service: the Admin function's
// pages under /admin/ and its JSON under /admin/api/. The owner reads
// confirmed introductions newest first, each with its message, the
// conversation as the visitor sent it, the consent evidence, the ledger
// entry and every delivery; marks one handled, or spam or not spam; lists
// them by folder (inbox, likely spam, spam) and erases, in one confirmed
// action, everything marked spam; retries a delivery; answers
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

	"github.com/ownersite/introductions/shared/attachment"
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
	// introductions of folder ("" for every folder) with their ledger
	// entries, newest confirmation first, after pos, and where the next
	// page starts (nil at the end).
	ListIntroductions(ctx context.Context, folder string, after *intake.ListPosition, limit int, now time.Time) ([]intake.Record, *intake.ListPosition, error)
	// CountWaiting counts the confirmed introductions not yet handled
	// that the owner has not marked spam.
	CountWaiting(ctx context.Context) (int, error)
	// MarkSpam keeps the owner's word (spam or not) and records actor in
	// the ledger.
	MarkSpam(ctx context.Context, id, actor string, spam bool, now time.Time) (*intake.Introduction, error)
	// CountSpam counts the introductions the owner marked spam.
	CountSpam(ctx context.Context) (int, error)
	// EraseSpam erases every introduction the owner marked spam as
	// EraseSubject erases, and says which it erased and which notices it
	// wrote.
	EraseSpam(ctx context.Context, e intake.ErasureRecord, notices func(id string) []intake.Envelope) (erased, sent []string, err error)
	// Record returns everything held about one confirmed introduction.
	Record(ctx context.Context, id string, now time.Time) (intake.Record, error)
	// MarkHandled applies the handle move and records actor in the ledger.
	MarkHandled(ctx context.Context, id, actor string, now time.Time) (*intake.Introduction, error)
	// Envelope returns one live envelope of the handoff outbox.
	Envelope(ctx context.Context, id string, now time.Time) (intake.Envelope, error)
	// RecordAdminAction appends a to the ledger entry of submission id.
	RecordAdminAction(ctx context.Context, id string, a intake.AdminAction) error
	// SubjectRecords returns every live record (drafts included) of one
	// data subject: stored under one of q's keys, with an address q owns.
	SubjectRecords(ctx context.Context, q intake.SubjectQuery, now time.Time) ([]intake.Record, error)
	// EraseSubject erases every introduction of one data subject (as
	// SubjectRecords finds them, expired ones too), leaving content-free
	// tombstones, writes the notices that notices returns for each (nil:
	// none), and says which introductions it erased and which notices it
	// wrote.
	EraseSubject(ctx context.Context, q intake.SubjectQuery, e intake.ErasureRecord, notices func(id string) []intake.Envelope) (erased, sent []string, err error)
	// Tombstone returns the ledger entry of an introduction withdrawn or
	// erased; NOT_FOUND for any other id.
	Tombstone(ctx context.Context, id string) (intake.LedgerEntry, error)
	// LedgerEntries hands every live ledger entry whose attempt arrived
	// in [from, to) to page, a page at a time, oldest first; page's error
	// stops it and is returned.
	LedgerEntries(ctx context.Context, from, to, now time.Time, page func([]intake.LedgerEntry) error) error
	// LastRuns returns the n most recent sweep runs, newest first.
	LastRuns(ctx context.Context, n int) ([]intake.SweepRun, error)
	// DailyFigures returns the kept figures of the given days by day.
	DailyFigures(ctx context.Context, days []string) (map[string]intake.DailyFigures, error)
}

// SolveTarget is what the solve telemetry is measured against: the base
// max number (POW_MAX_NUMBER) and the 90th-percentile solve time wanted
// at it (POW_TARGET_P90).
type SolveTarget struct {
	MaxNumber int64
	TargetP90 time.Duration
}

// Retrier sends one envelope again now (the delivery service). Errors:
// NOT_FOUND, STATE_CONFLICT (nothing to retry, or it is being sent this
// moment), UNAVAILABLE.
type Retrier interface {
	RetryNow(ctx context.Context, envelopeID string) error
}

// Notifier makes and sends the introduction.withdrawn notices of an
// erasure (the delivery service): Outbox returns the envelopes, Dispatch
// sends those the store wrote.
type Notifier interface {
	Outbox(submissionID, event string, prov intake.Provenance) []intake.Envelope
	Dispatch(envelopeIDs []string)
}

// Scheduler reads the Cloud Scheduler job that calls the sweep. Errors:
// any; the admin shows the job as unreadable and logs the cause.
type Scheduler interface {
	Status(ctx context.Context) (intake.SchedulerStatus, error)
}

// Deps are the admin's dependencies.
type Deps struct {
	Store Store
	// Retrier is the delivery service; nil when none is wired (a test),
	// and then a retry answers 503 UNAVAILABLE.
	Retrier Retrier
	// Notifier is the delivery service; nil when none is wired (a test),
	// and then an erasure notifies no one.
	Notifier Notifier
	// Scheduler is nil when no scheduler job is configured (locally): the
	// admin says so rather than failing.
	Scheduler Scheduler
	// Keys are the HMAC keys (the service's key ring): the list's cursors
	// are signed under a key derived from them (CursorPurpose).
	Keys   intake.Keyring
	Clock  intake.Clock
	Logger *slog.Logger
	// Files holds the attachments' bytes: the detail page's download reads
	// them and an erasure deletes them. Nil (a test): a download answers
	// 503 UNAVAILABLE and an erasure leaves the bytes to the sweep.
	Files attachment.Files
	// Solves are the proof of work's base cost and the solve time its
	// 90th percentile should take, for the suggested cost the list page
	// shows (zero: no suggestion).
	Solves SolveTarget
	// Receipts is true when a provider's delivery events can move an
	// email past ACCEPTED (MAILGUN_WEBHOOK_SIGNING_KEY is set); without
	// them, an email accepted by the mail server stays ACCEPTED for good,
	// and the admin says so rather than "pending".
	Receipts bool
}

// Handlers are the admin's route handlers (see Routes).
type Handlers struct {
	Deps
	cop *http.CrossOriginProtection
}

// New returns the admin's handlers. It refuses a missing store, keys,
// clock or logger.
func New(d Deps) (*Handlers, error) {
	var errs []error
	if d.Store == nil {
		errs = append(errs, errors.New("admin: nil Store"))
	}
	if d.Keys == nil {
		errs = append(errs, errors.New("admin: nil Keys"))
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
	return &Handlers{Deps: d, cop: http.NewCrossOriginProtection()}, nil
}

// PageCSP is the admin's Content-Security-Policy: its own stylesheet and
// icon and nothing else, no framing, forms only to itself.
const PageCSP = "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'"

// guard sets the headers every admin answer carries and refuses an unsafe
// method from another origin (net/http's CrossOriginProtection decides:
// Sec-Fetch-Site, else Origin against Host; a request with neither passes).
func (h *Handlers) guard(w http.ResponseWriter, r *http.Request) error {
	hd := w.Header()
	hd.Set("Content-Security-Policy", PageCSP)
	hd.Set("Cache-Control", "no-store")
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("Referrer-Policy", "no-referrer")
	hd.Set("X-Frame-Options", "DENY")
	hd.Del("Access-Control-Allow-Origin")
	hd.Del("Access-Control-Expose-Headers")
	if err := h.cop.Check(r); err != nil {
		h.Logger.LogAttrs(r.Context(), slog.LevelWarn, "admin: cross-origin request refused", slog.String("method", r.Method), slog.String("path", r.URL.Path))
		return intake.Errorf(intake.CodeCrossOriginRefused, "This action is accepted from the admin's own pages only.")
	}
	return nil
}

// guarded wraps a route handler with guard.
func (h *Handlers) guarded(next jsonapi.Handler) jsonapi.Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		if err := h.guard(w, r); err != nil {
			return err
		}
		return next(w, r)
	}
}

// Name is the function's entry point.
const Name = "Admin"

// Routes are the function's rows of the route table, answered by h: its
// JSON (which returns its refusals as problem+json), then its pages (HTML,
// refusals included; no script, their own CSP). Each one sets the admin's
// own headers over the API edge's and refuses an unsafe method from
// another origin before doing anything.
func Routes(h *Handlers) []jsonapi.Route {
	rows := []jsonapi.Route{
		{Pattern: "GET /admin/api/introductions", Handle: h.apiList},
		{Pattern: "GET /admin/api/introductions/{id}", Handle: h.apiDetail},
		{Pattern: "POST /admin/api/introductions/{id}/handled", Handle: h.apiHandled},
		{Pattern: "POST /admin/api/introductions/{id}/spam", Handle: h.apiSpam},
		{Pattern: "POST /admin/api/spam/erasure", Handle: h.apiSpamErasure},
		{Pattern: "POST /admin/api/deliveries/{envelopeId}/retry", Handle: h.apiRetry},
		{Pattern: "GET /admin/api/subjects", Handle: h.apiSubject},
		{Pattern: "POST /admin/api/subjects/erasure", Handle: h.apiErasure},
		{Pattern: "GET /admin/api/health", Handle: h.apiHealth},
		{Pattern: "GET /admin/api/ledger", Handle: h.apiLedger},
		{Pattern: "GET /admin", Handle: home},
		{Pattern: "GET /admin/{$}", Handle: h.pageList},
		{Pattern: "GET /admin/introductions/{id}", Handle: h.pageDetail},
		{Pattern: "GET /admin/introductions/{id}/attachment", Handle: h.download},
		{Pattern: "POST /admin/introductions/{id}/handled", Handle: h.pageHandled},
		{Pattern: "POST /admin/introductions/{id}/spam", Handle: h.pageSpam},
		{Pattern: "POST /admin/spam/erasure", Handle: h.pageSpamErasure},
		{Pattern: "POST /admin/deliveries/{envelopeId}/retry", Handle: h.pageRetry},
		{Pattern: "GET /admin/subjects", Handle: h.pageSubjectForm},
		{Pattern: "POST /admin/subjects", Handle: h.pageSubject},
		{Pattern: "POST /admin/subjects/export", Handle: h.pageExport},
		{Pattern: "POST /admin/subjects/erasure", Handle: h.pageErasure},
		{Pattern: "GET /admin/retention", Handle: h.pageRetention},
		{Pattern: "GET /admin/ledger/export", Handle: h.pageLedgerExport},
		{Pattern: "GET /admin/assets/admin.css", Handle: serveCSS},
		{Pattern: "GET /admin/assets/icon.svg", Handle: serveIcon},
	}
	for i := range rows {
		rows[i].Handle = h.guarded(rows[i].Handle)
	}
	return rows
}

// home sends /admin to the list.
func home(w http.ResponseWriter, r *http.Request) error {
	http.Redirect(w, r, "/admin/", http.StatusMovedPermanently)
	return nil
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
	if r.Header.Get("Authorization") == "" {
		return LocalOwner
	}
	parts := strings.Split(jsonapi.BearerToken(r), ".")
	if len(parts) < 2 {
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
func (h *Handlers) logAction(r *http.Request, action string, err error, attrs ...slog.Attr) {
	attrs = append(attrs, slog.String("action", action), slog.String("code", string(intake.CodeOf(err))))
	level := slog.LevelInfo
	if c := intake.CodeOf(err); c == intake.CodeUnavailable || c == intake.CodeInternal {
		level = slog.LevelError
	}
	h.Logger.LogAttrs(r.Context(), level, "admin action", attrs...)
}
