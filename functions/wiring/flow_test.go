package wiring_test

import (
	"bytes"
	"net/http"
	"strings"
	"testing"
	"time"
)

func TestDraftConfirmWithdraw(t *testing.T) {
	h := newHarness(t, nil)
	r := h.postJSON("/api/introductions", h.draftBody(map[string]any{
		"name": "  Ada Lovelace  ", "message": "Hello\r\nthere",
		"conversation": "guide: hi\nvisitor: hello",
		"consents":     []any{map[string]any{"purpose": "attach-conversation", "textVersion": "attach-conversation/1", "given": true}},
	}), "Idempotency-Key", "0b3f3d2c-6c1e-4a57-9f0e-6a1f0d9b7e21")
	if r.status != http.StatusCreated {
		t.Fatalf("draft: %d %s", r.status, r.body)
	}
	d := r.json(t)
	kept := d["introduction"].(map[string]any)
	if kept["name"] != "Ada Lovelace" || kept["message"] != "Hello\nthere" || kept["conversation"] != "guide: hi\nvisitor: hello" {
		t.Errorf("the draft answer does not show the fields as kept: %v", kept)
	}
	if d["state"] != "DRAFT" || d["formVersion"] != "1" || len(d["token"].(string)) < 22 {
		t.Errorf("draft answer: %v", d)
	}
	if consents := d["consents"].([]any); len(consents) != 1 || consents[0].(map[string]any)["textSha256"] == "" {
		t.Errorf("consent evidence: %v", d["consents"])
	}
	if got := r.header.Get("Access-Control-Allow-Origin"); got != siteOrigin {
		t.Errorf("CORS origin %q", got)
	}
	for k, want := range map[string]string{"Cache-Control": "no-store", "X-Content-Type-Options": "nosniff", "Content-Security-Policy": "default-src 'none'; frame-ancestors 'none'"} {
		if got := r.header.Get(k); got != want {
			t.Errorf("%s = %q, want %q", k, got, want)
		}
	}
	id, token := d["id"].(string), d["token"].(string)
	if h.count("introductions") != 1 || h.count("transcripts") != 1 || h.count("ledger") != 1 || h.count("spentChallenges") != 1 || h.count("idempotencyKeys") != 1 {
		t.Fatalf("a kept draft writes exactly one of each record")
	}
	for _, doc := range h.docs("idempotencyKeys") {
		if strings.Contains(doc, token) {
			t.Fatal("the idempotency record holds the token in clear")
		}
	}

	c := h.postJSON("/api/introductions/"+id+"/confirmation", map[string]string{"token": token})
	if c.status != http.StatusOK || c.json(t)["state"] != "CONFIRMED" {
		t.Fatalf("confirm: %d %s", c.status, c.body)
	}
	again := h.postJSON("/api/introductions/"+id+"/confirmation", map[string]string{"token": token})
	if again.status != http.StatusOK || !bytes.Equal(again.body, c.body) {
		t.Fatalf("a repeated confirmation must answer the same success: %s vs %s", again.body, c.body)
	}
	if w := c.json(t)["withdrawal"].(map[string]any); w["path"] != "/api/introductions/"+id+"/withdrawal" {
		t.Errorf("withdrawal path: %v", w)
	}
	ledger := strings.Join(h.docs("ledger"), "\n")
	for _, layer := range []string{`"layer":"flood"`, `"layer":"ip"`, `"layer":"email"`} {
		if !strings.Contains(ledger, layer) {
			t.Errorf("the ledger entry lacks the %s rate-limit decision: %s", layer, ledger)
		}
	}
	// The admin inbox is the one destination here, DELIVERED at commit:
	// the evidence is closed by the confirmation itself.
	if !strings.Contains(ledger, `"HANDOFF_COMPLETE"`) {
		t.Errorf("ledger after confirmation: %s", ledger)
	}

	wd := h.postJSON("/api/introductions/"+id+"/withdrawal", map[string]string{"token": token})
	if wd.status != http.StatusNoContent {
		t.Fatalf("withdraw: %d %s", wd.status, wd.body)
	}
	if h.count("introductions") != 0 || h.count("transcripts") != 0 {
		t.Error("withdrawal must erase the introduction and its transcript")
	}
	ledger = strings.Join(h.docs("ledger"), "\n")
	if !strings.Contains(ledger, `"WITHDRAWN"`) || strings.Contains(ledger, "Ada") || strings.Contains(ledger, "ada@example.com") {
		t.Errorf("the ledger keeps a content-free tombstone: %s", ledger)
	}
	if gone := h.postJSON("/api/introductions/"+id+"/confirmation", map[string]string{"token": token}); gone.status != http.StatusNotFound {
		t.Errorf("after withdrawal the id is unknown: %d", gone.status)
	}
}

