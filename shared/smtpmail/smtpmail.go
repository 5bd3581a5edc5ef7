// Package smtpmail notifies the owner by email over SMTP submission, one
// message per envelope. A 250 is ACCEPTED, never DELIVERED; an unreachable
// server, a timeout or a 4xx is RETRY_PENDING; a 5xx is FAILED. No field of
// the visitor's can add a header. README.md has the rules.
package smtpmail

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	htmltemplate "html/template"
	"log/slog"
	"maps"
	"net"
	"net/mail"
	"net/textproto"
	"regexp"
	"slices"
	"strconv"
	"strings"
	texttemplate "text/template"
	"time"
	"unicode"
	"unicode/utf8"

	gomail "github.com/wneessen/go-mail"

	"github.com/ownersite/introductions/shared/config"
	"github.com/ownersite/introductions/shared/formregistry"
	"github.com/ownersite/introductions/shared/intake"
)

// DefaultTimeout bounds one SMTP session when Options.Timeout is zero.
const DefaultTimeout = 15 * time.Second

// HeaderMailgunVariables carries the envelope id to Mailgun's events.
const HeaderMailgunVariables = "X-Mailgun-Variables"

// Options are a Sender's dependencies besides its configuration.
// Now stamps the Date header; a zero Timeout is DefaultTimeout; nil RootCAs are the system's.
// Lang is the owner's language ("" for English) and Zone their time zone (nil for UTC).
type Options struct {
	Logger  *slog.Logger
	Now     func() time.Time
	Timeout time.Duration
	RootCAs *x509.CertPool
	Lang    string
	Zone    *time.Location
}

// Sender mails envelopes to the owner; safe for concurrent use.
type Sender struct {
	cfg     config.SMTP
	from    *mail.Address
	timeout time.Duration
	roots   *x509.CertPool
	now     func() time.Time
	logger  *slog.Logger
	lang    *formregistry.Language
	zone    *time.Location
}

var _ intake.Sender = (*Sender)(nil)

