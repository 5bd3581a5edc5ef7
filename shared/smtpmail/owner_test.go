package smtpmail

import (
	"context"
	"io"
	"log/slog"
	"maps"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ownersite/introductions/shared/formregistry"
	"github.com/ownersite/introductions/shared/intake"
	"github.com/ownersite/introductions/shared/testsupport"
)

// Mixed Persian and English values, a zero-width non-joiner in the company.
const (
	persianName    = "سارا محمدی"
	persianCompany = "دیجی\u200cکالا"
	persianRole    = "Senior Engineer, تیم پرداخت"
	persianMessage = "سلام! I saw your talk on Go در تهران.\nخط دوم"
)

func ownerSender(t *testing.T, mp *testsupport.MailServer, lang, zone string) *Sender {
	t.Helper()
	loc, err := time.LoadLocation(zone)
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(smtpConfig(mp), Options{Logger: slog.New(slog.NewJSONHandler(io.Discard, nil)), Now: time.Now, Timeout: 5 * time.Second, Lang: lang, Zone: loc})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func persianDelivery(envelopeID string) intake.Delivery {
	d := confirmed(envelopeID)
	f := &d.Introduction.Fields
	f.Name, f.Company, f.Role, f.Message = persianName, persianCompany, persianRole, persianMessage
	d.Introduction.Lang = "fa"
	d.Introduction.Attachment = &intake.Attachment{Name: "رزومه سارا - final.pdf", Type: "application/pdf", Size: 1 << 20, SHA256: strings.Repeat("ab", 32)}
	return d
}

// The owner's mail in either language: its HTML part's structure, its
// direction, each visitor value isolated in its own direction (dir="auto"
// in HTML, U+2068 … U+2069 in the text), times in the owner's zone, and a
// subject that keeps the zero-width non-joiner byte for byte.
func TestTheOwnersMailInEitherLanguage(t *testing.T) {
	mp := testsupport.SharedMail(t)
	for _, tc := range []struct {
		lang, zone, dir, subject, confirmedAt string
		labels                                []string
	}{
		{"en", "Europe/Berlin", "ltr", "Introduction from \u2068" + persianName + "\u2069 (\u2068" + persianCompany + "\u2069)",
			"30 Nov 2026, 10:15 CET", []string{"New introduction", "Name", "Company", "Role", "Email", "Message", "Attachment", "Open it in your admin", "PDF, 1 MiB"}},
		{"fa", "Asia/Tehran", "rtl", "معرفی\u200cنامه از \u2068" + persianName + "\u2069 (\u2068" + persianCompany + "\u2069)",
			"۳۰ نوامبر ۲۰۲۶، ۱۲:۴۵ Asia/Tehran", []string{"معرفی\u200cنامهٔ تازه", "نام", "شرکت", "سمت", "ایمیل", "پیام", "پرونده", "آن را در پیشخوان خود باز کنید", "PDF، ۱ مگابایت"}},
	} {
		t.Run(tc.lang, func(t *testing.T) {
			id := unique(t, "owner-"+tc.lang)
			if res := ownerSender(t, mp, tc.lang, tc.zone).Send(context.Background(), persianDelivery(id)); res.Status != intake.DeliveryAccepted {
				t.Fatalf("%+v", res)
			}
			msgs := received(t, mp, id)
			if len(msgs) != 1 {
				t.Fatalf("MailDev holds %d messages", len(msgs))
			}
			m := msgs[0]
			if m.Subject != tc.subject {
				t.Errorf("subject\n%q, want\n%q", m.Subject, tc.subject)
			}
			if got := m.Headers["Content-Language"]; len(got) != 1 || got[0] != tc.lang {
				t.Errorf("Content-Language %q", got)
			}
			html := strings.ReplaceAll(strings.ReplaceAll(m.HTML, "\r\n", "\n"), "&#43;", "+")
			for _, want := range []string{
				`<html lang="` + tc.lang + `" dir="` + tc.dir + `">`, `<body class="page" dir="` + tc.dir + `"`,
				`<table role="presentation" class="card" dir="` + tc.dir + `"`, `<meta name="color-scheme" content="light dark">`,
				"@media (prefers-color-scheme: dark)", `<a class="button" href="http://127.0.0.1:8080/admin/introductions/intro-` + id + `"`,
				`<bdi dir="auto" style="font-weight: 600">رزومه سارا - final.pdf</bdi>`, tc.confirmedAt,
			} {
				if !strings.Contains(html, want) {
					t.Errorf("the HTML lacks %q:\n%s", want, html)
				}
			}
			for i, label := range tc.labels {
				if tag := ">" + label + "<"; !strings.Contains(html, tag) && i < len(tc.labels)-1 || !strings.Contains(html, label) || !strings.Contains(m.Text, label) {
					t.Errorf("the mail lacks the label %q", label)
				}
			}
			// Every visitor value is an element of its own with dir="auto", aligned to its start.
			for _, v := range []string{persianName, persianCompany, persianRole, canaryEmail, persianMessage, canaryConvo} {
				re := regexp.MustCompile(`<(span|div) dir="auto" style="[^"]*text-align: start; unicode-bidi: isolate;[^"]*">` + regexp.QuoteMeta(v) + `</(span|div)>`)
				if !re.MatchString(html) {
					t.Errorf("the value %q is not isolated in its own direction:\n%s", v, html)
				}
			}
			text := strings.ReplaceAll(m.Text, "\r\n", "\n")
			for _, want := range []string{": \u2068" + persianName + "\u2069\n", ": \u2068" + persianCompany + "\u2069\n", "\n" + persianMessage + "\n", tc.confirmedAt} {
				if !strings.Contains(text, want) {
					t.Errorf("the text lacks %q:\n%s", want, text)
				}
			}
			if strings.Contains(m.Subject+text+html, "دیجی کالا") {
				t.Error("the zero-width non-joiner became a space")
			}
		})
	}
}

// The withdrawal (or erasure) notice threads under the mail it follows:
// In-Reply-To and References carry that mail's Message-ID, known from the
// introduction's id alone; it is dated and repeats nothing of the content.
func TestANoticeThreadsUnderTheMailItFollows(t *testing.T) {
	mp := testsupport.SharedMail(t)
	for _, lang := range []string{"en", "fa"} {
		t.Run(lang, func(t *testing.T) {
			s := ownerSender(t, mp, lang, "UTC")
			d := persianDelivery("x")
			sub := unique(t, "thread-"+lang)
			d.Envelope.ID, d.Envelope.SubmissionID, d.Introduction.ID = intake.EnvelopeID(sub, intake.DestinationEmail, intake.EventConfirmed), sub, sub
			if res := s.Send(context.Background(), d); res.Status != intake.DeliveryAccepted {
				t.Fatalf("%+v", res)
			}
			notice := intake.Delivery{Envelope: intake.Envelope{ID: intake.EnvelopeID(sub, intake.DestinationEmail, intake.EventWithdrawn), SubmissionID: sub,
				Destination: intake.DestinationEmail, Event: intake.EventWithdrawn, CreatedAt: created.Add(time.Hour), ReceivedAt: created}}
			if res := s.Send(context.Background(), notice); res.Status != intake.DeliveryAccepted {
				t.Fatalf("%+v", res)
			}
			first, second := received(t, mp, d.Envelope.ID), received(t, mp, notice.Envelope.ID)
			if len(first) != 1 || len(second) != 1 {
				t.Fatalf("%d first mails, %d notices", len(first), len(second))
			}
			n := second[0]
			want := "<" + first[0].MessageID + ">"
			if got := n.Headers["In-Reply-To"]; len(got) != 1 || got[0] != want {
				t.Errorf("In-Reply-To %q, want %q", got, want)
			}
			if got := n.Headers["References"]; len(got) != 1 || got[0] != want {
				t.Errorf("References %q, want %q", got, want)
			}
			if len(n.Headers["Date"]) != 1 {
				t.Errorf("Date %q", n.Headers["Date"])
			}
			w := &words{l: s.lang, zone: time.UTC}
			for _, when := range []string{w.when(created), w.when(created.Add(time.Hour))} {
				if !strings.Contains(n.Text, when) || !strings.Contains(strings.ReplaceAll(n.HTML, "&#43;", "+"), when) {
					t.Errorf("the notice is not dated %q:\n%s", when, n.Text)
				}
			}
			for _, content := range []string{"سارا", "دیجی", "final.pdf", "5e1c", sub} {
				if strings.Contains(n.Subject+n.Text+n.HTML, content) {
					t.Errorf("the notice repeats %q", content)
				}
			}
		})
	}
}

// A sentence missing from the owner's language fails the mail, never
// sends a blank: the catalogue check (formregistry) refuses it at load,
// and the render refuses it here.
func TestAMissingSentenceFailsTheMail(t *testing.T) {
	s := ownerSender(t, testsupport.StartMail(t), "fa", "UTC")
	for _, key := range []string{"field.company", "withdrawn.delete"} {
		l := *s.lang
		l.OwnerMail = maps.Clone(l.OwnerMail)
		delete(l.OwnerMail, key)
		broken := *s
		broken.lang = &l
		d := persianDelivery("env-missing")
		if key == "withdrawn.delete" {
			d.Envelope.Event = intake.EventWithdrawn
		}
		if _, err := broken.Payload(d); err == nil || !strings.Contains(err.Error(), key) {
			t.Errorf("without %q: %v", key, err)
		}
	}
	en, _ := formregistry.LanguageOf("en")
	fa, _ := formregistry.LanguageOf("fa")
	if !maps.EqualFunc(en.OwnerMail, fa.OwnerMail, func(string, string) bool { return true }) {
		t.Error("en and fa have different owner-mail keys")
	}
}
