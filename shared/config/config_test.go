package config

import (
	"slices"
	"strings"
	"testing"
	"time"
)

func TestDefaults(t *testing.T) {
	c, err := Load(func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	if c.Port != 8080 || c.Database != "introductions" || c.PowMaxNumber != 100000 || c.PowLifetime != 10*time.Minute || c.PowTargetP90 != time.Second ||
		c.Retention.Draft != 30*time.Minute || c.RateLimitIPPerHour != 10 || c.RateLimitEmailPerHour != 5 || c.ClientAddress != "connection" || c.ForwardedForPosition != 0 || c.SweepAfterIdle != 15*time.Minute {
		t.Fatalf("defaults: %+v", c)
	}
}

func TestEveryProblemIsReportedAtOnce(t *testing.T) {
	env := map[string]string{"PORT": "eighty", "ALLOWED_ORIGINS": "*,https://ok.example,https://x.example/path", "POW_MAX_NUMBER": "0",
		"DRAFT_LIFETIME": "forever", "HMAC_SECRET": "my-key", "LOG_LEVEL": "loud", "SCHEDULER_JOB": "sweep", "SWEEP_AFTER_IDLE": "0", "POW_TARGET_P90": "1ms"}
	_, err := Load(func(k string) string { return env[k] })
	if err == nil {
		t.Fatal("no error")
	}
	for _, name := range []string{"PORT", `"*"`, "/path", "POW_MAX_NUMBER", "DRAFT_LIFETIME", "HMAC_SECRET", "LOG_LEVEL", "SCHEDULER_JOB", "SWEEP_AFTER_IDLE", "POW_TARGET_P90"} {
		if !strings.Contains(err.Error(), name) {
			t.Errorf("the error does not mention %s: %v", name, err)
		}
	}
}

func load(t *testing.T, env map[string]string) (Config, error) {
	t.Helper()
	return Load(func(k string) string { return env[k] })
}

func TestHandoffDestinationsAreOffWhenUnset(t *testing.T) {
	c, err := load(t, nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.Webhook.Enabled() || c.SMTP.Enabled() || c.MailgunSigningKey != "" || c.AdminURL != "" || c.IntroductionAdminURL("x") != "" {
		t.Fatalf("a destination is on: %+v %+v", c.Webhook, c.SMTP)
	}
}

func TestHandoffDestinations(t *testing.T) {
	c, err := load(t, map[string]string{
		"WEBHOOK_URL": "https://hooks.example.com/introductions", "WEBHOOK_SECRET": "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
		"SMTP_HOST": "smtp.example.com", "SMTP_USERNAME": "intake", "SMTP_PASSWORD": "pw",
		"NOTIFY_EMAIL_FROM": "Introductions <intake@example.com>", "NOTIFY_EMAIL_TO": "owner@example.com, second@example.com",
		"MAILGUN_WEBHOOK_SIGNING_KEY": "key-1", "ADMIN_URL": "https://admin.example.com/",
	})
	if err != nil {
		t.Fatal(err)
	}
	if !c.Webhook.Enabled() || c.Webhook.AllowPrivate || !c.SMTP.Enabled() || c.SMTP.Port != 587 || c.SMTP.TLS != SMTPStartTLS ||
		len(c.SMTP.To) != 2 || c.SMTP.To[1] != "second@example.com" || c.SMTP.From != `"Introductions" <intake@example.com>` {
		t.Fatalf("webhook %+v smtp %+v", c.Webhook, c.SMTP)
	}
	if got := c.IntroductionAdminURL("a b"); got != "https://admin.example.com/admin/introductions/a%20b" {
		t.Fatalf("IntroductionAdminURL = %q", got)
	}
	for mode, port := range map[string]int{"tls": 465, "none": 25, "starttls": 587} {
		c, err := load(t, map[string]string{"SMTP_HOST": "127.0.0.1", "SMTP_TLS": mode, "NOTIFY_EMAIL_FROM": "a@example.com", "NOTIFY_EMAIL_TO": "b@example.com"})
		if err != nil || c.SMTP.Port != port {
			t.Errorf("SMTP_TLS=%s: port %d, %v", mode, c.SMTP.Port, err)
		}
	}
	// A local receiver over plain http, allowed for local runs.
	if c, err := load(t, map[string]string{"WEBHOOK_URL": "http://127.0.0.1:9000/hook", "WEBHOOK_SECRET": "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "WEBHOOK_ALLOW_PRIVATE": "true"}); err != nil || !c.Webhook.AllowPrivate {
		t.Fatalf("local webhook: %+v %v", c.Webhook, err)
	}
}

func TestHalfConfiguredDestinationsNameWhatIsMissing(t *testing.T) {
	cases := []struct {
		env  map[string]string
		want []string
	}{
		{map[string]string{"WEBHOOK_URL": "https://hooks.example.com/x"}, []string{"webhook", "WEBHOOK_SECRET missing"}},
		{map[string]string{"WEBHOOK_SECRET": "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"}, []string{"webhook", "WEBHOOK_URL missing"}},
		{map[string]string{"NOTIFY_EMAIL_TO": "owner@example.com"}, []string{"email", "SMTP_HOST, NOTIFY_EMAIL_FROM missing"}},
		{map[string]string{"SMTP_HOST": "smtp.example.com"}, []string{"NOTIFY_EMAIL_FROM, NOTIFY_EMAIL_TO missing"}},
		{map[string]string{"SMTP_HOST": "smtp.example.com", "NOTIFY_EMAIL_FROM": "a@example.com", "NOTIFY_EMAIL_TO": "b@example.com", "SMTP_USERNAME": "u"}, []string{"SMTP_USERNAME and SMTP_PASSWORD"}},
		{map[string]string{"SMTP_HOST": "smtp.example.com", "NOTIFY_EMAIL_FROM": "a@example.com", "NOTIFY_EMAIL_TO": "b@example.com", "SMTP_TLS": "ssl3"}, []string{`SMTP_TLS="ssl3"`}},
		{map[string]string{"SMTP_HOST": "smtp.example.com", "NOTIFY_EMAIL_FROM": "a@example.com", "NOTIFY_EMAIL_TO": "b@example.com", "SMTP_TLS": "none", "SMTP_USERNAME": "u", "SMTP_PASSWORD": "p"}, []string{"in clear"}},
		{map[string]string{"SMTP_HOST": "smtp.example.com", "NOTIFY_EMAIL_FROM": "not an address", "NOTIFY_EMAIL_TO": "b@example.com"}, []string{"NOTIFY_EMAIL_FROM"}},
		{map[string]string{"WEBHOOK_URL": "http://hooks.example.com/x", "WEBHOOK_SECRET": "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"}, []string{"want https"}},
		{map[string]string{"WEBHOOK_URL": "https://hooks.example.com/x", "WEBHOOK_SECRET": "MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"}, []string{"WEBHOOK_SECRET", "whsec_"}},
		{map[string]string{"WEBHOOK_URL": "https://hooks.example.com/x", "WEBHOOK_SECRET": "whsec_c2hvcnQ="}, []string{"WEBHOOK_SECRET", "5 bytes"}},
		{map[string]string{"WEBHOOK_ALLOW_PRIVATE": "maybe"}, []string{"WEBHOOK_ALLOW_PRIVATE"}},
		{map[string]string{"ADMIN_URL": "admin.example.com"}, []string{"ADMIN_URL"}},
		{map[string]string{"SITE_URL": "example.com"}, []string{"SITE_URL"}},
		{map[string]string{"OWNER_LANGUAGE": "de"}, []string{`OWNER_LANGUAGE="de"`}},
		{map[string]string{"OWNER_TIME_ZONE": "Mars/Olympus"}, []string{`OWNER_TIME_ZONE="Mars/Olympus"`}},
		{map[string]string{"OWNER_TIME_ZONE": "Local"}, []string{"OWNER_TIME_ZONE"}},
	}
	for _, tc := range cases {
		c, err := load(t, tc.env)
		if err == nil {
			t.Errorf("%v: no error", tc.env)
			continue
		}
		for _, want := range tc.want {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("%v: the error does not say %q: %v", tc.env, want, err)
			}
		}
		if c.Webhook.Enabled() && tc.env["WEBHOOK_URL"] != "" && strings.Contains(err.Error(), "WEBHOOK") || c.SMTP.Enabled() && strings.Contains(err.Error(), "SMTP") {
			t.Errorf("%v: a misconfigured destination is on", tc.env)
		}
	}
}

func TestVariablesListsEveryVariableLoadReads(t *testing.T) {
	vars := Variables()
	for _, name := range []string{"PORT", "FIRESTORE_PROJECT", "GOOGLE_CLOUD_PROJECT", "FIRESTORE_DATABASE", "FIRESTORE_EMULATOR_HOST", "ALLOWED_ORIGINS", "HMAC_SECRET", "LOG_LEVEL", "K_REVISION", "SWEEP_AFTER_IDLE"} {
		if !slices.Contains(vars, name) {
			t.Errorf("Variables() lacks %s: %v", name, vars)
		}
	}
	if !slices.IsSorted(vars) || len(slices.Compact(slices.Clone(vars))) != len(vars) {
		t.Errorf("Variables() is not sorted and unique: %v", vars)
	}
	// Every name Load reads, with any environment, is listed.
	env := map[string]string{"ALLOWED_ORIGINS": "https://example.com", "HMAC_SECRET": "projects/p/secrets/s", "LOG_LEVEL": "debug"}
	Load(func(name string) string {
		if !slices.Contains(vars, name) {
			t.Errorf("Load read %s, which Variables() does not list", name)
		}
		return env[name]
	})
}

func TestSweepAndPepperSettings(t *testing.T) {
	tests := []struct {
		name    string
		env     map[string]string
		wantErr string
	}{
		{"defaults", map[string]string{}, ""},
		{"secret and pinned pepper", map[string]string{"HMAC_SECRET": "projects/p/secrets/hmac", "HASH_PEPPER_SECRET": "projects/p/secrets/pepper/versions/3"}, ""},
		// Challenge signs and hashes nothing: infra/ gives it the key alone.
		{"secret without pepper", map[string]string{"HMAC_SECRET": "projects/p/secrets/hmac"}, ""},
		{"pepper not pinned", map[string]string{"HASH_PEPPER_SECRET": "projects/p/secrets/pepper/versions/latest"}, "pinned version"},
		{"pepper without version", map[string]string{"HASH_PEPPER_SECRET": "projects/p/secrets/pepper"}, "HASH_PEPPER_SECRET"},
		{"sweep runs kept a day", map[string]string{"SWEEP_RUN_RETENTION": "24h"}, ""},
		{"sweep runs kept a minute", map[string]string{"SWEEP_RUN_RETENTION": "1m"}, "SWEEP_RUN_RETENTION"},
		{"an hour's quiet spell", map[string]string{"SWEEP_AFTER_IDLE": "1h"}, ""},
		{"a minute's quiet spell", map[string]string{"SWEEP_AFTER_IDLE": "1m"}, ""},
		{"a quiet spell of seconds", map[string]string{"SWEEP_AFTER_IDLE": "30s"}, `SWEEP_AFTER_IDLE="30s"`},
		{"a quiet spell over a day", map[string]string{"SWEEP_AFTER_IDLE": "25h"}, `SWEEP_AFTER_IDLE="25h"`},
		// Zero reads as "off" to many; the trigger has no off, and says so.
		{"no quiet spell", map[string]string{"SWEEP_AFTER_IDLE": "0"}, `SWEEP_AFTER_IDLE="0": want a duration (like 30m) from 1m0s to 24h0m0s (zero or less does not turn it off)`},
		{"a negative quiet spell", map[string]string{"SWEEP_AFTER_IDLE": "-15m"}, "zero or less does not turn it off"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Load(func(k string) string { return tt.env[k] })
			if tt.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				if want := tt.env["HASH_PEPPER_SECRET"]; c.HashPepperSecret != want {
					t.Errorf("HashPepperSecret = %q", c.HashPepperSecret)
				}
				if tt.env["SWEEP_RUN_RETENTION"] == "" && c.SweepRunRetention != 30*24*time.Hour {
					t.Errorf("SweepRunRetention default = %v", c.SweepRunRetention)
				}
				idle := 15 * time.Minute
				if v := tt.env["SWEEP_AFTER_IDLE"]; v != "" {
					idle, _ = time.ParseDuration(v)
				}
				if c.SweepAfterIdle != idle {
					t.Errorf("SweepAfterIdle = %v, want %v", c.SweepAfterIdle, idle)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("error %v, want one mentioning %q", err, tt.wantErr)
			}
		})
	}
}

// TestClientAddressSettings checks each way of deploying maps to the
// X-Forwarded-For position its proxy appends at, that Cloud Run's own
// K_SERVICE makes cloud-run the default, and that nothing else does.
func TestClientAddressSettings(t *testing.T) {
	tests := []struct {
		name     string
		env      map[string]string
		source   string
		position int
	}{
		{"dev server: the connection", map[string]string{}, "connection", 0},
		{"on Cloud Run by default", map[string]string{"K_SERVICE": "drafts"}, "cloud-run", 1},
		{"explicit connection on Cloud Run", map[string]string{"K_SERVICE": "drafts", "CLIENT_ADDRESS": "connection"}, "connection", 0},
		{"direct Cloud Run URL", map[string]string{"CLIENT_ADDRESS": "cloud-run"}, "cloud-run", 1},
		{"Firebase Hosting rewrite", map[string]string{"CLIENT_ADDRESS": "firebase-hosting"}, "firebase-hosting", 2},
		{"load balancer", map[string]string{"CLIENT_ADDRESS": "Load-Balancer"}, "load-balancer", 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Load(func(k string) string { return tt.env[k] })
			if err != nil {
				t.Fatal(err)
			}
			if c.ClientAddress != tt.source || c.ForwardedForPosition != tt.position {
				t.Fatalf("CLIENT_ADDRESS %q, position %d; want %q, %d", c.ClientAddress, c.ForwardedForPosition, tt.source, tt.position)
			}
		})
	}
	for _, env := range []map[string]string{{"CLIENT_ADDRESS": "x-forwarded-for"}} {
		if _, err := Load(func(k string) string { return env[k] }); err == nil || !strings.Contains(err.Error(), "CLIENT_ADDRESS") {
			t.Errorf("Load(%v) = %v, want an error naming CLIENT_ADDRESS", env, err)
		}
	}
}

