package firestorestore

import (
	"context"
	"time"

	"cloud.google.com/go/firestore"

	"github.com/ownersite/introductions/shared/intake"
)

// LedgerPage is how many ledger entries one read of LedgerEntries holds.
const LedgerPage = 500

// LedgerEntries reads every live ledger entry whose attempt arrived
// (provenance.time) in [from, to), oldest first (ties by id), and hands
// them to page LedgerPage at a time, so a caller can stream an export of
// any size in bounded memory. Every kind of entry is there: kept drafts and
// introductions, refusals, the counts of refusals before the checks,
// decoys, expired drafts, withdrawn and erased tombstones; each as stored,
// content-free. Each page is one query under the store's operation
// timeout; page's error stops the read and is returned as it is. Errors:
// UNAVAILABLE (nothing of a failed page is handed on).
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
