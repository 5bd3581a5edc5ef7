// Package admin is the owner's side of the service: the Admin function's
// pages under /admin/ and its JSON under /admin/api/. It is private (Cloud
// Run IAM), refuses every cross-origin POST, serves pages without script,
// and logs ids, routes, codes and counts only. README.md says what the owner
// can do and why.
package admin

import (
	"cmp"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/ownersite/introductions/shared/attachment"
	"github.com/ownersite/introductions/shared/formregistry"
	"github.com/ownersite/introductions/shared/intake"
	"github.com/ownersite/introductions/shared/jsonapi"
)

// PageSize is how many introductions one page of the list holds.
const PageSize = 50

// RecentRuns is how many sweep runs the retention page shows.
const RecentRuns = 10

// Store is what the admin reads and writes. Errors: NOT_FOUND for an
// unknown, expired or draft id, STATE_CONFLICT for a move the state
// refuses, UNAVAILABLE for an outage.
type Store interface {
	// ListIntroductions returns a page of confirmed introductions of folder ("" for all,
	// intake.FolderWaiting for those waiting), newest first, after pos, and where the next page
	// starts (nil at the end).
	ListIntroductions(ctx context.Context, folder string, after *intake.ListPosition, limit int, now time.Time) ([]intake.Record, *intake.ListPosition, error)
	// CountWaiting counts the introductions not handled and not marked spam.
	CountWaiting(ctx context.Context) (int, error)
	// MarkSpam keeps the owner's word and records actor in the ledger.
	MarkSpam(ctx context.Context, id, actor string, spam bool, now time.Time) (*intake.Introduction, error)
	// CountSpam counts the introductions the owner marked spam.
	CountSpam(ctx context.Context) (int, error)
	// EraseSpam erases, as EraseSubject does, every introduction marked spam.
	EraseSpam(ctx context.Context, e intake.ErasureRecord, notices func(id string) []intake.Envelope) (erased, sent []string, err error)
	// Record returns everything held about one confirmed introduction.
	Record(ctx context.Context, id string, now time.Time) (intake.Record, error)
	// MarkOpened records the first opening by actor (nil, nil when it was opened before).
	MarkOpened(ctx context.Context, id, actor string, now time.Time) (*intake.Introduction, error)
	// MarkHandled applies the handle move and records actor in the ledger.
	MarkHandled(ctx context.Context, id, actor string, now time.Time) (*intake.Introduction, error)
	// Envelope returns one live envelope of the handoff outbox.
	Envelope(ctx context.Context, id string, now time.Time) (intake.Envelope, error)
	// RecordAdminAction appends a to the ledger entry of submission id.
	RecordAdminAction(ctx context.Context, id string, a intake.AdminAction) error
	// SubjectRecords returns every live record (drafts included) of one data subject.
	SubjectRecords(ctx context.Context, q intake.SubjectQuery, now time.Time) ([]intake.Record, error)
	// EraseSubject erases every introduction of one data subject, expired ones too, leaving
	// tombstones and writing notices' envelopes for each; it says what it erased and wrote.
	EraseSubject(ctx context.Context, q intake.SubjectQuery, e intake.ErasureRecord, notices func(id string) []intake.Envelope) (erased, sent []string, err error)
	// Tombstone returns a withdrawn or erased introduction's ledger entry; NOT_FOUND otherwise.
	Tombstone(ctx context.Context, id string) (intake.LedgerEntry, error)
	// LedgerEntries hands the live ledger entries of [from, to) to page, oldest first; page's
	// error stops it and is returned.
	LedgerEntries(ctx context.Context, from, to, now time.Time, page func([]intake.LedgerEntry) error) error
	// LastRuns returns the n most recent sweep runs, newest first.
	LastRuns(ctx context.Context, n int) ([]intake.SweepRun, error)
	// DailyFigures returns the kept figures of the given days by day.
	DailyFigures(ctx context.Context, days []string) (map[string]intake.DailyFigures, error)
	// ExportIntroductions returns folder's introductions confirmed in [from, to), newest first,
	// after recording a (its Target completed with how many) in each one's ledger entry.
	ExportIntroductions(ctx context.Context, folder string, from, to, now time.Time, a intake.AdminAction) ([]intake.Record, error)
}

// SolveTarget is POW_MAX_NUMBER and the 90th-percentile solve time wanted at it.
type SolveTarget struct {
	MaxNumber int64
	TargetP90 time.Duration
}

// Retrier sends one envelope again now. Errors: NOT_FOUND, STATE_CONFLICT, UNAVAILABLE.
type Retrier interface {
	RetryNow(ctx context.Context, envelopeID string) error
}

// Notifier makes (Outbox) and sends (Dispatch) an erasure's withdrawal notices.
type Notifier interface {
	Outbox(submissionID, event string, prov intake.Provenance) []intake.Envelope
	Dispatch(envelopeIDs []string)
}

// Scheduler reads the Cloud Scheduler job that calls the sweep; on error the job shows as unreadable.
type Scheduler interface {
	Status(ctx context.Context) (intake.SchedulerStatus, error)
}

