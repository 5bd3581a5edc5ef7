package admin

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"html"
	"html/template"
	"log/slog"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
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

// words are the owner's side's sentences in one language (the "owner" section of its
// catalogue, shared/formregistry/languages), with its digits, in the owner's time zone.
type words struct {
	l    *formregistry.Language
	zone *time.Location
}

// say fills the sentence key with args (name, value pairs; the value of "n" chooses a plural
// form); values are escaped unless already HTML. A key the catalogue lacks says its last part.
func (w words) say(key string, args ...any) template.HTML {
	s, ok := w.l.Owner[key]
	for i := 0; i+1 < len(args); i += 2 {
		if n, isInt := args[i+1].(int); args[i] == "n" && isInt {
			if one, has := w.l.Owner[key+".one"]; has && n == 1 {
				s, ok = one, true
			} else if other, has := w.l.Owner[key+".other"]; has {
				s, ok = other, true
			}
		}
	}
	if !ok {
		s = template.HTMLEscapeString(key[strings.LastIndexByte(key, '.')+1:])
	}
	for i := 0; i+1 < len(args); i += 2 {
		var v string
		switch a := args[i+1].(type) {
		case template.HTML:
			v = string(a)
		case int, int64:
			v = w.num(a)
		default:
			v = template.HTMLEscapeString(fmt.Sprint(a))
		}
		s = strings.ReplaceAll(s, "{"+fmt.Sprint(args[i])+"}", v)
	}
	return template.HTML(s)
}

// num writes the number n (any integer, or a string of ASCII digits) in the language's digits.
func (w words) num(n any) string { return w.l.Numerals(fmt.Sprint(n)) }

// day writes a day (a time, or YYYY-MM-DD) in the one date format, short without its year.
func (w words) day(d any, short bool) string {
	t, ok := d.(time.Time)
	if !ok {
		t, _ = time.Parse(time.DateOnly, fmt.Sprint(d))
	}
	key := "date.day"
	if short {
		key = "date.dayShort"
	}
	return string(w.say(key, "d", t.Day(), "month", w.say("month."+strconv.Itoa(int(t.Month()))), "y", t.Year()))
}

// when writes t in the owner's time zone as a <time> whose title is the same in UTC.
func (w words) when(t time.Time) template.HTML {
	if t.IsZero() {
		return "—"
	}
	at := func(t time.Time) string {
		return string(w.say("date.time", "day", w.day(t, false), "time", w.num(t.Format("15:04"))))
	}
	return template.HTML(fmt.Sprintf(`<time datetime="%s" title="%s UTC">%s</time>`, t.UTC().Format(time.RFC3339), at(t.UTC()), at(t.In(w.zone))))
}

func (w words) funcs() template.FuncMap {
	return template.FuncMap{
		"t":        w.say,
		"lang":     func() string { return w.l.Lang },
		"dir":      func() string { return w.l.Dir },
		"zone":     func() string { return w.zone.String() },
		"num":      w.num,
		"when":     w.when,
		"day":      func(d any) string { return w.day(d, false) },
		"dayShort": func(d any) string { return w.day(d, true) },
		"language": func(lang string) string { return formregistry.LanguageName(lang, w.l.Lang) },
		"kind": func(typ string) string {
			if k := w.l.Notice.AttachmentTypes[typ]; k != "" {
				return k
			}
			return typ
		},
		"size":  func(n int64) string { return w.num(attachment.HumanSize(n)) },
		"lower": func(s any) string { return strings.ToLower(fmt.Sprint(s)) },
		"label": func(s any) string { return strings.ReplaceAll(strings.ToLower(fmt.Sprint(s)), "_", " ") },
		"px":    func(f float64) string { return strconv.FormatFloat(f, 'f', 1, 64) },
		"minus": func(a, b int) int { return a - b },
		"deref": func(b *bool) bool { return b != nil && *b },
		"ms": func(d time.Duration) string {
			if d < time.Second {
				return w.num(d.Milliseconds()) + " ms"
			}
			return w.num(strconv.FormatFloat(d.Seconds(), 'f', -1, 64)) + " s"
		},
		"handoff":   handoff,
		"preview":   preview,
		"chars":     utf8.RuneCountInString,
		"retryable": retryable,
		"mailto":    mailto,
		"bdi": func(s string) template.HTML {
			return template.HTML(`<bdi dir="ltr">` + template.HTMLEscapeString(s) + `</bdi>`)
		},
		"since": func(a, b time.Time) string {
			if a.IsZero() || b.IsZero() {
				return "—"
			}
			return w.num(b.Sub(a).Round(time.Millisecond).String())
		},
		"deleted": func(m map[string]int) []string {
			var out []string
			for _, k := range slices.Sorted(maps.Keys(m)) {
				if m[k] > 0 {
					out = append(out, k)
				}
			}
			return out
		},
	}
}

