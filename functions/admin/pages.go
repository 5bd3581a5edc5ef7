package admin

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"html/template"
	"log/slog"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/ownersite/introductions/shared/attachment"
	"github.com/ownersite/introductions/shared/formregistry"
	"github.com/ownersite/introductions/shared/intake"
	"github.com/ownersite/introductions/shared/jsonapi"
)

//go:embed templates/*.html
var templateFS embed.FS

//go:embed assets/admin.css
var css []byte

//go:embed assets/icon.svg
var icon []byte

// asset serves body as contentType.
func asset(contentType string, body []byte) jsonapi.Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		w.Header().Set("Content-Type", contentType)
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		w.Write(body)
		return nil
	}
}

var funcs = template.FuncMap{
	"when": func(t time.Time) string {
		if t.IsZero() {
			return "—"
		}
		return t.UTC().Format("2 Jan 2006, 15:04 UTC")
	},
	"whenShort": func(t time.Time) string { return t.UTC().Format("2 Jan 2006, 15:04") },
	"language":  func(lang string) string { return formregistry.LanguageName(lang, formregistry.OwnerLang) },
	"iso":       func(t time.Time) string { return t.UTC().Format(time.RFC3339) },
	"lower":     func(s any) string { return strings.ToLower(fmt.Sprint(s)) },
	"label":     func(s any) string { return strings.ReplaceAll(strings.ToLower(fmt.Sprint(s)), "_", " ") },
	"short": func(s string) string {
		if len(s) > 12 {
			return s[:12] + "…"
		}
		return s
	},
	"seconds": func(n int64) string {
		if n%3600 == 0 {
			return strconv.FormatInt(n/3600, 10) + " h"
		}
		if n%60 == 0 {
			return strconv.FormatInt(n/60, 10) + " min"
		}
		return strconv.FormatInt(n, 10) + " s"
	},
	"px":    func(f float64) string { return strconv.FormatFloat(f, 'f', 1, 64) },
	"minus": func(a, b int) int { return a - b },
	"deref": func(b *bool) bool { return b != nil && *b },
	"ms": func(d time.Duration) string {
		if d < time.Second {
			return strconv.FormatInt(d.Milliseconds(), 10) + " ms"
		}
		return strconv.FormatFloat(d.Seconds(), 'f', -1, 64) + " s"
	},
	"handoff": func(l intake.LedgerEntry, receipts bool) string {
		s, _ := handoffSummary(l, receipts)
		return s
	},
	"size":      attachment.HumanSize,
	"chars":     utf8.RuneCountInString,
	"retryable": retryable,
	"mailto":    mailto,
	"since": func(a, b time.Time) string {
		if a.IsZero() || b.IsZero() {
			return "—"
		}
		return b.Sub(a).Round(time.Millisecond).String()
	},
	"keys": func(m map[string]int) []string { return slices.Sorted(maps.Keys(m)) },
}

// mailto is the Reply-to link of an address, only ever its recipient: every
// byte but an unreserved one (RFC 3986) and the last @ is percent-encoded.
func mailto(address string) template.URL {
	at := strings.LastIndexByte(address, '@')
	var b strings.Builder
	b.WriteString("mailto:")
	for i := 0; i < len(address); i++ {
		c := address[i]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("-._~", c) >= 0 || i == at {
			b.WriteByte(c)
			continue
		}
		fmt.Fprintf(&b, "%%%02X", c)
	}
	return template.URL(b.String())
}

// pages holds one template set per page, each with the shared layout,
// parsed on the first page rendered, not at start-up.
var pages = sync.OnceValue(func() map[string]*template.Template {
	out := map[string]*template.Template{}
	for _, name := range []string{"list", "detail", "subjects", "erasure", "spamerasure", "retention", "problem", "gone"} {
		out[name] = template.Must(template.New("layout.html").Funcs(funcs).ParseFS(templateFS, "templates/layout.html", "templates/"+name+".html"))
	}
	return out
})

// page is what every page template gets.
type page struct {
	Title, Nav, Notice, Problem string
	Data                        any
}

