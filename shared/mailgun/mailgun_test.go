package mailgun

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ownersite/introductions/shared/intake"
)

const signingKey = "whsk-test-signing-key-4f9d"

// The token and timestamp of the documentation's example; the signature
// computed independently with
//
//	printf '%s' "1770920772e0b5477167110d68991efc6b9f89f0a11066af27834600e123" | openssl dgst -sha256 -hmac whsk-test-signing-key-4f9d
const (
	vectorTimestamp = "1770920772"
	vectorToken     = "e0b5477167110d68991efc6b9f89f0a11066af27834600e123"
	vectorSignature = "dd94664eb1c62915c1a36bc0b2a01f29164275103e6fbf2e91c65bebacd62376"
)

func at(unix string) func() time.Time {
	n, _ := strconv.ParseInt(unix, 10, 64)
	return func() time.Time { return time.Unix(n, 0).Add(30 * time.Second) }
}

func verifier(t *testing.T, now func() time.Time) *Verifier {
	t.Helper()
	v, err := NewVerifier(signingKey, now)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// sign builds a body as Mailgun posts it, signed with key.
func sign(key, timestamp, token string, eventData map[string]any) []byte {
	mac := hmac.New(sha256.New, []byte(key))
	mac.Write([]byte(timestamp + token))
	b, _ := json.Marshal(map[string]any{
		"signature":  map[string]any{"timestamp": timestamp, "token": token, "signature": hex.EncodeToString(mac.Sum(nil))},
		"event-data": eventData,
	})
	return b
}

func eventData(event, severity string) map[string]any {
	return map[string]any{
		"id": "G9Bn5sl1TC6nu79C8C0bwg", "event": event, "severity": severity, "timestamp": 1770920770.123456,
		"reason": "bounce", "recipient": "owner@example.com",
		"user-variables":  map[string]any{"envelope-id": "env-42"},
		"delivery-status": map[string]any{"code": 550, "message": "5.1.1 <owner@example.com>: Recipient address rejected", "description": "no such user"},
	}
}

func TestTheDocumentedSignatureVerifies(t *testing.T) {
	body := []byte(`{"signature": {"timestamp": "` + vectorTimestamp + `", "token": "` + vectorToken + `", "signature": "` + vectorSignature + `"},
		"event-data": {"id": "ev-1", "event": "delivered", "timestamp": 1770920771.5, "user-variables": {"envelope-id": "env-7"}, "delivery-status": {"code": 250}}}`)
	e, err := verifier(t, at(vectorTimestamp)).Parse(body)
	if err != nil {
		t.Fatal(err)
	}
	want := Event{Token: vectorToken, ID: "ev-1", Name: "delivered", EnvelopeID: "env-7", Status: intake.DeliveryDelivered,
		Detail: "mailgun delivered, SMTP 250", At: time.Unix(1770920771, 5e8).UTC(), SignedAt: time.Unix(1770920772, 0).UTC()}
	if e != want || !e.Applies() {
		t.Fatalf("got  %+v\nwant %+v", e, want)
	}
	// The timestamp as a JSON number, as the documentation's table has it.
	body = []byte(strings.Replace(string(body), `"`+vectorTimestamp+`"`, vectorTimestamp, 1))
	if _, err := verifier(t, at(vectorTimestamp)).Parse(body); err != nil {
		t.Fatalf("numeric timestamp: %v", err)
	}
}

func TestEvents(t *testing.T) {
	cases := []struct {
		event, severity string
		want            intake.DeliveryStatus
		detail          string
	}{
		{"delivered", "", intake.DeliveryDelivered, "mailgun delivered, reason bounce, SMTP 550"},
		{"failed", "temporary", intake.DeliveryRetryPending, "mailgun failed, temporary, reason bounce, SMTP 550"},
		{"failed", "permanent", intake.DeliveryFailed, "mailgun failed, permanent, reason bounce, SMTP 550"},
		{"failed", "", "", "mailgun failed, reason bounce, SMTP 550"},
		{"opened", "", "", "mailgun opened, reason bounce, SMTP 550"},
		{"accepted", "", "", "mailgun accepted, reason bounce, SMTP 550"},
		{"complained", "", "", "mailgun complained, reason bounce, SMTP 550"},
	}
	now := time.Unix(1770920800, 0)
	v := verifier(t, func() time.Time { return now })
	for _, tc := range cases {
		e, err := v.Parse(sign(signingKey, "1770920790", "tok-"+tc.event+tc.severity, eventData(tc.event, tc.severity)))
		if err != nil {
			t.Fatalf("%s/%s: %v", tc.event, tc.severity, err)
		}
		if e.Status != tc.want || e.Detail != tc.detail || e.EnvelopeID != "env-42" || e.Token != "tok-"+tc.event+tc.severity || e.ID != "G9Bn5sl1TC6nu79C8C0bwg" {
			t.Errorf("%s/%s: %+v", tc.event, tc.severity, e)
		}
		if e.Applies() != (tc.want != "") {
			t.Errorf("%s/%s: Applies = %v", tc.event, tc.severity, e.Applies())
		}
		if strings.Contains(e.Detail, "owner@") || strings.Contains(e.Detail, "Recipient") {
			t.Errorf("the detail carries the provider's text: %q", e.Detail)
		}
	}
}

func TestRefusals(t *testing.T) {
	now := time.Unix(1770920800, 0)
	v := verifier(t, func() time.Time { return now })
	good := eventData("delivered", "")
	tampered := sign(signingKey, "1770920790", "tok-1", good)
	tampered = []byte(strings.Replace(string(tampered), `"tok-1"`, `"tok-2"`, 1))
	cases := []struct {
		name string
		body []byte
		want error
	}{
		{"another key", sign("another-key", "1770920790", "tok-1", good), ErrSignature},
		{"the token swapped after signing", tampered, ErrSignature},
		{"a signature that is not hex", []byte(`{"signature":{"timestamp":"1770920790","token":"t","signature":"zz"},"event-data":{}}`), ErrSignature},
		{"older than five minutes", sign(signingKey, strconv.FormatInt(now.Add(-MaxAge-time.Second).Unix(), 10), "tok-1", good), ErrStale},
		{"from the future", sign(signingKey, strconv.FormatInt(now.Add(MaxAge+time.Second).Unix(), 10), "tok-1", good), ErrStale},
		{"not JSON", []byte("signature=abc&token=def"), ErrMalformed},
		{"no signature", []byte(`{"event-data":{"event":"delivered"}}`), ErrMalformed},
		{"no event", []byte(`{"signature":{"timestamp":"1770920790","token":"t","signature":"00"}}`), ErrMalformed},
		{"no token", sign(signingKey, "1770920790", "", good), ErrMalformed},
		{"a timestamp that is not a number", sign(signingKey, "soon", "tok-1", good), ErrMalformed},
	}
	for _, tc := range cases {
		if _, err := v.Parse(tc.body); !errors.Is(err, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, err, tc.want)
		}
	}
	// Exactly five minutes old is still fresh.
	if _, err := v.Parse(sign(signingKey, strconv.FormatInt(now.Add(-MaxAge).Unix(), 10), "tok-1", good)); err != nil {
		t.Errorf("five minutes old: %v", err)
	}
}