// New builds the mail sender, naming every missing part at once.
func New(cfg config.SMTP, opts Options) (*Sender, error) {
	var errs []error
	if cfg.Host == "" {
		errs = append(errs, errors.New("smtpmail: no SMTP_HOST configured"))
	}
	if cfg.Port <= 0 || cfg.Port > 65535 {
		errs = append(errs, errors.New("smtpmail: no SMTP_PORT"))
	}
	switch cfg.TLS {
	case config.SMTPStartTLS, config.SMTPTLS, config.SMTPPlain:
	default:
		errs = append(errs, fmt.Errorf("smtpmail: SMTP_TLS %q is not starttls, tls or none", cfg.TLS))
	}
	from, err := mail.ParseAddress(cfg.From)
	if err != nil {
		errs = append(errs, errors.New("smtpmail: no usable NOTIFY_EMAIL_FROM"))
	}
	if len(cfg.To) == 0 {
		errs = append(errs, errors.New("smtpmail: no NOTIFY_EMAIL_TO"))
	}
	if opts.Logger == nil {
		errs = append(errs, errors.New("smtpmail: no logger"))
	}
	if opts.Now == nil {
		errs = append(errs, errors.New("smtpmail: no clock"))
	}
	if opts.Timeout < 0 {
		errs = append(errs, errors.New("smtpmail: negative timeout"))
	}
	lang, ok := formregistry.LanguageOf(cmp.Or(opts.Lang, formregistry.DefaultLang))
	if !ok {
		errs = append(errs, fmt.Errorf("smtpmail: no language %q", opts.Lang))
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return &Sender{cfg: cfg, from: from, timeout: cmp.Or(opts.Timeout, DefaultTimeout), roots: opts.RootCAs, now: opts.Now, logger: opts.Logger,
		lang: lang, zone: cmp.Or(opts.Zone, time.UTC)}, nil
}

// Destination is intake.DestinationEmail.
func (s *Sender) Destination() intake.Destination { return intake.DestinationEmail }

// Payload is the body Send sends for d: the plain-text part, a NUL byte, then the HTML part.
func (s *Sender) Payload(d intake.Delivery) ([]byte, error) {
	v, _, err := s.view(d)
	if err != nil {
		return nil, err
	}
	return render(v)
}

// Send mails the envelope's event to the owner: ACCEPTED on 250, RETRY_PENDING or FAILED
// otherwise. The body is d.Payload, or rendered now when nil.
func (s *Sender) Send(ctx context.Context, d intake.Delivery) intake.DeliveryResult {
	res := s.send(ctx, d)
	s.logger.LogAttrs(ctx, slog.LevelInfo, "email attempt",
		slog.String("envelopeId", d.Envelope.ID), slog.String("event", d.Envelope.Event),
		slog.String("status", string(res.Status)), slog.String("detail", res.Detail))
	return res
}

func (s *Sender) send(ctx context.Context, d intake.Delivery) intake.DeliveryResult {
	msg, err := s.message(d)
	if err != nil {
		return intake.DeliveryResult{Status: intake.DeliveryFailed, Detail: err.Error()}
	}
	opts := []gomail.Option{gomail.WithPort(s.cfg.Port), gomail.WithTimeout(s.timeout)}
	switch s.cfg.TLS {
	case config.SMTPTLS:
		opts = append(opts, gomail.WithSSL())
	case config.SMTPPlain:
		opts = append(opts, gomail.WithTLSPolicy(gomail.NoTLS))
	default:
		opts = append(opts, gomail.WithTLSPolicy(gomail.TLSMandatory))
	}
	if s.roots != nil {
		opts = append(opts, gomail.WithTLSConfig(&tls.Config{ServerName: s.cfg.Host, MinVersion: tls.VersionTLS12, RootCAs: s.roots}))
	}
	if s.cfg.Username != "" {
		// The strongest mechanism offered; PLAIN over SMTP_TLS=none (loopback only).
		mech := gomail.SMTPAuthAutoDiscover
		if s.cfg.TLS == config.SMTPPlain {
			mech = gomail.SMTPAuthPlainNoEnc
		}
		opts = append(opts, gomail.WithSMTPAuth(mech),
			gomail.WithUsername(s.cfg.Username), gomail.WithPassword(s.cfg.Password))
	}
	client, err := gomail.NewClient(s.cfg.Host, opts...)
	if err != nil {
		return intake.DeliveryResult{Status: intake.DeliveryFailed, Detail: "the SMTP settings are unusable"}
	}
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	if err := client.DialAndSendWithContext(ctx, msg); err != nil {
		return failure(err)
	}
	return intake.DeliveryResult{Status: intake.DeliveryAccepted, Detail: "SMTP 250: accepted by the server, not yet delivered"}
}

// failure names a failed attempt by the reply code, never its text.
func failure(err error) intake.DeliveryResult {
	code := 0
	var sendErr *gomail.SendError
	var protoErr *textproto.Error
	switch {
	case errors.As(err, &sendErr) && sendErr.ErrorCode() != 0:
		code = sendErr.ErrorCode()
	case errors.As(err, &protoErr):
		code = protoErr.Code
	}
	var netErr net.Error
	switch {
	case code >= 500 && code <= 599:
		return intake.DeliveryResult{Status: intake.DeliveryFailed, Detail: fmt.Sprintf("SMTP %d: refused", code)}
	case code >= 400 && code <= 499:
		return intake.DeliveryResult{Status: intake.DeliveryRetryPending, Detail: fmt.Sprintf("SMTP %d: try again later", code)}
	case errors.As(err, &sendErr) && (sendErr.Reason == gomail.ErrGetSender || sendErr.Reason == gomail.ErrGetRcpts):
		return intake.DeliveryResult{Status: intake.DeliveryFailed, Detail: "an unusable sender or recipient address"}
	case errors.Is(err, gomail.ErrNoSupportedAuthDiscovered):
		return intake.DeliveryResult{Status: intake.DeliveryFailed, Detail: "the SMTP server offers no login mechanism safe on this connection"}
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &netErr) && netErr.Timeout():
		return intake.DeliveryResult{Status: intake.DeliveryRetryPending, Detail: "timeout"}
	case errors.As(err, &netErr):
		return intake.DeliveryResult{Status: intake.DeliveryRetryPending, Detail: "the SMTP server is unreachable"}
	default:
		return intake.DeliveryResult{Status: intake.DeliveryRetryPending, Detail: "the SMTP session failed"}
	}
}

var idSafe = regexp.MustCompile(`^[A-Za-z0-9._-]{1,128}$`)

// MessageID is the Message-ID of envelopeID's mail: the same on every retry.
func MessageID(envelopeID, fromAddress string) string {
	local := envelopeID
	if !idSafe.MatchString(local) {
		sum := sha256.Sum256([]byte(envelopeID))
		local = hex.EncodeToString(sum[:])
	}
	domain := "introductions.invalid"
	if at := strings.LastIndexByte(fromAddress, '@'); at >= 0 && idSafe.MatchString(fromAddress[at+1:]) {
		domain = fromAddress[at+1:]
	}
	return local + "@" + domain
}

