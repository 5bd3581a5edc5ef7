package wiring_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ownersite/introductions/shared/testsupport"
)

// pair is one real draft and one honeypot decoy, made the same way.
type pair struct{ real, decoy map[string]any }

// shape replaces a JSON document's values by their kinds, keeping keys.
func shape(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, x := range v {
			out[k] = shape(x)
		}
		return out
	case []any:
		out := []any{}
		for _, x := range v {
			out = append(out, shape(x))
		}
		return out
	case nil:
		return "null"
	default:
		return reflect.TypeOf(v).String()
	}
}

// without returns m without the named keys.
func without(m map[string]any, keys ...string) map[string]any {
	out := map[string]any{}
	for k, v := range m {
		if !slices.Contains(keys, k) {
			out[k] = v
		}
	}
	return out
}

// sameAnswers sends one request for each of the pair (through send) and
// holds the answers equal: status, body without the ignored members, and
// the Firestore calls the instances made for it.
func sameAnswers(t *testing.T, instances []*harness, what string, p pair, send func(d map[string]any) response, ignore ...string) (response, response) {
	t.Helper()
	count := func(send func() response) (response, int64) {
		for _, i := range instances {
			i.rpcs.Reset()
		}
		r := send()
		var n int64
		for _, i := range instances {
			n += i.rpcs.Count()
		}
		return r, n
	}
	r, realRPCs := count(func() response { return send(p.real) })
	d, decoyRPCs := count(func() response { return send(p.decoy) })
	if r.status != d.status {
		t.Fatalf("%s: real %d %s, decoy %d %s", what, r.status, r.body, d.status, d.body)
	}
	if realRPCs != decoyRPCs {
		t.Fatalf("%s: a real draft took %d Firestore calls and the decoy %d", what, realRPCs, decoyRPCs)
	}
	if len(r.body) > 0 || len(d.body) > 0 {
		var rj, dj map[string]any
		json.Unmarshal(r.body, &rj)
		json.Unmarshal(d.body, &dj)
		if !reflect.DeepEqual(shape(rj), shape(dj)) || !reflect.DeepEqual(without(rj, ignore...), without(dj, ignore...)) {
			t.Fatalf("%s answers differ:\nreal  %s\ndecoy %s", what, r.body, d.body)
		}
	}
	return r, d
}

