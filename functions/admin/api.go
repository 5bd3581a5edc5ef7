package admin

import (
	"errors"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ownersite/introductions/shared/attachment"
	"github.com/ownersite/introductions/shared/contentrules"
	"github.com/ownersite/introductions/shared/intake"
	"github.com/ownersite/introductions/shared/jsonapi"
	"github.com/ownersite/introductions/shared/spamsignals"
)

// listItem is one row of GET /admin/api/introductions.
type listItem struct {
	ID          string          `json:"id"`
	State       intake.State    `json:"state"`
	Name        string          `json:"name"`
	Company     string          `json:"company"`
	Email       string          `json:"email"`
	ConfirmedAt time.Time       `json:"confirmedAt"`
	HandledAt   *time.Time      `json:"handledAt"`
	Decision    intake.Decision `json:"decision"`
	Folder      string          `json:"folder"` // inbox, likely-spam or spam
	LikelySpam  bool            `json:"likelySpam"`
	Spam        *bool           `json:"spam"`
}

type listAnswer struct {
	Introductions []listItem `json:"introductions"`
	Next          string     `json:"next"`
}

// detail is GET /admin/api/introductions/{id}, and one introduction of a
// data subject's export.
type detail struct {
	ID           string                   `json:"id"`
	State        intake.State             `json:"state"`
	FormID       string                   `json:"formId"`
	FormVersion  string                   `json:"formVersion"`
	Lang         string                   `json:"lang"`
	Introduction intake.Fields            `json:"introduction"`
	Conversation string                   `json:"conversation"`
	Attachment   *intake.Attachment       `json:"attachment"`
	Consents     []intake.ConsentEvidence `json:"consents"`
	// Signals are the spam signals, LikelySpam their verdict, Spam the owner's word (null until said).
	Signals    []string           `json:"signals"`
	LikelySpam bool               `json:"likelySpam"`
	Spam       *bool              `json:"spam"`
	Ledger     intake.LedgerEntry `json:"ledger"`
	Deliveries []delivery         `json:"deliveries"`
}

type delivery struct {
	EnvelopeID    string                   `json:"envelopeId"`
	Destination   intake.Destination       `json:"destination"`
	Status        intake.DeliveryStatus    `json:"status"`
	Attempts      []intake.DeliveryAttempt `json:"attempts"`
	NextAttemptAt *time.Time               `json:"nextAttemptAt"`
}

func timeOrNil(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	return &t
}

func detailOf(rec intake.Record) detail {
	in := rec.Introduction
	d := detail{
		ID: in.ID, State: in.State, FormID: in.FormID, FormVersion: in.FormVersion, Lang: in.Lang,
		Introduction: in.Fields, Conversation: rec.Conversation, Attachment: in.Attachment, Consents: in.Consents,
		Signals: spamSignals(rec.Ledger), LikelySpam: in.LikelySpam, Spam: in.Spam,
		Ledger: rec.Ledger, Deliveries: make([]delivery, 0, len(rec.Envelopes)),
	}
	if d.Consents == nil {
		d.Consents = []intake.ConsentEvidence{}
	}
	for _, e := range rec.Envelopes {
		attempts := e.Attempts
		if attempts == nil {
			attempts = []intake.DeliveryAttempt{}
		}
		d.Deliveries = append(d.Deliveries, delivery{EnvelopeID: e.ID, Destination: e.Destination, Status: e.Status,
			Attempts: attempts, NextAttemptAt: timeOrNil(e.NextAttemptAt)})
	}
	return d
}

// spamSignals are the ledger entry's abuse signals that are spam signals.
func spamSignals(l intake.LedgerEntry) []string {
	out := []string{}
	for _, s := range l.Abuse.Signals {
		if spamsignals.Known(s) {
			out = append(out, s)
		}
	}
	return out
}

// filterAll is the ?filter= of every introduction, as no filter is.
const filterAll = "all"

// listFilter reads ?filter=: "" for every folder (absent or all), else one of pageFilters;
// FILTER_INVALID for anything else.
func listFilter(r *http.Request) (string, error) {
	f := r.URL.Query().Get("filter")
	if f == "" || f == filterAll {
		return "", nil
	}
	if slices.Contains(pageFilters, f) {
		return f, nil
	}
	return "", intake.Errorf(intake.CodeFilterInvalid, "The list's filter is waiting, inbox, likely-spam, spam or all (the same as none).")
}

