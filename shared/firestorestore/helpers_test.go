package firestorestore

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"cloud.google.com/go/firestore"
	"google.golang.org/api/iterator"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/ownersite/introductions/shared/emulatortest"
	"github.com/ownersite/introductions/shared/intake"
)

// t0 is the tests' "now": the store is told the time, never reads a clock.
var t0 = time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)

const (
	draftLife   = 30 * time.Minute
	keepFor     = 180 * 24 * time.Hour
	rejectedFor = 30 * 24 * time.Hour
)

var discard = slog.New(slog.DiscardHandler)

// allStores is every store on one DB, as the tests drive them together.
type allStores struct {
	*DB
	*IntakeStore
	*OutboxStore
	*SweepStore
	*OwnerStore
}

func storesOn(db *DB) *allStores {
	return &allStores{db, db.Intake(nil), db.Outbox(), db.Sweep(), db.Owner()}
}

// testStore is a store on a wiped emulator database of the test's own,
// whose client counts its RPCs.
type testStore struct {
	*allStores
	client *firestore.Client
	rpcs   *emulatortest.RPCCounter
}

func newTestStore(t testing.TB) *testStore {
	t.Helper()
	_, project := emulatortest.Client(t) // wipes the project's database now and at the end
	rpcs := &emulatortest.RPCCounter{}
	s, client := countedStore(t, project, rpcs, 30*time.Second)
	return &testStore{allStores: s, client: client, rpcs: rpcs}
}

// countedStore returns a Store, and its client, on project's test database
// whose calls rpcs counts (and can cut off), closed when the test ends.
func countedStore(t testing.TB, project string, rpcs *emulatortest.RPCCounter, opTimeout time.Duration) (*allStores, *firestore.Client) {
	t.Helper()
	client, err := firestore.NewClientWithDatabase(context.Background(), project, emulatortest.Database, rpcs.ClientOptions(emulatortest.Host(t))...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { client.Close() })
	db, err := New(client, Config{Database: emulatortest.Database, OpTimeout: opTimeout}, discard)
	if err != nil {
		t.Fatal(err)
	}
	return storesOn(db), client
}

// sibling returns another Store over the same client: a second "instance",
// with locks of its own, so only Firestore keeps the two apart.
func (ts *testStore) sibling(t testing.TB) *allStores {
	t.Helper()
	db, err := New(ts.client, ts.cfg, discard)
	if err != nil {
		t.Fatal(err)
	}
	return storesOn(db)
}

// canary makes a field value unique to one draft, so a test can prove it is
// nowhere it must not be.
func canary(field, id string) string { return "canary-" + field + "-" + id }

func token(id string) string { return "token-" + id }

// draft returns a storable DraftKeeping for id at now, with a transcript,
// a challenge and an ip rate key of its own, and no idempotency key; its
// ledger entry outlives the draft by the rejected-attempt period, as the
// service keeps it.
func draft(id string, now time.Time) intake.DraftKeeping {
	exp := now.Add(draftLife)
	return intake.DraftKeeping{
		Now: now,
		Introduction: intake.Introduction{
			ID: id, State: intake.StateDraft, FormID: "introduction", FormVersion: "v1",
			Fields: intake.Fields{Name: canary("name", id), Company: canary("company", id), Role: canary("role", id),
				Email: canary("email", id) + "@example.com", Message: canary("message", id) + "\nbye"},
			HasConversation: true,
			Consents: []intake.ConsentEvidence{{Purpose: "attach-conversation", Basis: intake.BasisConsent,
				TextVersion: "1", TextSHA256: strings.Repeat("0f", 32), Control: "attachConversation",
				ActivelyChecked: true, GivenAt: now, WithdrawalPath: "/api/introductions/" + id + "/withdrawal"}},
			TokenHash: intake.HashToken(token(id)),
			CreatedAt: now,
			ExpireAt:  exp,
		},
		Transcript: &intake.Transcript{IntroductionID: id, Text: canary("transcript", id), ExpireAt: exp},
		Challenge:  intake.SpentChallenge{Key: "challenge/" + id, ExpireAt: now.Add(10 * time.Minute)},
		RateKeys:   []intake.RateKey{ipKey("ip-"+id, 10)},
		Ledger: intake.LedgerEntry{
			ID: id, Version: intake.LedgerVersion, FormID: "introduction", FormVersion: "v1", SubmissionID: id,
			Validation: intake.ValidationRecord{Result: intake.ValidationPass},
			Purposes:   []intake.PurposeRecord{{ID: "attach-conversation", Basis: intake.BasisConsent, Granted: true}},
			Retention:  intake.RetentionRecord{Class: intake.RetentionDraft, DeleteAfter: exp.Add(rejectedFor)},
			Abuse:      intake.AbuseRecord{State: intake.AbuseClean},
			Redaction:  intake.RedactionRecord{Stored: []string{"name", "email"}, RedactedFromLogs: intake.RedactedFromLogs},
			Decision:   intake.DecisionAwaitingConfirmation,
			Reason:     "awaiting confirmation",
			Provenance: intake.Provenance{Function: "drafts", Revision: "test", RequestID: "req-" + id, Time: now},
			UpdatedAt:  now,
			ExpireAt:   exp.Add(rejectedFor),
		},
	}
}