// Deps are the admin's dependencies.
type Deps struct {
	// What the owner reads and acts on. Retrier nil: a retry answers 503
	// UNAVAILABLE; Notifier nil: an erasure notifies no one; Scheduler nil:
	// no scheduler job is configured, and the admin says so; Files nil: a
	// download answers 503 and an erasure leaves the files to the sweep.
	Store     Store
	Retrier   Retrier
	Notifier  Notifier
	Scheduler Scheduler
	Files     attachment.Files

	// How it is shown: Lang is the owner's language (OWNER_LANGUAGE; "" is
	// English), Zone their time zone (OWNER_TIME_ZONE; nil is UTC), Solves
	// what the suggested cost aims at (zero: no suggestion), Receipts true
	// when delivery events can move an email past ACCEPTED.
	Lang     string
	Zone     *time.Location
	Solves   SolveTarget
	Receipts bool

	// Keys sign the list's cursors (under CursorPurpose).
	Keys   intake.Keyring
	Clock  intake.Clock
	Logger *slog.Logger
}

// Handlers are the admin's route handlers (see Routes).
type Handlers struct {
	Deps
	cop   *http.CrossOriginProtection
	words words
	pages func() map[string]*template.Template
}

// New returns the admin's handlers. It refuses a missing store, keys,
// clock or logger, and a language the catalogues lack.
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
	w := words{zone: cmp.Or(d.Zone, time.UTC)}
	var ok bool
	if w.l, ok = formregistry.LanguageOf(cmp.Or(d.Lang, formregistry.DefaultLang)); !ok || w.l.Owner == nil {
		errs = append(errs, fmt.Errorf("admin: no owner's sentences in language %q", d.Lang))
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	h := &Handlers{Deps: d, cop: http.NewCrossOriginProtection(), words: w}
	h.pages = sync.OnceValue(h.templates)
	return h, nil
}

// PageCSP is the admin's Content-Security-Policy: its own stylesheet and
// icon and nothing else, no framing, forms only to itself.
const PageCSP = "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'"

// guard sets the headers every admin answer carries and refuses an unsafe
// method from another origin (as net/http's CrossOriginProtection decides).
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

// Name is the function's entry point.
const Name = "Admin"

// Routes are the function's rows of the route table, answered by h: its
// JSON (refusals as problem+json), then its pages (refusals as pages). Each
// one sets the admin's own headers and refuses an unsafe method from another
// origin before doing anything.
func Routes(h *Handlers) []jsonapi.Route {
	// pg answers a page's refusal as a page.
	pg := func(f jsonapi.Handler) jsonapi.Handler {
		return func(w http.ResponseWriter, r *http.Request) error {
			if err := f(w, r); err != nil {
				h.problemPage(w, r, err)
			}
			return nil
		}
	}
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
		{Pattern: "GET /admin/api/ledger", Handle: func(w http.ResponseWriter, r *http.Request) error { return h.exportLedger(w, r, false) }},
		{Pattern: "GET /admin", Handle: home},
		{Pattern: "GET /admin/{$}", Handle: pg(h.pageList)},
		{Pattern: "GET /admin/figures", Handle: pg(h.pageFigures)},
		{Pattern: "GET /admin/introductions/{id}", Handle: pg(h.pageDetail)},
		{Pattern: "GET /admin/introductions/export", Handle: pg(h.exportIntroductions)},
		{Pattern: "GET /admin/introductions/{id}/attachment", Handle: h.download},
		{Pattern: "POST /admin/introductions/{id}/handled", Handle: pg(h.pageHandled)},
		{Pattern: "POST /admin/introductions/{id}/spam", Handle: pg(h.pageSpam)},
		{Pattern: "POST /admin/spam/erasure", Handle: pg(h.pageSpamErasure)},
		{Pattern: "POST /admin/deliveries/{envelopeId}/retry", Handle: pg(h.pageRetry)},
		{Pattern: "GET /admin/subjects", Handle: pg(h.pageSubject)},
		{Pattern: "POST /admin/subjects", Handle: pg(h.pageSubject)},
		{Pattern: "POST /admin/subjects/export", Handle: pg(h.pageExport)},
		{Pattern: "POST /admin/subjects/erasure", Handle: pg(h.pageErasure)},
		{Pattern: "GET /admin/retention", Handle: pg(h.pageRetention)},
		{Pattern: "GET /admin/ledger/export", Handle: pg(func(w http.ResponseWriter, r *http.Request) error { return h.exportLedger(w, r, true) })},
		{Pattern: "GET /admin/assets/admin.css", Handle: asset("text/css; charset=utf-8", css)},
		{Pattern: "GET /admin/assets/icon.svg", Handle: asset("image/svg+xml", icon)},
	}
	for i := range rows {
		next := rows[i].Handle
		rows[i].Handle = func(w http.ResponseWriter, r *http.Request) error {
			if err := h.guard(w, r); err != nil {
				return err
			}
			return next(w, r)
		}
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

// actor names who made the request, for the ledger (never logged): the
// email claim of the identity token Cloud Run IAM verified, LocalOwner
// without a token, "unidentified caller" for a token without an email.
func actor(r *http.Request) string {
	if r.Header.Get("Authorization") == "" {
		return LocalOwner
	}
	_, rest, ok := strings.Cut(jsonapi.BearerToken(r), ".")
	claim, _, _ := strings.Cut(rest, ".")
	payload, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(claim, "="))
	var claims struct {
		Email string `json:"email"`
	}
	if !ok || err != nil || json.Unmarshal(payload, &claims) != nil || claims.Email == "" || len(claims.Email) > intake.MaxStoredLabel {
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
