// Package firestorestore keeps the service's records in Cloud Firestore, in
// a database always named outright (never silently "(default)"): one DB
// connection, and on it a store per aggregate, each the one its consumer declares.
//
// A kept draft is one transaction; a confirmation and a withdrawal are each
// one write conditional on the introduction's update time. Every document
// carries expireAt and counts as absent from then. Each record is re-checked
// with intake.CheckStorable* before it is written (INTERNAL, nothing written).
// Firestore failures come back as UNAVAILABLE (with RetryAfter) for an
// outage, a timeout or contention, INTERNAL for anything else.
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

// Collection names; each document id is its record's own id or key.
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
	// ProviderEvents holds providerEvents/{escaped provider:token}, the
	// delivery events already applied.
	ProviderEvents = "providerEvents"
	// RecentMessages holds recentMessages/{escaped message hash}.
	RecentMessages = "recentMessages"
	// DecoyAttachments holds decoyAttachments/{decoy id}.
	DecoyAttachments = "decoyAttachments"
)

// Collections lists every collection the service writes; each has a TTL
// policy on ExpireAtField.
var Collections = []string{
	Introductions, Transcripts, SpentChallenges, RateCounters, IdempotencyKeys,
	Ledger, Envelopes, SweepRuns, DailyFigures, ProviderEvents, RecentMessages, DecoyAttachments,
}

// ExpireAtField is the expiry field every document carries.
const ExpireAtField = "expireAt"

// RetryAfter is the wait suggested when Firestore is unavailable or contended.
const RetryAfter = 3 * time.Second

// Config names the database and bounds each operation.
type Config struct {
	Project   string        // the Google Cloud project; empty means detect it
	Database  string        // the Firestore database id; required
	OpTimeout time.Duration // bounds every store method; required
}

func (c Config) check() error {
	return errors.Join(problem(c.Database == "", "Config.Database is empty: name the database outright"),
		problem(c.OpTimeout <= 0, "Config.OpTimeout must be positive"))
}

// problem is the error message names when bad, else nil.
func problem(bad bool, message string) error {
	if bad {
		return errors.New("firestorestore: " + message)
	}
	return nil
}

// DB is one connection to the database, on which the stores are built. It
// is safe for concurrent use; on one instance, operations on the same
// document wait for each other.
type DB struct {
	client *firestore.Client
	cfg    Config
	logger *slog.Logger
	locks  keyedLocks
	owns   bool

	transitions  atomic.Int64      // committed confirmations, for race tests
	beforeCommit func(move string) // set by tests: runs between a conditional write's read and its commit
}

// IntakeStore keeps the visitor's side: drafts, their confirmation and
// withdrawal, honeypot decoys and refused attempts' ledger entries.
type IntakeStore struct {
	*DB
	decide func(intake.LedgerEntry) (intake.Decision, string)
}

// Intake returns the intake store on db. decide decides a ledger entry at
// confirmation; with nil, a confirmed entry stays HANDOFF_PENDING until its
// first delivery decides it.
func (db *DB) Intake(decide func(intake.LedgerEntry) (intake.Decision, string)) *IntakeStore {
	return &IntakeStore{DB: db, decide: decide}
}

// OutboxStore keeps the handoff's envelopes and the provider events applied
// to them.
type OutboxStore struct{ *DB }

// Outbox returns the outbox store on db.
func (db *DB) Outbox() *OutboxStore { return &OutboxStore{db} }

// SweepStore deletes what expired, re-checks consent evidence and records
// each sweep run.
type SweepStore struct{ *DB }

// Sweep returns the sweep store on db.
func (db *DB) Sweep() *SweepStore { return &SweepStore{db} }

// OwnerStore is the admin's store: confirmed introductions, handled marks,
// export and erasure, daily figures and sweep runs.
type OwnerStore struct{ *DB }

// Owner returns the owner's store on db.
func (db *DB) Owner() *OwnerStore { return &OwnerStore{db} }

var _ intake.Store = (*IntakeStore)(nil)

// Open connects to cfg.Database and returns a DB whose Close closes the
// client. It refuses an empty Database, a non-positive OpTimeout and a nil
// logger; opts go to the client.
func Open(ctx context.Context, cfg Config, logger *slog.Logger, opts ...option.ClientOption) (*DB, error) {
	if err := errors.Join(cfg.check(), problem(logger == nil, "nil logger")); err != nil {
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

// New returns a DB over a client already bound to cfg.Database; Close
// leaves the client open. It refuses a nil client or logger, a client bound
// to another database, an empty Database and a non-positive OpTimeout.
func New(client *firestore.Client, cfg Config, logger *slog.Logger) (*DB, error) {
	if err := errors.Join(cfg.check(), problem(client == nil, "nil client"), problem(logger == nil, "nil logger")); err != nil {
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

// databaseOf returns the database id in a client's document paths.
func databaseOf(client *firestore.Client) string {
	p := strings.Split(client.Collection(Ledger).Doc("x").Path, "/")
	if len(p) < 4 || p[2] != "databases" {
		return ""
	}
	return p[3]
}

// translate passes intake errors through; outages, timeouts, cancellation
// and contention become UNAVAILABLE, anything else INTERNAL.
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

// op runs f with keys locked on this instance and translates its error.
// The lock wait and f each get their own OpTimeout, so queueing never cuts
// a commit short.
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
