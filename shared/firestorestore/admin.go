package firestorestore

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"slices"
	"strconv"
	"time"

	"cloud.google.com/go/firestore"
	pb "cloud.google.com/go/firestore/apiv1/firestorepb"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/ownersite/introductions/shared/intake"
)

// The owner's side of the store. A draft is never the owner's to see: every read and move
// here answers it as intake.ErrNotFound, like an unknown or expired id.

// figuresKeptFor is how long one day's figures are kept.
const figuresKeptFor = 400 * 24 * time.Hour

// ListIntroductions returns up to limit confirmed or handled introductions of folder ("" for
// every folder; intake.FolderWaiting: confirmed ones in the inbox or likely spam), newest confirmation first, each with its ledger entry, starting after pos,
// and the position the next page starts after (nil on the last page). Errors: UNAVAILABLE;
// INTERNAL for a missing ledger entry or an unknown folder.
func (s *OwnerStore) ListIntroductions(ctx context.Context, folder string, after *intake.ListPosition, limit int, now time.Time) ([]intake.Record, *intake.ListPosition, error) {
	if limit <= 0 {
		return nil, nil, intake.Internal(errors.New("ListIntroductions: limit must be positive"))
	}
	q := s.client.Collection(Introductions).Query
	switch folder {
	case "":
	case intake.FolderWaiting:
		q = q.Where("folder", "in", []string{intake.FolderInbox, intake.FolderLikelySpam})
	case intake.FolderInbox, intake.FolderLikelySpam, intake.FolderSpam:
		q = q.Where("folder", "==", folder)
	default:
		return nil, nil, intake.Internal(fmt.Errorf("ListIntroductions: unknown folder %q", folder))
	}
	states := []string{string(intake.StateConfirmed), string(intake.StateHandled)}
	if folder == intake.FolderWaiting {
		states = states[:1]
	}
	q = q.Where("state", "in", states).
		OrderBy("confirmedAt", firestore.Desc).OrderBy(firestore.DocumentID, firestore.Desc)
	if after != nil {
		q = q.StartAfter(after.ConfirmedAt.UTC(), after.ID)
	}
	q = q.Limit(limit + 1)
	var out []intake.Record
	var next *intake.ListPosition
	err := s.op(ctx, nil, func(ctx context.Context) error {
		out, next = []intake.Record{}, nil
		snaps, err := q.Documents(ctx).GetAll()
		if err != nil {
			return err
		}
		more := len(snaps) > limit
		var refs []*firestore.DocumentRef
		for i, snap := range snaps[:min(len(snaps), limit)] {
			var d introductionDoc
			if err := snap.DataTo(&d); err != nil {
				return err
			}
			if more && i == limit-1 {
				next = &intake.ListPosition{ConfirmedAt: d.ConfirmedAt, ID: snap.Ref.ID}
			}
			if !live(snap, now) {
				continue
			}
			out = append(out, intake.Record{Introduction: d.introduction(snap.Ref.ID)})
			refs = append(refs, s.ledgerRef(snap.Ref.ID))
		}
		if len(refs) == 0 {
			return nil
		}
		entries, err := s.client.GetAll(ctx, refs)
		if err != nil {
			return err
		}
		for i, snap := range entries {
			if out[i].Ledger, err = ledgerOf(snap); err != nil {
				return err
			}
		}
		return nil
	})
	return out, next, err
}

// CountWaiting counts the confirmed introductions neither handled nor marked spam by the owner.
// Errors: UNAVAILABLE.
func (s *OwnerStore) CountWaiting(ctx context.Context) (int, error) {
	return s.countOp(ctx, s.client.Collection(Introductions).Where("state", "==", string(intake.StateConfirmed)).
		Where("folder", "in", []string{intake.FolderInbox, intake.FolderLikelySpam}))
}

// MarkSpam records the owner's word on introduction id (spam or not), with who and when, in its
// ledger entry. Errors: intake.ErrNotFound; STATE_CONFLICT unless confirmed or handled; UNAVAILABLE.
func (s *OwnerStore) MarkSpam(ctx context.Context, id, actor string, spam bool, now time.Time) (*intake.Introduction, error) {
	action := intake.ActionMarkedNotSpam
	if spam {
		action = intake.ActionMarkedSpam
	}
	in, err := s.ownerMove(ctx, id, actor, action, now, func(in *intake.Introduction) ([]firestore.Update, error) {
		if in.State != intake.StateConfirmed && in.State != intake.StateHandled {
			return nil, intake.Errorf(intake.CodeStateConflict, "This introduction is %s: there is nothing to mark.", in.State)
		}
		in.Spam = &spam
		return []firestore.Update{{Path: "spam", Value: spam}, {Path: "folder", Value: in.Folder()}}, nil
	})
	if err == nil {
		s.logger.LogAttrs(ctx, slog.LevelInfo, "firestorestore.MarkSpam", slog.String("introductionId", id), slog.Bool("spam", spam))
	}
	return in, err
}