func (h *Handlers) list(r *http.Request) ([]intake.Record, string, error) {
	folder, err := listFilter(r)
	if err != nil {
		return nil, "", err
	}
	after, err := h.decodeCursor(r.URL.Query().Get("cursor"))
	if err != nil {
		return nil, "", err
	}
	recs, next, err := h.Store.ListIntroductions(r.Context(), folder, after, PageSize, h.Clock.Now())
	return recs, h.encodeCursor(next), err
}

func (h *Handlers) apiList(w http.ResponseWriter, r *http.Request) error {
	recs, next, err := h.list(r)
	if err != nil {
		return err
	}
	out := listAnswer{Introductions: make([]listItem, 0, len(recs)), Next: next}
	for _, rec := range recs {
		in := rec.Introduction
		out.Introductions = append(out.Introductions, listItem{ID: in.ID, State: in.State, Name: in.Fields.Name,
			Company: in.Fields.Company, Email: in.Fields.Email, ConfirmedAt: in.ConfirmedAt,
			HandledAt: timeOrNil(in.HandledAt), Decision: rec.Ledger.Decision,
			Folder: in.Folder(), LikelySpam: in.LikelySpam, Spam: in.Spam})
	}
	return answer(w, http.StatusOK, out)
}

func (h *Handlers) apiDetail(w http.ResponseWriter, r *http.Request) error {
	rec, err := h.Store.Record(r.Context(), r.PathValue("id"), h.Clock.Now())
	if err != nil {
		return err
	}
	return answer(w, http.StatusOK, detailOf(rec))
}

// handle applies the handle move for the request's actor.
func (h *Handlers) handle(r *http.Request) (*intake.Introduction, error) {
	id := r.PathValue("id")
	in, err := h.Store.MarkHandled(r.Context(), id, actor(r), h.Clock.Now())
	h.logAction(r, intake.ActionHandled, err, slog.String("introductionId", id))
	return in, err
}

func (h *Handlers) apiHandled(w http.ResponseWriter, r *http.Request) error {
	in, err := h.handle(r)
	if err != nil {
		return err
	}
	return answer(w, http.StatusOK, struct {
		ID        string       `json:"id"`
		State     intake.State `json:"state"`
		HandledAt time.Time    `json:"handledAt"`
	}{in.ID, in.State, in.HandledAt})
}

// markSpam keeps the owner's word on the request's introduction.
func (h *Handlers) markSpam(r *http.Request, spam bool) (*intake.Introduction, error) {
	id := r.PathValue("id")
	in, err := h.Store.MarkSpam(r.Context(), id, actor(r), spam, h.Clock.Now())
	action := intake.ActionMarkedNotSpam
	if spam {
		action = intake.ActionMarkedSpam
	}
	h.logAction(r, action, err, slog.String("introductionId", id))
	return in, err
}

func (h *Handlers) apiSpam(w http.ResponseWriter, r *http.Request) error {
	var req struct {
		Spam *bool `json:"spam"`
	}
	if err := jsonapi.ReadJSON(w, r, &req); err != nil {
		return err
	}
	if req.Spam == nil {
		return intake.Errorf(intake.CodeUnreadableBody, `The body must be {"spam": true} or {"spam": false}.`)
	}
	in, err := h.markSpam(r, *req.Spam)
	if err != nil {
		return err
	}
	return answer(w, http.StatusOK, struct {
		ID   string `json:"id"`
		Spam bool   `json:"spam"`
	}{in.ID, *in.Spam})
}

// eraseSpam erases everything the owner marked spam, as a data subject's erasure does.
func (h *Handlers) eraseSpam(r *http.Request) (int, error) {
	now := h.Clock.Now()
	erased, sent, err := h.Store.EraseSpam(r.Context(), intake.ErasureRecord{At: now, RequestedBy: actor(r), Reason: intake.ErasureReasonSpam}, h.notices(r, now))
	files := h.afterErasure(r, erased, sent)
	h.logAction(r, intake.ActionErasedSpam, err, slog.Int("erased", len(erased)), slog.Int("notices", len(sent)), slog.Int("attachments", files))
	return len(erased), err
}

func (h *Handlers) apiSpamErasure(w http.ResponseWriter, r *http.Request) error {
	var req struct {
		Confirm bool `json:"confirm"`
	}
	if err := jsonapi.ReadJSON(w, r, &req); err != nil {
		return err
	}
	if !req.Confirm {
		return intake.Errorf(intake.CodeUnreadableBody, `The body must be {"confirm": true}: the erasure cannot be undone.`)
	}
	n, err := h.eraseSpam(r)
	if err != nil {
		return err
	}
	return writeErased(w, n)
}

