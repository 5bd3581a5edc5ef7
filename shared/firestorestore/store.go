// Package firestorestore keeps the service's records in Cloud Firestore, in
// a database that is always named outright (never silently "(default)"):
// one DB connection, and on it a store per aggregate (IntakeStore,
// OutboxStore, SweepStore, OwnerStore), each the store its one consumer
// declares.
//
// A kept draft is one Firestore transaction; a confirmation and a withdrawal
// are each one atomic write conditional on the introduction's update time.
// Every document carries expireAt (a TTL policy deletes it eventually) and
// the store treats expireAt <= now as absent. Before writing, each record is
// re-checked with intake.CheckStorable*; a violation is INTERNAL and nothing
// is written. Firestore failures come back as intake errors only:
// UNAVAILABLE (with RetryAfter) for an outage, a timeout or contention,
// INTERNAL for anything else.
package firestorestore

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync/atomic"
	"time"

	"cloud.google.com/go/firestore"
	"google.golang.org/api/option"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/ownersite/introductions/shared/intake"
)

// Collection names. Document ids are the record's own id or key (see the
// doc comments of each), so a collection is never queried to find one record.
const (
	// Introductions holds introductions/{Introduction.ID}.
	Introductions = "introductions"
	// Transcripts holds transcripts/{Introduction.ID}.
	Transcripts = "transcripts"
	// SpentChallenges holds spentChallenges/{escaped SpentChallenge.Key}.
	SpentChallenges = "spentChallenges"
	// RateCounters holds rateCounters/{layer}:{escaped KeyHash}.
	RateCounters = "rateCounters"
	// IdempotencyKeys holds idempotencyKeys/{escaped KeyHash}.
	IdempotencyKeys = "idempotencyKeys"
	// Ledger holds ledger/{LedgerEntry.ID}.
	Ledger = "ledger"
	// Envelopes holds envelopes/{Envelope.ID}: the handoff outbox.
	Envelopes = "envelopes"
	// SweepRuns holds sweepRuns/{SweepRun.ID}.
	SweepRuns = "sweepRuns"
	// DailyFigures holds dailyFigures/{DailyFigures.Day}.
	DailyFigures = "dailyFigures"
	// ProviderEvents holds providerEvents/{escaped provider:token}: the
	// signed delivery events already applied, so a replay changes nothing.
	ProviderEvents = "providerEvents"
	// RecentMessages holds recentMessages/{escaped message hash}: who last
	// sent a message, by keyed hashes, for the repeated-message signal.
	RecentMessages = "recentMessages"
	// DecoyAttachments holds decoyAttachments/{decoy id}: the file a
	// honeypot's decoy was sent, as its answers show it, until its draft
	// would have expired or it is withdrawn.
	DecoyAttachments = "decoyAttachments"
)

// Collections lists every collection the service writes: each of its
// documents carries ExpireAtField, and infra/ declares a TTL policy on that
// field for each.
var Collections = []string{
	Introductions, Transcripts, SpentChallenges, RateCounters, IdempotencyKeys,
	Ledger, Envelopes, SweepRuns, DailyFigures, ProviderEvents, RecentMessages, DecoyAttachments,
}

// ExpireAtField is the expiry field every document carries; infra/ declares
// a TTL policy on it for each collection.
const ExpireAtField = "expireAt"

// RetryAfter is the wait the store suggests when Firestore is unavailable,
// slow or contended.
const RetryAfter = 3 * time.Second

// Config names the database and bounds each operation.
type Config struct {
	// Project is the Google Cloud project; empty means detect it from the
	// environment (credentials or metadata server).
	Project string
	// Database is the Firestore database id. Required: the store never
	// falls back to "(default)".
	Database string
	// OpTimeout bounds every store method, so an unreachable Firestore
	// answers UNAVAILABLE within it. Required.
	OpTimeout time.Duration
}

func (c Config) check() error {
	var errs []error
	if c.Database == "" {
		errs = append(errs, errors.New("firestorestore: Config.Database is empty: name the database outright"))
	}
	if c.OpTimeout <= 0 {
		errs = append(errs, errors.New("firestorestore: Config.OpTimeout must be positive"))
	}
	return errors.Join(errs...)
}

// DB is one connection to the database, on which the stores are built:
// each store is named for the aggregate it keeps and implements the small
// interface of its one consumer, so a function holds only the stores it
// uses. DB is safe for concurrent use; on one instance, operations of any
// of its stores touching the same document wait for each other (so they do
// not fight inside Firestore), across instances Firestore's transactions
// and preconditions decide.
type DB struct {
	client *firestore.Client
	cfg    Config
	logger *slog.Logger
	locks  keyedLocks
	owns   bool

	// transitions counts committed confirmations, for tests that prove a
	// race made exactly one.
	transitions atomic.Int64
	// beforeCommit, when set by a test, runs between a conditional write's
	// read and its commit, to make a race happen on purpose.
	beforeCommit func(move string)
}

// IntakeStore keeps the visitor's side: drafts (kept, revised), their
// confirmation and withdrawal with the outbox written in the same commit,
// honeypot decoys, and the ledger entries of refused attempts. It is the
// intake service's intake.Store and intakeflow.Reviser.
type IntakeStore struct {
	*DB
	// decide, when set, decides a ledger entry at confirmation.
	decide func(intake.LedgerEntry) (intake.Decision, string)
}

