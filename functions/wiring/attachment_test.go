package wiring_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"mime"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ownersite/introductions/shared/intake"
	"github.com/ownersite/introductions/shared/storagetest"
	"github.com/ownersite/introductions/shared/testsupport"
)

// v3Draft keeps a draft of form version 3 and returns its id and token.
func (h *harness) v3Draft(overrides map[string]any) (id, token string) {
	h.t.Helper()
	r := h.postJSON("/api/introductions", h.draftBody(withOverrides(map[string]any{"formVersion": "3"}, overrides)))
	if r.status != http.StatusCreated {
		h.t.Fatalf("draft: %d %s", r.status, r.body)
	}
	d := r.json(h.t)
	if a, ok := d["attachment"]; !ok || a != nil {
		h.t.Fatalf("a new draft answers attachment null: %v", d)
	}
	return d["id"].(string), d["token"].(string)
}

// attach PUTs body as the attachment of draft id.
func (h *harness) attach(id, token, contentType, name string, body []byte, headers ...string) response {
	h.t.Helper()
	headers = append(headers, "Authorization", "Bearer "+token)
	if name != "" {
		headers = append(headers, "Content-Disposition", "attachment; filename*=UTF-8''"+name)
	}
	return h.do(http.MethodPut, "/api/introductions/"+id+"/attachment", contentType, body, headers...)
}

// objects names the objects in the harness's bucket, read through
// fake-gcs-server's own API.
func (h *harness) objects() []string {
	h.t.Helper()
	var names []string
	for _, o := range storagetest.Objects(h.t, h.bucket) {
		names = append(names, o.Name)
	}
	return names
}

// TestAttachmentUploadReplaceDeleteConfirmWithdraw walks the attachment
// through a draft's life on the wired service: upload, replace (the old
// bytes gone), the revision's answer showing it, delete, upload again,
// confirm (no change after that), withdraw: and the bucket is empty.
func TestAttachmentUploadReplaceDeleteConfirmWithdraw(t *testing.T) {
	h := newHarness(t, nil)
	id, token := h.v3Draft(nil)
	pdf := testsupport.SamplePDF(3000)
	r := h.attach(id, token, "application/pdf", "..%2F..%2Fjob%E2%80%AE%20description.pdf", pdf)
	if r.status != http.StatusOK {
		t.Fatalf("upload: %d %s", r.status, r.body)
	}
	sum := sha256.Sum256(pdf)
	a := r.json(t)["attachment"].(map[string]any)
	if a["name"] != "job description.pdf" || a["type"] != "application/pdf" || a["size"] != float64(len(pdf)) || a["sha256"] != hex.EncodeToString(sum[:]) {
		t.Fatalf("attachment answer: %v", a)
	}
	first := h.objects()
	if len(first) != 1 || !strings.HasPrefix(first[0], id+"/") {
		t.Fatalf("bucket after the upload: %v", first)
	}
	if !contains(h.docs("ledger"), `"attachment":{"sha256":"`+hex.EncodeToString(sum[:])) || contains(h.docs("ledger"), "job description") {
		t.Fatalf("the ledger keeps type, size and hash, never the name: %v", h.docs("ledger"))
	}

	png := testsupport.SamplePNG()
	if r := h.attach(id, token, "image/png", "", png); r.status != http.StatusOK || r.json(t)["attachment"].(map[string]any)["name"] != "" {
		t.Fatalf("replace: %d %s", r.status, r.body)
	}
	if now := h.objects(); len(now) != 1 || now[0] == first[0] {
		t.Fatalf("a replaced attachment's bytes stay: %v (was %v)", now, first)
	}
	rev := h.postJSON("/api/introductions/"+id+"/revision", map[string]any{"token": token, "name": "Ada", "email": "ada@example.com",
		"message": "Hello again, about a role.", "consents": []any{}})
	if rev.status != http.StatusOK || rev.json(t)["attachment"].(map[string]any)["type"] != "image/png" {
		t.Fatalf("the revision's answer shows the attachment: %d %s", rev.status, rev.body)
	}

	// The scheme in any case, one or more spaces after it.
	del := h.do(http.MethodDelete, "/api/introductions/"+id+"/attachment", "", nil, "Authorization", "bearer  "+token)
	if del.status != http.StatusNoContent || len(h.objects()) != 0 || contains(h.docs("ledger"), `"attachment":{`) {
		t.Fatalf("delete: %d %s, bucket %v", del.status, del.body, h.objects())
	}
	if r := h.attach(id, token, "text/plain; charset=utf-8", "notes.txt", []byte("Role: staff engineer\n")); r.status != http.StatusOK {
		t.Fatalf("upload again: %d %s", r.status, r.body)
	}
	if c := h.postJSON("/api/introductions/"+id+"/confirmation", map[string]string{"token": token}); c.status != http.StatusOK {
		t.Fatalf("confirm: %d %s", c.status, c.body)
	}
	if r := h.attach(id, token, "image/png", "", png); r.status != http.StatusConflict || r.code(t) != "STATE_CONFLICT" {
		t.Fatalf("an upload after confirmation: %d %s", r.status, r.body)
	}
	if r := h.do(http.MethodDelete, "/api/introductions/"+id+"/attachment", "", nil, "Authorization", "Bearer "+token); r.status != http.StatusConflict {
		t.Fatalf("a delete after confirmation: %d %s", r.status, r.body)
	}
	if len(h.objects()) != 1 {
		t.Fatalf("the confirmed introduction's attachment: %v", h.objects())
	}
	if w := h.postJSON("/api/introductions/"+id+"/withdrawal", map[string]string{"token": token}); w.status != http.StatusNoContent && w.status != http.StatusOK {
		t.Fatalf("withdraw: %d %s", w.status, w.body)
	}
	if left := h.objects(); len(left) != 0 {
		t.Fatalf("a withdrawn introduction's attachment stays: %v", left)
	}
	h.tombstoneKeepsNoHash(id)
}

