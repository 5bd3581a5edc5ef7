package config

import (
	"strings"
	"testing"
	"time"
)

func TestDefaults(t *testing.T) {
	c, err := Load(func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	if c.Port != 8080 || c.Database != "introductions" || c.PowMaxNumber != 100000 || c.PowLifetime != 10*time.Minute ||
		c.Retention.Draft != 30*time.Minute || c.RateLimitIPPerHour != 10 || c.RateLimitEmailPerHour != 5 || c.ForwardedForPosition != 1 {
		t.Fatalf("defaults: %+v", c)
	}
}

func TestEveryProblemIsReportedAtOnce(t *testing.T) {
	env := map[string]string{"PORT": "eighty", "ALLOWED_ORIGINS": "*,https://ok.example,https://x.example/path", "POW_MAX_NUMBER": "0",
		"DRAFT_LIFETIME": "forever", "HMAC_SECRET": "my-key", "LOG_LEVEL": "loud"}
	_, err := Load(func(k string) string { return env[k] })
	if err == nil {
		t.Fatal("no error")
	}
	for _, name := range []string{"PORT", `"*"`, "/path", "POW_MAX_NUMBER", "DRAFT_LIFETIME", "HMAC_SECRET", "LOG_LEVEL"} {
		if !strings.Contains(err.Error(), name) {
			t.Errorf("the error does not mention %s: %v", name, err)
		}
	}
}
