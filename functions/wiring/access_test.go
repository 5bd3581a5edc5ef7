package wiring_test

import (
	"context"
	"log/slog"
	"slices"
	"strings"
	"testing"

	introductions "github.com/ownersite/introductions"
	"github.com/ownersite/introductions/functions/wiring"
	"github.com/ownersite/introductions/functions/wiring/dbparts"
	"github.com/ownersite/introductions/shared/config"
	"github.com/ownersite/introductions/shared/emulatortest"
	"github.com/ownersite/introductions/shared/intake"
	"github.com/ownersite/introductions/shared/storagetest"
)

func TestEveryFunctionHasOneAccessRow(t *testing.T) {
	var names, functions []string
	for _, a := range wiring.Accesses() {
		names = append(names, a.Function)
	}
	for _, fn := range introductions.Functions {
		functions = append(functions, fn.Name)
	}
	if !slices.Equal(names, functions) {
		t.Errorf("access rows name %v; the route table's functions are %v", names, functions)
	}
}

// TestEachFunctionBuildsWithinItsAccess builds every function alone, with
// every destination and provider configured: each builds (its row names
// enough), holds a Firestore connection exactly when its row says so, and
// holds the handoff's senders only where its row names their secrets.
func TestEachFunctionBuildsWithinItsAccess(t *testing.T) {
	_, project := emulatortest.Client(t)
	env := map[string]string{
		"FIRESTORE_PROJECT": project, "FIRESTORE_DATABASE": emulatortest.Database, "LOG_LEVEL": "error",
		"SMTP_HOST": "127.0.0.1", "SMTP_PORT": "1", "SMTP_TLS": "none", "NOTIFY_EMAIL_FROM": "Introductions <intake@example.com>", "NOTIFY_EMAIL_TO": "owner@example.com",
		"WEBHOOK_URL": "http://127.0.0.1:1/hook", "WEBHOOK_ALLOW_PRIVATE": "true", "WEBHOOK_SECRET": "whsec_" + strings.Repeat("A", 32),
		"MAILGUN_WEBHOOK_SIGNING_KEY": strings.Repeat("k", 32),
		"ATTACHMENT_BUCKET":           storagetest.BucketName(t),
	}
	cfg, err := config.Load(func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range wiring.Accesses() {
		t.Run(a.Function, func(t *testing.T) {
			svc, err := dbparts.Build(context.Background(), cfg, slog.New(slog.DiscardHandler), dbparts.Overrides{}, function(t, a.Function))
			if err != nil {
				t.Fatalf("%s does not build within its access %+v: %v", a.Function, a, err)
			}
			defer svc.Close()
			if (svc.DB != nil) != a.Firestore {
				t.Errorf("holds Firestore: %v; its row says %v", svc.DB != nil, a.Firestore)
			}
			if (svc.Sweeps != nil) != a.Firestore {
				t.Errorf("sweeps: %v; want them exactly where it holds the store", svc.Sweeps != nil)
			}
			sends := svc.Delivery != nil && slices.Contains(svc.Delivery.Destinations(), intake.DestinationWebhook)
			if want := slices.Contains(a.Secrets, wiring.SecretWebhook); sends != want {
				t.Errorf("holds the handoff's senders: %v; its row names their secrets: %v", sends, want)
			}
			if svc.Function(a.Function) == nil {
				t.Errorf("serves no handler")
			}
		})
	}
}
