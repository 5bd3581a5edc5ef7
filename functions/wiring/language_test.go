package wiring_test

import (
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ownersite/introductions/shared/formregistry"
	"github.com/ownersite/introductions/shared/testsupport"
)

// consentHashes returns, from a stored document's consents, each purpose's
// language and text hash.
func consentHashes(t *testing.T, doc map[string]any) map[string][2]string {
	t.Helper()
	out := map[string][2]string{}
	list, _ := doc["consents"].([]any)
	for _, c := range list {
		m := c.(map[string]any)
		lang, _ := m["lang"].(string)
		out[m["purpose"].(string)] = [2]string{lang, m["textSha256"].(string)}
	}
	return out
}

// TestAPersianDraftAndItsRevisionsInAnotherLanguage: a draft written in
// Persian records fa, and its ledger entry names fa and the SHA-256 of the
// Persian consent text shown; a revision written after switching to
// English is the same intake (same id, one ledger entry), its evidence
// naming the English text, and switching back names the Persian one
// again, through confirmation. A language the version is not shown in is
// FORM_VERSION_UNKNOWN on lang.
func TestAPersianDraftAndItsRevisionsInAnotherLanguage(t *testing.T) {
	h := newHarness(t, nil)
	base, _ := testsupport.Forms(t).Find("introduction", "2")
	hash := func(lang string) string {
		v, _ := base.In(lang)
		p, _ := v.Purpose("future-roles")
		return formregistry.TextSHA256(p.Consent.Text)
	}
	if hash("fa") == hash("en") {
		t.Fatal("the Persian and English consent texts hash alike")
	}

	refused := h.postJSON("/api/introductions", h.draftBody(map[string]any{"formVersion": "2", "lang": "de"}))
	if refused.status != http.StatusUnprocessableEntity || refused.code(t) != "FORM_VERSION_UNKNOWN" {
		t.Fatalf("a draft in a language the form lacks: %d %s", refused.status, refused.body)
	}

	created := h.postJSON("/api/introductions", h.draftBody(map[string]any{
		"formVersion": "2", "lang": "fa", "name": "آدا لاولیس", "message": "سلام، دربارهٔ یک موقعیت شغلی می‌خواهم گفت‌وگو کنم.",
		"consents": consentTo("future-roles"),
	}))
	if created.status != http.StatusCreated {
		t.Fatalf("draft: %d %s", created.status, created.body)
	}
	d := created.json(t)
	id, token := d["id"].(string), d["token"].(string)
	if d["lang"] != "fa" {
		t.Errorf("the answer names lang %v, want fa", d["lang"])
	}
	check := func(step, lang string) {
		t.Helper()
		if n := h.count("ledger"); n != 1 {
			t.Fatalf("%s: %d ledger entries, want the one intake's", step, n)
		}
		entry, in := h.stored("ledger", id), h.stored("introductions", id)
		if entry["lang"] != lang || in["lang"] != lang {
			t.Errorf("%s: ledger lang %v, introduction lang %v, want %s", step, entry["lang"], in["lang"], lang)
		}
		for what, doc := range map[string]map[string]any{"ledger": entry, "introduction": in} {
			if got, want := consentHashes(t, doc)["future-roles"], [2]string{lang, hash(lang)}; got != want {
				t.Errorf("%s: %s consent evidence %v, want %v", step, what, got, want)
			}
		}
	}
	check("the Persian draft", "fa")

	path := "/api/introductions/" + id + "/revision"
	if r := h.postJSON(path, revision(token, map[string]any{"lang": "en", "consents": consentTo("future-roles")})); r.status != http.StatusOK || r.json(t)["id"] != id || r.json(t)["lang"] != "en" {
		t.Fatalf("revision in English: %d %s", r.status, r.body)
	}
	check("revised in English", "en")
	if r := h.postJSON(path, revision(token, map[string]any{"consents": consentTo("future-roles")})); r.status != http.StatusOK {
		t.Fatalf("revision naming no language: %d %s", r.status, r.body)
	}
	check("revised naming no language (the draft's own)", "en")
	if r := h.postJSON(path, revision(token, map[string]any{"lang": "de"})); r.status != http.StatusUnprocessableEntity || r.code(t) != "FORM_VERSION_UNKNOWN" {
		t.Fatalf("revision in a language the form lacks: %d %s", r.status, r.body)
	}
	if r := h.postJSON(path, revision(token, map[string]any{"lang": "fa", "consents": consentTo("future-roles")})); r.status != http.StatusOK {
		t.Fatalf("revision back in Persian: %d %s", r.status, r.body)
	}
	check("revised back in Persian", "fa")

	if c := h.postJSON("/api/introductions/"+id+"/confirmation", map[string]string{"token": token}); c.status != http.StatusOK {
		t.Fatalf("confirm: %d %s", c.status, c.body)
	}
	check("confirmed", "fa")
	if e := h.stored("ledger", id); e["decision"] == "REPAIR_NEEDED" {
		t.Errorf("the Persian evidence needs repair: %v", e["reason"])
	}
}

