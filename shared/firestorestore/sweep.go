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

// ReasonExpired is the reason an unconfirmed draft's ledger entry gives once
// the sweep deletes the draft.
const ReasonExpired = "draft never confirmed: it expired and was deleted, nothing was sent"

// SweptCollections lists every collection the store writes, in the order
// the sweep visits them: introductions first (an expired draft marks its
// ledger entry), the ledger after them, the sweep's own runs last.
var SweptCollections = []string{
	Introductions, Transcripts, SpentChallenges, RateCounters, IdempotencyKeys,
	RecentMessages, DecoyAttachments, Envelopes, ProviderEvents, DailyFigures, Ledger, SweepRuns,
}

// sweepPage is how many expired documents one query of the sweep reads
// (ids and update times only, and the state of an introduction); a page is
// deleted in commits of at most maxBatchWrites writes.
const sweepPage = 1000

// maxBatchWrites is Firestore's limit on the writes of one commit.
const maxBatchWrites = 500

// lostPagesBeforeSingles is how many commits in a row may lose a race to
// another run (a document changed or deleted since the query read it)
// before the sweep deletes a page document by document.
const lostPagesBeforeSingles = 2

// Collections returns SweptCollections, then every other collection the
// database holds, sorted, so that nothing expired is left anywhere.
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

// sweepGroup is the writes that retire one expired document, committed
// together.
type sweepGroup struct {
	snap  *firestore.DocumentSnapshot
	draft bool
}

// DeleteExpired deletes every document of collection whose expireAt is at
// or before cutoff: it reads them a page at a time by a query on expireAt
// (Firestore's single-field index), so its cost grows with what it
// deletes, and deletes each page in batched commits. Every delete is
// conditional on the document's update time as read: a document another
// run deleted first, or that changed since (a rate counter moved on, a
// draft confirmed), is left alone and not counted. In the introductions
// collection an unconfirmed draft's ledger entry becomes EXPIRED
// (ReasonExpired, updatedAt = cutoff) in the commit that deletes the draft.
// A page that finds fewer documents than it asked for is the last, so a
// collection with nothing expired costs one query. Errors: UNAVAILABLE,
// INTERNAL; Deleted counts what was committed before the error.
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
		var d retentionsweep.Deleted
		var raced bool
		if lost < lostPagesBeforeSingles {
			d, raced, err = s.commitGroups(ctx, groups, cutoff)
		} else {
			d, err = s.commitSingly(ctx, groups, cutoff)
			lost = 0
		}
		out.Documents += d.Documents
		out.Drafts += d.Drafts
		out.IDs = append(out.IDs, d.IDs...)
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

// commitGroups deletes groups in as few commits as the write limit allows,
// each commit all or nothing. It stops at the first commit that loses a
// race (raced: that commit wrote nothing, and the caller reads again).
func (s *DB) commitGroups(ctx context.Context, groups []sweepGroup, cutoff time.Time) (out retentionsweep.Deleted, raced bool, err error) {
	for len(groups) > 0 {
		var batch []sweepGroup
		writes := 0
		for len(groups) > 0 && writes+groupWrites(groups[0]) <= maxBatchWrites {
			writes += groupWrites(groups[0])
			batch, groups = append(batch, groups[0]), groups[1:]
		}
		ok, err := s.commitSweep(ctx, batch, cutoff, true)
		if err != nil || !ok {
			return out, !ok && err == nil, err
		}
		out.Documents += len(batch)
		for _, g := range batch {
			if g.snap.Ref.Parent.ID == Introductions {
				out.IDs = append(out.IDs, g.snap.Ref.ID)
			}
			if g.draft {
				out.Drafts++
			}
		}
	}
	return out, false, nil
}

// commitSingly deletes each group in a commit of its own, so that one that
// keeps losing a race (another run took it, or it changed) does not hold
// back the rest. A draft whose ledger entry is missing (the commit fails
// although the draft is unchanged) is deleted without it.
func (s *DB) commitSingly(ctx context.Context, groups []sweepGroup, cutoff time.Time) (retentionsweep.Deleted, error) {
	var out retentionsweep.Deleted
	for _, g := range groups {
		one := []sweepGroup{g}
		ok, err := s.commitSweep(ctx, one, cutoff, true)
		if err == nil && !ok && g.draft {
			s.logger.LogAttrs(ctx, slog.LevelWarn, "firestorestore.DeleteExpired: an expired draft's ledger entry is missing; deleting the draft alone",
				slog.String("introductionId", g.snap.Ref.ID))
			ok, err = s.commitSweep(ctx, one, cutoff, false)
		}
		if err != nil {
			return out, err
		}
		if ok {
			out.Documents++
			if g.snap.Ref.Parent.ID == Introductions {
				out.IDs = append(out.IDs, g.snap.Ref.ID)
			}
			if g.draft {
				out.Drafts++
			}
		}
	}
	return out, nil
}

