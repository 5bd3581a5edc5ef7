package deliveryevents_test

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ownersite/introductions/functions/delivery-events"
	"github.com/ownersite/introductions/shared/intake"
	"github.com/ownersite/introductions/shared/mailgun"
)

// TestTheMailgunProviderReadsWhatEachEventMeans: Mailgun's signed events,
// read by the real verifier, become the provider events the delivery
// service applies: delivered a receipt, a temporary failure temporary (a
// retry), a permanent one permanent, each for the email envelope it names;
// an open says nothing about delivery; a bad signature is refused.
func TestTheMailgunProviderReadsWhatEachEventMeans(t *testing.T) {
	const key = "key-0123456789abcdef0123456789abcdef"
	now := time.Unix(1770920800, 0).UTC()
	v, err := mailgun.NewVerifier(key, func() time.Time { return now })
	if err != nil {
		t.Fatal(err)
	}
	p := deliveryevents.Provider(v)
	body := func(token, event, severity string) []byte {
		ts := strconv.FormatInt(now.Unix(), 10)
		b, _ := json.Marshal(map[string]any{
			"signature": map[string]any{"timestamp": ts, "token": token, "signature": mailgun.Signature(key, ts, token)},
			"event-data": map[string]any{"id": "ev-" + token, "event": event, "severity": severity, "reason": "generic",
				"timestamp": float64(now.Unix()), "user-variables": map[string]any{"envelope-id": "env_x_email_confirmed"},
				"delivery-status": map[string]any{"code": 452}},
		})
		return b
	}
	for _, tc := range []struct {
		event, severity string
		want            intake.ProviderEventKind
	}{
		{"delivered", "", intake.ProviderDelivered},
		{"failed", "temporary", intake.ProviderFailedTemporary},
		{"failed", "permanent", intake.ProviderFailedPermanent},
	} {
		token := "tok-" + tc.event + tc.severity
		ev, applies, err := p.Read(body(token, tc.event, tc.severity))
		if err != nil || !applies {
			t.Fatalf("%s/%s: applies %v, %v", tc.event, tc.severity, applies, err)
		}
		if ev.Kind != tc.want || ev.Provider != deliveryevents.ProviderMailgun || ev.Destination != intake.DestinationEmail ||
			ev.EnvelopeID != "env_x_email_confirmed" || ev.Token != token {
			t.Errorf("%s/%s: %+v, want kind %s for the email envelope", tc.event, tc.severity, ev, tc.want)
		}
	}
	if _, applies, err := p.Read(body("tok-open", "opened", "")); err != nil || applies {
		t.Errorf("an open: applies %v, %v; want nothing to apply", applies, err)
	}
	forged := strings.Replace(string(body("tok-forged", "delivered", "")), `"tok-forged"`, `"tok-other"`, 1)
	if _, _, err := p.Read([]byte(forged)); intake.CodeOf(err) != intake.CodeEventSignatureInvalid {
		t.Errorf("a forged event: %v, want EVENT_SIGNATURE_INVALID", err)
	}
}