// TestTheOwnersMailSaysWhichLanguageTheVisitorWroteIn: the owner's mail
// is in the owner's language (OWNER_LANGUAGE, English by default) for a
// Persian introduction, says it was written in Persian, names the language
// each consent text was shown in, and lets the visitor's words take their
// own direction.
func TestTheOwnersMailSaysWhichLanguageTheVisitorWroteIn(t *testing.T) {
	mp := testsupport.SharedMail(t)
	for _, tc := range []struct {
		owner string
		text  []string
	}{
		{"", []string{"Someone introduced themselves through your site.", "Name: \u2068مریم میرزاخانی\u2069", "Written in Persian (fa).", "notice future-roles/1 (fa)"}},
		{"fa", []string{"کسی از راه سایت شما خودش را معرفی کرده است.", "نام: \u2068مریم میرزاخانی\u2069", "نوشته\u200cشده به فارسی (fa).", "متن future-roles/1 (fa)"}},
	} {
		t.Run("owner "+tc.owner, func(t *testing.T) {
			to := "owner-" + strconv.FormatInt(time.Now().UnixNano(), 36) + "@site.example"
			h := newHarness(t, map[string]string{
				"SMTP_HOST": mp.SMTPHost, "SMTP_PORT": strconv.Itoa(mp.SMTPPort), "SMTP_TLS": "none",
				"NOTIFY_EMAIL_FROM": "Introductions <introductions@site.example>", "NOTIFY_EMAIL_TO": to, "OWNER_LANGUAGE": tc.owner,
			})
			created := h.postJSON("/api/introductions", h.draftBody(map[string]any{
				"formVersion": "2", "lang": "fa", "name": "مریم میرزاخانی", "message": "سلام، دربارهٔ یک همکاری پژوهشی.",
				"consents": consentTo("future-roles"),
			}))
			if created.status != http.StatusCreated {
				t.Fatalf("draft: %d %s", created.status, created.body)
			}
			d := created.json(t)
			if c := h.postJSON("/api/introductions/"+d["id"].(string)+"/confirmation", map[string]string{"token": d["token"].(string)}); c.status != http.StatusOK {
				t.Fatalf("confirm: %d %s", c.status, c.body)
			}
			h.settle()
			mails := mp.SentTo(t, to)
			if len(mails) != 1 {
				t.Fatalf("MailDev holds %d mails for %s", len(mails), to)
			}
			text, html := strings.ReplaceAll(mails[0].Text, "\r\n", "\n"), strings.ReplaceAll(mails[0].HTML, "\r\n", "\n")
			for _, want := range tc.text {
				if !strings.Contains(text, want) {
					t.Errorf("the mail's text lacks %q:\n%s", want, text)
				}
			}
			for _, want := range []string{`dir="auto" style="display: block; text-align: start; unicode-bidi: isolate; font-weight: 600">مریم میرزاخانی</span>`,
				`<div dir="auto" style="text-align: start; unicode-bidi: isolate; white-space: pre-wrap; overflow-wrap: anywhere">سلام، دربارهٔ یک همکاری پژوهشی.</div>`, tc.text[2]} {
				if !strings.Contains(html, want) {
					t.Errorf("the mail's HTML lacks %q:\n%s", want, html)
				}
			}
		})
	}
}