// CountSpam counts the live introductions the owner marked spam. Errors: UNAVAILABLE.
func (s *OwnerStore) CountSpam(ctx context.Context) (int, error) {
	return s.countOp(ctx, s.client.Collection(Introductions).Where("folder", "==", intake.FolderSpam))
}

func (s *DB) countOp(ctx context.Context, q firestore.Query) (n int, err error) {
	err = s.op(ctx, nil, func(ctx context.Context) error {
		n, err = count(ctx, q)
		return err
	})
	return n, err
}

// EraseSpam erases, as EraseSubject does, every introduction still marked spam in its erasure's
// transaction, writes the notices notices returns, and returns the erased ids and the notices'
// ids. Erasing again finishes a failed run. Errors: UNAVAILABLE.
func (s *OwnerStore) EraseSpam(ctx context.Context, e intake.ErasureRecord, notices func(id string) []intake.Envelope) ([]string, []string, error) {
	var ids []string
	err := s.op(ctx, nil, func(ctx context.Context) error {
		ids = ids[:0]
		snaps, err := s.client.Collection(Introductions).Where("folder", "==", intake.FolderSpam).Select().Documents(ctx).GetAll()
		for _, snap := range snaps {
			ids = append(ids, snap.Ref.ID)
		}
		return err
	})
	if err != nil {
		return nil, nil, err
	}
	return s.eraseAll(ctx, "firestorestore.EraseSpam", ids, e, intake.ActionErasedSpam, intake.ReasonErasedSpam, intake.FolderSpam, notices)
}

// eraseAll erases each of ids as erase does, skipping one no longer in folder, and logs the
// counts as event.
func (s *DB) eraseAll(ctx context.Context, event string, ids []string, e intake.ErasureRecord, action, reason, folder string, notices func(id string) []intake.Envelope) ([]string, []string, error) {
	e.At = e.At.UTC().Truncate(time.Microsecond)
	var erased, sent []string
	for _, id := range ids {
		var n []intake.Envelope
		if notices != nil {
			n = notices(id)
		}
		ids, err := s.erase(ctx, id, e, action, reason, folder, n)
		if errors.Is(err, errNotInFolder) {
			continue // marked not spam (or gone) since it was found: kept
		}
		if err != nil {
			return erased, sent, err
		}
		erased = append(erased, id)
		sent = append(sent, ids...)
	}
	s.logger.LogAttrs(ctx, slog.LevelInfo, event, slog.Int("erased", len(erased)), slog.Int("notices", len(sent)))
	return erased, sent, nil
}

// Record returns everything held about introduction id. Errors: intake.ErrNotFound; UNAVAILABLE;
// INTERNAL when its ledger entry is missing.
func (s *OwnerStore) Record(ctx context.Context, id string, now time.Time) (intake.Record, error) {
	if !intake.StorableID(id) {
		return intake.Record{}, intake.ErrNotFound
	}
	var rec intake.Record
	err := s.op(ctx, nil, func(ctx context.Context) error {
		var err error
		rec, err = s.record(ctx, id, now, false)
		return err
	})
	return rec, err
}

// record reads one introduction's record; drafts count as absent unless withDrafts.
func (s *DB) record(ctx context.Context, id string, now time.Time, withDrafts bool) (intake.Record, error) {
	snaps, err := s.client.GetAll(ctx, []*firestore.DocumentRef{s.introductionRef(id), s.transcriptRef(id), s.ledgerRef(id)})
	if err != nil {
		return intake.Record{}, err
	}
	in, err := liveIntroduction(snaps[0], nil, id, now)
	if err != nil {
		return intake.Record{}, err
	}
	rec := intake.Record{Introduction: in}
	if rec.Introduction.State == intake.StateDraft && !withDrafts {
		return intake.Record{}, intake.ErrNotFound
	}
	if snaps[1].Exists() {
		var t transcriptDoc
		if err := snaps[1].DataTo(&t); err != nil {
			return intake.Record{}, err
		}
		rec.Conversation = t.Text
	}
	if rec.Ledger, err = ledgerOf(snaps[2]); err != nil {
		return intake.Record{}, err
	}
	if rec.Envelopes, err = s.submissionEnvelopes(ctx, id, now); err != nil {
		return intake.Record{}, err
	}
	return rec, nil
}