// tombstoneKeepsNoHash checks that the ledger entry of a withdrawn or
// erased introduction keeps its attachment's type and size, never the
// hash that would prove which file was sent, and still matches the schema.
func (h *harness) tombstoneKeepsNoHash(id string) {
	h.t.Helper()
	e := h.ledger(id)
	if e.Attachment == nil || e.Attachment.Type == "" || e.Attachment.Size == 0 || e.Attachment.SHA256 != "" {
		h.t.Fatalf("the tombstone's attachment: %+v", e.Attachment)
	}
	if contains(h.docs("ledger"), `"sha256"`) {
		h.t.Fatalf("a tombstone keeps a file's hash: %v", h.docs("ledger"))
	}
	h.ledgerMatchesSchema()
}

// TestAPersianFileNameUploadsAndDownloadsUnderASafeName: a name spelt
// with a zero-width non-joiner is kept byte for byte, and every download
// saves under the extension of the type its bytes were verified as.
func TestAPersianFileNameUploadsAndDownloadsUnderASafeName(t *testing.T) {
	h := newHarness(t, nil)
	for _, c := range []struct{ name, typ, saved string }{
		{"رزومه‌ام.pdf", "application/pdf", "رزومه‌ام.pdf"},
		{"cv.html", "application/pdf", "cv.pdf"},
		{"page.htm", "text/plain; charset=utf-8", "page.txt"},
		{"notes.svg", "text/plain; charset=utf-8", "notes.txt"},
	} {
		h.clock.Advance(2 * time.Hour) // past the rate limit and the escalation's window
		id, token := h.v3Draft(nil)
		body := testsupport.SamplePDF(100)
		if strings.HasPrefix(c.typ, "text/") {
			body = []byte("Role: staff engineer\n")
		}
		r := h.attach(id, token, c.typ, url.PathEscape(c.name), body)
		if r.status != http.StatusOK || r.json(t)["attachment"].(map[string]any)["name"] != c.name {
			t.Fatalf("%s: upload: %d %s", c.name, r.status, r.body)
		}
		if r := h.postJSON("/api/introductions/"+id+"/confirmation", map[string]string{"token": token}); r.status != http.StatusOK {
			t.Fatalf("%s: confirm: %d %s", c.name, r.status, r.body)
		}
		dl := h.do(http.MethodGet, "/admin/introductions/"+id+"/attachment", "", nil)
		_, params, err := mime.ParseMediaType(dl.header.Get("Content-Disposition"))
		if dl.status != http.StatusOK || err != nil || params["filename"] != c.saved || !bytes.Equal(dl.body, body) {
			t.Fatalf("%s: download: %d %q, want it saved as %q", c.name, dl.status, dl.header.Get("Content-Disposition"), c.saved)
		}
	}
}