// Intake returns the intake store on db. decide (the delivery service's
// Decide over the form registry) decides a ledger entry at confirmation;
// with nil, a confirmed entry is HANDOFF_PENDING until its first delivery
// decides it.
func (db *DB) Intake(decide func(intake.LedgerEntry) (intake.Decision, string)) *IntakeStore {
	return &IntakeStore{DB: db, decide: decide}
}

// OutboxStore keeps the handoff's envelopes and the provider events applied
// to them: the delivery service's store.
type OutboxStore struct{ *DB }

// Outbox returns the outbox store on db.
func (db *DB) Outbox() *OutboxStore { return &OutboxStore{db} }

// SweepStore is the retention sweep's store: it deletes what expired,
// re-checks consent evidence and records each sweep run.
type SweepStore struct{ *DB }

// Sweep returns the sweep store on db.
func (db *DB) Sweep() *SweepStore { return &SweepStore{db} }

// OwnerStore is the owner's view: the confirmed introductions with their
// ledger entries, marking handled, data subjects' export and erasure, the
// daily figures and the sweep runs. It is the admin's store.
type OwnerStore struct{ *DB }

// Owner returns the owner's store on db.
func (db *DB) Owner() *OwnerStore { return &OwnerStore{db} }

var _ intake.Store = (*IntakeStore)(nil)

// Open connects to cfg.Database of cfg.Project and returns a DB that owns
// the client (Close closes it). It refuses an empty Database, a non-positive
// OpTimeout and a nil logger. It honours FIRESTORE_EMULATOR_HOST as the
// Firestore client does; opts are passed to the client (e.g. an
// emulatortest.RPCCounter's in tests).
func Open(ctx context.Context, cfg Config, logger *slog.Logger, opts ...option.ClientOption) (*DB, error) {
	problems := []error{cfg.check()}
	if logger == nil {
		problems = append(problems, errors.New("firestorestore: nil logger"))
	}
	if err := errors.Join(problems...); err != nil {
		return nil, err
	}
	project := cfg.Project
	if project == "" {
		project = firestore.DetectProjectID
	}
	client, err := firestore.NewClientWithDatabase(ctx, project, cfg.Database, opts...)
	if err != nil {
		return nil, fmt.Errorf("firestorestore: connecting to database %q: %w", cfg.Database, err)
	}
	s, err := New(client, cfg, logger)
	if err != nil {
		client.Close()
		return nil, err
	}
	s.owns = true
	return s, nil
}

// New returns a DB over an existing client, which must already be bound
// to cfg.Database (firestore.NewClientWithDatabase), else New refuses it;
// Close leaves the client
// open. It refuses a nil client or logger, an empty Database and a
// non-positive OpTimeout.
func New(client *firestore.Client, cfg Config, logger *slog.Logger) (*DB, error) {
	problems := []error{cfg.check()}
	if client == nil {
		problems = append(problems, errors.New("firestorestore: nil client"))
	}
	if logger == nil {
		problems = append(problems, errors.New("firestorestore: nil logger"))
	}
	if err := errors.Join(problems...); err != nil {
		return nil, err
	}
	if db := databaseOf(client); db != cfg.Database {
		return nil, fmt.Errorf("firestorestore: client is bound to database %q, not %q", db, cfg.Database)
	}
	return &DB{client: client, cfg: cfg, logger: logger}, nil
}

// Close releases the client if Open made it.
func (s *DB) Close() error {
	if s.owns {
		return s.client.Close()
	}
	return nil
}

// databaseOf returns the database id a client's document paths name.
func databaseOf(client *firestore.Client) string {
	// Paths read projects/{project}/databases/{database}/documents/...
	p := strings.Split(client.Collection(Ledger).Doc("x").Path, "/")
	if len(p) < 4 || p[2] != "databases" {
		return ""
	}
	return p[3]
}

// translate turns any error from Firestore (or from waiting for it) into an
// intake error: intake errors pass through; outages, timeouts, cancellation
// and contention are UNAVAILABLE; anything else is INTERNAL.
func translate(err error) error {
	if err == nil {
		return nil
	}
	var ie *intake.Error
	if errors.As(err, &ie) {
		return ie
	}
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		return intake.Unavailable(err, RetryAfter)
	}
	switch status.Code(err) {
	case codes.Unavailable, codes.DeadlineExceeded, codes.Aborted, codes.ResourceExhausted, codes.Canceled:
		return intake.Unavailable(err, RetryAfter)
	}
	return intake.Internal(err)
}

// op runs f with the given document keys locked on this instance, and
// translates what it returns. Waiting for the locks and running f each get
// the store's operation timeout of their own: a wait behind another request
// on the same documents never eats the time f has to commit (a commit cut
// short is the one failure that leaves the caller unsure what happened).
func (s *DB) op(ctx context.Context, keys []string, f func(ctx context.Context) error) error {
	lockCtx, cancelLock := context.WithTimeout(ctx, s.cfg.OpTimeout)
	unlock, err := s.locks.lock(lockCtx, keys)
	cancelLock()
	if err != nil {
		return translate(err)
	}
	defer unlock()
	ctx, cancel := context.WithTimeout(ctx, s.cfg.OpTimeout)
	defer cancel()
	return translate(f(ctx))
}