// render writes a page, or a plain 500 if the template fails; either way the
// answer is written, and it returns nil.
func (h *Handlers) render(w http.ResponseWriter, r *http.Request, status int, name string, p page) error {
	var buf bytes.Buffer
	if err := pages()[name].Execute(&buf, p); err != nil {
		h.Logger.LogAttrs(r.Context(), slog.LevelError, "admin: rendering a page failed", slog.String("page", name), slog.String("cause", err.Error()))
		http.Error(w, "The page could not be rendered.", http.StatusInternalServerError)
		return nil
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Content-Length", strconv.Itoa(buf.Len()))
	w.WriteHeader(status)
	w.Write(buf.Bytes())
	return nil
}

// problemPage answers err as a page: its status, its safe detail.
func (h *Handlers) problemPage(w http.ResponseWriter, r *http.Request, err error) {
	e := intake.AsError(err)
	p := jsonapi.ProblemFor(e)
	if e.Cause != nil {
		h.Logger.LogAttrs(r.Context(), slog.LevelWarn, "admin: request failed", slog.String("code", string(e.Code)), slog.String("cause", e.Cause.Error()))
	}
	if p.Status == http.StatusServiceUnavailable {
		w.Header().Set("Retry-After", "5")
	}
	title, detail := p.Title, p.Detail
	if e.Code == intake.CodeNotFound {
		title = "No such introduction"
	}
	if strings.TrimSuffix(detail, ".") == title {
		detail = "" // the heading says it already
	}
	h.render(w, r, p.Status, "problem", page{Title: title, Problem: detail, Data: p})
}

// listData is the list page.
type listData struct {
	// NoReceipt is true when a row's email is accepted and no receipt can come.
	Receipts, NoReceipt bool
	Waiting             int
	Filter              string // the folder shown, "" for all
	Filters             []filterTab
	Rows                []intake.Record
	Next                string
	FirstPage           bool
	Chart               chart
	Solves              solveFigures
	LastRun             *intake.SweepRun
}

type filterTab struct {
	Filter, Label, Href string
	Current             bool
}

func filterTabs(current string) []filterTab {
	out := []filterTab{{Label: "All", Href: "/admin/", Current: current == ""}}
	for _, f := range filters {
		out = append(out, filterTab{Filter: f, Label: folderLabels[f], Href: "/admin/?filter=" + f, Current: f == current})
	}
	return out
}

// folderLabels name the folders as the pages do.
var folderLabels = map[string]string{intake.FolderInbox: "Inbox", intake.FolderLikelySpam: "Likely spam", intake.FolderSpam: "Spam"}

func (h *Handlers) pageList(w http.ResponseWriter, r *http.Request) error {
	recs, next, err := h.list(r)
	if err != nil {
		return err
	}
	filter, _ := listFilter(r)
	d := listData{Rows: recs, Next: next, FirstPage: r.URL.Query().Get("cursor") == "", Receipts: h.Receipts,
		Filter: filter, Filters: filterTabs(filter)}
	for _, rec := range recs {
		if _, accepted := handoffSummary(rec.Ledger, h.Receipts); accepted && !h.Receipts {
			d.NoReceipt = true
		}
	}
	if d.Waiting, err = h.Store.CountWaiting(r.Context()); err != nil {
		return err
	}
	days := chartDays(h.Clock.Now())
	kept, err := h.Store.DailyFigures(r.Context(), days)
	if err != nil {
		return err
	}
	d.Chart = buildChart(days, kept)
	d.Solves = buildSolveFigures(days, kept, h.Solves)
	runs, err := h.Store.LastRuns(r.Context(), 1)
	if err != nil {
		return err
	}
	if len(runs) > 0 {
		d.LastRun = &runs[0]
	}
	title := "Introductions"
	if filter != "" {
		title += ": " + folderLabels[filter]
	}
	return h.render(w, r, http.StatusOK, "list", page{Title: title, Nav: "list", Notice: notices[r.URL.Query().Get("done")], Data: d})
}

// handoffSummary says in a few words where a confirmed introduction went;
// accepted is true when its email stands ACCEPTED with nothing else waiting
// or failed.
func handoffSummary(l intake.LedgerEntry, receipts bool) (summary string, accepted bool) {
	switch l.Decision {
	case intake.DecisionHandoffComplete:
		return "delivered", false
	case intake.DecisionHandoffPending:
	default:
		return strings.ReplaceAll(strings.ToLower(string(l.Decision)), "_", " "), false
	}
	var parts []string
	emailAccepted, other := false, false
	for _, h := range l.Handoffs {
		if h.Event != intake.EventConfirmed || h.Destination == intake.DestinationInbox {
			continue
		}
		switch {
		case h.Destination == intake.DestinationEmail && h.Status == intake.DeliveryAccepted && receipts:
			parts = append(parts, "emailed — accepted by your mail server, waiting for its delivery receipt")
			other = true
		case h.Destination == intake.DestinationEmail && h.Status == intake.DeliveryAccepted:
			parts = append(parts, "emailed — accepted by your mail server; delivery receipts are not configured")
			emailAccepted = true
		case h.Status == intake.DeliveryDelivered:
			parts = append(parts, string(h.Destination)+" delivered")
		case h.Status == intake.DeliveryFailed:
			parts = append(parts, string(h.Destination)+" failed — open it to retry")
			other = true
		case h.Status == intake.DeliveryRetryPending:
			parts = append(parts, string(h.Destination)+" not taken yet — retrying")
			other = true
		default:
			parts = append(parts, string(h.Destination)+" being sent")
			other = true
		}
	}
	if len(parts) == 0 {
		return "handoff pending", false
	}
	return strings.Join(parts, "; "), emailAccepted && !other
}

// detailData is the detail page.
type detailData struct {
	Record    intake.Record
	CanHandle bool
	Signals   []string
}

var notices = map[string]string{
	"handled":  "Marked handled.",
	"retried":  "The delivery is being attempted again now.",
	"spam":     "Marked spam: it is filed under Spam and no longer counts as waiting.",
	"not-spam": "Marked not spam: it is filed in the inbox.",
}

func (h *Handlers) pageDetail(w http.ResponseWriter, r *http.Request) error {
	rec, err := h.Store.Record(r.Context(), r.PathValue("id"), h.Clock.Now())
	if intake.CodeOf(err) == intake.CodeNotFound {
		if entry, terr := h.Store.Tombstone(r.Context(), r.PathValue("id")); terr == nil {
			return h.renderGone(w, r, entry)
		}
	}
	if err != nil {
		return err
	}
	return h.renderDetail(w, r, http.StatusOK, rec, notices[r.URL.Query().Get("done")], "")
}

// goneData is the page of a withdrawn (or Erased) introduction.
type goneData struct {
	Erased         bool
	ReceivedAt, At time.Time
}

// renderGone answers 410 Gone for a withdrawn or erased introduction.
func (h *Handlers) renderGone(w http.ResponseWriter, r *http.Request, entry intake.LedgerEntry) error {
	d := goneData{ReceivedAt: entry.ConfirmedAt}
	title := "Introduction withdrawn"
	if entry.Erasure != nil {
		d.Erased, d.At, title = true, entry.Erasure.At, "Introduction erased"
	} else {
		d.At = entry.Withdrawal.At
	}
	return h.render(w, r, http.StatusGone, "gone", page{Title: title, Nav: "list", Data: d})
}

func (h *Handlers) renderDetail(w http.ResponseWriter, r *http.Request, status int, rec intake.Record, notice, problem string) error {
	in := rec.Introduction
	title := in.Fields.Name
	if in.Fields.Company != "" {
		title += " — " + in.Fields.Company
	}
	_, canHandle := in.State.Next(intake.MoveHandle)
	return h.render(w, r, status, "detail", page{Title: title, Nav: "list", Notice: notice, Problem: problem,
		Data: detailData{Record: rec, CanHandle: canHandle == nil, Signals: spamSignals(rec.Ledger)}})
}

// afterAction redirects to the detail page after a POST that succeeded,
// shows it with a state conflict or outage, and returns any other refusal.
func (h *Handlers) afterAction(w http.ResponseWriter, r *http.Request, id, done string, err error) error {
	if err == nil {
		http.Redirect(w, r, "/admin/introductions/"+url.PathEscape(id)+"?done="+done, http.StatusSeeOther)
		return nil
	}
	e := intake.AsError(err)
	if e.Code != intake.CodeStateConflict && e.Code != intake.CodeUnavailable {
		return err
	}
	rec, rerr := h.Store.Record(r.Context(), id, h.Clock.Now())
	if rerr != nil {
		return err
	}
	return h.renderDetail(w, r, jsonapi.ProblemFor(e).Status, rec, "", e.Detail)
}

func (h *Handlers) pageHandled(w http.ResponseWriter, r *http.Request) error {
	_, err := h.handle(r)
	return h.afterAction(w, r, r.PathValue("id"), "handled", err)
}

// pageSpam is the detail page's "Mark spam" (spam=yes) and "Not spam" (spam=no).
func (h *Handlers) pageSpam(w http.ResponseWriter, r *http.Request) error {
	r.Body = http.MaxBytesReader(w, r.Body, 4<<10)
	done := map[string]string{"yes": "spam", "no": "not-spam"}[r.PostFormValue("spam")]
	if done == "" {
		return intake.Errorf(intake.CodeUnreadableBody, "The form must say spam=yes or spam=no.")
	}
	_, err := h.markSpam(r, done == "spam")
	return h.afterAction(w, r, r.PathValue("id"), done, err)
}

// spamErasureData is the bulk erasure's confirmation step (Count marked spam, Rows the
// newest of them) and its result.
type spamErasureData struct {
	Count, Erased int
	Rows          []intake.Record
	Done          bool
}

// pageSpamErasure asks for confirm=yes, then erases everything marked spam.
func (h *Handlers) pageSpamErasure(w http.ResponseWriter, r *http.Request) error {
	r.Body = http.MaxBytesReader(w, r.Body, 4<<10)
	if r.PostFormValue("confirm") != "yes" {
		n, err := h.Store.CountSpam(r.Context())
		if err != nil {
			return err
		}
		recs, _, err := h.Store.ListIntroductions(r.Context(), intake.FolderSpam, nil, PageSize, h.Clock.Now())
		if err != nil {
			return err
		}
		return h.render(w, r, http.StatusOK, "spamerasure", page{Title: "Erase everything marked spam?", Nav: "list",
			Data: spamErasureData{Count: n, Rows: recs}})
	}
	n, err := h.eraseSpam(r)
	if err != nil {
		return err
	}
	return h.render(w, r, http.StatusOK, "spamerasure", page{Title: "Spam erased", Nav: "list",
		Notice: fmt.Sprintf("Erased %d %s marked spam. The ledger keeps a content-free tombstone for each.", n, plural(n, "introduction", "introductions")),
		Data:   spamErasureData{Done: true, Erased: n}})
}

func (h *Handlers) pageRetry(w http.ResponseWriter, r *http.Request) error {
	env, err := h.retry(r)
	if env.SubmissionID == "" {
		return err
	}
	return h.afterAction(w, r, env.SubmissionID, "retried", err)
}

// subjectData is the data subject's page.
type subjectData struct {
	Email          string
	Searched, Done bool
	Records        []intake.Record
	Erased         int
}

func (h *Handlers) pageSubjectForm(w http.ResponseWriter, r *http.Request) error {
	return h.render(w, r, http.StatusOK, "subjects", page{Title: "A data subject's requests", Nav: "subjects", Data: subjectData{}})
}

// formEmail reads the email field of a posted form.
func formEmail(w http.ResponseWriter, r *http.Request) string {
	r.Body = http.MaxBytesReader(w, r.Body, 4<<10)
	return strings.TrimSpace(r.PostFormValue("email"))
}

func (h *Handlers) pageSubject(w http.ResponseWriter, r *http.Request) error {
	email := formEmail(w, r)
	recs, err := h.subject(r, email)
	if e := intake.AsError(err); err != nil && e.Code == intake.CodeEmailInvalid {
		return h.render(w, r, http.StatusUnprocessableEntity, "subjects", page{Title: "A data subject's requests", Nav: "subjects", Problem: e.Fields[0].Detail, Data: subjectData{Email: email}})
	}
	if err != nil {
		return err
	}
	return h.render(w, r, http.StatusOK, "subjects", page{Title: "A data subject's requests", Nav: "subjects",
		Data: subjectData{Email: email, Searched: true, Records: recs}})
}

// pageExport answers the data subject's export as a JSON download.
func (h *Handlers) pageExport(w http.ResponseWriter, r *http.Request) error {
	email := formEmail(w, r)
	recs, err := h.subject(r, email)
	if err != nil {
		return err
	}
	body, err := json.MarshalIndent(subjectOf(email, recs), "", "  ")
	if err != nil {
		return intake.Internal(err)
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Disposition", `attachment; filename="data-subject-export-`+h.Clock.Now().UTC().Format("2006-01-02")+`.json"`)
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.Write(body)
	return nil
}

// pageErasure asks for confirm=yes, then erases.
func (h *Handlers) pageErasure(w http.ResponseWriter, r *http.Request) error {
	email := formEmail(w, r)
	if r.PostFormValue("confirm") != "yes" {
		recs, err := h.subject(r, email)
		if err != nil {
			return err
		}
		return h.render(w, r, http.StatusOK, "erasure", page{Title: "Erase everything held about this address?", Nav: "subjects",
			Data: subjectData{Email: email, Searched: true, Records: recs}})
	}
	n, err := h.erase(r, email)
	if err != nil {
		return err
	}
	return h.render(w, r, http.StatusOK, "subjects", page{Title: "A data subject's requests", Nav: "subjects",
		Notice: fmt.Sprintf("Erased %d %s. The ledger keeps a content-free tombstone for each.", n, plural(n, "introduction", "introductions")),
		Data:   subjectData{Email: email, Erased: n, Done: true}})
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func (h *Handlers) pageRetention(w http.ResponseWriter, r *http.Request) error {
	hl, err := h.health(r, RecentRuns)
	if err != nil {
		return err
	}
	today := h.Clock.Now().UTC()
	hl.LedgerFrom, hl.LedgerTo = today.AddDate(0, 0, -29).Format(time.DateOnly), today.Format(time.DateOnly)
	return h.render(w, r, http.StatusOK, "retention", page{Title: "Retention", Nav: "retention", Data: hl})
}