// TestAttachmentRefusals: each bad upload answers its documented code and
// leaves nothing in the bucket.
func TestAttachmentRefusals(t *testing.T) {
	h := newHarness(t, map[string]string{"ATTACHMENT_MAX_BYTES": "65536"})
	id, token := h.v3Draft(nil)
	pdf := testsupport.SamplePDF(1000)
	big := testsupport.SamplePDF(70000)
	v1 := h.postJSON("/api/introductions", h.draftBody(nil)).json(t)
	cases := []struct {
		name        string
		id, token   string
		contentType string
		body        []byte
		status      int
		code        string
	}{
		{"wrong token", id, strings.Repeat("A", 43), "application/pdf", pdf, 404, "NOT_FOUND"},
		{"no token", id, "", "application/pdf", pdf, 404, "NOT_FOUND"},
		{"unknown id", "nosuchdraft000000000000", token, "application/pdf", pdf, 404, "NOT_FOUND"},
		{"a version without attachments", v1["id"].(string), v1["token"].(string), "application/pdf", pdf, 409, "ATTACHMENT_NOT_OFFERED"},
		{"too large", id, token, "application/pdf", big, 413, "ATTACHMENT_TOO_LARGE"},
		{"pdf renamed png", id, token, "image/png", pdf, 415, "ATTACHMENT_TYPE_REFUSED"},
		{"html as text", id, token, "text/plain", []byte("<html><script>alert(1)</script></html>"), 415, "ATTACHMENT_TYPE_REFUSED"},
		{"polyglot", id, token, "image/png", append(testsupport.SamplePNG(), []byte("PK\x03\x04zip")...), 415, "ATTACHMENT_TYPE_REFUSED"},
		{"a type not allowed", id, token, "application/zip", []byte("PK\x03\x04"), 415, "ATTACHMENT_TYPE_REFUSED"},
		{"empty", id, token, "application/pdf", nil, 422, "ATTACHMENT_EMPTY"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := h.attach(c.id, c.token, c.contentType, "", c.body)
			if r.status != c.status || r.code(t) != c.code || r.header.Get("Content-Type") != "application/problem+json" {
				t.Fatalf("%d %s, want %d %s", r.status, r.body, c.status, c.code)
			}
			if left := h.objects(); len(left) != 0 {
				t.Fatalf("a refused upload left %v", left)
			}
		})
	}
	// A body too large without a Content-Length (chunked) is cut off at the limit.
	req, _ := http.NewRequest(http.MethodPut, h.srv.URL+"/api/introductions/"+id+"/attachment", struct{ *bytes.Reader }{bytes.NewReader(big)})
	req.Header.Set("Content-Type", "application/pdf")
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestEntityTooLarge || req.ContentLength != 0 || len(h.objects()) != 0 {
		t.Fatalf("a chunked body over the limit: %d (Content-Length %d), bucket %v", resp.StatusCode, req.ContentLength, h.objects())
	}
}

// sweep runs the sweep endpoint and returns its answer's deleted counts.
func (h *harness) sweep() map[string]int {
	h.t.Helper()
	h.svc.Sweeps.Wait()
	r := h.do(http.MethodPost, "/internal/sweep", "", nil, "User-Agent", "Google-Cloud-Scheduler")
	if r.status != http.StatusOK {
		h.t.Fatalf("sweep: %d %s", r.status, r.body)
	}
	var run struct{ Deleted map[string]int }
	if err := json.Unmarshal(r.body, &run); err != nil {
		h.t.Fatal(err)
	}
	return run.Deleted
}