func TestFirestoreEmulatorHost(t *testing.T) {
	for _, host := range []string{"", "127.0.0.1:8681"} {
		c, err := Load(func(name string) string {
			if name == "FIRESTORE_EMULATOR_HOST" {
				return host
			}
			return ""
		})
		if err != nil || c.FirestoreEmulatorHost != host {
			t.Errorf("FIRESTORE_EMULATOR_HOST=%q: FirestoreEmulatorHost %q, %v", host, c.FirestoreEmulatorHost, err)
		}
	}
}

// A refused URL or address is named, never quoted: start-up errors are
// logged, a webhook URL often carries a secret and an address is personal
// data.
func TestErrorsQuoteNoURLOrAddress(t *testing.T) {
	env := map[string]string{
		"WEBHOOK_URL": "ftp://hooks.example.com/canary-webhook-path", "WEBHOOK_SECRET": "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
		"ADMIN_URL": "http://admin.example.com/canary-admin-path",
		"SMTP_HOST": "smtp.example.com", "NOTIFY_EMAIL_FROM": "canary-from@@example.com", "NOTIFY_EMAIL_TO": "canary-to@@example.com",
	}
	_, err := Load(func(name string) string { return env[name] })
	if err == nil {
		t.Fatal("the malformed settings were accepted")
	}
	for _, name := range []string{"WEBHOOK_URL", "NOTIFY_EMAIL_FROM", "NOTIFY_EMAIL_TO"} {
		if !strings.Contains(err.Error(), name) {
			t.Errorf("the error does not name %s: %v", name, err)
		}
	}
	if strings.Contains(err.Error(), "canary") {
		t.Errorf("the error quotes a value: %v", err)
	}
	env["WEBHOOK_URL"] = "http://hooks.example.com/canary-webhook-path"
	if _, err := Load(func(name string) string { return env[name] }); err == nil || !strings.Contains(err.Error(), "want https") || strings.Contains(err.Error(), "canary") {
		t.Errorf("plain http webhook: %v", err)
	}
}