// Tombstone returns the content-free ledger entry of a withdrawn or erased introduction.
// Errors: intake.ErrNotFound; UNAVAILABLE.
func (s *OwnerStore) Tombstone(ctx context.Context, id string) (intake.LedgerEntry, error) {
	if !intake.StorableID(id) {
		return intake.LedgerEntry{}, intake.ErrNotFound
	}
	var entry intake.LedgerEntry
	err := s.op(ctx, nil, func(ctx context.Context) error {
		snap, err := s.ledgerRef(id).Get(ctx)
		if status.Code(err) == codes.NotFound {
			return intake.ErrNotFound
		}
		if err != nil {
			return err
		}
		if entry, err = ledgerOf(snap); err != nil {
			return err
		}
		if entry.Withdrawal == nil && entry.Erasure == nil {
			return intake.ErrNotFound
		}
		return nil
	})
	return entry, err
}

// MarkHandled handles introduction id and records who did it in its ledger entry.
// Errors: intake.ErrNotFound; STATE_CONFLICT when already handled; UNAVAILABLE.
func (s *OwnerStore) MarkHandled(ctx context.Context, id, actor string, now time.Time) (*intake.Introduction, error) {
	in, err := s.ownerMove(ctx, id, actor, intake.ActionHandled, now, func(in *intake.Introduction) ([]firestore.Update, error) {
		if err := in.HandleAt(now.UTC().Truncate(time.Microsecond)); err != nil {
			return nil, err
		}
		return []firestore.Update{{Path: "state", Value: in.State}, {Path: "handledAt", Value: in.HandledAt}}, intake.CheckStorableIntroduction(*in)
	})
	if err == nil {
		s.logger.LogAttrs(ctx, slog.LevelInfo, "firestorestore.MarkHandled", slog.String("introductionId", id))
	}
	return in, err
}

// MarkOpened records the owner's first opening of introduction id, with who and when, in its
// ledger entry; opened before, it records nothing and returns nil, nil. Errors:
// intake.ErrNotFound; UNAVAILABLE.
func (s *OwnerStore) MarkOpened(ctx context.Context, id, actor string, now time.Time) (*intake.Introduction, error) {
	in, err := s.ownerMove(ctx, id, actor, intake.ActionOpened, now, func(in *intake.Introduction) ([]firestore.Update, error) {
		if !in.OpenedAt.IsZero() {
			return nil, errOpened
		}
		in.OpenedAt = now.UTC().Truncate(time.Microsecond)
		return []firestore.Update{{Path: "openedAt", Value: in.OpenedAt}}, nil
	})
	if errors.Is(err, errOpened) {
		return nil, nil
	}
	return in, err
}

var errOpened = errors.New("opened before")

// ownerMove applies move to live, non-draft introduction id and records action by actor in
// its ledger entry, in one transaction.
func (s *OwnerStore) ownerMove(ctx context.Context, id, actor, action string, now time.Time, move func(*intake.Introduction) ([]firestore.Update, error)) (*intake.Introduction, error) {
	if !intake.StorableID(id) {
		return nil, intake.ErrNotFound
	}
	now = now.UTC().Truncate(time.Microsecond)
	ref := s.introductionRef(id)
	var result *intake.Introduction
	err := s.op(ctx, []string{lockKey(ref)}, func(ctx context.Context) error {
		return s.client.RunTransaction(ctx, func(ctx context.Context, tx *firestore.Transaction) error {
			snaps, err := tx.GetAll([]*firestore.DocumentRef{ref, s.ledgerRef(id)})
			if err != nil {
				return err
			}
			in, err := liveIntroduction(snaps[0], nil, id, now)
			if err != nil {
				return err
			}
			if in.State == intake.StateDraft {
				return intake.ErrNotFound
			}
			updates, err := move(&in)
			if err != nil {
				return err
			}
			if err := addAction(tx, snaps[1], intake.AdminAction{At: now, Actor: actor, Action: action}); err != nil {
				return err
			}
			result = &in
			return tx.Update(ref, updates)
		})
	})
	return result, err
}