func TestWrongTokenIsAnsweredLikeUnknownID(t *testing.T) {
	h := newHarness(t, nil)
	d := h.postJSON("/api/introductions", h.draftBody(nil)).json(t)
	id := d["id"].(string)
	wrong := h.postJSON("/api/introductions/"+id+"/confirmation", map[string]string{"token": strings.Repeat("A", 43)})
	unknown := h.postJSON("/api/introductions/AAAAAAAAAAAAAAAAAAAAAA/confirmation", map[string]string{"token": d["token"].(string)})
	if wrong.status != http.StatusNotFound || unknown.status != http.StatusNotFound || !bytes.Equal(wrong.body, unknown.body) {
		t.Fatalf("wrong token %d %s; unknown id %d %s", wrong.status, wrong.body, unknown.status, unknown.body)
	}
}

func TestDraftExpiresUnconfirmed(t *testing.T) {
	h := newHarness(t, nil)
	d := h.postJSON("/api/introductions", h.draftBody(nil)).json(t)
	h.clock.Advance(30*time.Minute + time.Second)
	r := h.postJSON("/api/introductions/"+d["id"].(string)+"/confirmation", map[string]string{"token": d["token"].(string)})
	if r.status != http.StatusNotFound {
		t.Fatalf("a draft not confirmed within 30 minutes is never sent: %d %s", r.status, r.body)
	}
}

func TestHoneypotAnswersSuccessAndKeepsNothing(t *testing.T) {
	h := newHarness(t, nil)
	r := h.postJSON("/api/introductions", h.draftBody(map[string]any{"website": "https://spam.example"}))
	if r.status != http.StatusCreated {
		t.Fatalf("honeypot draft: %d %s", r.status, r.body)
	}
	d := r.json(t)
	if d["state"] != "DRAFT" || len(d["id"].(string)) != 22 || len(d["token"].(string)) != 43 {
		t.Fatalf("the decoy must look like a real draft: %v", d)
	}
	c := h.postJSON("/api/introductions/"+d["id"].(string)+"/confirmation", map[string]string{"token": d["token"].(string)})
	if c.status != http.StatusOK || c.json(t)["state"] != "CONFIRMED" {
		t.Fatalf("confirming a decoy answers success: %d %s", c.status, c.body)
	}
	for _, coll := range []string{"introductions", "transcripts"} {
		if n := h.count(coll); n != 0 {
			t.Errorf("%s holds %d documents after a honeypot", coll, n)
		}
	}
	// The spent challenge and the counters move as for a real draft (so
	// the decoy answers a reused solution and a limit as a draft would);
	// they hold no content.
	for _, coll := range []string{"spentChallenges", "rateCounters"} {
		for _, doc := range h.docs(coll) {
			if strings.Contains(doc, "Ada") || strings.Contains(doc, "spam.example") || strings.Contains(doc, "example.com") {
				t.Errorf("%s holds content after a honeypot: %s", coll, doc)
			}
		}
	}
	ledger := h.docs("ledger")
	if len(ledger) != 1 || !strings.Contains(ledger[0], `"HONEYPOT"`) || strings.Contains(ledger[0], "Ada") || strings.Contains(ledger[0], "spam.example") {
		t.Fatalf("a honeypot leaves one content-free ledger entry: %v", ledger)
	}
}

func TestIdempotentRetryReturnsTheSameDraft(t *testing.T) {
	h := newHarness(t, nil)
	body := h.draftBody(nil)
	key := "retry-7d1c9a0e-5b2f"
	first := h.postJSON("/api/introductions", body, "Idempotency-Key", key)
	second := h.postJSON("/api/introductions", body, "Idempotency-Key", key)
	if first.status != http.StatusCreated || second.status != http.StatusCreated {
		t.Fatalf("%d %s / %d %s", first.status, first.body, second.status, second.body)
	}
	a, b := first.json(t), second.json(t)
	if a["id"] != b["id"] || a["token"] != b["token"] || second.header.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("a retry must return the same draft and a token that confirms it: %v vs %v", a, b)
	}
	if h.count("introductions") != 1 {
		t.Fatal("one logical intake, one record")
	}
	if c := h.postJSON("/api/introductions/"+b["id"].(string)+"/confirmation", map[string]string{"token": b["token"].(string)}); c.status != http.StatusOK {
		t.Fatalf("the replayed token confirms: %d %s", c.status, c.body)
	}
	body["message"] = "A different message."
	if r := h.postJSON("/api/introductions", body, "Idempotency-Key", key); r.status != http.StatusUnprocessableEntity || r.code(t) != "IDEMPOTENCY_KEY_REUSED" {
		t.Fatalf("same key, other body: %d %s", r.status, r.body)
	}
}
