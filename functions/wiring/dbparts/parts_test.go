package dbparts

import (
	"context"
	"log/slog"
	"strings"
	"testing"

	"github.com/ownersite/introductions/functions/challenge"
	"github.com/ownersite/introductions/functions/wiring"
	"github.com/ownersite/introductions/shared/config"
)

// TestPartsRefuseWhatTheRowDoesNotName: asking for a secret or the
// database outside the instance's access is an error naming both.
func TestPartsRefuseWhatTheRowDoesNotName(t *testing.T) {
	p, err := wiring.NewParts(context.Background(), config.Config{}, slog.New(slog.DiscardHandler), nil, "Forms")
	if err != nil {
		t.Fatal(err)
	}
	for name, ask := range map[string]func() error{
		wiring.SecretHMAC:       func() error { _, err := challenge.HMACKeys(p); return err },
		wiring.SecretPepper:     func() error { _, err := hashPepper(p); return err },
		wiring.SecretMailgunKey: func() error { _, err := EventProviders(p); return err },
		"Firestore":             func() error { _, err := Database(p); return err },
		"bucket":                func() error { _, err := Attachments(p); return err },
	} {
		if err := ask(); err == nil || !strings.Contains(err.Error(), "Forms may not") || !strings.Contains(err.Error(), name) {
			t.Errorf("asking for %s: %v, want a refusal naming Forms and %s", name, err, name)
		}
	}
}