// ledgerOf decodes a ledger entry snapshot; a missing entry is INTERNAL.
func ledgerOf(snap *firestore.DocumentSnapshot) (intake.LedgerEntry, error) {
	var e intake.LedgerEntry
	if !snap.Exists() {
		return e, intake.Internal(fmt.Errorf("ledger entry %s is missing", snap.Ref.ID))
	}
	if err := snap.DataTo(&e); err != nil {
		return e, err
	}
	e.ID = snap.Ref.ID
	return e, nil
}

// withAction appends a to actions, keeping the newest intake.MaxStoredList.
func withAction(actions []intake.AdminAction, a intake.AdminAction) []intake.AdminAction {
	actions = append(slices.Clone(actions), a)
	if n := len(actions) - intake.MaxStoredList; n > 0 {
		actions = actions[n:]
	}
	return actions
}

// addAction appends a to the ledger entry snap holds, in tx.
func addAction(tx *firestore.Transaction, snap *firestore.DocumentSnapshot, a intake.AdminAction) error {
	entry, err := ledgerOf(snap)
	if err != nil {
		return err
	}
	entry.AdminActions = withAction(entry.AdminActions, a)
	if err := intake.CheckStorableLedgerEntry(entry); err != nil {
		return err
	}
	return tx.Update(snap.Ref, []firestore.Update{{Path: "adminActions", Value: entry.AdminActions}, {Path: "updatedAt", Value: a.At}})
}

// RecordAdminAction appends a to submission id's ledger entry. Errors: intake.ErrNotFound; UNAVAILABLE.
func (s *OwnerStore) RecordAdminAction(ctx context.Context, id string, a intake.AdminAction) error {
	if !intake.StorableID(id) {
		return intake.ErrNotFound
	}
	a.At = a.At.UTC().Truncate(time.Microsecond)
	ref := s.ledgerRef(id)
	return s.op(ctx, []string{lockKey(ref)}, func(ctx context.Context) error {
		return s.client.RunTransaction(ctx, func(ctx context.Context, tx *firestore.Transaction) error {
			snap, err := tx.Get(ref)
			if status.Code(err) == codes.NotFound {
				return intake.ErrNotFound
			}
			if err != nil {
				return err
			}
			return addAction(tx, snap, a)
		})
	})
}

// SubjectRecords returns, newest first, the record of every live introduction (drafts included)
// stored under a key of q whose address q owns. Errors: UNAVAILABLE.
func (s *OwnerStore) SubjectRecords(ctx context.Context, q intake.SubjectQuery, now time.Time) ([]intake.Record, error) {
	out := []intake.Record{}
	err := s.op(ctx, nil, func(ctx context.Context) error {
		out = []intake.Record{}
		ids, err := s.subjectIntroductions(ctx, q)
		if err != nil {
			return err
		}
		for _, id := range ids {
			rec, err := s.record(ctx, id, now, true)
			if intake.CodeOf(err) == intake.CodeNotFound {
				continue
			}
			if err != nil {
				return err
			}
			out = append(out, rec)
		}
		return nil
	})
	slices.SortFunc(out, func(a, b intake.Record) int { return b.Introduction.CreatedAt.Compare(a.Introduction.CreatedAt) })
	return out, err
}

// subjectIntroductions returns the ids, expired or not, stored under a key of q that q owns.
func (s *DB) subjectIntroductions(ctx context.Context, q intake.SubjectQuery) ([]string, error) {
	ids := []string{}
	if len(q.Keys) == 0 {
		return ids, nil
	}
	snaps, err := s.client.Collection(Introductions).Where("subjectKey", "in", q.Keys).Documents(ctx).GetAll()
	if err != nil {
		return nil, err
	}
	for _, snap := range snaps {
		var d introductionDoc
		if err := snap.DataTo(&d); err != nil {
			return nil, err
		}
		if q.Owns == nil || q.Owns(d.Email) {
			ids = append(ids, snap.Ref.ID)
		}
	}
	return ids, nil
}

