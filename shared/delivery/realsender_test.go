package delivery_test

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/ownersite/introductions/shared/config"
	"github.com/ownersite/introductions/shared/delivery"
	"github.com/ownersite/introductions/shared/intake"
	"github.com/ownersite/introductions/shared/testsupport"
	"github.com/ownersite/introductions/shared/webhook"
)

// The process dies between the receiver's 2xx and the status write (a
// store that fails that write): the envelope stays PENDING under its lease,
// and once the lease lapses the sweep sends it again with the same
// webhook-id, through the real webhook sender to a real local receiver.
func TestKilledAfterAcceptanceResendsTheSameWebhookID(t *testing.T) {
	var mu sync.Mutex
	var ids []string
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		ids = append(ids, r.Header.Get("webhook-id"))
		mu.Unlock()
		w.WriteHeader(http.StatusOK)
	}))
	defer receiver.Close()
	logger := slog.New(slog.DiscardHandler)
	hookCfg := config.Webhook{URL: receiver.URL, Secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", AllowPrivate: true}
	w := newWorld(t)
	hook, err := webhook.New(hookCfg, webhook.Options{Logger: logger, Now: w.clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	w.svc = w.service(logger, hook)
	w.confirmed("killed")
	id := envID("killed", intake.DestinationWebhook)
	crashing := &failingStatusWrite{Store: w.db.Outbox(), fail: true}
	instance := func(s delivery.Store) *delivery.Service {
		svc, err := delivery.New(delivery.Deps{Store: s, Senders: []intake.Sender{hook}, Forms: testsupport.Forms(t), Clock: w.clock, Logger: logger})
		if err != nil {
			t.Fatal(err)
		}
		return svc
	}
	ctx := context.Background()
	if _, err := instance(crashing).Deliver(ctx, id); intake.CodeOf(err) != intake.CodeUnavailable {
		t.Fatalf("the killed attempt: %v", err)
	}
	if e := w.envelope(id); e.Status != intake.DeliveryPending {
		t.Fatalf("after the kill: %s", e.Status)
	}
	w.clock.Advance(delivery.DefaultLease)
	if r, err := instance(w.db.Outbox()).Run(ctx, w.clock.Now()); err != nil || r.DeliveriesAttempted != 1 {
		t.Fatalf("the sweep after the lease: %+v %v", r, err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(ids) != 2 || ids[0] != id || ids[1] != id {
		t.Fatalf("webhook-ids received %v, want %s twice", ids, id)
	}
	if e := w.envelope(id); e.Status != intake.DeliveryDelivered {
		t.Fatalf("after the re-send: %s", e.Status)
	}
}
