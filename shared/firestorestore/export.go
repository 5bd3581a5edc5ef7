package firestorestore

import (
	"context"
	"fmt"
	"time"

	"cloud.google.com/go/firestore"

	"github.com/ownersite/introductions/shared/intake"
)

// MaxExport is the most introductions one export holds.
const MaxExport = 5000

// ExportIntroductions returns the live confirmed or handled introductions of folder ("" for
// every folder) confirmed in [from, to), newest first, with their conversations, and records a
// in each one's ledger entry first, its Target ("csv") completed with how many ("csv of 12").
// An erased or withdrawn introduction is gone and never returned. Errors: DATE_RANGE_INVALID
// for more than MaxExport; UNAVAILABLE; INTERNAL for a missing ledger entry.
func (s *OwnerStore) ExportIntroductions(ctx context.Context, folder string, from, to, now time.Time, a intake.AdminAction) ([]intake.Record, error) {
	q := s.client.Collection(Introductions).Where("state", "in", []string{string(intake.StateConfirmed), string(intake.StateHandled)})
	if folder != "" {
		q = q.Where("folder", "==", folder)
	}
	q = q.Where("confirmedAt", ">=", from.UTC()).Where("confirmedAt", "<", to.UTC()).
		OrderBy("confirmedAt", firestore.Desc).OrderBy(firestore.DocumentID, firestore.Desc).Limit(MaxExport + 1)
	var out []intake.Record
	var ledger []*firestore.DocumentRef
	err := s.op(ctx, nil, func(ctx context.Context) error {
		out, ledger = []intake.Record{}, nil
		snaps, err := q.Documents(ctx).GetAll()
		if err != nil {
			return err
		}
		if len(snaps) > MaxExport {
			return intake.Errorf(intake.CodeDateRangeInvalid, "The range holds more than %d introductions; export a shorter one.", MaxExport)
		}
		var transcripts []*firestore.DocumentRef
		for _, snap := range snaps {
			var d introductionDoc
			if err := snap.DataTo(&d); err != nil {
				return err
			}
			if live(snap, now) {
				out = append(out, intake.Record{Introduction: d.introduction(snap.Ref.ID)})
				transcripts, ledger = append(transcripts, s.transcriptRef(snap.Ref.ID)), append(ledger, s.ledgerRef(snap.Ref.ID))
			}
		}
		texts, err := s.client.GetAll(ctx, transcripts)
		for i, snap := range texts {
			var t transcriptDoc
			if snap.Exists() && snap.DataTo(&t) == nil {
				out[i].Conversation = t.Text
			}
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	a.At, a.Target = a.At.UTC().Truncate(time.Microsecond), fmt.Sprintf("%s of %d", a.Target, len(out))
	for len(ledger) > 0 {
		chunk := ledger[:min(len(ledger), 200)]
		ledger = ledger[len(chunk):]
		err := s.op(ctx, nil, func(ctx context.Context) error {
			return s.client.RunTransaction(ctx, func(ctx context.Context, tx *firestore.Transaction) error {
				snaps, err := tx.GetAll(chunk)
				for _, snap := range snaps {
					if err == nil {
						err = addAction(tx, snap, a)
					}
				}
				return err
			})
		})
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}
