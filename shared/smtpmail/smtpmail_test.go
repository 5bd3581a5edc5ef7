package smtpmail

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/ownersite/introductions/shared/config"
	"github.com/ownersite/introductions/shared/intake"
	"github.com/ownersite/introductions/shared/testsupport"
)

const (
	canaryName    = "Canary Namesake-5e1c"
	canaryEmail   = "canary-5e1c@example.org"
	canaryMessage = "canary message 5e1c: <b>keep</b> me out of logs"
	canaryConvo   = "canary conversation 5e1c"
	owner         = "owner@example.com"
)

var created = time.Date(2026, 11, 30, 9, 15, 0, 0, time.UTC)

func confirmed(envelopeID string) intake.Delivery {
	return intake.Delivery{
		Envelope: intake.Envelope{ID: envelopeID, SubmissionID: "intro-" + envelopeID, Destination: intake.DestinationEmail,
			Event: intake.EventConfirmed, PayloadVersion: intake.HandoffPayloadVersion, CreatedAt: created},
		Introduction: intake.Introduction{
			ID: "intro-" + envelopeID, FormID: "introduction", FormVersion: "2",
			Fields: intake.Fields{Name: canaryName, Company: "Acme & Sons", Role: "Recruiter", Email: canaryEmail, Message: canaryMessage},
			Consents: []intake.ConsentEvidence{{Purpose: "contact", Basis: intake.BasisConsent, TextVersion: "contact-v1",
				GivenAt: created.Add(-time.Minute), ConfirmedAt: created, WithdrawalPath: "POST /api/introductions/{id}/withdrawal"}},
			ConfirmedAt: created,
		},
		Conversation: canaryConvo,
		AdminURL:     "http://127.0.0.1:8080/admin/introductions/intro-" + envelopeID,
	}
}

func smtpConfig(s *testsupport.MailServer) config.SMTP {
	return config.SMTP{Host: s.SMTPHost, Port: s.SMTPPort, TLS: config.SMTPPlain,
		From: `"Introductions" <intake@owner.example>`, To: []string{owner}}
}

