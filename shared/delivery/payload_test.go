package delivery_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ownersite/introductions/shared/config"
	"github.com/ownersite/introductions/shared/delivery"
	"github.com/ownersite/introductions/shared/intake"
	"github.com/ownersite/introductions/shared/webhook"
)

func sha256Hex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// The envelope binds its payload: the first send writes the SHA-256 of the
// exact bytes sent to the envelope and its ledger mirror, every retry sends
// the same bytes under the same hash, and the admin inbox (sent nothing)
// binds none.
func TestPayloadIsBoundAtTheFirstSendAndStableAcrossRetries(t *testing.T) {
	hook := &sender{dest: intake.DestinationWebhook, script: []intake.DeliveryResult{
		result(intake.DeliveryRetryPending, "HTTP 503"), result(intake.DeliveryDelivered, "HTTP 200")}}
	w := newWorld(t, hook)
	w.confirmed("bound1")
	id := envID("bound1", intake.DestinationWebhook)
	if e := w.envelope(id); e.PayloadSHA256 != "" {
		t.Fatalf("bound before any send: %q", e.PayloadSHA256)
	}
	ctx := context.Background()
	if _, err := w.svc.Deliver(ctx, id); err != nil {
		t.Fatal(err)
	}
	calls := hook.calls()
	if len(calls) != 1 || calls[0].Payload == nil {
		t.Fatalf("the sender was not handed the payload: %+v", calls)
	}
	want := sha256Hex(calls[0].Payload)
	e := w.envelope(id)
	if e.Status != intake.DeliveryRetryPending || e.PayloadSHA256 != want {
		t.Fatalf("after the first send: %s, payloadSha256 %q, want %q", e.Status, e.PayloadSHA256, want)
	}
	if h := w.handoff("bound1", id); h.PayloadSHA256 != want {
		t.Fatalf("the ledger's mirror: payloadSha256 %q, want %q", h.PayloadSHA256, want)
	}

	w.clock.Advance(2 * time.Minute)
	if _, err := w.svc.Deliver(ctx, id); err != nil {
		t.Fatal(err)
	}
	calls = hook.calls()
	if len(calls) != 2 || string(calls[1].Payload) != string(calls[0].Payload) {
		t.Fatalf("the retry sent other bytes: %q then %q", calls[0].Payload, calls[len(calls)-1].Payload)
	}
	e = w.envelope(id)
	if e.Status != intake.DeliveryDelivered || e.PayloadSHA256 != want {
		t.Fatalf("after the retry: %s, payloadSha256 %q", e.Status, e.PayloadSHA256)
	}
	if h := w.handoff("bound1", id); h.PayloadSHA256 != want || h.Status != intake.DeliveryDelivered {
		t.Fatalf("the ledger's mirror after the retry: %+v", h)
	}
	if e := w.envelope(envID("bound1", intake.DestinationInbox)); e.PayloadSHA256 != "" {
		t.Fatalf("the inbox is sent nothing, yet binds %q", e.PayloadSHA256)
	}
}

// A retry whose rendering differs from the bound payload sends nothing:
// the envelope is FAILED with both hashes, and the ledger says why.
func TestRetryThatWouldSendOtherBytesIsRefused(t *testing.T) {
	hook := &sender{dest: intake.DestinationWebhook, script: []intake.DeliveryResult{result(intake.DeliveryRetryPending, "HTTP 503")}}
	w := newWorld(t, hook)
	w.confirmed("bound2")
	id := envID("bound2", intake.DestinationWebhook)
	ctx := context.Background()
	if _, err := w.svc.Deliver(ctx, id); err != nil {
		t.Fatal(err)
	}
	bound := w.envelope(id).PayloadSHA256
	hook.setVersion("rendered differently after a deployment")
	w.clock.Advance(2 * time.Minute)
	if _, err := w.svc.Deliver(ctx, id); err != nil {
		t.Fatal(err)
	}
	if n := len(hook.calls()); n != 1 {
		t.Fatalf("the sender was called %d times; the changed payload must not be sent", n)
	}
	e := w.envelope(id)
	if e.Status != intake.DeliveryFailed || e.PayloadSHA256 != bound ||
		!strings.Contains(e.LastError, "differs from the one bound at the first send") || !strings.Contains(e.LastError, bound) {
		t.Fatalf("after the refused retry: %s %q, lastError %q", e.Status, e.PayloadSHA256, e.LastError)
	}
	h := w.handoff("bound2", id)
	if h.Status != intake.DeliveryFailed || h.LastError != e.LastError || h.PayloadSHA256 != bound {
		t.Fatalf("the ledger's mirror: %+v", h)
	}
	if entry := w.ledger("bound2"); entry.Decision == intake.DecisionHandoffComplete {
		t.Fatalf("decision %s", entry.Decision)
	}
}

// Through the real webhook sender to a real receiver: the envelope's hash
// is the SHA-256 of the body the receiver got, on the first attempt and on
// the retry after the receiver was down.
func TestBoundHashIsTheWebhookBodyReceived(t *testing.T) {
	var mu sync.Mutex
	var bodies [][]byte
	down := true
	receiver := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		defer mu.Unlock()
		bodies = append(bodies, b)
		if down {
			rw.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		rw.WriteHeader(http.StatusNoContent)
	}))
	defer receiver.Close()
	w := newWorld(t)
	hook, err := webhook.New(config.Webhook{URL: receiver.URL, Secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", AllowPrivate: true},
		webhook.Options{Logger: slog.New(slog.DiscardHandler), Now: w.clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	w.svc = w.service(slog.New(slog.DiscardHandler), hook)
	w.confirmed("bound3")
	id := envID("bound3", intake.DestinationWebhook)
	ctx := context.Background()
	if _, err := w.svc.Deliver(ctx, id); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	down = false
	mu.Unlock()
	w.clock.Advance(2 * time.Minute)
	if _, err := w.svc.Deliver(ctx, id); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	e := w.envelope(id)
	if len(bodies) != 2 || e.Status != intake.DeliveryDelivered {
		t.Fatalf("%d bodies received, status %s", len(bodies), e.Status)
	}
	for i, b := range bodies {
		if got := sha256Hex(b); got != e.PayloadSHA256 || delivery.PayloadSHA256(b) != got {
			t.Errorf("attempt %d: body sha256 %s, envelope binds %s", i+1, got, e.PayloadSHA256)
		}
	}
}