// retry sends an envelope again now, if its status allows it, and records
// the action in its submission's ledger entry. It returns the envelope.
func (h *Handlers) retry(r *http.Request) (env intake.Envelope, err error) {
	id := r.PathValue("envelopeId")
	defer func() {
		h.logAction(r, intake.ActionRetry, err, slog.String("envelopeId", id), slog.String("introductionId", env.SubmissionID))
	}()
	if env, err = h.Store.Envelope(r.Context(), id, h.Clock.Now()); err != nil {
		return env, err
	}
	if !retryable(env.Status) {
		return env, intake.Errorf(intake.CodeStateConflict, "This delivery is %s: there is nothing to retry.", env.Status)
	}
	if h.Retrier == nil {
		return env, intake.Unavailable(errors.New("no delivery service is wired"), 30*time.Second)
	}
	if err := h.Retrier.RetryNow(r.Context(), id); err != nil {
		return env, err
	}
	return env, h.Store.RecordAdminAction(r.Context(), env.SubmissionID,
		intake.AdminAction{At: h.Clock.Now(), Actor: actor(r), Action: intake.ActionRetry, Target: id})
}

// retryable reports whether a delivery in status s can be retried now.
func retryable(s intake.DeliveryStatus) bool {
	return s == intake.DeliveryFailed || s == intake.DeliveryRetryPending || s == intake.DeliveryPending
}

func (h *Handlers) apiRetry(w http.ResponseWriter, r *http.Request) error {
	env, err := h.retry(r)
	if err != nil {
		return err
	}
	return answer(w, http.StatusAccepted, struct {
		EnvelopeID string `json:"envelopeId"`
	}{env.ID})
}

// checkEmail refuses what cannot be an address as EMAIL_INVALID.
func checkEmail(email string) error {
	email = strings.TrimSpace(email)
	if email == "" || len(email) > intake.MaxStoredEmail || !strings.Contains(email, "@") {
		return intake.Invalid(intake.FieldError{Field: "email", Code: intake.CodeEmailInvalid, Detail: "Give the data subject's email address."})
	}
	return nil
}

// subject returns every record held about email.
func (h *Handlers) subject(r *http.Request, email string) ([]intake.Record, error) {
	if err := checkEmail(email); err != nil {
		return nil, err
	}
	recs, err := h.Store.SubjectRecords(r.Context(), contentrules.Subject(email), h.Clock.Now())
	h.logAction(r, "subject-access", err, slog.Int("introductions", len(recs)))
	return recs, err
}

type subjectAnswer struct {
	Email         string   `json:"email"`
	Introductions []detail `json:"introductions"`
}

func subjectOf(email string, recs []intake.Record) subjectAnswer {
	out := subjectAnswer{Email: email, Introductions: make([]detail, 0, len(recs))}
	for _, rec := range recs {
		out.Introductions = append(out.Introductions, detailOf(rec))
	}
	return out
}

func (h *Handlers) apiSubject(w http.ResponseWriter, r *http.Request) error {
	email := r.URL.Query().Get("email")
	recs, err := h.subject(r, email)
	if err != nil {
		return err
	}
	return answer(w, http.StatusOK, subjectOf(email, recs))
}

// erase erases everything held about email.
func (h *Handlers) erase(r *http.Request, email string) (int, error) {
	if err := checkEmail(email); err != nil {
		return 0, err
	}
	now := h.Clock.Now()
	erased, sent, err := h.Store.EraseSubject(r.Context(), contentrules.Subject(email), intake.ErasureRecord{
		At: now, RequestedBy: actor(r), Reason: "the data subject's erasure request"}, h.notices(r, now))
	files := h.afterErasure(r, erased, sent)
	h.logAction(r, intake.ActionErased, err, slog.Int("erased", len(erased)), slog.Int("notices", len(sent)), slog.Int("attachments", files))
	return len(erased), err
}

// notices makes an erasure's introduction.withdrawn notices (nil without a Notifier).
func (h *Handlers) notices(r *http.Request, now time.Time) func(string) []intake.Envelope {
	if h.Notifier == nil {
		return nil
	}
	prov := intake.Provenance{RequestID: jsonapi.RequestID(r), Time: now}
	return func(id string) []intake.Envelope { return h.Notifier.Outbox(id, intake.EventWithdrawn, prov) }
}