func groupWrites(g sweepGroup) int {
	if g.draft {
		return 2
	}
	return 1
}

// commitSweep commits one batch of groups; ok is false, with no error, when
// the commit lost a race (a precondition failed or a document is gone) and
// so wrote nothing. markDrafts adds each draft's ledger update.
func (s *DB) commitSweep(ctx context.Context, groups []sweepGroup, cutoff time.Time, markDrafts bool) (ok bool, err error) {
	return s.commitUnlessRaced(ctx, "sweep", func(b *firestore.WriteBatch) {
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
	})
}

// commitUnlessRaced commits, in one batch, the writes that add puts into
// it (each conditional on what its caller read); ok is false, with no
// error, when the commit lost a race (a precondition failed or a document
// is gone) and so wrote nothing. what names the commit for the test hook.
func (s *DB) commitUnlessRaced(ctx context.Context, what string, add func(*firestore.WriteBatch)) (ok bool, err error) {
	raced := false
	err = s.op(ctx, nil, func(ctx context.Context) error {
		raced = false
		//lint:ignore SA1019 WriteBatch is the one atomic, precondition-checked multi-document write that costs a single RPC.
		b := s.client.Batch() //nolint:staticcheck // see above
		add(b)
		if s.beforeCommit != nil {
			s.beforeCommit(what)
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

// ConsentRecords calls visit with every introduction live at now that
// carries consent evidence, reading only its state, form version and
// consents (never the visitor's words). Errors: UNAVAILABLE, INTERNAL, or
// visit's.
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

// MarkRepairNeeded sets ledger/{id}'s decision to REPAIR_NEEDED with
// reason, in a transaction that writes nothing (false) when the entry
// already says REPAIR_NEEDED or is gone. Errors: UNAVAILABLE, INTERNAL.
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

// BeginRun creates sweepRuns/{run.ID}. Errors: UNAVAILABLE, INTERNAL (the
// id is taken).
func (s *SweepStore) BeginRun(ctx context.Context, run intake.SweepRun) error {
	if err := checkRun(run); err != nil {
		return err
	}
	return s.op(ctx, nil, func(ctx context.Context) error {
		_, err := s.client.Collection(SweepRuns).Doc(run.ID).Create(ctx, run)
		return err
	})
}

// FinishRun overwrites sweepRuns/{run.ID} with the run's outcome. Errors:
// UNAVAILABLE, INTERNAL.
func (s *SweepStore) FinishRun(ctx context.Context, run intake.SweepRun) error {
	if err := checkRun(run); err != nil {
		return err
	}
	return s.op(ctx, nil, func(ctx context.Context) error {
		_, err := s.client.Collection(SweepRuns).Doc(run.ID).Set(ctx, run)
		return err
	})
}

func checkRun(run intake.SweepRun) error {
	if !intake.StorableID(run.ID) || run.StartedAt.IsZero() || run.ExpireAt.IsZero() {
		return intake.Internal(fmt.Errorf("sweep run %q: unstorable id or unset start or expiry", run.ID))
	}
	return nil
}

// LastRuns returns up to n of the newest sweep runs (by start), newest
// first, finished or not: what a run compares its consent digest with.
// Errors: UNAVAILABLE, INTERNAL.
func (s *SweepStore) LastRuns(ctx context.Context, n int) ([]intake.SweepRun, error) {
	return s.lastRuns(ctx, n)
}

// LastRuns returns up to n of the newest sweep runs (by start), newest
// first, finished or not: what the admin's health view shows. Errors:
// UNAVAILABLE, INTERNAL.
func (s *OwnerStore) LastRuns(ctx context.Context, n int) ([]intake.SweepRun, error) {
	return s.lastRuns(ctx, n)
}

func (s *DB) lastRuns(ctx context.Context, n int) ([]intake.SweepRun, error) {
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
