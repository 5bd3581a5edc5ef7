package intakeflow_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"log/slog"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ownersite/introductions/shared/altchapow"
	"github.com/ownersite/introductions/shared/checks"
	"github.com/ownersite/introductions/shared/floodlimit"
	"github.com/ownersite/introductions/shared/intake"
	"github.com/ownersite/introductions/shared/intakeflow"
	"github.com/ownersite/introductions/shared/secretkeys"
	"github.com/ownersite/introductions/shared/testsupport"
)

const hmacSecret = "projects/site/secrets/hmac"

// secretVersions is the HMAC secret at the project's SecretAccessor
// interface: version n is payloads[n-1], "latest" the highest.
type secretVersions struct {
	mu       sync.Mutex
	payloads [][]byte
}

func (s *secretVersions) AccessSecretVersion(_ context.Context, name string) (*secretkeys.Version, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, _ := strings.CutPrefix(name, hmacSecret+"/versions/")
	if v == "latest" {
		v = strconv.Itoa(len(s.payloads))
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 || n > len(s.payloads) {
		return nil, &secretkeys.APIError{HTTPStatus: 404, Status: "NOT_FOUND"}
	}
	return &secretkeys.Version{Name: hmacSecret + "/versions/" + v, Data: s.payloads[n-1]}, nil
}

func (s *secretVersions) rotate() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.payloads = append(s.payloads, bytes.Repeat([]byte{byte('0' + len(s.payloads) + 1)}, 32))
}

// keysAt is the keyring an instance starting now loads from secret.
func keysAt(t *testing.T, secret *secretVersions, clock *testsupport.Clock) *secretkeys.Rotating {
	t.Helper()
	ring, err := secretkeys.Load(context.Background(), secret, hmacSecret)
	if err != nil {
		t.Fatal(err)
	}
	r, err := secretkeys.NewRotating(ring, secret, hmacSecret, slog.New(slog.DiscardHandler), clock.Now)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

// decoyStore keeps drafts and decoys without looking at them and confirms
// a decoy from its (absent) ledger entry, as the store does; no real draft
// is in it, so confirming one is NOT_FOUND.
type decoyStore struct {
	untouchableStore
	mu           sync.Mutex
	realAsked    []string // ids confirmed as real drafts
	decoyAsked   []string // ids confirmed as decoys
	tokenMatched []bool
}

func (s *decoyStore) Confirm(_ context.Context, c intake.Claim, now time.Time, keepFor time.Duration, _ []intake.Envelope) (*intake.Introduction, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !c.Decoy() {
		s.realAsked = append(s.realAsked, c.ID)
		return nil, intake.ErrNotFound
	}
	tokenMatches := bytes.Equal(c.TokenHash, c.DecoyTokenHash)
	s.decoyAsked, s.tokenMatched = append(s.decoyAsked, c.ID), append(s.tokenMatched, tokenMatches)
	if !tokenMatches {
		return nil, intake.ErrNotFound
	}
	return &intake.Introduction{ID: c.ID, State: intake.StateConfirmed, ConfirmedAt: now, ExpireAt: now.Add(keepFor)}, nil
}

// instance is one running instance of the intake service over keys.
func instance(t *testing.T, keys intake.Keyring, clock *testsupport.Clock) (*intakeflow.Service, *altchapow.ProofOfWork, *decoyStore) {
	t.Helper()
	pow, err := altchapow.New(keys, clock, altchapow.Config{MaxNumber: 2000, Lifetime: 10 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	store := &decoyStore{untouchableStore: untouchableStore{t: t,
		keep: func(intake.DraftKeeping) (intake.KeepOutcome, error) { return intake.KeepOutcome{}, nil }}}
	flood, err := floodlimit.New(100, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	svc, err := intakeflow.New(intakeflow.Deps{
		Store: store, Reviser: store, Forms: testsupport.Forms(t), Flood: flood, Pepper: bytes.Repeat([]byte{7}, 32),
		Clock: clock, Entropy: rand.Reader, Logger: slog.New(slog.DiscardHandler),
		Chain:      checks.Chain{checks.RateLimit{Flood: flood}, checks.Honeypot{}, checks.ContentRules{}, checks.ProofOfWork{Verifier: pow}},
		Retention:  intake.DefaultRetention,
		IPLimit:    intake.RateRule{Limit: 10, Window: time.Hour},
		EmailLimit: intake.RateRule{Limit: 5, Window: time.Hour},
		Function:   "test", Revision: "test", Handoff: noHandoff{},
	})
	if err != nil {
		t.Fatal(err)
	}
	return svc, pow, store
}

// TestADecoyIsADecoyOnEveryInstanceAcrossRotations: the HMAC key rotates
// while Confirmation instance B runs on version 1; Drafts instance A,
// started after the rotation, answers a honeypot with a decoy. B, which
// has not read version 2, confirms it as it would a draft (a decoy keyed
// from a rotating key would be a stranger to B: a 404 where a draft is
// confirmed, telling the bot). And after five more rotations — more than
// an instance keeps — an instance started on the newest version still
// knows the old decoy and its token.
func TestADecoyIsADecoyOnEveryInstanceAcrossRotations(t *testing.T) {
	secret := &secretVersions{}
	secret.rotate()
	clock := testsupport.NewClock(time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC))
	b, _, storeB := instance(t, keysAt(t, secret, clock), clock)

	secret.rotate()
	a, powA, _ := instance(t, keysAt(t, secret, clock), clock)
	challenge, err := powA.Issue(nil)
	if err != nil {
		t.Fatal(err)
	}
	payload, _ := testsupport.Solve(t, challenge)
	sub := submission(payload)
	sub.Honeypot = "filled by a bot"
	decoy, err := a.Draft(context.Background(), intakeflow.DraftRequest{Submission: sub, Client: netip.MustParseAddr("192.0.2.9")})
	if err != nil {
		t.Fatalf("the honeypot's draft on A: %v", err)
	}
	confirmOn := func(svc *intakeflow.Service, token string) error {
		_, err := svc.Confirm(context.Background(), intakeflow.TokenRequest{ID: decoy.Introduction.ID, Token: token, Client: netip.MustParseAddr("192.0.2.9")})
		return err
	}
	if err := confirmOn(b, decoy.Token); err != nil {
		t.Fatalf("B, still on version 1, refused the decoy a real draft's confirmation would pass: %v", err)
	}
	if len(storeB.realAsked) != 0 || len(storeB.decoyAsked) != 1 || !storeB.tokenMatched[0] {
		t.Fatalf("B: real lookups %d, decoy lookups %d, token matched %v", len(storeB.realAsked), len(storeB.decoyAsked), storeB.tokenMatched)
	}

	for range 5 {
		secret.rotate()
	}
	c, _, storeC := instance(t, keysAt(t, secret, clock), clock)
	if err := confirmOn(c, decoy.Token); err != nil {
		t.Fatalf("an instance started five rotations later refused the old decoy: %v", err)
	}
	wrong := strings.Repeat("A", len(decoy.Token))
	if err := confirmOn(c, wrong); intake.CodeOf(err) != intake.CodeNotFound {
		t.Fatalf("a wrong token for the decoy: %v, want NOT_FOUND as for a draft", err)
	}
	if len(storeC.realAsked) != 0 || len(storeC.decoyAsked) != 2 || !storeC.tokenMatched[0] || storeC.tokenMatched[1] {
		t.Fatalf("C: real lookups %d, decoy lookups %d, token matched %v", len(storeC.realAsked), len(storeC.decoyAsked), storeC.tokenMatched)
	}
}
