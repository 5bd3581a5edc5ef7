package firestorestore

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/ownersite/introductions/shared/intake"
)

// BenchmarkKeepDraft keeps distinct drafts (each its own challenge and rate
// key, with an idempotency record) against the emulator and reports the
// Firestore round trips per draft.
func BenchmarkKeepDraft(b *testing.B) {
	ts := newTestStore(b)
	ctx := context.Background()
	ts.rpcs.Reset()
	i := 0
	for b.Loop() {
		id := fmt.Sprintf("bench-keep-%d", i)
		if _, err := ts.KeepDraft(ctx, withIdempotency(draft(id, t0), "idem-"+id)); err != nil {
			b.Fatal(err)
		}
		i++
	}
	b.ReportMetric(float64(ts.rpcs.Count())/float64(i), "RPCs/op")
}

// BenchmarkConfirm confirms distinct drafts (kept outside the timer) and
// reports the Firestore round trips per confirmation.
func BenchmarkConfirm(b *testing.B) {
	ts := newTestStore(b)
	ctx := context.Background()
	var rpcs int64
	for i := 0; i < b.N; i++ {
		id := fmt.Sprintf("bench-confirm-%d", i)
		b.StopTimer()
		if _, err := ts.KeepDraft(ctx, draft(id, t0)); err != nil {
			b.Fatal(err)
		}
		before := ts.rpcs.Count()
		b.StartTimer()
		if _, err := ts.Confirm(ctx, intake.Claim{ID: id, TokenHash: intake.HashToken(token(id))}, t0.Add(time.Minute), keepFor, nil); err != nil {
			b.Fatal(err)
		}
		rpcs += ts.rpcs.Count() - before
	}
	b.ReportMetric(float64(rpcs)/float64(b.N), "RPCs/op")
}

// BenchmarkConfirmWithOutbox confirms distinct drafts (kept outside the
// timer) with the full outbox (admin inbox, email, webhook envelopes written
// in the same commit) and reports the Firestore round trips per
// confirmation: the outbox adds writes to the commit, not round trips.
func BenchmarkConfirmWithOutbox(b *testing.B) {
	ts := newTestStore(b)
	ctx := context.Background()
	var rpcs int64
	for i := 0; i < b.N; i++ {
		id := fmt.Sprintf("bench-outbox-%d", i)
		b.StopTimer()
		if _, err := ts.KeepDraft(ctx, draft(id, t0)); err != nil {
			b.Fatal(err)
		}
		outbox := fullOutbox(id, t0.Add(time.Minute))
		before := ts.rpcs.Count()
		b.StartTimer()
		if _, err := ts.Confirm(ctx, intake.Claim{ID: id, TokenHash: intake.HashToken(token(id))}, t0.Add(time.Minute), keepFor, outbox); err != nil {
			b.Fatal(err)
		}
		rpcs += ts.rpcs.Count() - before
	}
	b.ReportMetric(float64(rpcs)/float64(b.N), "RPCs/op")
}
