package firestorestore

import (
	"context"
	"time"

	"cloud.google.com/go/firestore"

	"github.com/ownersite/introductions/shared/intake"
)

// LedgerPage is how many ledger entries one read of LedgerEntries holds.
const LedgerPage = 500

// LedgerEntries hands every live ledger entry whose attempt arrived in [from, to), oldest
// first, to page LedgerPage at a time. Errors: UNAVAILABLE (nothing of a failed page is
// handed on), or page's.
func (s *OwnerStore) LedgerEntries(ctx context.Context, from, to, now time.Time, page func([]intake.LedgerEntry) error) error {
	q := s.client.Collection(Ledger).
		Where("provenance.time", ">=", from.UTC()).Where("provenance.time", "<", to.UTC()).
		OrderBy("provenance.time", firestore.Asc).OrderBy(firestore.DocumentID, firestore.Asc).
		Limit(LedgerPage)
	var after []any
	for {
		var entries []intake.LedgerEntry
		var read int
		err := s.op(ctx, nil, func(ctx context.Context) error {
			entries, read = nil, 0
			pq := q
			if after != nil {
				pq = q.StartAfter(after...)
			}
			snaps, err := pq.Documents(ctx).GetAll()
			if err != nil {
				return err
			}
			read = len(snaps)
			for _, snap := range snaps {
				e, err := ledgerOf(snap)
				if err != nil {
					return err
				}
				after = []any{e.Provenance.Time, snap.Ref.ID}
				if live(snap, now) {
					entries = append(entries, e)
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
		if len(entries) > 0 {
			if err := page(entries); err != nil {
				return err
			}
		}
		if read < LedgerPage {
			return nil
		}
	}
}