func ipKey(hash string, limit int) intake.RateKey {
	return intake.RateKey{RateRule: intake.RateRule{Layer: "ip", Limit: limit, Window: time.Hour}, KeyHash: hash}
}

func withIdempotency(k intake.DraftKeeping, keyHash string) intake.DraftKeeping {
	k.Idempotency = &intake.IdempotencyRecord{KeyHash: keyHash, Fingerprint: "fp-" + keyHash,
		IntroductionID: k.Introduction.ID, SealedToken: []byte("sealed-" + k.Introduction.ID), ExpireAt: k.Introduction.ExpireAt}
	k.Ledger.IdempotencyKeyHash = keyHash
	return k
}

// dump returns every document of the store's collections, by path, with
// its data and update time, to compare the database before and after.
func (ts *testStore) dump(t testing.TB) map[string]string {
	t.Helper()
	out := map[string]string{}
	colls := []string{Introductions, Transcripts, SpentChallenges, RateCounters, IdempotencyKeys, Ledger, Envelopes}
	ts.forEach(t, colls, func(coll string, snap *firestore.DocumentSnapshot) {
		out[coll+"/"+snap.Ref.ID] = fmt.Sprintf("%v@%s", snap.Data(), snap.UpdateTime.Format(time.RFC3339Nano))
	})
	return out
}

// forEach calls f with every document of colls.
func (ts *testStore) forEach(t testing.TB, colls []string, f func(coll string, snap *firestore.DocumentSnapshot)) {
	t.Helper()
	for _, coll := range colls {
		it := ts.client.Collection(coll).Documents(context.Background())
		for {
			snap, err := it.Next()
			if errors.Is(err, iterator.Done) {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			f(coll, snap)
		}
	}
}

// count returns how many documents coll holds.
func (ts *testStore) count(t testing.TB, coll string) int {
	t.Helper()
	refs, err := ts.client.Collection(coll).DocumentRefs(context.Background()).GetAll()
	if err != nil {
		t.Fatal(err)
	}
	return len(refs)
}

// exists reports whether coll/id is stored (expired or not).
func (ts *testStore) exists(t testing.TB, coll, id string) bool {
	t.Helper()
	_, err := ts.client.Collection(coll).Doc(id).Get(context.Background())
	if status.Code(err) == codes.NotFound {
		return false
	}
	if err != nil {
		t.Fatal(err)
	}
	return true
}

// codeOf returns the intake code of err and fails the test when err is not
// an *intake.Error (a vendor error leaked).
func codeOf(t testing.TB, err error) intake.Code {
	t.Helper()
	if err == nil {
		return ""
	}
	var e *intake.Error
	if !errors.As(err, &e) {
		t.Fatalf("not an *intake.Error: %T %v", err, err)
	}
	return e.Code
}

// allStrings walks a Firestore document's data and returns every string and
// byte string in it.
func allStrings(v any) []string {
	switch v := v.(type) {
	case string:
		return []string{v}
	case []byte:
		return []string{string(v)}
	case map[string]any:
		var out []string
		for k, x := range v {
			out = append(out, k)
			out = append(out, allStrings(x)...)
		}
		return out
	case []any:
		var out []string
		for _, x := range v {
			out = append(out, allStrings(x)...)
		}
		return out
	}
	return nil
}

// fullOutbox is the outbox of a confirmation with every destination on:
// the admin inbox DELIVERED at commit, email and webhook PENDING.
func fullOutbox(id string, now time.Time) []intake.Envelope {
	var out []intake.Envelope
	for _, d := range []intake.Destination{intake.DestinationInbox, intake.DestinationEmail, intake.DestinationWebhook} {
		e := intake.Envelope{ID: intake.EnvelopeID(id, d, intake.EventConfirmed), SubmissionID: id, Destination: d,
			Event: intake.EventConfirmed, PayloadVersion: intake.HandoffPayloadVersion, Status: intake.DeliveryPending,
			Attempts: []intake.DeliveryAttempt{}, Provenance: intake.Provenance{Function: "confirmation", Revision: "test", RequestID: "req-" + id, Time: now}}
		if d == intake.DestinationInbox {
			e.Status = intake.DeliveryDelivered
			e.Attempts = []intake.DeliveryAttempt{{At: now, Outcome: intake.DeliveryDelivered, Detail: "kept"}}
		}
		out = append(out, e)
	}
	return out
}

// listed returns the ids ListIntroductions gives for folder ("" for all)
// at t0, on its first page of 10.
func (ts *testStore) listed(t testing.TB, folder string) []string {
	t.Helper()
	recs, _, err := ts.ListIntroductions(context.Background(), folder, nil, 10, t0)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, r := range recs {
		out = append(out, r.Introduction.ID)
	}
	return out
}
