// Package config is the service's one typed configuration, read once from
// the environment through a getenv function (tests pass a map). Load reports
// every problem at once; nothing else reads the environment. README.md lists
// every variable.
package config

import (
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net/mail"
	"net/netip"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	_ "time/tzdata" // OWNER_TIME_ZONE resolves without the system's zone files

	"github.com/ownersite/introductions/shared/intake"
)

// Config is everything the service can be told from outside; README.md names each field's
// variable, default and range.
type Config struct {
	Port                  int
	Project, Database     string
	FirestoreEmulatorHost string // empty for real Firestore
	FirestoreTimeout      time.Duration
	AllowedOrigins        []string // the exact CORS allow-list
	PowMaxNumber          int64
	PowLifetime           time.Duration
	PowMaxEscalated       int64 // the most an escalated source must solve
	// PowTargetP90 is the solve time the admin's suggested POW_MAX_NUMBER aims at.
	PowTargetP90          time.Duration
	Retention             intake.Retention
	RateLimitIPPerHour    int
	RateLimitEmailPerHour int
	// FloodLimit requests per FloodWindow per client address.
	FloodLimit  int
	FloodWindow time.Duration
	// ClientAddress is one of ClientAddressSources; ForwardedForPosition its position.
	ClientAddress        string
	ForwardedForPosition int
	SweepRunRetention    time.Duration
	// SweepAfterIdle is the quiet spell after which a request starts a background sweep.
	SweepAfterIdle time.Duration
	// HMACSecret and HashPepperSecret name Secret Manager secrets; empty: random per process.
	HMACSecret, HashPepperSecret string
	// Revision and Service identify the running code in the ledger's provenance.
	Revision, Service   string
	DeliveryRetryBase   time.Duration
	DeliveryMaxAttempts int
	SchedulerJob        string // empty when not configured
	LogLevel            slog.Level
	Webhook             Webhook // off when WEBHOOK_URL is unset
	SMTP                SMTP    // off when SMTP_HOST is unset
	// MailgunSigningKey verifies Mailgun's delivery events; empty turns their endpoint off.
	MailgunSigningKey   string
	AttachmentBucket    string
	AttachmentMaxBytes  int64
	StorageEmulatorHost string // empty for Cloud Storage
	// AdminURL is the owner's admin origin, optionally with a path; empty: no links.
	AdminURL string
	// SiteURL is the owner's site, where the receipt leads back; empty: no link.
	SiteURL string
	// OwnerLanguage ("en" or "fa") is the language of the admin and the owner's mail.
	OwnerLanguage string
	// OwnerTimeZone is where the owner's side shows times.
	OwnerTimeZone *time.Location
}

// OwnerLanguages lists the OWNER_LANGUAGE values.
var OwnerLanguages = []string{"en", "fa"}

// Webhook configures the Standard Webhooks destination: URL is https, or http with
// AllowPrivate (which also lets it reach non-public addresses); Secret is "whsec_" + base64.
type Webhook struct {
	URL          string
	Secret       string
	AllowPrivate bool
}

// Enabled reports whether the webhook destination is on.
func (w Webhook) Enabled() bool { return w.URL != "" }

// DefaultAttachmentMaxBytes is ATTACHMENT_MAX_BYTES's default: 5 MiB.
const DefaultAttachmentMaxBytes = 5 << 20

// The SMTP_TLS modes.
const (
	SMTPStartTLS = "starttls" // submission on 587, STARTTLS required
	SMTPTLS      = "tls"      // implicit TLS on 465
	SMTPPlain    = "none"     // no TLS: a local server such as MailDev
)

// SMTP configures the owner's email notification: no authentication when Username and
// Password are empty; TLS is one of the SMTP_TLS modes; To lists the owner's addresses.
type SMTP struct {
	Host               string
	Port               int
	Username, Password string
	TLS                string
	From               string
	To                 []string
}

// Enabled reports whether the email destination is on.
func (s SMTP) Enabled() bool { return s.Host != "" }