// preview is the start of a message on one line, at most 140 characters.
func preview(message string) string {
	s := strings.Join(strings.Fields(message), " ")
	if utf8.RuneCountInString(s) <= 140 {
		return s
	}
	return string([]rune(s)[:139]) + "…"
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

// templates parses one template set per page, each with the shared layout, in the owner's
// language.
func (h *Handlers) templates() map[string]*template.Template {
	out := map[string]*template.Template{}
	for _, name := range []string{"list", "figures", "detail", "subjects", "erasure", "spamerasure", "retention", "problem", "gone"} {
		out[name] = template.Must(template.New("layout.html").Funcs(h.words.funcs()).ParseFS(templateFS, "templates/layout.html", "templates/"+name+".html"))
	}
	return out
}

// page is what every page template gets.
type page struct {
	Title, Nav, Notice, Problem string
	Data                        any
}

// render writes a page, or a plain 500 if the template fails; either way the
// answer is written, and it returns nil.
func (h *Handlers) render(w http.ResponseWriter, r *http.Request, status int, name string, p page) error {
	var buf bytes.Buffer
	if err := h.pages()[name].Execute(&buf, p); err != nil {
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

// say is a sentence of the owner's language as plain text.
func (h *Handlers) say(key string, args ...any) string {
	return html.UnescapeString(string(h.words.say(key, args...)))
}

// problemPage answers err as a page: its status, its safe detail (in English, the API's own;
// in another language, the catalogue's sentence for its code).
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
	if t, ok := h.words.l.Owner["problem."+string(e.Code)]; ok {
		title = t
	}
	if h.words.l.Lang != formregistry.DefaultLang {
		detail = ""
	}
	if strings.TrimSuffix(detail, ".") == title {
		detail = "" // the heading says it already
	}
	h.render(w, r, p.Status, "problem", page{Title: title, Problem: detail, Data: p})
}

// listData is the list page.
type listData struct {
	// NoReceipt is true when a row's email is accepted and no receipt can come.
	NoReceipt bool
	Waiting   int
	Filter    string // the folder shown, one of pageFilters
	Filters   []string
	Rows      []intake.Record
	Next      string
	FirstPage bool
}

// pageFilters are the list page's folders, the first its default.
var pageFilters = []string{intake.FolderWaiting, intake.FolderInbox, intake.FolderLikelySpam, intake.FolderSpam, filterAll}

func (h *Handlers) pageList(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	if q.Get("filter") == "" {
		q.Set("filter", intake.FolderWaiting)
		r.URL.RawQuery = q.Encode()
	}
	recs, next, err := h.list(r)
	if err != nil {
		return err
	}
	d := listData{Rows: recs, Next: next, FirstPage: q.Get("cursor") == "", Filter: q.Get("filter"), Filters: pageFilters}
	for _, rec := range recs {
		d.NoReceipt = d.NoReceipt || handoff(rec.Ledger) == "status.emailed" && !h.Receipts
	}
	if d.Waiting, err = h.Store.CountWaiting(r.Context()); err != nil {
		return err
	}
	return h.render(w, r, http.StatusOK, "list", page{Title: h.say("folder.title." + d.Filter), Nav: "list", Notice: h.notice(r), Data: d})
}

// figuresData is the figures page.
type figuresData struct {
	Chart   chart
	Solves  solveFigures
	LastRun *intake.SweepRun
}

func (h *Handlers) pageFigures(w http.ResponseWriter, r *http.Request) error {
	days := chartDays(h.Clock.Now())
	kept, err := h.Store.DailyFigures(r.Context(), days)
	if err != nil {
		return err
	}
	d := figuresData{Chart: buildChart(days, kept), Solves: buildSolveFigures(days, kept, h.Solves)}
	runs, err := h.Store.LastRuns(r.Context(), 1)
	if err != nil {
		return err
	}
	if len(runs) > 0 {
		d.LastRun = &runs[0]
	}
	return h.render(w, r, http.StatusOK, "figures", page{Title: h.say("figures.title"), Nav: "figures", Data: d})
}

// statuses are the plain statuses of a row, most urgent first.
var statuses = []string{"status.failed", "status.retrying", "status.sending", "status.emailed", "status.delivered.email", "status.delivered.webhook", "status.kept"}

// handoff is the catalogue key of a confirmed introduction's one plain status: the most urgent
// of its deliveries' (statuses), "status.kept" without any.
func handoff(l intake.LedgerEntry) string {
	out := len(statuses) - 1
	for _, h := range l.Handoffs {
		if h.Event != intake.EventConfirmed || h.Destination == intake.DestinationInbox {
			continue
		}
		s := "status.sending"
		switch {
		case h.Status == intake.DeliveryFailed:
			s = "status.failed"
		case h.Status == intake.DeliveryRetryPending:
			s = "status.retrying"
		case h.Status == intake.DeliveryAccepted && h.Destination == intake.DestinationEmail:
			s = "status.emailed"
		case h.Status == intake.DeliveryDelivered:
			s = "status.delivered." + string(h.Destination)
		}
		if i := slices.Index(statuses, s); i >= 0 {
			out = min(out, i)
		}
	}
	return statuses[out]
}

// detailData is the detail page.
type detailData struct {
	Record    intake.Record
	CanHandle bool
	Signals   []string
}

// notice is the sentence of ?done= (handled, retried, spam, not-spam), "" for another.
func (h *Handlers) notice(r *http.Request) string {
	return html.UnescapeString(h.words.l.Owner["done."+r.URL.Query().Get("done")])
}

// pageDetail shows one introduction and records its first opening (who and when, in the
// ledger; a failure to record it is logged, not shown).
func (h *Handlers) pageDetail(w http.ResponseWriter, r *http.Request) error {
	id := r.PathValue("id")
	rec, err := h.Store.Record(r.Context(), id, h.Clock.Now())
	if intake.CodeOf(err) == intake.CodeNotFound {
		if entry, terr := h.Store.Tombstone(r.Context(), id); terr == nil {
			return h.renderGone(w, r, entry)
		}
	}
	if err != nil {
		return err
	}
	if rec.Introduction.OpenedAt.IsZero() {
		_, oerr := h.Store.MarkOpened(r.Context(), id, actor(r), h.Clock.Now())
		h.logAction(r, intake.ActionOpened, oerr, slog.String("introductionId", id))
	}
	return h.renderDetail(w, r, http.StatusOK, rec, h.notice(r), "")
}

// goneData is the page of a withdrawn or erased introduction.
type goneData struct {
	Kind           string // withdrawn or erased
	ReceivedAt, At time.Time
}

// renderGone answers 410 Gone for a withdrawn or erased introduction.
func (h *Handlers) renderGone(w http.ResponseWriter, r *http.Request, entry intake.LedgerEntry) error {
	d := goneData{Kind: "withdrawn", ReceivedAt: entry.ConfirmedAt}
	if entry.Erasure != nil {
		d.Kind, d.At = "erased", entry.Erasure.At
	} else {
		d.At = entry.Withdrawal.At
	}
	return h.render(w, r, http.StatusGone, "gone", page{Title: h.say("gone.title." + d.Kind), Nav: "list", Data: d})
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
	detail := e.Detail
	if h.words.l.Lang != formregistry.DefaultLang {
		detail = h.say("problem." + string(e.Code))
	}
	return h.renderDetail(w, r, jsonapi.ProblemFor(e).Status, rec, "", detail)
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
		return h.render(w, r, http.StatusOK, "spamerasure", page{Title: h.say("spam.erase.title"), Nav: "list", Data: spamErasureData{Count: n, Rows: recs}})
	}
	n, err := h.eraseSpam(r)
	if err != nil {
		return err
	}
	return h.render(w, r, http.StatusOK, "spamerasure", page{Title: h.say("spam.erased.title"), Nav: "list",
		Notice: h.say("spam.erased.notice", "n", n), Data: spamErasureData{Done: true, Erased: n}})
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

// pageSubject is the data subject form (GET) and everything held about the posted address.
func (h *Handlers) pageSubject(w http.ResponseWriter, r *http.Request) error {
	p := page{Title: h.say("subjects.title"), Nav: "subjects", Data: subjectData{}}
	if r.Method == http.MethodGet {
		return h.render(w, r, http.StatusOK, "subjects", p)
	}
	email := formEmail(w, r)
	recs, err := h.subject(r, email)
	if e := intake.AsError(err); err != nil && e.Code == intake.CodeEmailInvalid {
		p.Problem, p.Data = h.say("subjects.invalid"), subjectData{Email: email}
		return h.render(w, r, http.StatusUnprocessableEntity, "subjects", p)
	}
	if err != nil {
		return err
	}
	p.Data = subjectData{Email: email, Searched: true, Records: recs}
	return h.render(w, r, http.StatusOK, "subjects", p)
}

// formEmail reads the email field of a posted form.
func formEmail(w http.ResponseWriter, r *http.Request) string {
	r.Body = http.MaxBytesReader(w, r.Body, 4<<10)
	return strings.TrimSpace(r.PostFormValue("email"))
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
		return h.render(w, r, http.StatusOK, "erasure", page{Title: h.say("erase.title", "email", email), Nav: "subjects",
			Data: subjectData{Email: email, Searched: true, Records: recs}})
	}
	n, err := h.erase(r, email)
	if err != nil {
		return err
	}
	return h.render(w, r, http.StatusOK, "subjects", page{Title: h.say("subjects.title"), Nav: "subjects",
		Notice: h.say("erase.done", "n", n), Data: subjectData{Email: email, Erased: n, Done: true}})
}

// retentionData is the retention page: the sweep's health and the ledger export's days
// (From the first of each month back a year, To the last; the first of each the default).
type retentionData struct {
	health
	From, To []string
}

func (h *Handlers) pageRetention(w http.ResponseWriter, r *http.Request) error {
	hl, err := h.health(r, RecentRuns)
	if err != nil {
		return err
	}
	today := h.Clock.Now().In(h.words.zone)
	d := retentionData{health: hl, From: []string{today.AddDate(0, 0, -29).Format(time.DateOnly)}, To: []string{today.Format(time.DateOnly)}}
	month := time.Date(today.Year(), today.Month(), 1, 0, 0, 0, 0, time.UTC)
	for i := range 13 {
		d.From = append(d.From, month.AddDate(0, -i, 0).Format(time.DateOnly))
		d.To = append(d.To, month.AddDate(0, -i, -1).Format(time.DateOnly))
	}
	return h.render(w, r, http.StatusOK, "retention", page{Title: h.say("retention.title"), Nav: "retention", Data: d})
}
