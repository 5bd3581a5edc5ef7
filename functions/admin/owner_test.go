package admin_test

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ownersite/introductions/functions/admin"
	"github.com/ownersite/introductions/functions/admin/adminseed"
	"github.com/ownersite/introductions/shared/firestorestore"
	"github.com/ownersite/introductions/shared/formregistry"
	"github.com/ownersite/introductions/shared/intake"
	"github.com/ownersite/introductions/shared/retentionsweep"
)

// TestEveryOwnerStringInBothLanguages: every sentence the admin's pages and
// handlers ask for, by a literal key or from a family of values (states,
// statuses, decisions, actions, folders, sweep classes…), is in the owner
// section of the English and the Persian catalogue.
func TestEveryOwnerStringInBothLanguages(t *testing.T) {
	var keys []string
	literal := regexp.MustCompile(`(?:\{\{t|\(t|say\() ?"([a-zA-Z0-9.\-]+[a-zA-Z0-9])"`)
	files, _ := filepath.Glob("templates/*.html")
	files = append(files, "pages.go", "admin.go", "api.go")
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range literal.FindAllStringSubmatch(string(b), -1) {
			keys = append(keys, m[1])
		}
	}
	if len(keys) < 150 {
		t.Fatalf("found only %d literal keys: the pattern no longer matches the templates", len(keys))
	}
	family := func(prefix string, values ...string) {
		for _, v := range values {
			keys = append(keys, prefix+v)
		}
	}
	family("state.", "DRAFT", "CONFIRMED", "HANDLED", "WITHDRAWN")
	family("delivery.", "PENDING", "ACCEPTED", "DELIVERED", "RETRY_PENDING", "FAILED", "OK")
	family("status.", "failed", "retrying", "sending", "emailed", "delivered.email", "delivered.webhook", "kept")
	family("decision.", "AWAITING_CONFIRMATION", "EXPIRED", "HANDOFF_PENDING", "HANDOFF_COMPLETE", "REJECTED", "WITHDRAWN", "REPAIR_NEEDED")
	family("basis.", "consent", "contract", "legitimate_interests", "legal_obligation")
	family("destination.", "email", "webhook", "inbox")
	family("action.done.", intake.ActionHandled, intake.ActionRetry, intake.ActionErased, intake.ActionMarkedSpam, intake.ActionMarkedNotSpam, intake.ActionErasedSpam, intake.ActionOpened)
	family("trigger.", string(intake.SweepByScheduler), string(intake.SweepByColdStart), string(intake.SweepByFirstDraftOfDay), string(intake.SweepByQuietSpell), string(intake.SweepByOwner))
	family("class.", append(retentionsweep.Classes, retentionsweep.ClassAttachments, firestorestore.Envelopes, firestorestore.SweepRuns,
		firestorestore.DailyFigures, firestorestore.ProviderEvents, firestorestore.RecentMessages, firestorestore.DecoyAttachments)...)
	for _, f := range []string{"waiting", "inbox", "likely-spam", "spam", "all"} {
		family("", "folder."+f, "folder.title."+f, "empty."+f)
	}
	for _, c := range []string{"r-rate", "r-honeypot", "r-content", "r-pow"} {
		family("", "figures.bar."+c, "figures.col."+c)
	}
	family("gone.", "title.withdrawn", "title.erased", "withdrawn", "erased", "withdrawn.received", "erased.received")
	family("done.", "handled", "retried", "spam", "not-spam")
	family("problem.", "NOT_FOUND", "STATE_CONFLICT", "UNAVAILABLE", "CROSS_ORIGIN_REFUSED")
	family("month.", "1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "12")
	for _, lang := range []string{"en", "fa"} {
		l, ok := formregistry.LanguageOf(lang)
		if !ok {
			t.Fatalf("no %s catalogue", lang)
		}
		for _, k := range keys {
			if _, ok := l.Owner[k]; !ok && l.Owner[k+".other"] == "" {
				t.Errorf("%s.json's owner section has no %q", lang, k)
			}
		}
	}
}