// TestTheSweepDeletesAttachmentsWithTheirIntroductions: an unconfirmed
// draft's attachment goes with the draft at expiry, a confirmed one's at
// its retention, and the sweep's answer counts them; a live draft's stays.
func TestTheSweepDeletesAttachmentsWithTheirIntroductions(t *testing.T) {
	h := newHarness(t, nil)
	expiring, expiringToken := h.v3Draft(nil)
	if r := h.attach(expiring, expiringToken, "image/jpeg", "photo.jpg", testsupport.SampleJPEG()); r.status != http.StatusOK {
		t.Fatalf("upload: %d %s", r.status, r.body)
	}
	confirmed, confirmedToken := h.v3Draft(map[string]any{"email": "grace@example.com"})
	if r := h.attach(confirmed, confirmedToken, "application/pdf", "cv.pdf", testsupport.SamplePDF(500)); r.status != http.StatusOK {
		t.Fatalf("upload: %d %s", r.status, r.body)
	}
	if c := h.postJSON("/api/introductions/"+confirmed+"/confirmation", map[string]string{"token": confirmedToken}); c.status != http.StatusOK {
		t.Fatalf("confirm: %d %s", c.status, c.body)
	}
	h.clock.Advance(31 * time.Minute)
	live, liveToken := h.v3Draft(map[string]any{"email": "live@example.com"})
	if r := h.attach(live, liveToken, "text/plain", "", []byte("still drafting")); r.status != http.StatusOK {
		t.Fatalf("upload: %d %s", r.status, r.body)
	}
	if d := h.sweep(); d["drafts"] != 1 || d["attachments"] != 1 {
		t.Fatalf("the sweep at the draft's expiry deleted %v", d)
	}
	if left := h.objects(); len(left) != 2 || contains(left, expiring+"/") {
		t.Fatalf("after the first sweep the bucket holds %v", left)
	}
	h.clock.Advance(h.cfg.Retention.Introduction)
	if d := h.sweep(); d["introductions"] != 1 || d["attachments"] != 2 {
		t.Fatalf("the sweep at the retention deleted %v", d)
	}
	if left := h.objects(); len(left) != 0 {
		t.Fatalf("after the retention the bucket holds %v", left)
	}
}

// TestErasureDeletesTheAttachment: the owner's erasure of a data subject
// deletes their attachments' bytes at once, and the export lists it first.
func TestErasureDeletesTheAttachment(t *testing.T) {
	h := newHarness(t, nil)
	id, token := h.v3Draft(map[string]any{"email": "erase-me@example.com"})
	if r := h.attach(id, token, "image/png", "scan.png", testsupport.SamplePNG()); r.status != http.StatusOK {
		t.Fatalf("upload: %d %s", r.status, r.body)
	}
	if c := h.postJSON("/api/introductions/"+id+"/confirmation", map[string]string{"token": token}); c.status != http.StatusOK {
		t.Fatalf("confirm: %d %s", c.status, c.body)
	}
	export := h.do(http.MethodGet, "/admin/api/subjects?email=erase-me@example.com", "", nil)
	intros, _ := export.json(t)["introductions"].([]any)
	if len(intros) != 1 || intros[0].(map[string]any)["attachment"].(map[string]any)["name"] != "scan.png" {
		t.Fatalf("the subject export: %d %s", export.status, export.body)
	}
	if r := h.postJSON("/admin/api/subjects/erasure", map[string]string{"email": "erase-me@example.com"}, "Sec-Fetch-Site", "same-origin"); r.status != http.StatusOK {
		t.Fatalf("erasure: %d %s", r.status, r.body)
	}
	if left := h.objects(); len(left) != 0 {
		t.Fatalf("an erased introduction's attachment stays: %v", left)
	}
	h.tombstoneKeepsNoHash(id)
}