// EraseSubject erases every introduction stored under a key of q whose address q owns: it
// deletes the introduction, transcript and envelopes, leaves a content-free tombstone in its
// ledger entry and writes the notices notices returns, all in one transaction. It returns the
// erased ids and the notices' ids; erasing again finishes a failed run. Errors: UNAVAILABLE.
func (s *OwnerStore) EraseSubject(ctx context.Context, q intake.SubjectQuery, e intake.ErasureRecord, notices func(id string) []intake.Envelope) ([]string, []string, error) {
	var ids []string
	err := s.op(ctx, nil, func(ctx context.Context) error {
		var err error
		ids, err = s.subjectIntroductions(ctx, q)
		return err
	})
	if err != nil {
		return nil, nil, err
	}
	return s.eraseAll(ctx, "firestorestore.EraseSubject", ids, e, intake.ActionErased, intake.ReasonErased, "", notices)
}

var errNotInFolder = errors.New("the introduction is no longer in the folder")

// erase erases one introduction and returns its notices' ids; with folder set, only while it is
// in that folder (else errNotInFolder).
func (s *DB) erase(ctx context.Context, id string, e intake.ErasureRecord, action, reason, folder string, notices []intake.Envelope) ([]string, error) {
	ref, ledgerRef := s.introductionRef(id), s.ledgerRef(id)
	var sent []string
	err := s.op(ctx, []string{lockKey(ref)}, func(ctx context.Context) error {
		// Every envelope of it, live or not (far past its expiry now).
		envelopes, err := s.submissionEnvelopes(ctx, id, time.Time{})
		if err != nil {
			return err
		}
		return s.client.RunTransaction(ctx, func(ctx context.Context, tx *firestore.Transaction) error {
			sent = sent[:0]
			if folder != "" {
				in, err := tx.Get(ref)
				if status.Code(err) == codes.NotFound {
					return errNotInFolder
				}
				if err != nil {
					return err
				}
				if f, _ := in.DataAt("folder"); f != folder {
					return errNotInFolder
				}
			}
			snap, err := tx.Get(ledgerRef)
			writes := []error{tx.Delete(ref), tx.Delete(s.transcriptRef(id))}
			for _, env := range envelopes {
				writes = append(writes, tx.Delete(s.envelopeRef(env.ID)))
			}
			switch {
			case status.Code(err) == codes.NotFound:
				// No ledger entry to mark: the content goes all the same.
			case err != nil:
				return err
			default:
				entry, err := ledgerOf(snap)
				if err != nil {
					return err
				}
				entry.Erasure = &e
				entry.AdminActions = withAction(entry.AdminActions, intake.AdminAction{At: e.At, Actor: e.RequestedBy, Action: action})
				entry.Reason = reason
				entry.Attachment = entry.Attachment.Tombstone()
				var due []intake.Envelope
				for _, n := range notices {
					if noticeDue(entry.Handoffs, n.Destination) {
						n.ReceivedAt = entry.ConfirmedAt
						due = append(due, n)
					}
				}
				bound, err := boundOutbox(due, id, intake.EventWithdrawn, e.At, entry.ExpireAt)
				if err != nil {
					return err
				}
				for _, n := range bound {
					writes = append(writes, tx.Create(s.envelopeRef(n.ID), toEnvelopeDoc(n)))
					entry.Handoffs = append(entry.Handoffs, n.Record())
					sent = append(sent, n.ID)
				}
				if err := intake.CheckStorableLedgerEntry(entry); err != nil {
					return err
				}
				writes = append(writes, tx.Update(ledgerRef, []firestore.Update{
					{Path: "erasure", Value: entry.Erasure},
					{Path: "adminActions", Value: entry.AdminActions},
					{Path: "reason", Value: entry.Reason},
					{Path: "handoffs", Value: entry.Handoffs},
					{Path: "attachment", Value: entry.Attachment},
					{Path: "updatedAt", Value: e.At},
				}))
			}
			return errors.Join(writes...)
		})
	})
	return sent, err
}

// DailyFigures returns the figures kept for each of days (YYYY-MM-DD); a day not aggregated is
// absent. Errors: UNAVAILABLE.
func (s *OwnerStore) DailyFigures(ctx context.Context, days []string) (map[string]intake.DailyFigures, error) {
	out := map[string]intake.DailyFigures{}
	err := s.op(ctx, nil, func(ctx context.Context) error {
		refs := make([]*firestore.DocumentRef, len(days))
		for i, d := range days {
			refs[i] = s.client.Collection(DailyFigures).Doc(d)
		}
		snaps, err := s.client.GetAll(ctx, refs)
		if err != nil {
			return err
		}
		for _, snap := range snaps {
			if !snap.Exists() {
				continue
			}
			var f intake.DailyFigures
			if err := snap.DataTo(&f); err != nil {
				return err
			}
			out[snap.Ref.ID] = f
		}
		return nil
	})
	return out, err
}

