package firestorestore

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"cloud.google.com/go/firestore"
	"google.golang.org/api/option"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"

	"github.com/ownersite/introductions/shared/emulatortest"
	"github.com/ownersite/introductions/shared/intake"
)

// ownerCredential is the bearer the emulator takes for privileged access.
type ownerCredential struct{}

func (ownerCredential) GetRequestMetadata(context.Context, ...string) (map[string]string, error) {
	return map[string]string{"authorization": "Bearer owner"}, nil
}
func (ownerCredential) RequireTransportSecurity() bool { return false }

// storeThrough returns a store on the emulator whose every unary call goes
// through intercept, with opTimeout.
func storeThrough(t *testing.T, opTimeout time.Duration, intercept grpc.UnaryClientInterceptor) *allStores {
	t.Helper()
	_, project := emulatortest.Client(t)
	conn, err := grpc.NewClient(emulatortest.Host(t), grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithPerRPCCredentials(ownerCredential{}), grpc.WithChainUnaryInterceptor(intercept))
	if err != nil {
		t.Fatal(err)
	}
	client, err := firestore.NewClientWithDatabase(context.Background(), project, emulatortest.Database, option.WithGRPCConn(conn))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { client.Close() })
	db, err := New(client, Config{Database: emulatortest.Database, OpTimeout: opTimeout}, discard)
	if err != nil {
		t.Fatal(err)
	}
	return storesOn(db)
}

// TestAKeptDraftIsNeverAnswered503 lets Firestore commit a draft and then
// loses the commit's answer (the reply arrives after the deadline, or the
// connection drops): the store reads the draft back and reports it kept,
// with or without an Idempotency-Key. A commit that really failed is still
// UNAVAILABLE.
func TestAKeptDraftIsNeverAnswered503(t *testing.T) {
	for _, tc := range []struct {
		name string
		lost codes.Code
	}{
		{"answer after the deadline", codes.DeadlineExceeded},
		{"connection lost", codes.Unavailable},
		{"request cancelled", codes.Canceled},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var loseNext atomic.Bool
			s := storeThrough(t, 10*time.Second, func(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, invoker grpc.UnaryInvoker, opts ...grpc.CallOption) error {
				if strings.HasSuffix(method, "/Commit") && loseNext.CompareAndSwap(true, false) {
					if err := invoker(context.WithoutCancel(ctx), method, req, reply, cc, opts...); err != nil {
						return err
					}
					return status.Error(tc.lost, "the answer was lost")
				}
				return invoker(ctx, method, req, reply, cc, opts...)
			})
			plain := draft("lostAnswerPlain1234567", t0)
			loseNext.Store(true)
			if _, err := s.KeepDraft(context.Background(), plain); err != nil {
				t.Fatalf("a draft Firestore kept was answered %v", err)
			}
			withKey := draft("lostAnswerKeyed1234567", t0)
			withKey.Idempotency = &intake.IdempotencyRecord{KeyHash: "idem-lost", Fingerprint: "f", IntroductionID: withKey.Introduction.ID,
				SealedToken: []byte("sealed"), ExpireAt: withKey.Introduction.ExpireAt}
			loseNext.Store(true)
			if _, err := s.KeepDraft(context.Background(), withKey); err != nil {
				t.Fatalf("a draft with an Idempotency-Key Firestore kept was answered %v", err)
			}
			for _, id := range []string{plain.Introduction.ID, withKey.Introduction.ID} {
				if _, err := s.Confirm(context.Background(), intake.Claim{ID: id, TokenHash: intake.HashToken(token(id))}, t0.Add(time.Minute), keepFor, nil); err != nil {
					t.Fatalf("the kept draft %s does not confirm: %v", id, err)
				}
			}
		})
	}

	t.Run("a commit that failed stays UNAVAILABLE", func(t *testing.T) {
		s := storeThrough(t, 2*time.Second, func(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, invoker grpc.UnaryInvoker, opts ...grpc.CallOption) error {
			if strings.HasSuffix(method, "/Commit") {
				return status.Error(codes.Unavailable, "down")
			}
			return invoker(ctx, method, req, reply, cc, opts...)
		})
		if _, err := s.KeepDraft(context.Background(), draft("failedCommit1234567890", t0)); intake.CodeOf(err) != intake.CodeUnavailable {
			t.Fatalf("a failed commit answered %v, want UNAVAILABLE", err)
		}
	})
}

// TestWaitingForALockLeavesTheCommitItsBudget holds the draft's documents
// on this instance for most of the operation timeout, then lets a slow
// Firestore (every call delayed) keep the draft: the commit has a budget of
// its own, so the draft is kept instead of timing out.
func TestWaitingForALockLeavesTheCommitItsBudget(t *testing.T) {
	const opTimeout, delay = 2 * time.Second, 250 * time.Millisecond
	s := storeThrough(t, opTimeout, func(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, invoker grpc.UnaryInvoker, opts ...grpc.CallOption) error {
		select {
		case <-time.After(delay):
		case <-ctx.Done():
			return ctx.Err()
		}
		return invoker(ctx, method, req, reply, cc, opts...)
	})
	k := draft("lockWait12345678901234", t0)
	unlock, err := s.locks.lock(context.Background(), []string{lockKey(s.introductionRef(k.Introduction.ID))})
	if err != nil {
		t.Fatal(err)
	}
	time.AfterFunc(opTimeout*9/10, unlock)
	if _, err := s.KeepDraft(context.Background(), k); err != nil {
		t.Fatalf("after waiting for the lock, the draft was answered %v", err)
	}
}
