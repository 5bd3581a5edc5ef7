package admin_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ownersite/introductions/functions/admin"
	"github.com/ownersite/introductions/functions/admin/adminseed"
	"github.com/ownersite/introductions/shared/intake"
	"github.com/ownersite/introductions/shared/testsupport"
)

func keys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func wantKeys(t *testing.T, what string, m map[string]any, want ...string) {
	t.Helper()
	sort.Strings(want)
	if got := keys(m); !slices.Equal(got, want) {
		t.Errorf("%s has members %v, want exactly %v", what, got, want)
	}
}

// TestListPagesAcross120Introductions walks the list 50 at a time: newest
// confirmation first, every introduction once, drafts never, next empty at
// the end, and a forged cursor refused.
func TestListPagesAcross120Introductions(t *testing.T) {
	f := newFixture(t)
	want := make([]string, 120)
	var wg sync.WaitGroup
	sem := make(chan struct{}, 6)
	errs := make(chan error, 120)
	for i := range want {
		s := sample(fmt.Sprintf("Person %03d", i), fmt.Sprintf("p%d@example.com", i), now.Add(-time.Duration(i)*time.Minute))
		if i%10 == 0 {
			s.ConfirmedAt = now.Add(-time.Duration(i-1) * time.Minute) // ties are broken by id
		}
		s.ID = adminseed.IDFor(fmt.Sprint("pagination", i))
		want[i] = s.ID
		if i%3 == 0 {
			s.HandledAt = now.Add(-time.Second)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			if _, err := adminseed.Keep(context.Background(), f.db, s); err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	// A draft never appears in the owner's list.
	draft := sample("Drafty", "draft@example.com", now)
	draft.ID = "draft-only"
	// (kept but not confirmed: write it through KeepDraft alone)
	keepDraftOnly(t, f, draft)

	var got []string
	var times []time.Time
	cursor := ""
	for page := 0; ; page++ {
		a := f.do(http.MethodGet, "/admin/api/introductions?cursor="+url.QueryEscape(cursor), "")
		if a.status != http.StatusOK || a.header.Get("Cache-Control") != "no-store" {
			t.Fatalf("page %d: %d %s", page, a.status, a.body)
		}
		m := a.json(t)
		wantKeys(t, "the list answer", m, "introductions", "next")
		items := m["introductions"].([]any)
		if len(items) > admin.PageSize {
			t.Fatalf("page %d holds %d", page, len(items))
		}
		for _, it := range items {
			item := it.(map[string]any)
			wantKeys(t, "a list item", item, "id", "state", "name", "company", "email", "confirmedAt", "handledAt", "decision", "folder", "likelySpam", "spam")
			got = append(got, item["id"].(string))
			at, _ := time.Parse(time.RFC3339Nano, item["confirmedAt"].(string))
			times = append(times, at)
			if (item["state"] == "HANDLED") != (item["handledAt"] != nil) {
				t.Errorf("%v: state and handledAt disagree", item)
			}
			if item["decision"] != string(intake.DecisionHandoffPending) {
				t.Errorf("decision %v", item["decision"])
			}
		}
		cursor, _ = m["next"].(string)
		if cursor == "" {
			if page != 2 || len(items) != 20 {
				t.Fatalf("the list ended on page %d with %d items, want page 2 with 20", page, len(items))
			}
			break
		}
		if len(items) != admin.PageSize {
			t.Fatalf("page %d holds %d, want %d before the end", page, len(items), admin.PageSize)
		}
	}
	if len(got) != 120 {
		t.Fatalf("walked %d introductions, want 120", len(got))
	}
	if !slices.IsSortedFunc(times, func(a, b time.Time) int { return b.Compare(a) }) {
		t.Fatal("not newest confirmation first")
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatal("the pages do not hold each introduction exactly once")
	}

	for _, bad := range []string{"x", "eyJ0IjoiIn0", strings.Repeat("A", 900)} {
		if a := f.do(http.MethodGet, "/admin/api/introductions?cursor="+bad, ""); a.status != http.StatusBadRequest || a.code(t) != "CURSOR_INVALID" {
			t.Errorf("cursor %q: %d %s", bad, a.status, a.body)
		}
	}
}

// keepDraftOnly keeps a draft the visitor never confirmed.
func keepDraftOnly(t *testing.T, f *fixture, s adminseed.Sample) {
	t.Helper()
	in := intake.Introduction{ID: s.ID, State: intake.StateDraft, FormID: "introduction", FormVersion: "2026-10-01", Fields: s.Fields,
		Consents: []intake.ConsentEvidence{}, TokenHash: intake.HashToken("t"), CreatedAt: now.Add(-time.Minute), ExpireAt: now.Add(29 * time.Minute),
		SubjectKey: subjectKeyOf(s.Fields.Email)}
	entry := intake.LedgerEntry{ID: s.ID, Version: intake.LedgerVersion, SubmissionID: s.ID,
		Validation: intake.ValidationRecord{Result: intake.ValidationPass, Codes: []intake.Code{}},
		Retention:  intake.RetentionRecord{Class: intake.RetentionDraft, DeleteAfter: in.ExpireAt},
		Abuse:      intake.AbuseRecord{State: intake.AbuseClean}, Decision: intake.DecisionAwaitingConfirmation,
		UpdatedAt: in.CreatedAt, ExpireAt: in.ExpireAt}
	_, err := f.db.Intake(nil).KeepDraft(context.Background(), intake.DraftKeeping{Introduction: in, Ledger: entry, Now: in.CreatedAt,
		Challenge: intake.SpentChallenge{Key: "c-" + s.ID, ExpireAt: now.Add(time.Hour)}})
	if err != nil {
		t.Fatal(err)
	}
}

// TestDetailContract checks the detail's members, its deliveries, and that
// an unknown id and a draft are both 404 NOT_FOUND.
func TestDetailContract(t *testing.T) {
	f := newFixture(t)
	at := now.Add(-time.Hour)
	s := sample("Ada Lovelace", "ada@example.com", at)
	s.Conversation = "Visitor: hello\nGuide: hi"
	s.Envelopes = []intake.Envelope{
		{Destination: intake.DestinationInbox, Status: intake.DeliveryDelivered,
			Attempts: []intake.DeliveryAttempt{{At: at, Outcome: intake.DeliveryDelivered, Detail: "kept"}}},
		{Destination: intake.DestinationEmail, Status: intake.DeliveryRetryPending, NextAttemptAt: at.Add(time.Hour),
			Attempts: []intake.DeliveryAttempt{{At: at, Outcome: intake.DeliveryRetryPending, Detail: "SMTP 451"}}},
	}
	id := f.keep(s)
	draft := sample("Drafty", "draft@example.com", now)
	draft.ID = "a-draft"
	keepDraftOnly(t, f, draft)

	a := f.do(http.MethodGet, "/admin/api/introductions/"+id, "")
	if a.status != http.StatusOK || a.header.Get("Content-Type") != "application/json" {
		t.Fatalf("%d %s", a.status, a.body)
	}
	m := a.json(t)
	wantKeys(t, "the detail", m, "id", "state", "formId", "formVersion", "lang", "introduction", "conversation", "attachment", "consents", "signals", "likelySpam", "spam", "ledger", "deliveries")
	wantKeys(t, "the introduction", m["introduction"].(map[string]any), "name", "company", "role", "email", "message")
	if m["id"] != id || m["state"] != "CONFIRMED" || m["conversation"] != s.Conversation || m["formId"] != "introduction" {
		t.Errorf("detail %v", m)
	}
	consent := m["consents"].([]any)[0].(map[string]any)
	for _, k := range []string{"purpose", "basis", "textVersion", "textSha256", "givenAt", "confirmedAt", "control"} {
		if consent[k] == nil || consent[k] == "" {
			t.Errorf("consent evidence lacks %s: %v", k, consent)
		}
	}
	ledger := m["ledger"].(map[string]any)
	for _, k := range []string{"validation", "rateLimits", "abuse", "decision", "reason", "provenance", "handoffs"} {
		if _, ok := ledger[k]; !ok {
			t.Errorf("ledger lacks %s", k)
		}
	}
	deliveries := m["deliveries"].([]any)
	if len(deliveries) != 2 {
		t.Fatalf("deliveries %v", deliveries)
	}
	for _, d := range deliveries {
		wantKeys(t, "a delivery", d.(map[string]any), "envelopeId", "destination", "status", "attempts", "nextAttemptAt")
		for _, at := range d.(map[string]any)["attempts"].([]any) {
			wantKeys(t, "an attempt", at.(map[string]any), "at", "outcome", "detail")
		}
	}
	mail := deliveries[1].(map[string]any)
	if mail["envelopeId"] != intake.EnvelopeID(id, intake.DestinationEmail, intake.EventConfirmed) || mail["destination"] != "email" || mail["status"] != "RETRY_PENDING" || mail["nextAttemptAt"] == nil {
		t.Errorf("mail delivery %v", mail)
	}
	if deliveries[0].(map[string]any)["nextAttemptAt"] != nil {
		t.Error("a delivered envelope has a next attempt")
	}

	for _, unknown := range []string{"no-such-id", "a-draft", "..%2F..%2Fledger", strings.Repeat("x", 300)} {
		a := f.do(http.MethodGet, "/admin/api/introductions/"+unknown, "")
		if a.status != http.StatusNotFound || a.code(t) != "NOT_FOUND" {
			t.Errorf("%s: %d %s", unknown, a.status, a.body)
		}
	}
}

// TestMarkHandled: 200 with the handled time, then 409 STATE_CONFLICT; the
// ledger records who did it and when, without content.
func TestMarkHandled(t *testing.T) {
	f := newFixture(t)
	id := f.keep(sample("Grace Hopper", "grace@example.com", now.Add(-time.Hour)))

	a := f.do(http.MethodPost, "/admin/api/introductions/"+id+"/handled", "", "Authorization", identity("owner@site.example"))
	if a.status != http.StatusOK {
		t.Fatalf("%d %s", a.status, a.body)
	}
	m := a.json(t)
	wantKeys(t, "the handled answer", m, "id", "state", "handledAt")
	if m["id"] != id || m["state"] != "HANDLED" || m["handledAt"] != now.Format(time.RFC3339) {
		t.Errorf("handled answer %v", m)
	}
	again := f.do(http.MethodPost, "/admin/api/introductions/"+id+"/handled", "")
	if again.status != http.StatusConflict || again.code(t) != "STATE_CONFLICT" {
		t.Errorf("second handle: %d %s", again.status, again.body)
	}
	if a := f.do(http.MethodPost, "/admin/api/introductions/nope/handled", ""); a.status != http.StatusNotFound {
		t.Errorf("unknown: %d", a.status)
	}
	entry, _ := f.ledger(id)
	if len(entry.AdminActions) != 1 {
		t.Fatalf("admin actions %+v", entry.AdminActions)
	}
	act := entry.AdminActions[0]
	if act.Actor != "owner@site.example" || act.Action != intake.ActionHandled || !act.At.Equal(now) {
		t.Errorf("admin action %+v", act)
	}
	d := f.do(http.MethodGet, "/admin/api/introductions/"+id, "").json(t)
	if d["state"] != "HANDLED" {
		t.Errorf("detail state %v", d["state"])
	}
	list := f.do(http.MethodGet, "/admin/api/introductions", "").json(t)["introductions"].([]any)
	if it := list[0].(map[string]any); it["state"] != "HANDLED" || it["handledAt"] != now.Format(time.RFC3339) {
		t.Errorf("list item %v", it)
	}
}

// TestRetry: a FAILED or RETRY_PENDING envelope is handed to the delivery
// service (202) and the ledger records it; a DELIVERED one is 409; an
// unknown one 404; without a delivery service 503.
func TestRetry(t *testing.T) {
	f := newFixture(t)
	at := now.Add(-time.Hour)
	s := sample("Katherine Johnson", "kj@example.com", at)
	s.Envelopes = []intake.Envelope{
		{Destination: intake.DestinationEmail, Status: intake.DeliveryFailed, LastError: "SMTP 550"},
		{Destination: intake.DestinationWebhook, Status: intake.DeliveryRetryPending, NextAttemptAt: now.Add(time.Hour)},
		{Destination: intake.DestinationInbox, Status: intake.DeliveryDelivered},
	}
	id := f.keep(s)
	failed := intake.EnvelopeID(id, intake.DestinationEmail, intake.EventConfirmed)
	pending := intake.EnvelopeID(id, intake.DestinationWebhook, intake.EventConfirmed)
	done := intake.EnvelopeID(id, intake.DestinationInbox, intake.EventConfirmed)
	for _, env := range []string{failed, pending} {
		if a := f.do(http.MethodPost, "/admin/api/deliveries/"+env+"/retry", ""); a.status != http.StatusAccepted {
			t.Errorf("%s: %d %s", env, a.status, a.body)
		}
	}
	if !slices.Equal(f.retrier.ids, []string{failed, pending}) {
		t.Errorf("retried %v", f.retrier.ids)
	}
	if a := f.do(http.MethodPost, "/admin/api/deliveries/"+done+"/retry", ""); a.status != http.StatusConflict || a.code(t) != "STATE_CONFLICT" {
		t.Errorf("delivered: %d %s", a.status, a.body)
	}
	if a := f.do(http.MethodPost, "/admin/api/deliveries/env-none/retry", ""); a.status != http.StatusNotFound {
		t.Errorf("unknown: %d %s", a.status, a.body)
	}
	entry, _ := f.ledger(id)
	if len(entry.AdminActions) != 2 || entry.AdminActions[0].Action != intake.ActionRetry || entry.AdminActions[0].Target != failed || entry.AdminActions[0].Actor != admin.LocalOwner {
		t.Errorf("admin actions %+v", entry.AdminActions)
	}

	noDelivery := newFixture(t, func(d *admin.Deps) { d.Retrier = nil })
	noDelivery.keep(s)
	if a := noDelivery.do(http.MethodPost, "/admin/api/deliveries/"+failed+"/retry", ""); a.status != http.StatusServiceUnavailable || a.header.Get("Retry-After") == "" {
		t.Errorf("without a delivery service: %d %s", a.status, a.body)
	}
}

// TestHealth: the last sweep run as the sweep recorded it, and the
// scheduler: not configured, read, or unreadable (never an error).
func TestHealth(t *testing.T) {
	f := newFixture(t)
	h := f.do(http.MethodGet, "/admin/api/health", "").json(t)
	wantKeys(t, "health", h, "sweep", "scheduler")
	if h["sweep"].(map[string]any)["lastRun"] != nil {
		t.Errorf("a last run before any: %v", h["sweep"])
	}
	sched := h["scheduler"].(map[string]any)
	wantKeys(t, "the scheduler", sched, "configured", "schedule", "lastAttempt", "lastStatus")
	if sched["configured"] != false {
		t.Errorf("scheduler %v", sched)
	}
	for i, start := range []time.Time{now.Add(-2 * time.Hour), now.Add(-time.Hour)} {
		run := intake.SweepRun{ID: fmt.Sprint("run", i), Trigger: intake.SweepByScheduler, StartedAt: start, FinishedAt: start.Add(time.Second),
			Deleted: map[string]int{"drafts": i + 1, "ledger": 2}, DeliveriesAttempted: i}
		if err := adminseed.SweepRun(context.Background(), f.client, run); err != nil {
			t.Fatal(err)
		}
	}
	last := f.do(http.MethodGet, "/admin/api/health", "").json(t)["sweep"].(map[string]any)["lastRun"].(map[string]any)
	for _, k := range []string{"startedAt", "finishedAt", "deleted", "deliveriesAttempted", "repairNeeded"} {
		if _, ok := last[k]; !ok {
			t.Errorf("last run lacks %s: %v", k, last)
		}
	}
	if last["startedAt"] != now.Add(-time.Hour).Format(time.RFC3339) || last["deleted"].(map[string]any)["drafts"] != float64(2) {
		t.Errorf("last run %v", last)
	}

	attempt := now.Add(-30 * time.Minute)
	read := newFixture(t, func(d *admin.Deps) {
		d.Scheduler = fixedScheduler{status: intake.SchedulerStatus{Job: "projects/p/locations/l/jobs/sweep", Schedule: "17 * * * *", State: "ENABLED", LastAttempt: attempt, LastStatus: "OK"}}
	})
	s := read.do(http.MethodGet, "/admin/api/health", "").json(t)["scheduler"].(map[string]any)
	if s["configured"] != true || s["schedule"] != "17 * * * *" || s["lastAttempt"] != attempt.Format(time.RFC3339) || s["lastStatus"] != "OK" {
		t.Errorf("scheduler %v", s)
	}
	broken := newFixture(t, func(d *admin.Deps) { d.Scheduler = fixedScheduler{err: fmt.Errorf("permission denied")} })
	a := broken.do(http.MethodGet, "/admin/api/health", "")
	if s := a.json(t)["scheduler"].(map[string]any); a.status != http.StatusOK || s["configured"] != true || s["lastStatus"] != "UNREADABLE" {
		t.Errorf("unreadable scheduler: %d %v", a.status, s)
	}
	if page := broken.do(http.MethodGet, "/admin/retention", ""); page.status != http.StatusOK || !strings.Contains(string(page.body), "could not be read") {
		t.Errorf("retention page with an unreadable scheduler: %d", page.status)
	}
	if page := f.do(http.MethodGet, "/admin/retention", ""); !strings.Contains(string(page.body), "The scheduler is not configured") {
		t.Error("the retention page does not say the scheduler is not configured")
	}
}

// TestCrossOriginPostsAreRefused: every POST route refuses a cross-site
// request 403 and changes nothing; a request without Sec-Fetch-Site or
// Origin (curl, a test client) passes.
func TestCrossOriginPostsAreRefused(t *testing.T) {
	f := newFixture(t)
	id := f.keep(sample("Radia Perlman", "radia@example.com", now.Add(-time.Hour)))
	posts := []string{
		"/admin/api/introductions/" + id + "/handled",
		"/admin/api/deliveries/x/retry",
		"/admin/api/subjects/erasure",
		"/admin/introductions/" + id + "/handled",
		"/admin/deliveries/x/retry",
		"/admin/subjects",
		"/admin/subjects/export",
		"/admin/subjects/erasure",
	}
	for _, path := range posts {
		for name, headers := range map[string][]string{
			"Sec-Fetch-Site: cross-site": {"Sec-Fetch-Site", "cross-site"},
			"foreign Origin":             {"Origin", "https://evil.example"},
		} {
			a := f.do(http.MethodPost, path, `{"email":"radia@example.com"}`, headers...)
			if a.status != http.StatusForbidden || a.code(t) != "CROSS_ORIGIN_REFUSED" {
				t.Errorf("%s with %s: %d %s", path, name, a.status, a.body)
			}
		}
	}
	if d := f.do(http.MethodGet, "/admin/api/introductions/"+id, "").json(t); d["state"] != "CONFIRMED" {
		t.Fatalf("a refused request changed the state: %v", d["state"])
	}
	if a := f.do(http.MethodPost, "/admin/api/introductions/"+id+"/handled", ""); a.status != http.StatusOK {
		t.Errorf("a request without browser headers: %d %s", a.status, a.body)
	}
	if a := f.do(http.MethodGet, "/admin/api/introductions/"+id, "", "Sec-Fetch-Site", "cross-site"); a.status != http.StatusOK {
		t.Errorf("a cross-site GET (a link) is refused: %d", a.status)
	}
	// Even the site's own origin, allowed to read the public API, may not
	// read the admin's answers.
	if a := f.do(http.MethodGet, "/admin/api/introductions", "", "Origin", testsupport.SiteOrigin); a.status != http.StatusOK || a.header.Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("the admin answers the site's origin with CORS: %d %v", a.status, a.header)
	}
	if a := f.do(http.MethodDelete, "/admin/api/introductions/"+id, ""); a.status != http.StatusMethodNotAllowed || a.code(t) != "METHOD_NOT_ALLOWED" {
		t.Errorf("DELETE: %d %s", a.status, a.body)
	}
	if a := f.do(http.MethodGet, "/admin/api/nowhere", ""); a.status != http.StatusNotFound || a.code(t) != "NOT_FOUND" {
		t.Errorf("an unknown admin path: %d %s", a.status, a.body)
	}
}

// TestFormActions: the pages' own POSTs redirect on success and show why a
// move was refused.
func TestFormActions(t *testing.T) {
	f := newFixture(t)
	id := f.keep(sample("Barbara Liskov", "barbara@example.com", now.Add(-time.Hour)))
	a := f.form("/admin/introductions/"+id+"/handled", "")
	if a.status != http.StatusSeeOther || a.header.Get("Location") != "/admin/introductions/"+id+"?done=handled" {
		t.Fatalf("%d %s", a.status, a.header.Get("Location"))
	}
	if page := f.do(http.MethodGet, "/admin/introductions/"+id+"?done=handled", ""); !strings.Contains(string(page.body), "Marked handled.") {
		t.Error("no notice after marking handled")
	}
	again := f.form("/admin/introductions/"+id+"/handled", "")
	if again.status != http.StatusConflict || !strings.Contains(string(again.body), "An introduction in state HANDLED cannot handle.") ||
		!strings.Contains(string(again.body), `role="alert"`) {
		t.Errorf("refused move: %d\n%s", again.status, again.body)
	}
	if page := f.do(http.MethodGet, "/admin/introductions/nope", ""); page.status != http.StatusNotFound || !strings.Contains(string(page.body), "No such introduction") {
		t.Errorf("unknown page: %d", page.status)
	}
	if _, err := f.db.Owner().Record(context.Background(), id, now); err != nil {
		t.Fatal(err)
	}
}