func TestAMailWithoutEnvelopeIDAppliesToNothing(t *testing.T) {
	ed := eventData("delivered", "")
	delete(ed, "user-variables")
	e, err := verifier(t, at("1770920790")).Parse(sign(signingKey, "1770920790", "tok-x", ed))
	if err != nil || e.Applies() || e.EnvelopeID != "" {
		t.Fatalf("%+v %v", e, err)
	}
}

func TestFreeTextNeverReachesTheDetail(t *testing.T) {
	ed := eventData("failed", "permanent")
	ed["reason"] = "Visitor Name <visitor@example.org> said hello"
	e, err := verifier(t, at("1770920790")).Parse(sign(signingKey, "1770920790", "tok-y", ed))
	if err != nil {
		t.Fatal(err)
	}
	if e.Detail != "mailgun failed, permanent, reason other, SMTP 550" {
		t.Fatalf("detail %q", e.Detail)
	}
}

func TestNewVerifierNamesEveryMissingPart(t *testing.T) {
	_, err := NewVerifier("", nil)
	if err == nil || !strings.Contains(err.Error(), "MAILGUN_WEBHOOK_SIGNING_KEY") || !strings.Contains(err.Error(), "clock") {
		t.Fatalf("%v", err)
	}
}

func TestSignatureMatchesTheIndependentVector(t *testing.T) {
	if got := Signature(signingKey, vectorTimestamp, vectorToken); got != vectorSignature {
		t.Fatalf("Signature = %s, want %s", got, vectorSignature)
	}
}