// RefusalStates are the abuse states the daily figures count refusals by.
var RefusalStates = []intake.AbuseState{intake.AbuseRateLimited, intake.AbuseHoneypot, intake.AbuseContentRejected, intake.AbusePowFailed}

// CountDay aggregates the ledger's figures of the UTC day starting at start with aggregation
// queries only. Errors: UNAVAILABLE.
func (s *OwnerStore) CountDay(ctx context.Context, start time.Time, baseMaxNumber int64) (intake.DailyFigures, error) {
	start = start.UTC().Truncate(24 * time.Hour)
	end := start.Add(24 * time.Hour)
	f := intake.DailyFigures{Day: start.Format(time.DateOnly), Refused: map[string]int{}, Solves: map[string]int{},
		SolveMaxNumber: baseMaxNumber, ExpireAt: end.Add(figuresKeptFor)}
	ledger := s.client.Collection(Ledger)
	confirmed := func(q firestore.Query) firestore.Query {
		return q.Where("confirmedAt", ">=", start).Where("confirmedAt", "<", end)
	}
	arrived := func(q firestore.Query) firestore.Query {
		return q.Where("provenance.time", ">=", start).Where("provenance.time", "<", end)
	}
	err := s.op(ctx, nil, func(ctx context.Context) error {
		var err error
		if f.Confirmed, err = count(ctx, confirmed(ledger.Query)); err != nil {
			return err
		}
		if f.LikelySpam, err = count(ctx, confirmed(ledger.Where("abuse.likelySpam", "==", true))); err != nil {
			return err
		}
		for _, b := range intake.SolveBuckets {
			n, err := count(ctx, arrived(ledger.Where("abuse.solve.maxNumber", "==", baseMaxNumber).Where("abuse.solve.millis", "==", b)))
			if err != nil {
				return err
			}
			if n > 0 {
				f.Solves[strconv.FormatInt(b, 10)] = n
			}
		}
		for _, st := range RefusalStates {
			n, err := countRefused(ctx, arrived(ledger.Where("abuse.state", "==", string(st))))
			if err != nil {
				return err
			}
			f.Refused[string(st)] = n
		}
		return nil
	})
	return f, err
}

func count(ctx context.Context, q firestore.Query) (int, error) {
	res, err := q.NewAggregationQuery().WithCount("n").Get(ctx)
	if err != nil {
		return 0, err
	}
	v, ok := res["n"].(*pb.Value)
	if !ok {
		return 0, fmt.Errorf("count: unexpected result %T", res["n"])
	}
	return int(v.GetIntegerValue()), nil
}

// countRefused counts the refused requests q's entries stand for: one each, or refusals.count
// for a summing entry. The COUNT is asked alone: beside a SUM it counts only documents that
// have the summed field.
func countRefused(ctx context.Context, q firestore.Query) (int, error) {
	all, err := count(ctx, q)
	if err != nil {
		return 0, err
	}
	path := firestore.FieldPath{"refusals", "count"}
	res, err := q.NewAggregationQuery().WithSumPath(path, "sum").WithAvgPath(path, "avg").Get(ctx)
	if err != nil {
		return 0, err
	}
	sum, avg := number(res["sum"]), number(res["avg"])
	if avg <= 0 {
		return all, nil
	}
	return all - int(math.Round(sum/avg)) + int(math.Round(sum)), nil
}

// number reads an aggregation result as a float (0 for null).
func number(v any) float64 {
	p, ok := v.(*pb.Value)
	if !ok {
		return 0
	}
	switch x := p.GetValueType().(type) {
	case *pb.Value_IntegerValue:
		return float64(x.IntegerValue)
	case *pb.Value_DoubleValue:
		return x.DoubleValue
	}
	return 0
}

// PutDailyFigures keeps one day's figures once; a kept day is left as it is. Errors: UNAVAILABLE.
func (s *OwnerStore) PutDailyFigures(ctx context.Context, f intake.DailyFigures) error {
	ref := s.client.Collection(DailyFigures).Doc(f.Day)
	return s.op(ctx, []string{lockKey(ref)}, func(ctx context.Context) error {
		_, err := ref.Create(ctx, f)
		if status.Code(err) == codes.AlreadyExists {
			return nil
		}
		return err
	})
}
