package admin_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ownersite/introductions/shared/contentrules"
	"github.com/ownersite/introductions/shared/firestorestore"
	"github.com/ownersite/introductions/shared/intake"
)

func subjectKeyOf(email string) string { return contentrules.SubjectKey(email) }

// TestSubjectExportAndErasure: the export holds every introduction of one
// address however it was written (case, +tag, a draft) and nothing of
// anyone else's; erasure removes exactly those, leaves content-free
// tombstones saying when and on whose request, and their ids answer 404.
func TestSubjectExportAndErasure(t *testing.T) {
	f := newFixture(t)
	at := now.Add(-2 * time.Hour)
	ada1 := sample("Ada Lovelace", "ada@example.com", at)
	ada1.Conversation = "Visitor: the conversation of Ada"
	ada1.Envelopes = []intake.Envelope{{Destination: intake.DestinationEmail, Status: intake.DeliveryRetryPending, NextAttemptAt: now}}
	ada2 := sample("Ada L.", "  Ada+Jobs@EXAMPLE.com", at.Add(time.Minute))
	ada2.Fields.Email = "Ada+Jobs@EXAMPLE.com"
	adaIDs := []string{f.keep(ada1), f.keep(ada2)}
	draft := sample("Ada (draft)", "ADA@example.com", now)
	draft.ID = "ada-draft"
	keepDraftOnly(t, f, draft)
	adaIDs = append(adaIDs, draft.ID)
	bob := sample("Bob Babbage", "bob@example.com", at)
	bob.Conversation = "Visitor: Bob's conversation"
	bobID := f.keep(bob)
	other := sample("Adam Other", "adam@example.com", at)
	otherID := f.keep(other)

	a := f.do(http.MethodGet, "/admin/api/subjects?email="+url.QueryEscape("ADA@Example.com"), "")
	if a.status != http.StatusOK {
		t.Fatalf("%d %s", a.status, a.body)
	}
	m := a.json(t)
	wantKeys(t, "the subject answer", m, "email", "introductions")
	if m["email"] != "ADA@Example.com" {
		t.Errorf("email %v", m["email"])
	}
	var got []string
	for _, it := range m["introductions"].([]any) {
		d := it.(map[string]any)
		wantKeys(t, "an exported introduction", d, "id", "state", "formId", "formVersion", "introduction", "conversation", "consents", "ledger", "deliveries")
		got = append(got, d["id"].(string))
	}
	slices.Sort(got)
	want := slices.Clone(adaIDs)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("export holds %v, want %v", got, want)
	}
	if strings.Contains(string(a.body), "Bob") || strings.Contains(string(a.body), "adam@") {
		t.Fatal("the export holds someone else's data")
	}
	if !strings.Contains(string(a.body), "the conversation of Ada") || !strings.Contains(string(a.body), intake.EnvelopeID(adaIDs[0], intake.DestinationEmail, intake.EventConfirmed)) {
		t.Error("the export lacks the conversation or the delivery")
	}
	// The page's download is the same export.
	dl := f.form("/admin/subjects/export", "email="+url.QueryEscape("ada@example.com"))
	var export struct {
		Introductions []json.RawMessage `json:"introductions"`
	}
	if dl.status != http.StatusOK || !strings.HasPrefix(dl.header.Get("Content-Disposition"), "attachment;") || json.Unmarshal(dl.body, &export) != nil || len(export.Introductions) != 3 {
		t.Errorf("download: %d %s", dl.status, dl.header.Get("Content-Disposition"))
	}
	for _, bad := range []string{"", "not-an-address"} {
		if a := f.do(http.MethodGet, "/admin/api/subjects?email="+bad, ""); a.status != http.StatusUnprocessableEntity || a.code(t) != "EMAIL_INVALID" {
			t.Errorf("email %q: %d %s", bad, a.status, a.body)
		}
	}
	if a := f.do(http.MethodGet, "/admin/api/subjects?email=nobody@example.com", "").json(t); len(a["introductions"].([]any)) != 0 {
		t.Error("an unknown address has introductions")
	}

	// The page asks before erasing.
	ask := f.form("/admin/subjects/erasure", "email=ada%40example.com")
	if ask.status != http.StatusOK || !strings.Contains(string(ask.body), "This cannot be undone") || !strings.Contains(string(ask.body), `name="confirm" value="yes"`) {
		t.Fatalf("confirmation step: %d", ask.status)
	}
	if _, err := f.db.Owner().Record(context.Background(), adaIDs[0], now); err != nil {
		t.Fatal("asking erased something")
	}

	er := f.do(http.MethodPost, "/admin/api/subjects/erasure", `{"email":"ada@EXAMPLE.com"}`, "Authorization", identity("owner@site.example"))
	if er.status != http.StatusOK {
		t.Fatalf("%d %s", er.status, er.body)
	}
	em := er.json(t)
	wantKeys(t, "the erasure answer", em, "erased")
	if em["erased"] != float64(3) {
		t.Errorf("erased %v, want 3", em["erased"])
	}
	for _, id := range adaIDs {
		if a := f.do(http.MethodGet, "/admin/api/introductions/"+id, ""); a.status != http.StatusNotFound {
			t.Errorf("%s after erasure: %d", id, a.status)
		}
		for _, c := range []string{firestorestore.Introductions, firestorestore.Transcripts} {
			if f.exists(c, id) {
				t.Errorf("%s/%s survived the erasure", c, id)
			}
		}
		entry, raw := f.ledger(id)
		if entry.Erasure == nil || !entry.Erasure.At.Equal(now) || entry.Erasure.RequestedBy != "owner@site.example" {
			t.Errorf("tombstone of %s: %+v", id, entry.Erasure)
		}
		if n := len(entry.AdminActions); n == 0 || entry.AdminActions[n-1].Action != intake.ActionErased {
			t.Errorf("admin actions of %s: %+v", id, entry.AdminActions)
		}
		rawJSON, _ := json.Marshal(raw)
		for _, content := range []string{"Ada", "ada@", "Hello from", "conversation of Ada", "EXAMPLE"} {
			if strings.Contains(string(rawJSON), content) {
				t.Errorf("the tombstone of %s holds %q", id, content)
			}
		}
	}
	if f.exists(firestorestore.Envelopes, intake.EnvelopeID(adaIDs[0], intake.DestinationEmail, intake.EventConfirmed)) {
		t.Error("the envelope of an erased introduction survived (a retry would send it)")
	}
	if a := f.do(http.MethodGet, "/admin/api/subjects?email=ada@example.com", "").json(t); len(a["introductions"].([]any)) != 0 {
		t.Error("the subject still has introductions")
	}
	for _, id := range []string{bobID, otherID} {
		rec, err := f.db.Owner().Record(context.Background(), id, now)
		if err != nil {
			t.Fatalf("someone else's introduction went: %v", err)
		}
		if rec.Ledger.Erasure != nil || (id == bobID && rec.Conversation != bob.Conversation) {
			t.Errorf("someone else's record changed: %+v", rec.Ledger.Erasure)
		}
	}
	if a := f.do(http.MethodPost, "/admin/api/subjects/erasure", `{"email":"ada@example.com"}`).json(t); a["erased"] != float64(0) {
		t.Errorf("a second erasure erased %v", a["erased"])
	}
	for body, code := range map[string]string{`{"email":""}`: "EMAIL_INVALID", `{"mail":"x@y.z"}`: "UNREADABLE_BODY", `[]`: "UNREADABLE_BODY"} {
		if a := f.do(http.MethodPost, "/admin/api/subjects/erasure", body); a.code(t) != code {
			t.Errorf("%s: %d %s", body, a.status, a.body)
		}
	}
}
