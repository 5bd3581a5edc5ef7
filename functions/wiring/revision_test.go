package wiring_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ownersite/introductions/shared/testsupport"
)

// revision is a revision body: the token and the fields of draftBody, with
// overrides (nil deletes a member).
func revision(token string, overrides map[string]any) map[string]any {
	b := map[string]any{
		"token": token, "name": "Ada Lovelace", "company": "Analytical Engines", "role": "CTO",
		"email": "ada@example.com", "message": "Hello, I would like to talk about a role.", "consents": []any{},
	}
	return withOverrides(b, overrides)
}

// stored reads one document's fields from the emulator.
func (h *harness) stored(collection, id string) map[string]any {
	h.t.Helper()
	snap, err := h.db.Collection(collection).Doc(id).Get(context.Background())
	if err != nil {
		h.t.Fatalf("%s/%s: %v", collection, id, err)
	}
	return snap.Data()
}

func TestRevisionReplacesTheSameDraftWithoutProofOfWorkOrRateLimit(t *testing.T) {
	// One kept draft per address and per email an hour: any revision
	// counted as a draft would fail. (Revisions do count in the flood
	// layer, as confirmations do: see TestRefusedRevisionsCostATallyNotADocument.)
	h := newHarness(t, map[string]string{"RATE_LIMIT_IP_PER_HOUR": "1", "RATE_LIMIT_EMAIL_PER_HOUR": "1"})
	created := h.postJSON("/api/introductions", h.draftBody(map[string]any{
		"conversation": "You: Is the owner open to a CTO role?", "consents": consentTo("attach-conversation"),
	}), fromAddress("198.51.100.7")...)
	if created.status != http.StatusCreated {
		t.Fatalf("draft: %d %s", created.status, created.body)
	}
	d := created.json(t)
	id, token, expires := d["id"].(string), d["token"].(string), d["expiresAt"].(string)
	path := "/api/introductions/" + id + "/revision"
	h.clock.Advance(time.Minute)

	// The content rules apply to a revision as to a draft; a refused one
	// changes nothing but counts toward the draft's 20 revisions.
	for _, tc := range []struct {
		name      string
		overrides map[string]any
		code      string
	}{
		{"empty name", map[string]any{"name": "  "}, "NAME_INVALID"},
		{"email without a dot", map[string]any{"email": "ada@localhost"}, "EMAIL_INVALID"},
		{"four links", map[string]any{"message": "https://a.example https://b.example https://c.example https://d.example"}, "MESSAGE_TOO_MANY_LINKS"},
		{"conversation without consent", map[string]any{"conversation": "You: hello"}, "CONSENT_REQUIRED"},
		{"direction override", map[string]any{"name": "Bob\u202Eevil"}, "NAME_INVALID"},
	} {
		r := h.postJSON(path, revision(token, tc.overrides))
		if r.status != http.StatusUnprocessableEntity || r.code(t) != tc.code {
			t.Fatalf("%s: %d %s", tc.name, r.status, r.body)
		}
		if !strings.Contains(string(r.body), `"detail"`) {
			t.Errorf("%s: no field detail in %s", tc.name, r.body)
		}
	}
	if got := h.stored("introductions", id); got["name"] != "Ada Lovelace" || got["revisions"] != int64(5) {
		t.Fatalf("refused revisions changed the draft: %v", got)
	}

	// A revision replaces the content after the content rules (trimmed),
	// drops the conversation it no longer carries, and keeps id, token and
	// expiry.
	r := h.postJSON(path, revision(token, map[string]any{"name": "  Ada King  ", "message": "Revised.\r\nTwice."}))
	if r.status != http.StatusOK {
		t.Fatalf("revision: %d %s", r.status, r.body)
	}
	got := r.json(t)
	kept := got["introduction"].(map[string]any)
	if got["id"] != id || got["token"] != token || got["expiresAt"] != expires || got["state"] != "DRAFT" || got["revisions"] != 6.0 {
		t.Fatalf("not the same draft: %s (was %s)", r.body, created.body)
	}
	if kept["name"] != "Ada King" || kept["message"] != "Revised.\nTwice." || kept["conversation"] != nil {
		t.Fatalf("kept %v", kept)
	}
	if n := h.count("transcripts"); n != 0 {
		t.Fatalf("the dropped conversation is still kept (%d transcripts)", n)
	}
	// Attached again, with consent: kept beside the draft, with its expiry.
	r = h.postJSON(path, revision(token, map[string]any{"conversation": "Guide: welcome", "consents": consentTo("attach-conversation")}))
	if r.status != http.StatusOK || r.json(t)["introduction"].(map[string]any)["conversation"] != "Guide: welcome" {
		t.Fatalf("revision with a conversation: %d %s", r.status, r.body)
	}
	transcript := h.stored("transcripts", id)
	if transcript["text"] != "Guide: welcome" || transcript["expireAt"].(time.Time).UTC().Format(time.RFC3339Nano) != expires {
		t.Fatalf("transcript %v, draft expires %s", transcript, expires)
	}

	for n := 8; n <= 20; n++ {
		r := h.postJSON(path, revision(token, map[string]any{"message": fmt.Sprintf("Revision %d.", n)}))
		if r.status != http.StatusOK || r.json(t)["revisions"] != float64(n) {
			t.Fatalf("revision %d: %d %s", n, r.status, r.body)
		}
	}
	over := h.postJSON(path, revision(token, map[string]any{"message": "One too many."}))
	if over.status != http.StatusTooManyRequests || over.code(t) != "RATE_LIMITED" || over.header.Get("Retry-After") == "" {
		t.Fatalf("the 21st revision: %d %s %v", over.status, over.body, over.header)
	}

	// Nothing else moved: one spent challenge, each rate counter at one hit,
	// and the ledger entry counts the revisions without their words.
	if n := h.count("spentChallenges"); n != 1 {
		t.Errorf("%d spent challenges, want 1", n)
	}
	counters, err := h.db.Collection("rateCounters").Documents(context.Background()).GetAll()
	if err != nil || len(counters) != 2 {
		t.Fatalf("%d rate counters (%v), want ip and email", len(counters), err)
	}
	for _, c := range counters {
		if hits, _ := c.Data()["hits"].([]any); len(hits) != 1 {
			t.Errorf("rate counter %s has %d hits, want the draft's one", c.Ref.ID, len(hits))
		}
	}
	entry := h.stored("ledger", id)
	if entry["revisions"] != int64(20) || entry["decision"] != "AWAITING_CONFIRMATION" {
		t.Errorf("ledger entry %v", entry)
	}
	for _, doc := range h.docs("ledger") {
		for _, words := range []string{"Ada", "Revision", "welcome", "example.com", "Bob"} {
			if strings.Contains(doc, words) {
				t.Errorf("the ledger holds the visitor's words (%q): %s", words, doc)
			}
		}
	}
	if got := h.stored("introductions", id); got["message"] != "Revision 20." || got["revisions"] != int64(20) {
		t.Errorf("stored %v", got)
	}

	// The last revision is what is confirmed; a confirmed one is not revised.
	c := h.postJSON("/api/introductions/"+id+"/confirmation", map[string]string{"token": token})
	if c.status != http.StatusOK {
		t.Fatalf("confirm: %d %s", c.status, c.body)
	}
	h.clock.Advance(time.Minute)
	h.postJSON("/api/introductions/"+id+"/confirmation", map[string]string{"token": token})
	if got := h.stored("introductions", id); got["state"] != "CONFIRMED" || got["message"] != "Revision 20." {
		t.Errorf("confirmed %v", got)
	}
	late := h.postJSON(path, revision(token, nil))
	if late.status != http.StatusConflict || late.code(t) != "STATE_CONFLICT" {
		t.Fatalf("revising a confirmed introduction: %d %s", late.status, late.body)
	}
}

