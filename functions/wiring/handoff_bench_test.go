package wiring_test

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/ownersite/introductions/functions/wiring/dbparts"
	"github.com/ownersite/introductions/shared/intake"
)

// BenchmarkConfirmationToWebhook measures the handoff's latency: from
// sending a confirmation to the moment a local webhook receiver has
// answered 2xx for it (the envelope sent in the background after the
// commit), as the median of 50 confirmations, beside the median of 50 bare
// HTTP round trips to the same receiver in the same run (the reference).
// Run it with -benchtime 1x: each iteration is the 50 rounds.
func BenchmarkConfirmationToWebhook(b *testing.B) {
	const rounds = 50

	var mu sync.Mutex
	arrived := map[string]chan time.Time{}
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusNoContent)
		at := time.Now()
		mu.Lock()
		ch := arrived[r.Header.Get("webhook-id")]
		mu.Unlock()
		if ch != nil {
			ch <- at
		}
	}))
	defer receiver.Close()

	h := benchHarness(b, map[string]string{
		"WEBHOOK_URL": receiver.URL + "/hooks/introductions", "WEBHOOK_SECRET": testWebhookSecret, "WEBHOOK_ALLOW_PRIVATE": "true"}, dbparts.Overrides{})

	median := func(ds []time.Duration) time.Duration {
		slices.Sort(ds)
		return ds[len(ds)/2]
	}
	for i := 0; i < b.N; i++ {
		var handoff, bare []time.Duration
		for r := 0; r < rounds; r++ {
			d := h.postJSON("/api/introductions", h.draftBody(map[string]any{"email": fmt.Sprintf("lat%d-%d@example.com", i, r)}), fromAddress(addr(r))...).json(h.t)
			id := d["id"].(string)
			ch := make(chan time.Time, 1)
			mu.Lock()
			arrived[intake.EnvelopeID(id, intake.DestinationWebhook, intake.EventConfirmed)] = ch
			mu.Unlock()
			start := time.Now()
			if c := h.postJSON("/api/introductions/"+id+"/confirmation", map[string]string{"token": d["token"].(string)}); c.status != http.StatusOK {
				b.Fatalf("confirm: %d %s", c.status, c.body)
			}
			select {
			case at := <-ch:
				handoff = append(handoff, at.Sub(start))
			case <-time.After(30 * time.Second):
				b.Fatal("the webhook never arrived")
			}
			h.svc.Delivery.Wait()

			start = time.Now()
			resp, err := http.Post(receiver.URL+"/bare", "application/json", bytes.NewReader([]byte(`{}`)))
			if err != nil {
				b.Fatal(err)
			}
			resp.Body.Close()
			bare = append(bare, time.Since(start))
		}
		m, ref := median(handoff), median(bare)
		b.ReportMetric(float64(m.Microseconds())/1000, "ms-to-webhook-2xx(median)")
		b.ReportMetric(float64(ref.Microseconds())/1000, "ms-bare-roundtrip(median)")
		b.ReportMetric(float64(m)/float64(ref), "x-reference")
	}
}