// TestTheAdminInPersian: OWNER_LANGUAGE=fa and OWNER_TIME_ZONE=Asia/Tehran
// give pages in Persian, right to left, with Persian digits and the owner's
// local time (UTC in each time's title), every value the visitor wrote
// isolated; an unknown language is refused at start.
func TestTheAdminInPersian(t *testing.T) {
	tehran, err := time.LoadLocation("Asia/Tehran")
	if err != nil {
		t.Fatal(err)
	}
	f := newFixture(t, func(d *admin.Deps) { d.Lang, d.Zone = "fa", tehran })
	ids, err := adminseed.SeedRealistic(context.Background(), f.db, f.client, now)
	if err != nil {
		t.Fatal(err)
	}
	list := string(f.do(http.MethodGet, "/admin/", "").body)
	sara := adminseed.Realistic(now)[11]
	for _, want := range []string{
		`<html lang="fa" dir="rtl">`, "<h1>منتظر شما</h1>", "<strong>۵ معرفی</strong> منتظر شماست.",
		`<bdi dir="auto">` + sara.Fields.Company + `</bdi>`, `<p class="preview" dir="auto">` + sara.Fields.Message + `</p>`,
		// 30 Nov 14:14 UTC is 17:44 in Tehran (UTC+3:30).
		`title="30 نوامبر 2026، 14:14 UTC">۳۰ نوامبر ۲۰۲۶، ۱۷:۴۴</time>`,
		"زمان‌ها به وقت Asia/Tehran است",
	} {
		if !strings.Contains(list, strings.ReplaceAll(want, "30 نوامبر 2026، 14:14", "۳۰ نوامبر ۲۰۲۶، ۱۴:۱۴")) {
			t.Errorf("the Persian list lacks %q", want)
		}
	}
	detail := string(f.do(http.MethodGet, "/admin/introductions/"+ids[11], "").body)
	for _, want := range []string{`<h1><bdi dir="auto">سارا محمدی</bdi></h1>`, `<div class="message" dir="auto">`, "نوشته‌شده به فارسی (fa)", `<h2 id="ledger-h">دفتر ثبت</h2>`} {
		if !strings.Contains(detail, want) {
			t.Errorf("the Persian detail lacks %q", want)
		}
	}
	if p := f.do(http.MethodGet, "/admin/introductions/no-such-one", ""); p.status != http.StatusNotFound || !strings.Contains(string(p.body), "<h1>چنین معرفی‌ای نیست</h1>") {
		t.Errorf("the Persian problem page: %d", p.status)
	}
	if _, err := admin.New(admin.Deps{Store: f.db.Owner(), Keys: testKeys(t, "1"), Clock: fixedClock{now}, Logger: f.logger, Lang: "de"}); err == nil {
		t.Error("a language without the owner's sentences was accepted")
	}
}

// TestTheFirstOpeningIsRecordedOnce: an unread introduction shows as new in
// the list; opening its page records "opened" once, with who and when, and
// the list then shows it read; the JSON detail records nothing.
func TestTheFirstOpeningIsRecordedOnce(t *testing.T) {
	f := newFixture(t)
	id := f.keep(sample("Emmy Noether", "emmy@example.com", now.Add(-time.Hour)))
	if !strings.Contains(string(f.do(http.MethodGet, "/admin/", "").body), `<li class="intro unread">`) {
		t.Fatal("the new introduction is not shown unread")
	}
	f.do(http.MethodGet, "/admin/api/introductions/"+id, "")
	if e, _ := f.ledger(id); len(e.AdminActions) != 0 {
		t.Fatalf("the JSON detail recorded %+v", e.AdminActions)
	}
	for range 2 {
		if p := f.do(http.MethodGet, "/admin/introductions/"+id, "", "Authorization", identity("owner@example.com")); p.status != http.StatusOK {
			t.Fatalf("detail: %d", p.status)
		}
	}
	e, _ := f.ledger(id)
	if len(e.AdminActions) != 1 || e.AdminActions[0].Action != intake.ActionOpened || e.AdminActions[0].Actor != "owner@example.com" || !e.AdminActions[0].At.Equal(now) {
		t.Fatalf("the openings recorded: %+v", e.AdminActions)
	}
	list := string(f.do(http.MethodGet, "/admin/", "").body)
	if strings.Contains(list, `<li class="intro unread">`) || !strings.Contains(list, `<span class="quiet read">read</span>`) {
		t.Error("the opened introduction is not shown read")
	}
}
