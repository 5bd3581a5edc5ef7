package intakeflow_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"fmt"
	"log/slog"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	altcha "github.com/altcha-org/altcha-lib-go"

	"github.com/ownersite/introductions/shared/altchapow"
	"github.com/ownersite/introductions/shared/checks"
	"github.com/ownersite/introductions/shared/floodlimit"
	"github.com/ownersite/introductions/shared/formregistry"
	"github.com/ownersite/introductions/shared/intake"
	"github.com/ownersite/introductions/shared/intakeflow"
	"github.com/ownersite/introductions/shared/keyring"
	"github.com/ownersite/introductions/shared/testsupport"
)

// untouchableStore fails the test if a draft reaches the database; it only
// takes the content-free ledger entry of a refusal, written after the
// verdict.
type untouchableStore struct {
	t       *testing.T
	mu      sync.Mutex
	entries []intake.LedgerEntry
	// keep, when set, is called instead of failing.
	keep func(intake.DraftKeeping) (intake.KeepOutcome, error)
	// record, when set, answers RecordAttempt after the entry is taken.
	record func(intake.LedgerEntry) error
}

func (s *untouchableStore) KeepDraft(_ context.Context, k intake.DraftKeeping) (intake.KeepOutcome, error) {
	if s.keep != nil {
		return s.keep(k)
	}
	s.t.Errorf("the store was touched for a draft that must be refused before the database")
	return intake.KeepOutcome{}, intake.Internal(fmt.Errorf("touched"))
}
func (s *untouchableStore) Confirm(context.Context, intake.Claim, time.Time, time.Duration, []intake.Envelope) (*intake.Introduction, error) {
	s.t.Errorf("Confirm called")
	return nil, intake.ErrNotFound
}
func (s *untouchableStore) Withdraw(context.Context, intake.Claim, time.Time, []intake.Envelope) error {
	s.t.Errorf("Withdraw called")
	return intake.ErrNotFound
}
func (s *untouchableStore) ReviseDraft(context.Context, intake.Claim, time.Time, func(intake.Introduction) (intake.Revision, error)) (*intake.Introduction, error) {
	s.t.Errorf("ReviseDraft called")
	return nil, intake.ErrNotFound
}
func (s *untouchableStore) RecordAttempt(_ context.Context, e intake.LedgerEntry) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.entries = append(s.entries, e)
	if s.record != nil {
		return s.record(e)
	}
	return nil
}

// noHandoff is a Handoff for tests that never get past a draft.
type noHandoff struct{}

func (noHandoff) Outbox(string, string, intake.Provenance) []intake.Envelope { return nil }
func (noHandoff) Dispatch([]string)                                          {}

type fixture struct {
	svc   *intakeflow.Service
	store *untouchableStore
	pow   *altchapow.ProofOfWork
	keys  *keyring.Ring
	now   time.Time
	logs  *testsupport.Logs
}

func newFixture(t *testing.T) *fixture { return newFixtureWith(t, nil) }