// IntroductionAdminURL is introduction id's admin page, "" without AdminURL.
func (c Config) IntroductionAdminURL(id string) string {
	if c.AdminURL == "" || id == "" {
		return ""
	}
	return strings.TrimRight(c.AdminURL, "/") + "/admin/introductions/" + url.PathEscape(id)
}

// ClientAddressSources maps each CLIENT_ADDRESS setting to the X-Forwarded-For position, from
// the right, its trusted proxy appends (0: the connection's address).
var ClientAddressSources = map[string]int{
	"connection":       0,
	"cloud-run":        1,
	"firebase-hosting": 2,
	"load-balancer":    2,
}

var schedulerJobName = regexp.MustCompile(`^projects/[^/]+/locations/[^/]+/jobs/[^/]+$`)

type loader struct {
	getenv func(string) string
	errs   []error
}

// Variables lists, sorted, every environment variable Load reads.
func Variables() []string {
	read := map[string]bool{}
	for _, value := range []string{"", "1"} {
		Load(func(name string) string {
			read[name] = true
			return value
		})
	}
	return slices.Sorted(maps.Keys(read))
}

func (l *loader) str(name, def string) string {
	if v := strings.TrimSpace(l.getenv(name)); v != "" {
		return v
	}
	return def
}

func (l *loader) integer(name string, def, min, max int64) int64 {
	v := l.getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
	if err != nil || n < min || n > max {
		l.errs = append(l.errs, fmt.Errorf("%s=%q: want a whole number from %d to %d", name, v, min, max))
		return def
	}
	return n
}

func (l *loader) duration(name string, def, min, max time.Duration) time.Duration {
	v := l.getenv(name)
	if v == "" {
		return def
	}
	d, err := time.ParseDuration(strings.TrimSpace(v))
	if err != nil || d < min || d > max {
		off := ""
		if err == nil && d <= 0 {
			off = " (zero or less does not turn it off)"
		}
		l.errs = append(l.errs, fmt.Errorf("%s=%q: want a duration (like 30m) from %s to %s%s", name, v, min, max, off))
		return def
	}
	return d
}

func (l *loader) origins(name string) []string {
	var out []string
	for _, o := range strings.Split(l.getenv(name), ",") {
		o = strings.TrimSpace(o)
		if o == "" {
			continue
		}
		u, err := url.Parse(o)
		if o == "*" || o == "null" || err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.Path != "" || u.RawQuery != "" || u.User != nil {
			l.errs = append(l.errs, fmt.Errorf("%s: %q is not an origin like https://example.com (no *, no null, no path)", name, o))
			continue
		}
		out = append(out, o)
	}
	return out
}

// pinnedVersion is a Secret Manager secret version pinned by number.
var pinnedVersion = regexp.MustCompile(`^projects/[^/]+/(locations/[^/]+/)?secrets/[^/]+/versions/[1-9][0-9]*$`)