func newSender(t *testing.T, cfg config.SMTP, logs io.Writer) *Sender {
	t.Helper()
	if logs == nil {
		logs = io.Discard
	}
	s, err := New(cfg, Options{Logger: slog.New(slog.NewJSONHandler(logs, nil)), Now: time.Now, Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// unique makes envelope ids that no other run of the shared MailDev used.
func unique(t *testing.T, name string) string {
	return fmt.Sprintf("env-%s-%d", name, time.Now().UnixNano())
}

func received(t *testing.T, mp *testsupport.MailServer, envelopeID string) []testsupport.Message {
	t.Helper()
	return mp.WithMessageID(t, MessageID(envelopeID, "intake@owner.example"))
}

func TestTheOwnerReceivesTheIntroduction(t *testing.T) {
	mp := testsupport.SharedMail(t)
	id := unique(t, "confirmed")
	res := newSender(t, smtpConfig(mp), nil).Send(context.Background(), confirmed(id))
	if res.Status != intake.DeliveryAccepted || !strings.HasPrefix(res.Detail, "SMTP 250") {
		t.Fatalf("got %+v, want ACCEPTED (never DELIVERED)", res)
	}
	msgs := received(t, mp, id)
	if len(msgs) != 1 {
		t.Fatalf("MailDev holds %d messages for %s", len(msgs), id)
	}
	m := msgs[0]
	if m.From.Address != "intake@owner.example" || len(m.To) != 1 || m.To[0].Address != owner || len(m.Cc)+len(m.Bcc) != 0 {
		t.Fatalf("from %+v to %+v cc %+v bcc %+v", m.From, m.To, m.Cc, m.Bcc)
	}
	if m.Subject != "Introduction from \u2068"+canaryName+"\u2069 (\u2068Acme & Sons\u2069)" {
		t.Fatalf("subject %q", m.Subject)
	}
	if len(m.ReplyTo) != 1 || m.ReplyTo[0].Address != canaryEmail {
		t.Fatalf("reply-to %+v", m.ReplyTo)
	}
	for _, want := range []string{canaryName, "Acme & Sons", "Recruiter", canaryEmail, canaryMessage, canaryConvo, "Replying to this mail",
		"contact (consent), notice contact-v1, given 30 Nov 2026, 09:14 UTC", "Form introduction, version 2, confirmed 30 Nov 2026, 09:15 UTC",
		"Open it in your admin: http://127.0.0.1:8080/admin/introductions/intro-" + id} {
		if !strings.Contains(m.Text, want) {
			t.Errorf("the text lacks %q:\n%s", want, m.Text)
		}
	}
	// No envelope or introduction id outside the admin link.
	if body := strings.ReplaceAll(m.Text+m.HTML, "/admin/introductions/intro-"+id, ""); strings.Contains(body, id) || strings.Contains(body, "envelope") {
		t.Errorf("the mail shows an id:\n%s\n%s", m.Text, m.HTML)
	}
	for _, want := range []string{"canary message 5e1c: &lt;b&gt;keep&lt;/b&gt;", `href="http://127.0.0.1:8080/admin/introductions/intro-` + id + `"`, canaryConvo} {
		if !strings.Contains(m.HTML, want) {
			t.Errorf("the HTML lacks %q:\n%s", want, m.HTML)
		}
	}
	h := m.Headers
	if got := h["X-Mailgun-Variables"]; len(got) != 1 || got[0] != `{"envelope-id":"`+id+`"}` {
		t.Fatalf("X-Mailgun-Variables %q", got)
	}
	if got := h["Message-Id"]; len(got) != 1 || got[0] != "<"+id+"@owner.example>" {
		t.Fatalf("Message-ID %q (headers %v)", got, h)
	}
	if got := h["Auto-Submitted"]; len(got) != 1 || got[0] != "auto-generated" {
		t.Fatalf("Auto-Submitted %q", got)
	}
}

func TestARetryCarriesTheSameMessageID(t *testing.T) {
	mp := testsupport.SharedMail(t)
	id := unique(t, "retry")
	s := newSender(t, smtpConfig(mp), nil)
	for range 2 {
		if res := s.Send(context.Background(), confirmed(id)); res.Status != intake.DeliveryAccepted {
			t.Fatalf("%+v", res)
		}
	}
	if msgs := received(t, mp, id); len(msgs) != 2 || msgs[0].MessageID != msgs[1].MessageID {
		t.Fatalf("two sends, %d messages with ids %v", len(msgs), msgs)
	}
}

func TestAWithdrawalMailCarriesNoContent(t *testing.T) {
	mp := testsupport.SharedMail(t)
	id := unique(t, "withdrawn")
	d := confirmed(id) // the content is there, and must not be used
	d.Envelope.Event = intake.EventWithdrawn
	d.Envelope.ReceivedAt = time.Date(2026, 3, 4, 9, 30, 0, 0, time.UTC)
	if res := newSender(t, smtpConfig(mp), nil).Send(context.Background(), d); res.Status != intake.DeliveryAccepted {
		t.Fatalf("%+v", res)
	}
	msgs := received(t, mp, id)
	if len(msgs) != 1 {
		t.Fatalf("%d messages", len(msgs))
	}
	m := msgs[0]
	if !strings.Contains(m.Subject, "withdrawn") || !strings.Contains(m.Text, "confirmed on 4 Mar 2026, 09:30 UTC was withdrawn or erased on 30 Nov 2026, 09:15 UTC") ||
		!strings.Contains(m.Text, "Please delete the mail this notice follows") || strings.Contains(m.Text+m.HTML, id) {
		t.Fatalf("subject %q text %q", m.Subject, m.Text)
	}
	for _, canary := range []string{"5e1c", "Acme", "Recruiter"} {
		if strings.Contains(m.Subject+m.Text+m.HTML, canary) {
			t.Fatalf("the withdrawal mail repeats %q", canary)
		}
	}
	if len(m.ReplyTo) != 0 {
		t.Fatalf("reply-to %v", m.ReplyTo)
	}
	if h := m.Headers; h["X-Mailgun-Variables"][0] != `{"envelope-id":"`+id+`"}` {
		t.Fatalf("X-Mailgun-Variables %q", h["X-Mailgun-Variables"])
	}
}

// Every visitor field carries a line break and a would-be header; MailDev's
// parse of what arrived shows no added header and no added recipient.
func TestNoVisitorFieldCanAddAHeader(t *testing.T) {
	mp := testsupport.SharedMail(t)
	s := newSender(t, smtpConfig(mp), nil)
	breaks := map[string]string{"CRLF": "\r\n", "LF": "\n", "CR": "\r", "LS": "\u2028", "PS": "\u2029", "NEL": "\u0085", "VT": "\v", "FF": "\f", "CRLF-fold": "\r\n "}
	for name, br := range breaks {
		t.Run(name, func(t *testing.T) {
			inject := func(v string) string {
				return v + br + "Bcc: victim@attacker.example" + br + "X-Injected: " + name + br + br + "body?"
			}
			id := unique(t, "inject-"+strings.ToLower(name))
			d := confirmed(id)
			f := &d.Introduction.Fields
			f.Name, f.Company, f.Role, f.Email, f.Message = inject(f.Name), inject(f.Company), inject(f.Role), inject(f.Email), inject(f.Message)
			d.Conversation = inject(d.Conversation)
			d.AdminURL = inject(d.AdminURL)
			d.Introduction.Consents[0].Purpose = inject("contact")
			if res := s.Send(context.Background(), d); res.Status != intake.DeliveryAccepted {
				t.Fatalf("%+v", res)
			}
			msgs := received(t, mp, id)
			if len(msgs) != 1 {
				t.Fatalf("%d messages", len(msgs))
			}
			m := msgs[0]
			if len(m.To) != 1 || m.To[0].Address != owner || len(m.Cc)+len(m.Bcc) != 0 || len(m.ReplyTo) != 0 {
				t.Fatalf("recipients changed: to %v cc %v bcc %v reply-to %v", m.To, m.Cc, m.Bcc, m.ReplyTo)
			}
			h := m.Headers
			for key, values := range h {
				switch key {
				case "Bcc", "X-Injected", "Cc", "Reply-To":
					t.Errorf("an injected header arrived: %s: %q", key, values)
				}
				for _, v := range values {
					if strings.ContainsAny(v, "\r\n") || strings.Contains(v, "victim@") && key != "Subject" {
						t.Errorf("header %s carries a break or the payload: %q", key, v)
					}
				}
			}
			// The subject as a mail client shows it, encoded words decoded:
			// one line.
			if len(h["Subject"]) != 1 || strings.ContainsAny(m.Subject, "\r\n\u2028\u2029\u0085\v\f") ||
				!strings.HasPrefix(m.Subject, "Introduction from \u2068"+canaryName+" Bcc: victim@attacker.example X-Inject") {
				t.Errorf("subject %q (raw %q)", m.Subject, h["Subject"])
			}
			if strings.Contains(m.Text, "Replying to this mail") {
				t.Errorf("the mail promises a Reply-To it does not carry")
			}
			if !strings.Contains(m.Text, "Bcc: victim@attacker.example") {
				t.Errorf("the visitor's words must still reach the body, as written")
			}
		})
	}
}

func TestOneLine(t *testing.T) {
	for in, want := range map[string]string{
		"plain":                 "plain",
		"a\r\nb":                "a b",
		"a\u2028b\u2029c\u0085": "a b c",
		"  lead\t\ttabs ":       "lead tabs",
		"zero\u200bwidth":       "zero width",
		"دیجی\u200cکالا":        "دیجی\u200cکالا",
		"\u202eevil":            "evil",
		"bad\xffutf8":           "bad\uFFFDutf8",
		"0123456789abc":         "012345678…",
	} {
		if got := oneLine(in, 10); got != want {
			t.Errorf("oneLine(%q) = %q, want %q", in, got, want)
		}
	}
}

// A private MailDev told to answer with SMTP errors, then stopped and
// started again: 4xx is RETRY_PENDING, 5xx is FAILED with its code, a
// server that is down is RETRY_PENDING, and the same mail goes through
// once it is back.
func TestServerVerdicts(t *testing.T) {
	mp := testsupport.StartMail(t)
	cfg := smtpConfig(mp)
	s := newSender(t, cfg, nil)
	send := func() intake.DeliveryResult { return s.Send(context.Background(), confirmed("env-verdicts")) }

	mp.Refuse(t, "RCPT", 451)
	if res := send(); res.Status != intake.DeliveryRetryPending || res.Detail != "SMTP 451: try again later" {
		t.Fatalf("451: %+v", res)
	}
	mp.Refuse(t, "RCPT", 550)
	if res := send(); res.Status != intake.DeliveryFailed || res.Detail != "SMTP 550: refused" {
		t.Fatalf("550: %+v", res)
	}
	mp.Refuse(t, "RCPT", 0)
	mp.Refuse(t, "MAIL", 452)
	if res := send(); res.Status != intake.DeliveryRetryPending || res.Detail != "SMTP 452: try again later" {
		t.Fatalf("sender 452: %+v", res)
	}
	mp.Refuse(t, "MAIL", 0)
	mp.Refuse(t, "AUTH", 535)
	withLogin := cfg
	withLogin.Username, withLogin.Password = "intake", "secret"
	if res := newSender(t, withLogin, nil).Send(context.Background(), confirmed("env-verdicts")); res.Status != intake.DeliveryFailed || res.Detail != "SMTP 535: refused" {
		t.Fatalf("auth 535: %+v", res)
	}
	mp.Refuse(t, "AUTH", 0)

	mp.Stop(t)
	if res := send(); res.Status != intake.DeliveryRetryPending || res.Detail != "the SMTP server is unreachable" {
		t.Fatalf("stopped: %+v", res)
	}
	mp.Restart(t)
	if res := send(); res.Status != intake.DeliveryAccepted {
		t.Fatalf("back: %+v", res)
	}
	if msgs := mp.WithMessageID(t, MessageID("env-verdicts", "intake@owner.example")); len(msgs) != 1 {
		t.Fatalf("after the outage MailDev holds %d messages, want the one accepted", len(msgs))
	}
	// With a login, once authentication passes: accepted.
	if res := newSender(t, withLogin, nil).Send(context.Background(), confirmed("env-login")); res.Status != intake.DeliveryAccepted {
		t.Fatalf("login: %+v", res)
	}
}

func TestSTARTTLSIsRequiredByDefault(t *testing.T) {
	mp := testsupport.StartMail(t)
	cfg := smtpConfig(mp)
	cfg.TLS = config.SMTPStartTLS
	res := newSender(t, cfg, nil).Send(context.Background(), confirmed("env-starttls"))
	if res.Status == intake.DeliveryAccepted {
		t.Fatalf("sent without TLS to a server that offers no STARTTLS: %+v", res)
	}
}

func TestLogsCarryNoContent(t *testing.T) {
	mp := testsupport.SharedMail(t)
	var logs bytes.Buffer
	id := unique(t, "logs")
	newSender(t, smtpConfig(mp), &logs).Send(context.Background(), confirmed(id))
	out := logs.String()
	if !strings.Contains(out, id) || !strings.Contains(out, "ACCEPTED") {
		t.Fatalf("the attempt is not logged by envelope id and outcome: %s", out)
	}
	for _, canary := range []string{"5e1c", "Acme", owner} {
		if strings.Contains(out, canary) {
			t.Fatalf("a log line carries %q: %s", canary, out)
		}
	}
}

func TestNewNamesEveryMissingPart(t *testing.T) {
	_, err := New(config.SMTP{TLS: "ssl"}, Options{})
	if err == nil {
		t.Fatal("no error")
	}
	for _, want := range []string{"SMTP_HOST", "SMTP_PORT", "SMTP_TLS", "NOTIFY_EMAIL_FROM", "NOTIFY_EMAIL_TO", "logger", "clock"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the error does not name %s: %v", want, err)
		}
	}
}

func TestMessageID(t *testing.T) {
	if got := MessageID("env-1.a_b", "intake@owner.example"); got != "env-1.a_b@owner.example" {
		t.Fatal(got)
	}
	if got := MessageID("env 1>", "intake@owner.example"); strings.ContainsAny(got, " <>") || !strings.HasSuffix(got, "@owner.example") {
		t.Fatal(got)
	}
}

// The fields a form version adds reach the owner's mail, by their labels
// (by name when the label is unknown), in the text and the HTML.
func TestAddedFieldsReachTheOwnersMail(t *testing.T) {
	mp := testsupport.SharedMail(t)
	id := unique(t, "added")
	d := confirmed(id)
	d.Introduction.FormVersion = "3"
	d.Introduction.Added = map[string]string{"availability": "Tuesdays after 3pm", "portfolio": "first line\nsecond <line>"}
	d.AddedLabels = map[string]string{"availability": "When you are free to talk"}
	if res := newSender(t, smtpConfig(mp), nil).Send(context.Background(), d); res.Status != intake.DeliveryAccepted {
		t.Fatalf("got %+v", res)
	}
	msgs := received(t, mp, id)
	if len(msgs) != 1 {
		t.Fatalf("MailDev holds %d messages for %s", len(msgs), id)
	}
	text := strings.ReplaceAll(msgs[0].Text, "\r\n", "\n")
	for _, want := range []string{"When you are free to talk:\nTuesdays after 3pm\n", "portfolio:\nfirst line\nsecond <line>\n"} {
		if !strings.Contains(text, want) {
			t.Errorf("the text lacks %q:\n%s", want, text)
		}
	}
	for _, want := range []string{`600">When you are free to talk</h2>` + "\n" + `<div dir="auto" style="text-align: start; unicode-bidi: isolate; white-space: pre-wrap; overflow-wrap: anywhere">Tuesdays after 3pm</div>`, "second &lt;line&gt;"} {
		if !strings.Contains(strings.ReplaceAll(msgs[0].HTML, "\r\n", "\n"), want) {
			t.Errorf("the HTML lacks %q:\n%s", want, msgs[0].HTML)
		}
	}
}

// Payload is the body Send mails: the plain text, a NUL, the HTML; and a
// delivery that carries its bound payload is mailed with exactly that
// body, not a new rendering.
func joinBody(text, html string) []byte { return append(append([]byte(text), 0), html...) }

func TestPayloadIsTheBodyMailed(t *testing.T) {
	mp := testsupport.SharedMail(t)
	s := newSender(t, smtpConfig(mp), nil)
	id := unique(t, "payload")
	d := confirmed(id)
	payload, err := s.Payload(d)
	if err != nil {
		t.Fatal(err)
	}
	again, _ := s.Payload(d)
	if string(again) != string(payload) {
		t.Fatal("the same delivery renders different bytes")
	}
	text, html, ok := strings.Cut(string(payload), "\x00")
	if !ok || !strings.Contains(text, canaryMessage) || !strings.Contains(html, "<!doctype html>") {
		t.Fatalf("payload %q", payload)
	}
	if res := s.Send(context.Background(), d); res.Status != intake.DeliveryAccepted {
		t.Fatalf("got %+v", res)
	}
	m := received(t, mp, id)[0]
	if got := strings.ReplaceAll(m.Text, "\r\n", "\n"); strings.TrimSpace(got) != strings.TrimSpace(text) {
		t.Fatalf("mailed text differs from the payload's:\n%q\n%q", got, text)
	}

	bound := unique(t, "bound")
	d = confirmed(bound)
	d.Payload = joinBody("the bound text body\n", "<p>the bound HTML body</p>")
	if res := s.Send(context.Background(), d); res.Status != intake.DeliveryAccepted {
		t.Fatalf("got %+v", res)
	}
	m = received(t, mp, bound)[0]
	if strings.TrimSpace(m.Text) != "the bound text body" || !strings.Contains(m.HTML, "the bound HTML body") {
		t.Fatalf("mailed %q / %q, want the bound payload", m.Text, m.HTML)
	}
	d.Payload = []byte("no NUL here")
	if res := s.Send(context.Background(), d); res.Status != intake.DeliveryFailed {
		t.Fatalf("a payload that is no mail body: %+v", res)
	}
}

// The owner cannot use the withdrawal's API path: the mail says how the
// visitor withdraws instead; and it names the site's guide only when a
// conversation with it was attached.
func TestTheMailSaysHowTheVisitorWithdrawsAndNamesTheGuideOnlyWithAConversation(t *testing.T) {
	mp := testsupport.SharedMail(t)
	for _, tc := range []struct {
		name         string
		conversation string
		wantGuide    bool
	}{
		{"with a conversation", canaryConvo, true},
		{"without one", "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			id := unique(t, "withdraw-how")
			d := confirmed(id)
			d.Conversation = tc.conversation
			if res := newSender(t, smtpConfig(mp), nil).Send(context.Background(), d); res.Status != intake.DeliveryAccepted {
				t.Fatalf("got %+v", res)
			}
			msgs := received(t, mp, id)
			if len(msgs) != 1 {
				t.Fatalf("MailDev holds %d messages for %s", len(msgs), id)
			}
			for body, got := range map[string]string{"text": strings.ReplaceAll(msgs[0].Text, "\r\n", "\n"), "HTML": msgs[0].HTML} {
				got = strings.Join(strings.Fields(got), " ")
				if strings.Contains(got, "/api/") || strings.Contains(got, "withdrawal\"") {
					t.Errorf("the %s shows an API path:\n%s", body, got)
				}
				if !strings.Contains(got, "The visitor can withdraw this introduction at any time with the link the page gave them after confirming") {
					t.Errorf("the %s does not say how the visitor withdraws:\n%s", body, got)
				}
				if strings.Contains(got, "guide") != tc.wantGuide {
					t.Errorf("the %s names the guide: %v, want %v:\n%s", body, !tc.wantGuide, tc.wantGuide, got)
				}
			}
		})
	}
}

func TestALikelySpamMailSaysSoInItsSubject(t *testing.T) {
	mp := testsupport.SharedMail(t)
	id := unique(t, "likely-spam")
	d := confirmed(id)
	d.Introduction.LikelySpam = true
	if res := newSender(t, smtpConfig(mp), nil).Send(context.Background(), d); res.Status != intake.DeliveryAccepted {
		t.Fatalf("got %+v", res)
	}
	msgs := received(t, mp, id)
	if len(msgs) != 1 {
		t.Fatalf("MailDev holds %d messages for %s", len(msgs), id)
	}
	if got, want := msgs[0].Subject, "[likely spam] Introduction from \u2068"+canaryName+"\u2069 (\u2068Acme & Sons\u2069)"; got != want {
		t.Fatalf("subject %q, want %q", got, want)
	}
	// Nothing is hidden for it: the owner reads the whole introduction.
	if !strings.Contains(msgs[0].Text, canaryMessage) {
		t.Errorf("the text lacks the message:\n%s", msgs[0].Text)
	}
}
