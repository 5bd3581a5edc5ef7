package firestorestore

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/ownersite/introductions/shared/intake"
)

// TestLedgerEntriesReadsItsRangeAPageAtATime: every live entry whose
// attempt arrived in [from, to) once, oldest first with ties by id, in
// pages of at most LedgerPage; nothing before from or at to, nothing
// expired; a page's error stops the read and comes back as it is.
func TestLedgerEntriesReadsItsRangeAPageAtATime(t *testing.T) {
	ts := newTestStore(t)
	ctx := context.Background()
	from, to := t0, t0.Add(24*time.Hour)
	var want []string
	batch := ts.client.Batch()
	pending := 0
	put := func(id string, at, expireAt time.Time) {
		e := draft(id, at).Ledger
		e.Provenance.Time, e.ExpireAt, e.Retention.DeleteAfter = at, expireAt, expireAt
		batch.Set(ts.client.Collection(Ledger).Doc(id), e)
		if pending++; pending == 400 {
			if _, err := batch.Commit(ctx); err != nil {
				t.Fatal(err)
			}
			batch, pending = ts.client.Batch(), 0
		}
	}
	n := 2*LedgerPage + 37
	for i := range n {
		// Three entries share each second, so ties are broken by id.
		id := fmt.Sprintf("in-%04d", i)
		put(id, from.Add(time.Duration(i/3)*time.Second), to.Add(time.Hour))
		want = append(want, id)
	}
	put("before", from.Add(-time.Microsecond), to.Add(time.Hour))
	put("at-the-end", to, to.Add(time.Hour))
	put("expired", from.Add(time.Minute), from.Add(2*time.Minute))
	if _, err := batch.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	now := from.Add(time.Hour)

	var got []string
	var pages []int
	var last intake.LedgerEntry
	err := ts.LedgerEntries(ctx, from, to, now, func(entries []intake.LedgerEntry) error {
		pages = append(pages, len(entries))
		for _, e := range entries {
			if last.ID != "" && (e.Provenance.Time.Before(last.Provenance.Time) || e.Provenance.Time.Equal(last.Provenance.Time) && e.ID < last.ID) {
				t.Fatalf("%s (%v) after %s (%v): not oldest first by id", e.ID, e.Provenance.Time, last.ID, last.Provenance.Time)
			}
			last = e
			got = append(got, e.ID)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("read %d entries (%v…), want the %d in range once each", len(got), got[:min(len(got), 3)], len(want))
	}
	for _, p := range pages {
		if p > LedgerPage {
			t.Fatalf("a page of %d entries, want at most %d", p, LedgerPage)
		}
	}
	if len(pages) < 3 {
		t.Fatalf("%d pages for %d entries", len(pages), n)
	}

	stop := errors.New("the reader went away")
	calls := 0
	err = ts.LedgerEntries(ctx, from, to, now, func([]intake.LedgerEntry) error { calls++; return stop })
	if !errors.Is(err, stop) || calls != 1 {
		t.Fatalf("a page's error: %v after %d pages, want it back after 1", err, calls)
	}
}