// Load reads the configuration through getenv, reporting every problem at once.
func Load(getenv func(string) string) (Config, error) {
	l := &loader{getenv: getenv}
	c := Config{
		Port:                  int(l.integer("PORT", 8080, 1, 65535)),
		Project:               l.str("FIRESTORE_PROJECT", l.str("GOOGLE_CLOUD_PROJECT", "introductions-local")),
		Database:              l.str("FIRESTORE_DATABASE", "introductions"),
		FirestoreEmulatorHost: l.str("FIRESTORE_EMULATOR_HOST", ""),
		FirestoreTimeout:      l.duration("FIRESTORE_TIMEOUT", 8*time.Second, 100*time.Millisecond, time.Minute),
		AllowedOrigins:        l.origins("ALLOWED_ORIGINS"),
		PowMaxNumber:          l.integer("POW_MAX_NUMBER", 100_000, 1, 100_000_000),
		PowLifetime:           l.duration("POW_LIFETIME", 10*time.Minute, 10*time.Second, 24*time.Hour),
		PowTargetP90:          l.duration("POW_TARGET_P90", time.Second, 100*time.Millisecond, time.Minute),
		RateLimitIPPerHour:    int(l.integer("RATE_LIMIT_IP_PER_HOUR", 10, 1, 10_000)),
		RateLimitEmailPerHour: int(l.integer("RATE_LIMIT_EMAIL_PER_HOUR", 5, 1, 10_000)),
		FloodLimit:            int(l.integer("FLOOD_LIMIT", 60, 1, 1_000_000)),
		FloodWindow:           l.duration("FLOOD_WINDOW", 10*time.Minute, time.Second, 24*time.Hour),
		SweepRunRetention:     l.duration("SWEEP_RUN_RETENTION", 30*24*time.Hour, time.Hour, 365*24*time.Hour),
		SweepAfterIdle:        l.duration("SWEEP_AFTER_IDLE", 15*time.Minute, time.Minute, 24*time.Hour),
		HMACSecret:            l.str("HMAC_SECRET", ""),
		HashPepperSecret:      l.str("HASH_PEPPER_SECRET", ""),
		DeliveryRetryBase:     l.duration("DELIVERY_RETRY_BASE", time.Minute, time.Second, 24*time.Hour),
		DeliveryMaxAttempts:   int(l.integer("DELIVERY_MAX_ATTEMPTS", 8, 1, 50)),
		SchedulerJob:          l.str("SCHEDULER_JOB", ""),
		AttachmentBucket:      l.str("ATTACHMENT_BUCKET", "introductions-attachments-local"),
		AttachmentMaxBytes:    l.integer("ATTACHMENT_MAX_BYTES", DefaultAttachmentMaxBytes, 1<<10, 32<<20),
		StorageEmulatorHost:   l.str("STORAGE_EMULATOR_HOST", ""),
		Revision:              l.str("K_REVISION", "local"),
		Service:               l.str("K_SERVICE", "devserver"),
		Retention: intake.Retention{
			Draft:           l.duration("DRAFT_LIFETIME", intake.DefaultRetention.Draft, time.Minute, 24*time.Hour),
			Introduction:    l.duration("INTRODUCTION_RETENTION", intake.DefaultRetention.Introduction, time.Hour, 3*365*24*time.Hour),
			RejectedAttempt: l.duration("REJECTED_ATTEMPT_RETENTION", intake.DefaultRetention.RejectedAttempt, time.Hour, 365*24*time.Hour),
		},
	}
	c.PowMaxEscalated = l.integer("POW_MAX_ESCALATED", min(1000*c.PowMaxNumber, 100_000_000_000), 1, 100_000_000_000)
	if c.PowMaxEscalated < c.PowMaxNumber {
		l.errs = append(l.errs, fmt.Errorf("POW_MAX_ESCALATED=%d must be at least POW_MAX_NUMBER=%d", c.PowMaxEscalated, c.PowMaxNumber))
	}
	var ok bool
	c.ClientAddress = "connection"
	if l.str("K_SERVICE", "") != "" {
		c.ClientAddress = "cloud-run"
	}
	c.ClientAddress = strings.ToLower(l.str("CLIENT_ADDRESS", c.ClientAddress))
	if c.ForwardedForPosition, ok = ClientAddressSources[c.ClientAddress]; !ok {
		l.errs = append(l.errs, fmt.Errorf("CLIENT_ADDRESS=%q: want connection, cloud-run, firebase-hosting or load-balancer", c.ClientAddress))
	}
	if c.Database == "" {
		l.errs = append(l.errs, errors.New("FIRESTORE_DATABASE: name the database outright"))
	}
	if c.HMACSecret != "" && !strings.HasPrefix(c.HMACSecret, "projects/") {
		l.errs = append(l.errs, fmt.Errorf("HMAC_SECRET=%q: want projects/PROJECT/secrets/NAME", c.HMACSecret))
	}
	if c.HashPepperSecret != "" && !pinnedVersion.MatchString(c.HashPepperSecret) {
		l.errs = append(l.errs, fmt.Errorf("HASH_PEPPER_SECRET=%q: want projects/PROJECT/secrets/NAME/versions/NUMBER (a pinned version, never latest)", c.HashPepperSecret))
	}
	if c.SchedulerJob != "" && !schedulerJobName.MatchString(c.SchedulerJob) {
		l.errs = append(l.errs, fmt.Errorf("SCHEDULER_JOB=%q: want projects/PROJECT/locations/LOCATION/jobs/NAME", c.SchedulerJob))
	}
	if c.FloodLimit < c.RateLimitIPPerHour {
		l.errs = append(l.errs, fmt.Errorf("FLOOD_LIMIT=%d must be at least RATE_LIMIT_IP_PER_HOUR=%d: the flood layer is the looser one", c.FloodLimit, c.RateLimitIPPerHour))
	}
	c.Webhook = l.webhook()
	c.SMTP = l.smtp()
	c.MailgunSigningKey = l.str("MAILGUN_WEBHOOK_SIGNING_KEY", "")
	c.AdminURL = l.absoluteURL("ADMIN_URL", false)
	c.SiteURL = l.absoluteURL("SITE_URL", false)
	if c.OwnerLanguage = l.str("OWNER_LANGUAGE", "en"); !slices.Contains(OwnerLanguages, c.OwnerLanguage) {
		l.errs = append(l.errs, fmt.Errorf("OWNER_LANGUAGE=%q: want en or fa", c.OwnerLanguage))
	}
	zone, err := time.LoadLocation(l.str("OWNER_TIME_ZONE", "UTC"))
	if c.OwnerTimeZone = zone; err != nil || zone == time.Local {
		l.errs = append(l.errs, fmt.Errorf("OWNER_TIME_ZONE=%q: want an IANA time zone such as Europe/Berlin", l.getenv("OWNER_TIME_ZONE")))
		c.OwnerTimeZone = time.UTC
	}
	levels := map[string]slog.Level{"debug": slog.LevelDebug, "info": slog.LevelInfo, "warn": slog.LevelWarn, "warning": slog.LevelWarn, "error": slog.LevelError}
	if c.LogLevel, ok = levels[strings.ToLower(l.str("LOG_LEVEL", "info"))]; !ok {
		l.errs = append(l.errs, fmt.Errorf("LOG_LEVEL=%q: want debug, info, warn or error", l.getenv("LOG_LEVEL")))
	}
	return c, errors.Join(l.errs...)
}

