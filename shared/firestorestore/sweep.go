package firestorestore

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"time"

	"cloud.google.com/go/firestore"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/ownersite/introductions/shared/intake"
	"github.com/ownersite/introductions/shared/retentionsweep"
)

var _ retentionsweep.Store = (*SweepStore)(nil)

// ReasonExpired is an expired draft's ledger reason.
const ReasonExpired = "draft never confirmed: it expired and was deleted, nothing was sent"

// SweptCollections lists every collection the store writes, in the sweep's order:
// introductions, then the ledger, the sweep's own runs last.
var SweptCollections = []string{
	Introductions, Transcripts, SpentChallenges, RateCounters, IdempotencyKeys,
	RecentMessages, DecoyAttachments, Envelopes, ProviderEvents, DailyFigures, Ledger, SweepRuns,
}

// sweepPage is how many expired documents one sweep query reads.
const sweepPage = 1000

// maxBatchWrites is Firestore's limit on the writes of one commit.
const maxBatchWrites = 500

// lostPagesBeforeSingles is how many lost commits in a row make the sweep delete one by one.
const lostPagesBeforeSingles = 2

// Collections returns SweptCollections, then every other collection, sorted.
func (s *SweepStore) Collections(ctx context.Context) ([]string, error) {
	var listed []string
	err := s.op(ctx, nil, func(ctx context.Context) error {
		refs, err := s.client.Collections(ctx).GetAll()
		for _, r := range refs {
			listed = append(listed, r.ID)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	slices.Sort(listed)
	out := slices.Clone(SweptCollections)
	for _, c := range listed {
		if !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	return out, nil
}

// sweepGroup is the writes that retire one expired document.
type sweepGroup struct {
	snap  *firestore.DocumentSnapshot
	draft bool
}

// DeleteExpired deletes every document of collection expired at cutoff, each delete
// conditional on the update time read, so a document deleted or changed meanwhile is left
// and not counted. An unconfirmed draft's ledger entry becomes EXPIRED in the same commit.
// Errors: UNAVAILABLE, INTERNAL; Deleted counts what was committed before the error.
func (s *SweepStore) DeleteExpired(ctx context.Context, collection string, cutoff time.Time) (retentionsweep.Deleted, error) {
	var out retentionsweep.Deleted
	q := s.client.Collection(collection).Where(ExpireAtField, "<=", cutoff).Limit(sweepPage)
	if collection == Introductions {
		q = q.Select("state")
	} else {
		q = q.Select()
	}
	lost := 0
	for {
		var snaps []*firestore.DocumentSnapshot
		err := s.op(ctx, nil, func(ctx context.Context) error {
			var err error
			snaps, err = q.Documents(ctx).GetAll()
			return err
		})
		if err != nil || len(snaps) == 0 {
			return out, err
		}
		groups := make([]sweepGroup, len(snaps))
		for i, snap := range snaps {
			groups[i] = sweepGroup{snap: snap}
			if collection == Introductions {
				state, _ := snap.DataAt("state")
				groups[i].draft = state == string(intake.StateDraft)
			}
		}
		raced := false
		if lost < lostPagesBeforeSingles {
			raced, err = s.commitGroups(ctx, groups, cutoff, &out)
		} else {
			err = s.commitSingly(ctx, groups, cutoff, &out)
			lost = 0
		}
		switch {
		case err != nil:
			return out, err
		case raced:
			lost++
		case len(snaps) < sweepPage:
			return out, nil
		default:
			lost = 0
		}
	}
}

// commitGroups deletes groups in as few commits as allowed, counting them into out, stopping
// at the first lost race.
func (s *DB) commitGroups(ctx context.Context, groups []sweepGroup, cutoff time.Time, out *retentionsweep.Deleted) (raced bool, err error) {
	for len(groups) > 0 {
		var batch []sweepGroup
		writes := 0
		for len(groups) > 0 && writes+groups[0].writes() <= maxBatchWrites {
			writes += groups[0].writes()
			batch, groups = append(batch, groups[0]), groups[1:]
		}
		ok, err := s.commitSweep(ctx, batch, cutoff, true)
		if err != nil || !ok {
			return !ok && err == nil, err
		}
		for _, g := range batch {
			g.count(out)
		}
	}
	return false, nil
}

// count adds the retired document to out.
func (g sweepGroup) count(out *retentionsweep.Deleted) {
	out.Documents++
	if g.snap.Ref.Parent.ID == Introductions {
		out.IDs = append(out.IDs, g.snap.Ref.ID)
	}
	if g.draft {
		out.Drafts++
	}
}

// writes counts the group's writes: the delete, and a draft's ledger update.
func (g sweepGroup) writes() int {
	if g.draft {
		return 2
	}
	return 1
}

// commitSingly deletes each group in a commit of its own, counting them into out; a draft
// whose ledger entry is missing is deleted without it.
func (s *DB) commitSingly(ctx context.Context, groups []sweepGroup, cutoff time.Time, out *retentionsweep.Deleted) error {
	for _, g := range groups {
		one := []sweepGroup{g}
		ok, err := s.commitSweep(ctx, one, cutoff, true)
		if err == nil && !ok && g.draft {
			s.logger.LogAttrs(ctx, slog.LevelWarn, "firestorestore.DeleteExpired: an expired draft's ledger entry is missing; deleting the draft alone",
				slog.String("introductionId", g.snap.Ref.ID))
			ok, err = s.commitSweep(ctx, one, cutoff, false)
		}
		if err != nil {
			return err
		}
		if ok {
			g.count(out)
		}
	}
	return nil
}

// commitSweep commits one batch of groups, each delete conditional on the update time read;
// ok is false, with nothing written, when it lost a race. markDrafts adds each draft's ledger
// update.
func (s *DB) commitSweep(ctx context.Context, groups []sweepGroup, cutoff time.Time, markDrafts bool) (ok bool, err error) {
	raced := false
	err = s.op(ctx, nil, func(ctx context.Context) error {
		raced = false
		//lint:ignore SA1019 WriteBatch is the one atomic, precondition-checked multi-document write that costs a single RPC.
		b := s.client.Batch() //nolint:staticcheck // see above
		for _, g := range groups {
			if g.draft && markDrafts {
				b.Update(s.ledgerRef(g.snap.Ref.ID), []firestore.Update{
					{Path: "decision", Value: intake.DecisionExpired},
					{Path: "reason", Value: ReasonExpired},
					{Path: "updatedAt", Value: cutoff},
				})
			}
			b.Delete(g.snap.Ref, firestore.LastUpdateTime(g.snap.UpdateTime))
		}
		if s.beforeCommit != nil {
			s.beforeCommit("sweep")
		}
		_, err := b.Commit(ctx)
		switch status.Code(err) {
		case codes.FailedPrecondition, codes.NotFound:
			raced = true
			return nil
		}
		return err
	})
	return err == nil && !raced, err
}

// ConsentRecords calls visit with every introduction live at now that carries consent
// evidence, reading no visitor's words. Errors: UNAVAILABLE, INTERNAL, or visit's.
func (s *SweepStore) ConsentRecords(ctx context.Context, now time.Time, visit func(retentionsweep.ConsentRecord) error) error {
	var visitErr error
	err := s.op(ctx, nil, func(ctx context.Context) error {
		q := s.client.Collection(Introductions).Select("state", "formId", "formVersion", "consents", ExpireAtField)
		return eachLive(ctx, q, now, func(snap *firestore.DocumentSnapshot) error {
			var d introductionDoc
			if err := snap.DataTo(&d); err != nil {
				return err
			}
			if len(d.Consents) == 0 {
				return nil
			}
			rec := retentionsweep.ConsentRecord{ID: snap.Ref.ID, FormID: d.FormID, FormVersion: d.FormVersion, State: d.State, Consents: d.Consents}
			visitErr = visit(rec)
			return visitErr
		})
	})
	if visitErr != nil {
		return visitErr
	}
	return err
}

// MarkRepairNeeded sets ledger/{id}'s decision to REPAIR_NEEDED; false when it already is or
// the entry is gone. Errors: UNAVAILABLE, INTERNAL.
func (s *SweepStore) MarkRepairNeeded(ctx context.Context, id, reason string, now time.Time) (bool, error) {
	if !intake.StorableID(id) {
		return false, nil
	}
	ref := s.ledgerRef(id)
	marked := false
	err := s.op(ctx, []string{lockKey(ref)}, func(ctx context.Context) error {
		return s.client.RunTransaction(ctx, func(ctx context.Context, tx *firestore.Transaction) error {
			marked = false
			snap, err := tx.Get(ref)
			if status.Code(err) == codes.NotFound {
				return nil
			}
			if err != nil {
				return err
			}
			if d, _ := snap.DataAt("decision"); d == string(intake.DecisionRepairNeeded) || !live(snap, now) {
				return nil
			}
			marked = true
			return tx.Update(ref, []firestore.Update{
				{Path: "decision", Value: intake.DecisionRepairNeeded},
				{Path: "reason", Value: reason},
				{Path: "updatedAt", Value: now},
			})
		})
	})
	if err != nil {
		return false, err
	}
	if marked {
		s.logger.LogAttrs(ctx, slog.LevelWarn, "firestorestore.MarkRepairNeeded", slog.String("ledgerId", id))
	}
	return marked, nil
}

// BeginRun creates sweepRuns/{run.ID}. Errors: UNAVAILABLE, INTERNAL (id taken).
func (s *SweepStore) BeginRun(ctx context.Context, run intake.SweepRun) error {
	return s.putRun(ctx, run, true)
}

// FinishRun overwrites sweepRuns/{run.ID} with its outcome. Errors: UNAVAILABLE, INTERNAL.
func (s *SweepStore) FinishRun(ctx context.Context, run intake.SweepRun) error {
	return s.putRun(ctx, run, false)
}

func (s *SweepStore) putRun(ctx context.Context, run intake.SweepRun, create bool) error {
	if !intake.StorableID(run.ID) || run.StartedAt.IsZero() || run.ExpireAt.IsZero() {
		return intake.Internal(fmt.Errorf("sweep run %q: unstorable id or unset start or expiry", run.ID))
	}
	ref := s.doc(SweepRuns, run.ID)
	return s.op(ctx, nil, func(ctx context.Context) (err error) {
		if create {
			_, err = ref.Create(ctx, run)
		} else {
			_, err = ref.Set(ctx, run)
		}
		return err
	})
}

// LastRuns returns up to n of the newest sweep runs, finished or not, for the sweep and the
// owner's stores. Errors: UNAVAILABLE, INTERNAL.
func (s *DB) LastRuns(ctx context.Context, n int) ([]intake.SweepRun, error) {
	if n <= 0 {
		return nil, nil
	}
	var out []intake.SweepRun
	err := s.op(ctx, nil, func(ctx context.Context) error {
		out = nil
		snaps, err := s.client.Collection(SweepRuns).OrderBy("startedAt", firestore.Desc).Limit(n).Documents(ctx).GetAll()
		if err != nil {
			return err
		}
		for _, snap := range snaps {
			var r intake.SweepRun
			if err := snap.DataTo(&r); err != nil {
				return err
			}
			r.ID = snap.Ref.ID
			out = append(out, r)
		}
		return nil
	})
	return out, err
}