func TestRevisionOfUnknownWrongTokenOrExpiredDraftIsAnsweredLikeConfirmation(t *testing.T) {
	h := newHarness(t, nil)
	d := h.postJSON("/api/introductions", h.draftBody(nil)).json(t)
	id, token := d["id"].(string), d["token"].(string)
	unknown := h.postJSON("/api/introductions/AAAAAAAAAAAAAAAAAAAAAA/confirmation", map[string]string{"token": strings.Repeat("C", 43)})
	if unknown.status != http.StatusNotFound {
		t.Fatalf("confirmation of an unknown id: %d", unknown.status)
	}
	check := func(name string, r response) {
		t.Helper()
		if r.status != http.StatusNotFound || !bytes.Equal(r.body, unknown.body) {
			t.Errorf("%s: %d %s, want the confirmation's %s", name, r.status, r.body, unknown.body)
		}
	}
	check("unknown id", h.postJSON("/api/introductions/AAAAAAAAAAAAAAAAAAAAAA/revision", revision(strings.Repeat("C", 43), nil)))
	check("wrong token", h.postJSON("/api/introductions/"+id+"/revision", revision(strings.Repeat("W", 43), nil)))
	check("malformed token", h.postJSON("/api/introductions/"+id+"/revision", revision("short", nil)))
	h.clock.Advance(30*time.Minute + time.Second)
	check("expired draft", h.postJSON("/api/introductions/"+id+"/revision", revision(token, nil)))
}