// newFixtureWith is newFixture with its dependencies changed by change
// (when not nil) before the service is built.
func newFixtureWith(t *testing.T, change func(*intakeflow.Deps)) *fixture {
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	keys, err := keyring.Local(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	clock := testsupport.NewClock(now)
	pow, err := altchapow.New(keys, clock, altchapow.Config{MaxNumber: 2000, Lifetime: 10 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	store := &untouchableStore{t: t}
	flood, err := floodlimit.New(100, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	forms, err := formregistry.Load()
	if err != nil {
		t.Fatal(err)
	}
	logs := &testsupport.Logs{}
	deps := intakeflow.Deps{
		Store: store, Reviser: store, Forms: forms, Flood: flood, Pepper: bytes.Repeat([]byte{7}, 32), Clock: clock, Entropy: rand.Reader,
		Logger:     slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
		Chain:      checks.Chain{checks.RateLimit{Flood: flood}, checks.Honeypot{}, checks.ContentRules{}, checks.ProofOfWork{Verifier: pow}},
		Retention:  intake.DefaultRetention,
		IPLimit:    intake.RateRule{Limit: 10, Window: time.Hour},
		EmailLimit: intake.RateRule{Limit: 5, Window: time.Hour},
		Function:   "test", Revision: "test",
		Handoff: noHandoff{},
	}
	if change != nil {
		change(&deps)
	}
	svc, err := intakeflow.New(deps)
	if err != nil {
		t.Fatal(err)
	}
	return &fixture{svc: svc, store: store, pow: pow, keys: keys, now: now, logs: logs}
}

func submission(altchaPayload string) intake.Submission {
	return intake.Submission{FormID: "introduction", FormVersion: "1", Altcha: altchaPayload,
		Fields: intake.Fields{Name: "Ada", Email: "ada@example.com", Message: "Hello."}}
}

// TestProofOfWorkIsRefusedBeforeTheDatabase: spliced salts, a missing
// expiry, an expired challenge and a foreign key are all refused by the
// chain; the store never sees the draft.
func TestProofOfWorkIsRefusedBeforeTheDatabase(t *testing.T) {
	f := newFixture(t)
	version, key := f.keys.Current()
	signing := string(keyring.Derive(key, "altcha-v1"))
	expires := f.now.Add(5 * time.Minute)
	number := int64(1234)
	legit, err := altcha.CreateChallenge(altcha.ChallengeOptions{HMACKey: signing, Number: &number, Expires: &expires,
		Params: map[string][]string{"kv": {version}}, MaxNumber: 2000})
	if err != nil {
		t.Fatal(err)
	}
	noExpiry, _ := altcha.CreateChallenge(altcha.ChallengeOptions{HMACKey: signing, Number: &number, Params: map[string][]string{"kv": {version}}})
	past := f.now.Add(-time.Second)
	expired, _ := altcha.CreateChallenge(altcha.ChallengeOptions{HMACKey: signing, Number: &number, Expires: &past, Params: map[string][]string{"kv": {version}}})
	foreign, _ := altcha.CreateChallenge(altcha.ChallengeOptions{HMACKey: strings.Repeat("k", 32), Number: &number, Expires: &expires, Params: map[string][]string{"kv": {version}}})

	// The legitimate solution is accepted by the verifier itself (so the
	// refusals below are not refusals of everything).
	if _, err := f.pow.Verify(testsupport.Payload(altchapow.Challenge(legit), legit.Salt, number)); err != nil {
		t.Fatalf("the legitimate payload must verify: %v", err)
	}
	cases := []struct {
		name    string
		payload string
		code    intake.Code
	}{
		{"digit moved from number into salt", testsupport.Payload(altchapow.Challenge(legit), legit.Salt+"1", 234), intake.CodePowInvalid},
		{"trailing delimiter moved out of the salt", testsupport.Payload(altchapow.Challenge(legit), strings.TrimSuffix(legit.Salt, "&"), number), intake.CodePowInvalid},
		{"expiry digits moved into the number", testsupport.Payload(altchapow.Challenge(legit), strings.Replace(legit.Salt, strconv.FormatInt(expires.Unix(), 10), strconv.FormatInt(expires.Unix()/10, 10), 1), number), intake.CodePowInvalid},
		{"missing expiry", testsupport.Payload(altchapow.Challenge(noExpiry), noExpiry.Salt, number), intake.CodePowInvalid},
		{"expired", testsupport.Payload(altchapow.Challenge(expired), expired.Salt, number), intake.CodePowExpired},
		{"wrong key", testsupport.Payload(altchapow.Challenge(foreign), foreign.Salt, number), intake.CodePowInvalid},
		{"empty", "", intake.CodePowRequired},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f.store.t = t
			_, err := f.svc.Draft(context.Background(), intakeflow.DraftRequest{Submission: submission(tc.payload), Client: netip.MustParseAddr("192.0.2.1")})
			if intake.CodeOf(err) != tc.code {
				t.Fatalf("got %v, want %s", err, tc.code)
			}
			last := f.store.entries[len(f.store.entries)-1]
			if last.Abuse.State != intake.AbusePowFailed || last.Decision != intake.DecisionRejected {
				t.Fatalf("ledger entry: %+v", last)
			}
		})
	}
}

// TestSecondRequestWithTheKeyInFlightIsRefused holds a draft inside the
// store and sends the same Idempotency-Key again.
func TestSecondRequestWithTheKeyInFlightIsRefused(t *testing.T) {
	f := newFixture(t)
	entered, release := make(chan struct{}), make(chan struct{})
	f.store.keep = func(k intake.DraftKeeping) (intake.KeepOutcome, error) {
		close(entered)
		<-release
		return intake.KeepOutcome{}, nil
	}
	challenge, err := f.pow.Issue(nil)
	if err != nil {
		t.Fatal(err)
	}
	payload, _ := testsupport.Solve(t, challenge)
	const canaryKey = "canary-idempotency-key-in-flight"
	req := intakeflow.DraftRequest{Submission: submission(payload), Client: netip.MustParseAddr("192.0.2.2"), IdempotencyKey: canaryKey}
	done := make(chan error)
	go func() {
		_, err := f.svc.Draft(context.Background(), req)
		done <- err
	}()
	<-entered
	if _, err := f.svc.Draft(context.Background(), req); intake.CodeOf(err) != intake.CodeIdempotencyInFlight {
		t.Fatalf("second request while the first is in flight: %v", err)
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatalf("first request: %v", err)
	}
	if logs := f.logs.String(); !strings.Contains(logs, "IDEMPOTENCY_IN_FLIGHT") || strings.Contains(logs, canaryKey) {
		t.Fatalf("the in-flight refusal must be logged by the key's hash, never the key itself:\n%s", logs)
	}
}

// TestNewReportsWhatIsMissingInAStableOrder: the same missing dependencies
// are named in the same order every time (a start-up log that reorders
// itself from run to run hides what changed).
func TestNewReportsWhatIsMissingInAStableOrder(t *testing.T) {
	_, first := intakeflow.New(intakeflow.Deps{})
	for range 20 {
		if _, err := intakeflow.New(intakeflow.Deps{}); err == nil || err.Error() != first.Error() {
			t.Fatalf("New named what is missing as\n%v\nthen as\n%v", first, err)
		}
	}
}