func (l *loader) boolean(name string) bool {
	v := strings.TrimSpace(l.getenv(name))
	if v == "" {
		return false
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		l.errs = append(l.errs, fmt.Errorf("%s=%q: want true or false", name, v))
	}
	return b
}

// absoluteURL reads an http(s) URL with a host; its errors never quote the URL,
// which may carry a secret.
func (l *loader) absoluteURL(name string, httpsOnly bool) string {
	v := l.str(name, "")
	if v == "" {
		return ""
	}
	u, err := url.Parse(v)
	switch {
	case err != nil || u.Host == "" || (u.Scheme != "https" && u.Scheme != "http"):
		l.errs = append(l.errs, fmt.Errorf("%s: want an absolute URL like https://example.com/path", name))
	case u.User != nil || u.Fragment != "":
		l.errs = append(l.errs, fmt.Errorf("%s: no user:password@ and no #fragment in the URL", name))
	case httpsOnly && u.Scheme != "https":
		l.errs = append(l.errs, fmt.Errorf("%s: want https (plain http only with WEBHOOK_ALLOW_PRIVATE=true, for local receivers)", name))
	default:
		return v
	}
	return ""
}

// missing reports a destination's unset variables while others of it are set.
func (l *loader) missing(destination string, required, all []string) {
	set, unset := 0, []string{}
	for _, name := range all {
		if strings.TrimSpace(l.getenv(name)) != "" {
			set++
		}
	}
	for _, name := range required {
		if strings.TrimSpace(l.getenv(name)) == "" {
			unset = append(unset, name)
		}
	}
	if set > 0 && len(unset) > 0 {
		l.errs = append(l.errs, fmt.Errorf("the %s destination is half-configured: %s missing (set them, or unset %s)",
			destination, strings.Join(unset, ", "), strings.Join(all, ", ")))
	}
}