// view returns what d's mail shows, in the owner's language, and its subject; its error is content-free.
func (s *Sender) view(d intake.Delivery) (mailView, string, error) {
	env := d.Envelope
	if env.ID == "" || env.SubmissionID == "" {
		return mailView{}, "", errors.New("the envelope has no id or submission id")
	}
	w := &words{l: s.lang, zone: s.zone}
	v := mailView{Lang: s.lang.Lang, Dir: s.lang.Dir, Footer: w.say("footer")}
	var subject string
	switch env.Event {
	case intake.EventConfirmed:
		in := d.Introduction
		if in.ID != env.SubmissionID || in.ConfirmedAt.IsZero() {
			return mailView{}, "", errors.New("the delivery carries no confirmed introduction for its envelope")
		}
		f := in.Fields
		v.Title, v.Lead, v.AdminURL, v.Open = w.say("title"), w.say("lead"), oneLine(d.AdminURL, 2000), w.say("open")
		for _, kv := range [][2]string{{"name", f.Name}, {"company", f.Company}, {"role", f.Role}, {"email", f.Email}} {
			if kv[1] != "" {
				v.Fields = append(v.Fields, item{w.say("field." + kv[0]), kv[1]})
			}
		}
		v.Blocks = append(v.Blocks, item{w.say("field.message"), f.Message})
		for _, name := range slices.Sorted(maps.Keys(in.Added)) {
			v.Blocks = append(v.Blocks, item{cmp.Or(d.AddedLabels[name], name), in.Added[name]})
		}
		if d.Conversation != "" {
			v.Blocks = append(v.Blocks, item{w.say("conversation"), d.Conversation})
		}
		if a := in.Attachment; a != nil {
			v.File = &file{Label: w.say("attachment"), Name: cmp.Or(a.Name, w.say("attachment.unnamed")),
				Meta: w.say("attachment.meta", "{type}", cmp.Or(s.lang.Notice.AttachmentTypes[a.Type], a.Type), "{size}", s.lang.Size(a.Size), "{sha}", a.SHA256)}
			if v.AdminURL != "" {
				v.File.Link, v.File.Note = v.AdminURL+"/attachment", w.say("attachment.download")
			} else {
				v.File.Note = w.say("attachment.notMailed")
			}
		}
		v.Consents = w.say("consents")
		for _, c := range in.Consents {
			version := strings.TrimSuffix(c.TextVersion+" ("+c.Lang+")", " ()")
			v.Notes = append(v.Notes, w.say("consent", "{purpose}", c.Purpose, "{basis}", string(c.Basis), "{version}", version, "{when}", w.when(c.GivenAt)))
		}
		v.After = []string{w.say("withdrawal"), w.say("form", "{form}", in.FormID, "{version}", s.lang.Numerals(in.FormVersion), "{when}", w.when(in.ConfirmedAt))}
		if in.Lang != "" {
			v.After = append(v.After, w.say("writtenIn", "{language}", formregistry.LanguageName(in.Lang, s.lang.Lang)))
		}
		if v.ReplyTo = replyTo(f.Email); v.ReplyTo != nil {
			v.After = append(v.After, w.say("replyTo"))
		}
		who := isolate(oneLine(f.Name, 60))
		if c := oneLine(f.Company, 40); c != "" {
			who += " (" + isolate(c) + ")"
		}
		subject = w.say("subject", "{who}", who)
		if in.LikelySpam {
			subject = w.say("subject.spam", "{subject}", subject)
		}
	case intake.EventWithdrawn:
		v.Title = w.say("title.withdrawn")
		v.After = []string{w.say("withdrawn.what", "{confirmed}", w.when(env.ReceivedAt), "{at}", w.when(env.CreatedAt)), w.say("withdrawn.delete")}
		subject = w.say("subject.withdrawn")
	default:
		return mailView{}, "", fmt.Errorf("unknown event %q", env.Event)
	}
	return v, subject, w.err
}

// isolate keeps a visitor's value in its own direction inside a line (U+2068 … U+2069).
func isolate(s string) string { return "\u2068" + s + "\u2069" }

// render is v's body: the plain-text part, a NUL byte, then the HTML part.
func render(v mailView) ([]byte, error) {
	var b bytes.Buffer
	if textBody.Execute(&b, v) != nil || b.WriteByte(0) != nil || htmlBody.Execute(&b, v) != nil {
		return nil, errors.New("the mail could not be rendered")
	}
	return b.Bytes(), nil
}

// words says the owner-mail sentences of one language; err is the first missing one.
type words struct {
	l    *formregistry.Language
	zone *time.Location
	err  error
}

// say is the sentence of key with each {placeholder} of pairs replaced by its value.
func (w *words) say(key string, pairs ...string) string {
	s, ok := w.l.OwnerMail[key]
	if !ok && w.err == nil {
		w.err = fmt.Errorf("no owner-mail sentence %q in %s", key, w.l.Lang)
	}
	return strings.NewReplacer(pairs...).Replace(s)
}