// TestTheDecoyAnswersAsARealDraft makes a real draft and a honeypot decoy
// side by side and holds every answer a client can see to be the same —
// the draft's echo (normalised, with consent evidence), timestamps and
// their precision, confirmation (on another instance), a repeated
// confirmation's stable time, a wrong token, withdrawal before and after
// confirmation, expiry after the draft lifetime, an idempotent retry — and
// the Firestore calls behind each answer, the measure of its timing.
func TestTheDecoyAnswersAsARealDraft(t *testing.T) {
	h := newHarness(t, nil)
	other := h.sibling()
	h.quietDay(other)
	n := 0
	make := func(honeypot string, headers ...string) response {
		t.Helper()
		n++
		body := h.draftBody(map[string]any{
			"name": "  Ada\tLovelace ", "email": " ada+" + string(rune('a'+n)) + "@Example.com", "message": "Hello,\r\nthere.",
			"conversation": "Guide: hi\r\nVisitor: hi", "consents": consentTo("attach-conversation"), "website": honeypot,
		})
		return h.postJSON("/api/introductions", body, append(fromAddress(addr(n)), headers...)...)
	}
	makePair := func(t *testing.T) pair {
		t.Helper()
		h.rpcs.Reset()
		r := make("")
		realRPCs := h.rpcs.Count()
		h.rpcs.Reset()
		d := make("https://spam.example/")
		decoyRPCs := h.rpcs.Count()
		if r.status != http.StatusCreated || d.status != http.StatusCreated {
			t.Fatalf("drafts: real %d %s, decoy %d %s", r.status, r.body, d.status, d.body)
		}
		if realRPCs != decoyRPCs {
			t.Fatalf("a real draft took %d Firestore calls and a decoy %d", realRPCs, decoyRPCs)
		}
		return pair{r.json(t), d.json(t)}
	}
	confirm := func(on *harness, d map[string]any, token string) response {
		return on.postJSON("/api/introductions/"+d["id"].(string)+"/confirmation", map[string]string{"token": token})
	}
	withdraw := func(on *harness, d map[string]any, token string) response {
		return on.postJSON("/api/introductions/"+d["id"].(string)+"/withdrawal", map[string]string{"token": token})
	}
	same := func(t *testing.T, what string, p pair, send func(d map[string]any) response, ignore ...string) (response, response) {
		t.Helper()
		return sameAnswers(t, []*harness{h, other}, what, p, send, ignore...)
	}

	p := makePair(t)
	if !reflect.DeepEqual(shape(p.real), shape(p.decoy)) {
		t.Fatalf("the draft answers differ in shape:\nreal  %v\ndecoy %v", p.real, p.decoy)
	}
	for _, k := range []string{"state", "expiresAt", "formId", "formVersion"} {
		if p.real[k] != p.decoy[k] {
			t.Fatalf("%s: real %v, decoy %v", k, p.real[k], p.decoy[k])
		}
	}
	ri, di := p.real["introduction"].(map[string]any), p.decoy["introduction"].(map[string]any)
	if di["name"] != "Ada Lovelace" || di["message"] != "Hello,\nthere." || di["conversation"] != "Guide: hi\nVisitor: hi" || !reflect.DeepEqual(without(ri, "email"), without(di, "email")) {
		t.Fatalf("the decoy's echo is not normalised as a real one:\nreal  %v\ndecoy %v", ri, di)
	}
	rc, dc := p.real["consents"].([]any), p.decoy["consents"].([]any)
	if len(dc) != 1 || !reflect.DeepEqual(without(rc[0].(map[string]any), "withdrawalPath"), without(dc[0].(map[string]any), "withdrawalPath")) {
		t.Fatalf("consents differ:\nreal  %v\ndecoy %v", rc, dc)
	}

	token := func(d map[string]any) string { return d["token"].(string) }
	wrong := strings.Repeat("A", 43)
	r, d := same(t, "a wrong token", p, func(x map[string]any) response { return confirm(h, x, wrong) })
	unknown := h.postJSON("/api/introductions/AAAAAAAAAAAAAAAAAAAAAA/confirmation", map[string]string{"token": wrong})
	if r.status != http.StatusNotFound || string(d.body) != string(unknown.body) || string(r.body) != string(unknown.body) {
		t.Fatalf("a wrong token must answer exactly as an unknown id:\nreal    %d %s\ndecoy   %d %s\nunknown %s", r.status, r.body, d.status, d.body, unknown.body)
	}
	revise := func(on *harness, x map[string]any, token string, fields map[string]any) response {
		return on.postJSON("/api/introductions/"+x["id"].(string)+"/revision", revision(token, fields))
	}
	r, d = same(t, "revising on another instance", p, func(x map[string]any) response {
		return revise(other, x, token(x), map[string]any{"name": " Ada  King\t", "message": "Revised,\r\nthere."})
	}, "id", "token", "consents", "introduction")
	if r.status != http.StatusOK || d.json(t)["expiresAt"] != p.decoy["expiresAt"] || d.json(t)["introduction"].(map[string]any)["name"] != "Ada  King" {
		t.Fatalf("a revision keeps the expiry and answers the draft as kept:\nreal  %s\ndecoy %s", r.body, d.body)
	}
	if r, _ := same(t, "revising with a wrong token", p, func(x map[string]any) response {
		return revise(h, x, wrong, map[string]any{"message": "x"})
	}); r.status != http.StatusNotFound {
		t.Fatalf("a revision with a wrong token: %d %s", r.status, r.body)
	}
	if r, _ := same(t, "revising with content the rules refuse", p, func(x map[string]any) response {
		return revise(h, x, token(x), map[string]any{"message": "\u200b"})
	}); r.status != http.StatusUnprocessableEntity {
		t.Fatalf("a refused revision: %d %s", r.status, r.body)
	}
	if r, _ := same(t, "withdrawing before confirming", p, func(x map[string]any) response { return withdraw(h, x, token(x)) }); r.status != http.StatusConflict {
		t.Fatalf("withdrawing an unconfirmed draft: %d %s", r.status, r.body)
	}

	h.clock.Advance(time.Minute + 123456789*time.Nanosecond)
	first, firstDecoy := same(t, "confirming on another instance", p, func(x map[string]any) response { return confirm(other, x, token(x)) }, "id", "withdrawal")
	if first.status != http.StatusOK || first.json(t)["confirmedAt"] != firstDecoy.json(t)["confirmedAt"] {
		t.Fatalf("confirmation: real %s, decoy %s", first.body, firstDecoy.body)
	}
	if at := firstDecoy.json(t)["confirmedAt"].(string); !strings.Contains(at, ".123456Z") {
		t.Fatalf("confirmedAt %q is not to the microsecond, as a stored time is", at)
	}
	h.clock.Advance(time.Minute)
	again, againDecoy := same(t, "confirming again", p, func(x map[string]any) response { return confirm(h, x, token(x)) }, "id", "withdrawal")
	if again.json(t)["confirmedAt"] != first.json(t)["confirmedAt"] || againDecoy.json(t)["confirmedAt"] != firstDecoy.json(t)["confirmedAt"] ||
		!reflect.DeepEqual(againDecoy.json(t)["withdrawal"], firstDecoy.json(t)["withdrawal"]) {
		t.Fatalf("a repeated confirmation must answer the first one's time:\nfirst %s\nagain %s", firstDecoy.body, againDecoy.body)
	}
	if r, _ := same(t, "revising after confirming", p, func(x map[string]any) response {
		return revise(h, x, token(x), map[string]any{"message": "Too late."})
	}); r.status != http.StatusConflict {
		t.Fatalf("revising a confirmed draft: %d %s", r.status, r.body)
	}
	if r, _ := same(t, "withdrawing", p, func(x map[string]any) response { return withdraw(other, x, token(x)) }); r.status != http.StatusNoContent {
		t.Fatalf("withdrawing a confirmed draft: %d %s", r.status, r.body)
	}
	if r, _ := same(t, "confirming after withdrawal", p, func(x map[string]any) response { return confirm(h, x, token(x)) }); r.status != http.StatusNotFound {
		t.Fatalf("confirming a withdrawn draft: %d %s", r.status, r.body)
	}
	if r, _ := same(t, "withdrawing again", p, func(x map[string]any) response { return withdraw(h, x, token(x)) }); r.status != http.StatusNotFound {
		t.Fatalf("withdrawing a withdrawn draft: %d %s", r.status, r.body)
	}

	h.ledgerMatchesSchema() // the decoys' entries, confirmed and withdrawn, included

	late := makePair(t)
	// Past the draft lifetime in steps shorter than the quiet spell, with a
	// request on each instance between them: an instance idle for 15
	// minutes starts a sweep in the background on its next request, whose
	// calls would be counted with the confirmation's (and it would delete
	// the expired draft the confirmation is to find expired, not gone).
	for _, step := range []time.Duration{14 * time.Minute, 14 * time.Minute, 2*time.Minute + time.Second} {
		h.clock.Advance(step)
		for _, i := range []*harness{h, other} {
			confirm(i, map[string]any{"id": "AAAAAAAAAAAAAAAAAAAAAA"}, wrong)
		}
	}
	if r, _ := same(t, "confirming after the draft lifetime", late, func(x map[string]any) response { return confirm(other, x, token(x)) }); r.status != http.StatusNotFound {
		t.Fatalf("confirming an expired draft: %d %s", r.status, r.body)
	}

	// An idempotent retry answers the same draft again, for both.
	key := func(k string) []string { return []string{"Idempotency-Key", k} }
	n++
	body := func(honeypot string) map[string]any {
		return h.draftBody(map[string]any{"name": " Grace ", "email": "grace@example.com", "website": honeypot})
	}
	realBody, decoyBody := body(""), body("x")
	r1 := h.postJSON("/api/introductions", realBody, append(fromAddress("192.0.2.90"), key("real-key-12345678")...)...)
	d1 := h.postJSON("/api/introductions", decoyBody, append(fromAddress("192.0.2.91"), key("decoy-key-12345678")...)...)
	r2 := other.postJSON("/api/introductions", realBody, append(fromAddress("192.0.2.90"), key("real-key-12345678")...)...)
	d2 := other.postJSON("/api/introductions", decoyBody, append(fromAddress("192.0.2.91"), key("decoy-key-12345678")...)...)
	for _, c := range []struct {
		what         string
		first, again response
	}{{"real", r1, r2}, {"decoy", d1, d2}} {
		if c.first.status != 201 || c.again.status != 201 || c.again.header.Get("Idempotent-Replayed") != "true" {
			t.Fatalf("%s retry: %d %s then %d %s", c.what, c.first.status, c.first.body, c.again.status, c.again.body)
		}
		a, b := c.first.json(t), c.again.json(t)
		if a["id"] != b["id"] || a["token"] != b["token"] || !reflect.DeepEqual(a["introduction"], b["introduction"]) {
			t.Fatalf("%s retry answered another draft:\n%s\n%s", c.what, c.first.body, c.again.body)
		}
	}
	reused := decoyBody
	reused["message"] = "Something else entirely."
	if r := h.postJSON("/api/introductions", reused, append(fromAddress("192.0.2.91"), key("decoy-key-12345678")...)...); r.status != 422 || r.code(t) != "IDEMPOTENCY_KEY_REUSED" {
		t.Fatalf("a decoy's key with another body: %d %s", r.status, r.body)
	}
}