func (l *loader) webhook() Webhook {
	pair := []string{"WEBHOOK_URL", "WEBHOOK_SECRET"}
	l.missing("webhook", pair, pair)
	w := Webhook{AllowPrivate: l.boolean("WEBHOOK_ALLOW_PRIVATE")}
	if l.str("WEBHOOK_URL", "") == "" || l.str("WEBHOOK_SECRET", "") == "" {
		return Webhook{AllowPrivate: w.AllowPrivate}
	}
	w.URL = l.absoluteURL("WEBHOOK_URL", !w.AllowPrivate)
	w.Secret = l.str("WEBHOOK_SECRET", "")
	if _, err := WebhookSecretKey(w.Secret); err != nil {
		l.errs = append(l.errs, fmt.Errorf("WEBHOOK_SECRET: %w", err))
		w.Secret = ""
	}
	if w.URL == "" || w.Secret == "" {
		return Webhook{AllowPrivate: w.AllowPrivate}
	}
	return w
}

// WebhookSecretKey decodes "whsec_" + standard base64 of a 24-to-64-byte key.
func WebhookSecretKey(secret string) ([]byte, error) {
	rest, ok := strings.CutPrefix(secret, "whsec_")
	if !ok {
		return nil, errors.New(`want "whsec_" followed by base64 (a Standard Webhooks secret)`)
	}
	key, err := base64.StdEncoding.DecodeString(rest)
	if err != nil {
		return nil, errors.New(`the part after "whsec_" is not standard base64`)
	}
	if len(key) < 24 || len(key) > 64 {
		return nil, fmt.Errorf("the key is %d bytes: want 24 to 64", len(key))
	}
	return key, nil
}

func (l *loader) smtp() SMTP {
	all := []string{"SMTP_HOST", "SMTP_PORT", "SMTP_USERNAME", "SMTP_PASSWORD", "SMTP_TLS", "NOTIFY_EMAIL_FROM", "NOTIFY_EMAIL_TO"}
	l.missing("email", []string{"SMTP_HOST", "NOTIFY_EMAIL_FROM", "NOTIFY_EMAIL_TO"}, all)
	if l.str("SMTP_HOST", "") == "" {
		return SMTP{}
	}
	s := SMTP{
		Host:     l.str("SMTP_HOST", ""),
		Username: l.str("SMTP_USERNAME", ""),
		Password: l.getenv("SMTP_PASSWORD"),
		TLS:      strings.ToLower(l.str("SMTP_TLS", SMTPStartTLS)),
	}
	ok := true
	defaultPort := int64(587)
	switch s.TLS {
	case SMTPStartTLS:
	case SMTPTLS:
		defaultPort = 465
	case SMTPPlain:
		defaultPort = 25
	default:
		l.errs = append(l.errs, fmt.Errorf("SMTP_TLS=%q: want starttls, tls or none", s.TLS))
		ok = false
	}
	s.Port = int(l.integer("SMTP_PORT", defaultPort, 1, 65535))
	if (s.Username == "") != (s.Password == "") {
		l.errs = append(l.errs, errors.New("SMTP_USERNAME and SMTP_PASSWORD: set both or neither"))
		ok = false
	}
	if s.TLS == SMTPPlain && s.Password != "" && !loopbackHost(s.Host) {
		l.errs = append(l.errs, fmt.Errorf("SMTP_TLS=none with SMTP_PASSWORD would send the password in clear to %s: use starttls or tls", s.Host))
		ok = false
	}
	if from := l.str("NOTIFY_EMAIL_FROM", ""); from != "" {
		a, err := mail.ParseAddress(from)
		if err != nil {
			l.errs = append(l.errs, errors.New("NOTIFY_EMAIL_FROM: want one address like Introductions <intake@example.com>"))
			ok = false
		} else {
			s.From = a.String()
		}
	}
	if to := l.str("NOTIFY_EMAIL_TO", ""); to != "" {
		list, err := mail.ParseAddressList(to)
		if err != nil {
			l.errs = append(l.errs, errors.New("NOTIFY_EMAIL_TO: want addresses like owner@example.com, comma-separated"))
			ok = false
		}
		for _, a := range list {
			s.To = append(s.To, a.Address)
		}
	}
	if !ok || s.From == "" || len(s.To) == 0 {
		return SMTP{}
	}
	return s
}

func loopbackHost(host string) bool {
	if host == "localhost" {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.IsLoopback()
}