// afterErasure sends the notices an erasure wrote and deletes the erased
// introductions' attachments; it returns how many files it deleted.
func (h *Handlers) afterErasure(r *http.Request, erased, sent []string) int {
	if h.Notifier != nil {
		h.Notifier.Dispatch(sent) // written even when a later introduction failed
	}
	files := 0
	for _, id := range erased {
		if h.Files != nil { // what fails here, the sweep deletes
			files += attachment.DeleteIntroduction(r.Context(), h.Files, h.Logger, id)
		}
	}
	return files
}

// download serves a confirmed introduction's attachment as a file to save, never to render;
// NOT_FOUND for an introduction without one.
func (h *Handlers) download(w http.ResponseWriter, r *http.Request) error {
	rec, err := h.Store.Record(r.Context(), r.PathValue("id"), h.Clock.Now())
	if err != nil {
		return err
	}
	a := rec.Introduction.Attachment
	if a == nil {
		return intake.ErrNotFound
	}
	if h.Files == nil {
		return intake.Unavailable(errors.New("admin: no attachments' bucket"), 0)
	}
	body, err := h.Files.Open(r.Context(), a.Object)
	if err != nil {
		return err
	}
	defer body.Close()
	hd := w.Header()
	hd.Set("Content-Type", a.Type)
	hd.Set("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": attachment.SaveName(rec.Introduction.ID, a.Name, a.Type)}))
	hd.Set("Content-Security-Policy", "sandbox")
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("Content-Length", strconv.FormatInt(a.Size, 10))
	w.WriteHeader(http.StatusOK)
	n, err := io.Copy(w, body)
	h.logAction(r, "attachment-downloaded", err, slog.String("introductionId", rec.Introduction.ID), slog.Int64("bytes", n))
	return nil // the answer has begun: a broken copy ends it short
}

func (h *Handlers) apiErasure(w http.ResponseWriter, r *http.Request) error {
	var req struct {
		Email string `json:"email"`
	}
	if err := jsonapi.ReadJSON(w, r, &req); err != nil {
		return err
	}
	n, err := h.erase(r, req.Email)
	if err != nil {
		return err
	}
	return writeErased(w, n)
}

// health is the last sweep runs and the scheduler.
type health struct {
	Runs      []intake.SweepRun
	Scheduler schedulerView
}

type schedulerView struct {
	Configured, Readable bool
	intake.SchedulerStatus
}

func (h *Handlers) health(r *http.Request, runs int) (out health, err error) {
	if out.Runs, err = h.Store.LastRuns(r.Context(), runs); err != nil || h.Scheduler == nil {
		return out, err
	}
	out.Scheduler.Configured = true
	st, err := h.Scheduler.Status(r.Context())
	if err != nil {
		h.Logger.LogAttrs(r.Context(), slog.LevelWarn, "admin: the scheduler job could not be read", slog.String("cause", err.Error()))
		return out, nil
	}
	out.Scheduler = schedulerView{Configured: true, Readable: true, SchedulerStatus: st}
	return out, nil
}

func (h *Handlers) apiHealth(w http.ResponseWriter, r *http.Request) error {
	hl, err := h.health(r, 1)
	if err != nil {
		return err
	}
	type sched struct {
		Configured  bool       `json:"configured"`
		Schedule    string     `json:"schedule"`
		LastAttempt *time.Time `json:"lastAttempt"`
		LastStatus  string     `json:"lastStatus"`
	}
	var out struct {
		Sweep struct {
			LastRun *intake.SweepRun `json:"lastRun"`
		} `json:"sweep"`
		Scheduler sched `json:"scheduler"`
	}
	if len(hl.Runs) > 0 {
		out.Sweep.LastRun = &hl.Runs[0]
	}
	s := hl.Scheduler
	if s.Configured && !s.Readable {
		s.LastStatus = "UNREADABLE"
	}
	out.Scheduler = sched{Configured: s.Configured, Schedule: s.Schedule, LastAttempt: timeOrNil(s.LastAttempt), LastStatus: s.LastStatus}
	return answer(w, http.StatusOK, out)
}

// writeErased answers an erasure with the count it deleted.
func writeErased(w http.ResponseWriter, n int) error {
	return answer(w, http.StatusOK, struct {
		Erased int `json:"erased"`
	}{n})
}

// answer writes v as JSON with status; it returns nil, the answer written.
func answer(w http.ResponseWriter, status int, v any) error {
	jsonapi.WriteJSON(w, status, v)
	return nil
}