func TestConcurrentRevisionsOfOneDraftBothApplyInTurn(t *testing.T) {
	h := newHarness(t, nil)
	d := h.postJSON("/api/introductions", h.draftBody(nil)).json(t)
	id, token := d["id"].(string), d["token"].(string)
	bodies := []map[string]any{
		revision(token, map[string]any{"message": "First edit, with a conversation.", "conversation": "You: one", "consents": consentTo("attach-conversation")}),
		revision(token, map[string]any{"message": "Second edit, without one."}),
	}
	results := make([]response, 2)
	testsupport.AtOnce(2, func(i int) { results[i] = h.postJSON("/api/introductions/"+id+"/revision", bodies[i]) })
	counts := map[float64]string{}
	for i, r := range results {
		if r.status != http.StatusOK {
			t.Fatalf("revision %d: %d %s", i, r.status, r.body)
		}
		got := r.json(t)
		counts[got["revisions"].(float64)] = got["introduction"].(map[string]any)["message"].(string)
	}
	if len(counts) != 2 || counts[1] == "" || counts[2] == "" {
		t.Fatalf("the two revisions were not applied one after the other: %v", counts)
	}
	stored := h.stored("introductions", id)
	if stored["revisions"] != int64(2) || stored["message"] != counts[2] {
		t.Fatalf("stored %v, the later revision said %q", stored, counts[2])
	}
	// The transcript agrees with the revision that won.
	if has := stored["hasConversation"].(bool); has != (h.count("transcripts") == 1) {
		t.Fatalf("hasConversation %v with %d transcripts", has, h.count("transcripts"))
	}
	if e := h.stored("ledger", id); e["revisions"] != int64(2) {
		t.Fatalf("ledger %v", e)
	}
}

func TestRevisionOfAHoneypotDecoyAnswersSuccessAndKeepsNothing(t *testing.T) {
	h := newHarness(t, nil)
	d := h.postJSON("/api/introductions", h.draftBody(map[string]any{"website": "https://spam.example"})).json(t)
	before := h.count("introductions")
	r := h.postJSON("/api/introductions/"+d["id"].(string)+"/revision", revision(d["token"].(string), map[string]any{"message": "Still spam."}))
	if r.status != http.StatusOK || r.json(t)["id"] != d["id"] {
		t.Fatalf("decoy revision: %d %s", r.status, r.body)
	}
	if h.count("introductions") != before || before != 0 {
		t.Fatalf("a decoy revision kept something: %d introductions", h.count("introductions"))
	}
}

// TestConsentsAreReadAlikeInADraftAndARevision: each consents value a draft
// refuses, a revision of a kept draft refuses with the same problem, and
// the draft is left as it was.
func TestConsentsAreReadAlikeInADraftAndARevision(t *testing.T) {
	h := newHarness(t, nil)
	d := h.postJSON("/api/introductions", h.draftBody(nil), fromAddress("198.51.100.40")...).json(t)
	id, token := d["id"].(string), d["token"].(string)
	for name, consents := range map[string]any{
		"given in capitals":   []any{map[string]any{"purpose": "attach-conversation", "textVersion": "attach-conversation/1", "GIVEN": true}},
		"purpose capitalised": []any{map[string]any{"Purpose": "attach-conversation", "textVersion": "attach-conversation/1", "given": true}},
		"an unknown member":   []any{map[string]any{"purpose": "attach-conversation", "textVersion": "attach-conversation/1", "given": true, "scope": "all"}},
		"not a list":          "yes",
	} {
		draft := h.postJSON("/api/introductions", h.draftBody(map[string]any{"consents": consents, "conversation": "You: hi"}), fromAddress("198.51.100.41")...)
		rev := h.postJSON("/api/introductions/"+id+"/revision", revision(token, map[string]any{"consents": consents, "conversation": "You: hi"}))
		if draft.status != http.StatusUnprocessableEntity || draft.code(t) != "CONSENT_REQUIRED" {
			t.Fatalf("%s: the draft: %d %s", name, draft.status, draft.body)
		}
		if rev.status != draft.status || !equalJSON(rev.json(t)["errors"], draft.json(t)["errors"]) {
			t.Errorf("%s: the revision answers %d %s, the draft %d %s", name, rev.status, rev.body, draft.status, draft.body)
		}
	}
	if got := h.stored("introductions", id); got["hasConversation"] != false || got["revisions"] != int64(0) {
		t.Fatalf("a refused revision changed the draft: %v", got)
	}
}