// TestTheDecoyAnswersTheAttachmentRoutesAsARealDraft holds a decoy's
// answers on the attachment routes to a real draft's — upload, replace,
// a wrong token, a refused file, the revision and the idempotent retry
// showing the file, removal, confirmation (409 after it), withdrawal and
// expiry (404), a form version that offers no file (409) — each with the
// same Firestore calls; and the decoy keeps the file's name only while
// its draft could be read: never in its ledger entry, gone at its
// withdrawal or, unconfirmed, with the sweep after its draft's lifetime.
func TestTheDecoyAnswersTheAttachmentRoutesAsARealDraft(t *testing.T) {
	h := newHarness(t, nil)
	other := h.sibling()
	h.quietDay(other)
	// Each draft's body and Idempotency-Key, by id, for its retry.
	bodies, keys := map[string]map[string]any{}, map[string]string{}
	n := 0
	makePair := func(version string) pair {
		t.Helper()
		var answers []map[string]any
		for _, honeypot := range []string{"", "https://spam.example/"} {
			n++
			key := fmt.Sprintf("attachment-key-%08d", n)
			body := h.draftBody(map[string]any{"formVersion": version, "email": fmt.Sprintf("ada+%d@example.com", n), "website": honeypot})
			r := h.postJSON("/api/introductions", body, append(fromAddress(addr(n)), "Idempotency-Key", key)...)
			if r.status != http.StatusCreated {
				t.Fatalf("draft: %d %s", r.status, r.body)
			}
			d := r.json(t)
			bodies[d["id"].(string)], keys[d["id"].(string)] = body, key
			answers = append(answers, d)
		}
		return pair{answers[0], answers[1]}
	}
	same := func(what string, p pair, send func(d map[string]any) response, ignore ...string) response {
		t.Helper()
		r, _ := sameAnswers(t, []*harness{h, other}, what, p, send, ignore...)
		return r
	}
	token := func(d map[string]any) string { return d["token"].(string) }
	put := func(on *harness, contentType, name string, body []byte) func(d map[string]any) response {
		return func(d map[string]any) response { return on.attach(d["id"].(string), token(d), contentType, name, body) }
	}
	remove := func(d map[string]any) response {
		return h.do(http.MethodDelete, "/api/introductions/"+d["id"].(string)+"/attachment", "", nil, "Authorization", "Bearer "+token(d))
	}
	revise := func(d map[string]any) response {
		return other.postJSON("/api/introductions/"+d["id"].(string)+"/revision", revision(token(d), map[string]any{"message": "Revised, about a role."}))
	}
	retry := func(d map[string]any) response {
		return other.postJSON("/api/introductions", bodies[d["id"].(string)], "Idempotency-Key", keys[d["id"].(string)])
	}
	confirm := func(d map[string]any) response {
		return h.postJSON("/api/introductions/"+d["id"].(string)+"/confirmation", map[string]string{"token": token(d)})
	}
	// The draft's own members (its id, token, echo and consents) differ by
	// design; its state, expiry and attachment must not.
	own := []string{"id", "token", "introduction", "consents"}

	p := makePair("3")
	pdf := testsupport.SamplePDF(2000)
	if r := same("an upload", p, put(h, "application/pdf", "job%20description.pdf", pdf)); r.status != http.StatusOK {
		t.Fatalf("upload: %d %s", r.status, r.body)
	}
	if r := same("an upload with a wrong token", p, func(d map[string]any) response {
		return h.attach(d["id"].(string), strings.Repeat("A", 43), "image/png", "", testsupport.SamplePNG())
	}); r.status != http.StatusNotFound {
		t.Fatalf("a wrong token: %d %s", r.status, r.body)
	}
	if r := same("HTML sent as plain text", p, put(h, "text/plain", "cv.txt", []byte("<!DOCTYPE html><html><script>alert(1)</script>"))); r.status != http.StatusUnsupportedMediaType {
		t.Fatalf("a refused file: %d %s", r.status, r.body)
	}
	if r := same("a replacement on another instance", p, put(other, "image/png", "", testsupport.SamplePNG())); r.status != http.StatusOK {
		t.Fatalf("replace: %d %s", r.status, r.body)
	}
	if r := same("a revision", p, revise, own...); r.json(t)["attachment"] == nil {
		t.Fatalf("the revision's answer shows the file: %s", r.body)
	}
	if r := same("a removal", p, remove); r.status != http.StatusNoContent {
		t.Fatalf("remove: %d %s", r.status, r.body)
	}
	if r := same("a revision after the removal", p, revise, own...); r.json(t)["attachment"] != nil {
		t.Fatalf("the revision's answer after a removal: %s", r.body)
	}
	same("an upload again", p, put(h, "application/pdf", "cv%E2%80%AE.pdf", pdf))
	if r := same("confirming", p, confirm, "id", "withdrawal"); r.status != http.StatusOK {
		t.Fatalf("confirm: %d %s", r.status, r.body)
	}
	if r := same("an idempotent retry after confirming", p, retry, own...); r.json(t)["attachment"].(map[string]any)["name"] != "cv.pdf" {
		t.Fatalf("the retry's answer shows the file: %s", r.body)
	}
	if r := same("an upload after confirming", p, put(h, "image/png", "", testsupport.SamplePNG())); r.status != http.StatusConflict {
		t.Fatalf("an upload after confirmation: %d %s", r.status, r.body)
	}
	if r := same("a removal after confirming", p, remove); r.status != http.StatusConflict {
		t.Fatalf("a removal after confirmation: %d %s", r.status, r.body)
	}
	if entry := h.stored("ledger", p.decoy["id"].(string)); strings.Contains(fmt.Sprint(entry), "cv.pdf") || entry["attachment"] == nil {
		t.Fatalf("the decoy's ledger entry keeps the file's type and size, never its name: %v", entry)
	}
	if r := same("withdrawing", p, func(d map[string]any) response {
		return h.postJSON("/api/introductions/"+d["id"].(string)+"/withdrawal", map[string]string{"token": token(d)})
	}); r.status != http.StatusNoContent {
		t.Fatalf("withdraw: %d %s", r.status, r.body)
	}
	if left := h.docs("decoyAttachments"); len(left) != 0 {
		t.Fatalf("a withdrawn decoy's file outlives the withdrawal: %v", left)
	}
	if r := same("an upload after withdrawing", p, put(h, "image/png", "", testsupport.SamplePNG())); r.status != http.StatusNotFound {
		t.Fatalf("an upload after withdrawal: %d %s", r.status, r.body)
	}

	old := makePair("2")
	if r := same("an upload on a version that offers none", old, put(h, "image/png", "", testsupport.SamplePNG())); r.status != http.StatusConflict || r.code(t) != "ATTACHMENT_NOT_OFFERED" {
		t.Fatalf("version 2: %d %s", r.status, r.body)
	}

	late := makePair("3")
	same("an upload to a draft left unconfirmed", late, put(h, "text/plain", "notes.txt", []byte("Role: staff engineer\n")))
	if left := h.docs("decoyAttachments"); len(left) != 1 {
		t.Fatalf("the decoy's file while its draft lives: %v", left)
	}
	// Past the draft lifetime in steps shorter than the quiet spell, as
	// TestTheDecoyAnswersAsARealDraft does, so no background sweep is
	// counted with the answers.
	for _, step := range []time.Duration{14 * time.Minute, 14 * time.Minute, 2*time.Minute + time.Second} {
		h.clock.Advance(step)
		for _, i := range []*harness{h, other} {
			i.postJSON("/api/introductions/AAAAAAAAAAAAAAAAAAAAAA/confirmation", map[string]string{"token": strings.Repeat("A", 43)})
			i.svc.Sweeps.Wait()
		}
	}
	if r := same("an upload after the draft lifetime", late, put(h, "image/png", "", testsupport.SamplePNG())); r.status != http.StatusNotFound {
		t.Fatalf("an upload to an expired draft: %d %s", r.status, r.body)
	}
	h.sweep()
	if left := h.docs("decoyAttachments"); len(left) != 0 {
		t.Fatalf("a decoy's file outlives its draft: %v", left)
	}
	h.ledgerMatchesSchema()
}
