// Package config is the service's one typed configuration, read once from
// the environment through a getenv function (tests pass a map). Load reports
// every problem at once; nothing else in the service reads the environment.
package config

import (
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/ownersite/introductions/shared/intake"
)

// Config is everything the service can be told from outside.
type Config struct {
	// Port is where the dev server listens (PORT, default 8080).
	Port int
	// Project and Database name the Firestore database outright
	// (FIRESTORE_PROJECT or GOOGLE_CLOUD_PROJECT, default
	// "introductions-local"; FIRESTORE_DATABASE, default "introductions").
	Project  string
	Database string
	// FirestoreTimeout bounds every store operation (FIRESTORE_TIMEOUT,
	// default 8s), so an outage answers 503 rather than hanging.
	FirestoreTimeout time.Duration
	// AllowedOrigins is the exact CORS allow-list (ALLOWED_ORIGINS,
	// comma-separated origins such as https://example.com).
	AllowedOrigins []string
	// PowMaxNumber and PowLifetime shape the ALTCHA challenges
	// (POW_MAX_NUMBER, default 100000; POW_LIFETIME, default 10m).
	PowMaxNumber int64
	PowLifetime  time.Duration
	// Retention: DRAFT_LIFETIME (30m), INTRODUCTION_RETENTION (4320h = 180
	// days), REJECTED_ATTEMPT_RETENTION (720h = 30 days).
	Retention intake.Retention
	// Rate limits per rolling hour: RATE_LIMIT_IP_PER_HOUR (10),
	// RATE_LIMIT_EMAIL_PER_HOUR (5).
	RateLimitIPPerHour    int
	RateLimitEmailPerHour int
	// The in-memory flood layer: FLOOD_LIMIT requests (60) per FLOOD_WINDOW
	// (10m) per client address, kept or not.
	FloodLimit  int
	FloodWindow time.Duration
	// ForwardedForPosition is which X-Forwarded-For entry, counted from the
	// right, is the client address (XFF_TRUSTED_POSITION, default 1: the
	// entry Cloud Run's front end appends). The leftmost entries are
	// client-controlled and never trusted.
	ForwardedForPosition int
	// HMACSecret is the Secret Manager secret holding the HMAC key
	// (HMAC_SECRET, projects/P/secrets/S). Empty: a random key of this
	// process (local runs only).
	HMACSecret string
	// Revision and Service identify the running code in the ledger's
	// provenance (K_REVISION, K_SERVICE, set by Cloud Run).
	Revision string
	Service  string
	// LogLevel is LOG_LEVEL (debug, info, warn, error; default info).
	LogLevel slog.Level
}

type loader struct {
	getenv func(string) string
	errs   []error
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
		l.errs = append(l.errs, fmt.Errorf("%s=%q: want a duration (like 30m) from %s to %s", name, v, min, max))
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

// Load reads the configuration through getenv, reporting every problem at
// once.
func Load(getenv func(string) string) (Config, error) {
	l := &loader{getenv: getenv}
	c := Config{
		Port:                  int(l.integer("PORT", 8080, 1, 65535)),
		Project:               l.str("FIRESTORE_PROJECT", l.str("GOOGLE_CLOUD_PROJECT", "introductions-local")),
		Database:              l.str("FIRESTORE_DATABASE", "introductions"),
		FirestoreTimeout:      l.duration("FIRESTORE_TIMEOUT", 8*time.Second, 100*time.Millisecond, time.Minute),
		AllowedOrigins:        l.origins("ALLOWED_ORIGINS"),
		PowMaxNumber:          l.integer("POW_MAX_NUMBER", 100_000, 1, 100_000_000),
		PowLifetime:           l.duration("POW_LIFETIME", 10*time.Minute, 10*time.Second, 24*time.Hour),
		RateLimitIPPerHour:    int(l.integer("RATE_LIMIT_IP_PER_HOUR", 10, 1, 10_000)),
		RateLimitEmailPerHour: int(l.integer("RATE_LIMIT_EMAIL_PER_HOUR", 5, 1, 10_000)),
		FloodLimit:            int(l.integer("FLOOD_LIMIT", 60, 1, 1_000_000)),
		FloodWindow:           l.duration("FLOOD_WINDOW", 10*time.Minute, time.Second, 24*time.Hour),
		ForwardedForPosition:  int(l.integer("XFF_TRUSTED_POSITION", 1, 1, 10)),
		HMACSecret:            l.str("HMAC_SECRET", ""),
		Revision:              l.str("K_REVISION", "local"),
		Service:               l.str("K_SERVICE", "devserver"),
		Retention: intake.Retention{
			Draft:           l.duration("DRAFT_LIFETIME", intake.DefaultRetention.Draft, time.Minute, 24*time.Hour),
			Introduction:    l.duration("INTRODUCTION_RETENTION", intake.DefaultRetention.Introduction, time.Hour, 3*365*24*time.Hour),
			RejectedAttempt: l.duration("REJECTED_ATTEMPT_RETENTION", intake.DefaultRetention.RejectedAttempt, time.Hour, 365*24*time.Hour),
		},
	}
	if c.Database == "" {
		l.errs = append(l.errs, errors.New("FIRESTORE_DATABASE: name the database outright"))
	}
	if c.HMACSecret != "" && !strings.HasPrefix(c.HMACSecret, "projects/") {
		l.errs = append(l.errs, fmt.Errorf("HMAC_SECRET=%q: want projects/PROJECT/secrets/NAME", c.HMACSecret))
	}
	if c.FloodLimit < c.RateLimitIPPerHour {
		l.errs = append(l.errs, fmt.Errorf("FLOOD_LIMIT=%d must be at least RATE_LIMIT_IP_PER_HOUR=%d: the flood layer is the looser one", c.FloodLimit, c.RateLimitIPPerHour))
	}
	switch strings.ToLower(l.str("LOG_LEVEL", "info")) {
	case "debug":
		c.LogLevel = slog.LevelDebug
	case "info":
		c.LogLevel = slog.LevelInfo
	case "warn", "warning":
		c.LogLevel = slog.LevelWarn
	case "error":
		c.LogLevel = slog.LevelError
	default:
		l.errs = append(l.errs, fmt.Errorf("LOG_LEVEL=%q: want debug, info, warn or error", l.getenv("LOG_LEVEL")))
	}
	return c, errors.Join(l.errs...)
}