func TestPowMaxEscalated(t *testing.T) {
	for _, tt := range []struct {
		name string
		env  map[string]string
		want int64
		err  bool
	}{
		{"default: 1000 × the base", nil, 100_000_000, false},
		{"default follows the base", map[string]string{"POW_MAX_NUMBER": "3000"}, 3_000_000, false},
		{"equal to the base: escalation off", map[string]string{"POW_MAX_NUMBER": "3000", "POW_MAX_ESCALATED": "3000"}, 3000, false},
		{"below the base", map[string]string{"POW_MAX_NUMBER": "3000", "POW_MAX_ESCALATED": "2999"}, 0, true},
		{"beyond the ceiling", map[string]string{"POW_MAX_ESCALATED": "100000000001"}, 0, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c, err := load(t, tt.env)
			if tt.err {
				if err == nil || !strings.Contains(err.Error(), "POW_MAX_ESCALATED") {
					t.Fatalf("Load = %v, want a POW_MAX_ESCALATED error", err)
				}
				return
			}
			if err != nil || c.PowMaxEscalated != tt.want {
				t.Fatalf("PowMaxEscalated = %d, %v; want %d", c.PowMaxEscalated, err, tt.want)
			}
		})
	}
}

func TestTheOwnersLanguageAndTimeZone(t *testing.T) {
	c, err := load(t, nil)
	if err != nil || c.OwnerLanguage != "en" || c.OwnerTimeZone != time.UTC || c.SiteURL != "" {
		t.Fatalf("defaults: %q %v %q %v", c.OwnerLanguage, c.OwnerTimeZone, c.SiteURL, err)
	}
	c, err = load(t, map[string]string{"OWNER_LANGUAGE": "fa", "OWNER_TIME_ZONE": "Asia/Tehran", "SITE_URL": "https://owner.example/"})
	if err != nil || c.OwnerLanguage != "fa" || c.OwnerTimeZone.String() != "Asia/Tehran" || c.SiteURL != "https://owner.example/" {
		t.Fatalf("set: %q %v %q %v", c.OwnerLanguage, c.OwnerTimeZone, c.SiteURL, err)
	}
}