// TestTheLedgerSaysWhileAFileIsHeld: with a file attached, the draft's
// ledger entry lists "attachment" among what is stored and grants the
// attachment's purpose (legitimate interests, no consent); a revision
// keeps both; a delete takes both back.
func TestTheLedgerSaysWhileAFileIsHeld(t *testing.T) {
	h := newHarness(t, nil)
	id, token := h.v3Draft(nil)
	type entry struct {
		Redaction struct{ Stored []string }
		Purposes  []struct {
			ID      string
			Granted bool
		}
	}
	read := func() (stored, granted bool) {
		t.Helper()
		snap, err := h.db.Collection("ledger").Doc(id).Get(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		var e entry
		b, _ := json.Marshal(snap.Data())
		json.Unmarshal(b, &e)
		stored = slices.Contains(e.Redaction.Stored, "attachment")
		for _, p := range e.Purposes {
			if p.ID == "attachment" {
				granted = p.Granted
			}
		}
		return stored, granted
	}
	if s, g := read(); s || g {
		t.Fatalf("before any file: stored %v, granted %v", s, g)
	}
	if r := h.attach(id, token, "image/png", "scan.png", testsupport.SamplePNG()); r.status != http.StatusOK {
		t.Fatalf("upload: %d %s", r.status, r.body)
	}
	if s, g := read(); !s || !g {
		t.Fatalf("with a file: stored %v, granted %v", s, g)
	}
	if rev := h.postJSON("/api/introductions/"+id+"/revision", revision(token, nil)); rev.status != http.StatusOK {
		t.Fatalf("revision: %d %s", rev.status, rev.body)
	}
	if s, g := read(); !s || !g {
		t.Fatalf("after a revision: stored %v, granted %v", s, g)
	}
	if del := h.do(http.MethodDelete, "/api/introductions/"+id+"/attachment", "", nil, "Authorization", "Bearer "+token); del.status != http.StatusNoContent {
		t.Fatalf("delete: %d %s", del.status, del.body)
	}
	if s, g := read(); s || g {
		t.Fatalf("after the delete: stored %v, granted %v", s, g)
	}
}

// TestASweepDeletesTheFilesOfWhatItDeletesAndOnlyTheSchedulersListsTheBucket:
// any run (here an instance's cold start) deletes the attachment of each
// draft it deletes; an object no introduction names any more (its
// introduction gone by another way) is left to the Scheduler's run, the one
// run that lists the whole bucket, so a run that finds nothing stays cheap.
func TestASweepDeletesTheFilesOfWhatItDeletesAndOnlyTheSchedulersListsTheBucket(t *testing.T) {
	h := newHarness(t, nil)
	expiring, expiringToken := h.v3Draft(nil)
	if r := h.attach(expiring, expiringToken, "image/png", "scan.png", testsupport.SamplePNG()); r.status != http.StatusOK {
		t.Fatalf("upload: %d %s", r.status, r.body)
	}
	orphaned, orphanedToken := h.v3Draft(map[string]any{"email": "orphan@example.com"})
	if r := h.attach(orphaned, orphanedToken, "text/plain", "", []byte("notes")); r.status != http.StatusOK {
		t.Fatalf("upload: %d %s", r.status, r.body)
	}
	h.svc.Sweeps.Wait()
	if _, err := h.db.Collection("introductions").Doc(orphaned).Delete(context.Background()); err != nil {
		t.Fatal(err)
	}
	h.clock.Advance(31 * time.Minute)

	run, err := h.svc.Sweeps.Run(context.Background(), intake.SweepByColdStart)
	if err != nil {
		t.Fatal(err)
	}
	left := h.objects()
	if run.Deleted["attachments"] != 1 || len(left) != 1 || !strings.HasPrefix(left[0], orphaned+"/") {
		t.Fatalf("a cold start's sweep deleted %v, leaving %v", run.Deleted, left)
	}
	if d := h.sweep(); d["attachments"] != 1 || len(h.objects()) != 0 {
		t.Fatalf("the Scheduler's sweep deleted %v, leaving %v", d, h.objects())
	}
}