// when dates t in the owner's time zone in the admin's one date format; "—" when zero.
func (w *words) when(t time.Time) string {
	if t.IsZero() {
		return "—"
	}
	t, o := t.In(w.zone), w.l.Owner
	day := strings.NewReplacer("{d}", strconv.Itoa(t.Day()), "{month}", o["month."+strconv.Itoa(int(t.Month()))], "{y}", strconv.Itoa(t.Year())).Replace(o["date.day"])
	zone := t.Format("MST")
	if strings.ContainsAny(zone[:1], "+-") {
		zone = w.zone.String() // a zone without an abbreviation goes by its IANA name
	}
	return w.l.Numerals(strings.NewReplacer("{day}", day, "{time}", t.Format("15:04")).Replace(o["date.time"])) + " " + zone
}

// message builds d's mail without sending it; its error is content-free.
func (s *Sender) message(d intake.Delivery) (*gomail.Msg, error) {
	view, subject, err := s.view(d)
	if err != nil {
		return nil, err
	}
	env, body := d.Envelope, d.Payload
	if body == nil {
		if body, err = render(view); err != nil {
			return nil, err
		}
	}
	text, html, ok := bytes.Cut(body, []byte{0})
	if !ok {
		return nil, errors.New("the bound payload is not a mail body")
	}

	m := gomail.NewMsg()
	m.FromMailAddress(s.from)
	if err := m.To(s.cfg.To...); err != nil {
		return nil, errors.New("an unusable NOTIFY_EMAIL_TO address")
	}
	if view.ReplyTo != nil {
		m.ReplyToMailAddress(view.ReplyTo)
	}
	m.Subject(subject)
	m.SetMessageIDWithValue(MessageID(env.ID, s.from.Address))
	m.SetDateWithValue(s.now())
	if env.Event == intake.EventWithdrawn {
		first := "<" + MessageID(intake.EnvelopeID(env.SubmissionID, intake.DestinationEmail, intake.EventConfirmed), s.from.Address) + ">"
		m.SetGenHeader(gomail.HeaderInReplyTo, first)
		m.SetGenHeader(gomail.HeaderReferences, first)
	}
	m.SetGenHeader(gomail.HeaderContentLang, s.lang.Lang)
	vars, _ := json.Marshal(map[string]string{"envelope-id": env.ID})
	m.SetGenHeader(gomail.Header(HeaderMailgunVariables), oneLine(string(vars), 500))
	m.SetGenHeader(gomail.Header("Auto-Submitted"), "auto-generated")
	m.SetBodyString(gomail.TypeTextPlain, string(text))
	m.AddAlternativeString(gomail.TypeTextHTML, string(html))
	return m, nil
}

// replyTo accepts the visitor's address only when it is one plain address; nil otherwise.
func replyTo(s string) *mail.Address {
	if s == "" || oneLine(s, 320) != s || strings.ContainsAny(s, "<>,;\"") {
		return nil
	}
	if a, err := mail.ParseAddress(s); err == nil && a.Address == s && a.Name == "" {
		return a
	}
	return nil
}

// oneLine makes visitor text safe for a header: control characters, line separators and format
// characters but the joiners (U+200C, U+200D) become spaces, runs of spaces one, cut to max runes.
func oneLine(s string, max int) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	var b strings.Builder
	space := false
	for _, r := range s {
		if unicode.IsControl(r) || unicode.IsSpace(r) || unicode.In(r, unicode.Zl, unicode.Zp, unicode.Cf) && r != '\u200c' && r != '\u200d' {
			if !space && b.Len() > 0 {
				b.WriteByte(' ')
			}
			space = true
			continue
		}
		space = false
		b.WriteRune(r)
	}
	out := strings.TrimRight(b.String(), " ")
	if utf8.RuneCountInString(out) > max {
		out = string([]rune(out)[:max-1]) + "…"
	}
	return out
}

// mailView is what the templates show, every sentence in the owner's language: Fields are the
// visitor's short values, Blocks their long ones, Notes the consents under their heading Consents,
// After the closing sentences. ReplyTo is the visitor's address when usable as Reply-To.
type mailView struct {
	Lang, Dir, Title, Lead, AdminURL, Open, Consents, Footer string
	Fields, Blocks                                           []item
	File                                                     *file
	Notes, After                                             []string
	ReplyTo                                                  *mail.Address
}

type item struct{ Label, Value string }

type file struct{ Label, Name, Meta, Link, Note string }

var funcs = map[string]any{"isolate": isolate}

//go:embed mail.txt.tmpl
var textTemplate string

//go:embed mail.html.tmpl
var htmlTemplate string

var (
	textBody = texttemplate.Must(texttemplate.New("text").Funcs(funcs).Parse(textTemplate))
	htmlBody = htmltemplate.Must(htmltemplate.New("html").Funcs(funcs).Parse(htmlTemplate))
)
