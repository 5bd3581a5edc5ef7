package admin_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"cloud.google.com/go/firestore"

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
		wantKeys(t, "an exported introduction", d, "id", "state", "formId", "formVersion", "lang", "introduction", "conversation", "attachment", "consents", "signals", "likelySpam", "spam", "ledger", "deliveries")
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

// v1SubjectKey is the key an introduction kept before SubjectKey's v2
// carries (full case folding, the domain as typed).
func v1SubjectKey(email string) string {
	sum := sha256.Sum256([]byte("subject/v1\x00" + contentrules.NormaliseEmail(email)))
	return hex.EncodeToString(sum[:])
}

// TestSubjectRequestsTellMailboxesApart: access and erasure for
// straße@… find and erase only straße@… (not strasse@…, which full case
// folding merged with it), the IDN domain matches its punycode, and an
// introduction kept under the v1 key is still found, and only by its own
// subject.
func TestSubjectRequestsTellMailboxesApart(t *testing.T) {
	f := newFixture(t)
	at := now.Add(-time.Hour)
	ids := map[string]string{}
	for i, s := range []struct{ name, email string }{
		{"sharp", "straße@example.com"}, {"double", "strasse@example.com"}, {"idn", "jürgen@bücher.example"},
		{"old sharp", "Straße@example.com"}, {"old double", "STRASSE@example.com"},
	} {
		ids[s.name] = f.keep(sample(s.name, s.email, at.Add(time.Duration(i)*time.Minute)))
		if strings.HasPrefix(s.name, "old ") {
			// Kept before v2: its key is the v1 one.
			if _, err := f.client.Collection(firestorestore.Introductions).Doc(ids[s.name]).Update(context.Background(),
				[]firestore.Update{{Path: "subjectKey", Value: v1SubjectKey(s.email)}}); err != nil {
				t.Fatal(err)
			}
		}
	}
	found := func(email string) []string {
		t.Helper()
		a := f.do(http.MethodGet, "/admin/api/subjects?email="+url.QueryEscape(email), "")
		if a.status != http.StatusOK {
			t.Fatalf("%s: %d %s", email, a.status, a.body)
		}
		var got []string
		for _, it := range a.json(t)["introductions"].([]any) {
			got = append(got, it.(map[string]any)["id"].(string))
		}
		slices.Sort(got)
		return got
	}
	want := func(names ...string) []string {
		var out []string
		for _, n := range names {
			out = append(out, ids[n])
		}
		slices.Sort(out)
		return out
	}
	for email, names := range map[string][]string{
		"STRAẞE@Example.com":           {"sharp", "old sharp"},
		"strasse@example.com":          {"double", "old double"},
		"jürgen@xn--bcher-kva.example": {"idn"},
		"JÜRGEN@BÜCHER.example":        {"idn"},
	} {
		if got := found(email); !slices.Equal(got, want(names...)) {
			t.Errorf("%s finds %v, want %v", email, got, want(names...))
		}
	}
	er := f.do(http.MethodPost, "/admin/api/subjects/erasure", `{"email":"straße@example.com"}`)
	if er.status != http.StatusOK || er.json(t)["erased"] != float64(2) {
		t.Fatalf("erasing straße@: %d %s, want 2 erased", er.status, er.body)
	}
	for name, gone := range map[string]bool{"sharp": true, "old sharp": true, "double": false, "old double": false, "idn": false} {
		if f.exists(firestorestore.Introductions, ids[name]) == gone {
			t.Errorf("%s: exists %v after erasing straße@", name, !gone)
		}
	}
}
