package firestorestore

import (
	"context"
	"errors"
	"net"
	"testing"
	"time"

	"google.golang.org/api/option"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/ownersite/introductions/shared/emulatortest"
	"github.com/ownersite/introductions/shared/intake"
)

// unreachable returns client options that send every call to a local port
// where nothing listens (the connection is closed with the client).
func unreachable(t testing.TB) []option.ClientOption {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	return []option.ClientOption{option.WithGRPCConn(conn), option.WithoutAuthentication()}
}

// TestUnreachable: with Firestore down every method answers UNAVAILABLE with
// a RetryAfter, within its OpTimeout, and never a vendor error.
func TestUnreachable(t *testing.T) {
	ctx := context.Background()
	db, err := Open(ctx, Config{Project: "unreachable", Database: emulatortest.Database, OpTimeout: 300 * time.Millisecond}, discard, unreachable(t)...)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	s := db.Intake(nil)
	right := intake.HashToken(token("down"))
	decoy := intake.Claim{ID: "down", TokenHash: right, DecoyTokenHash: right}
	e := draft("down", t0).Ledger
	e.Decision = intake.DecisionRejected
	tests := []struct {
		name string
		call func() error
	}{
		{"KeepDraft", func() error { _, err := s.KeepDraft(ctx, draft("down", t0)); return err }},
		{"Confirm", func() error {
			_, err := s.Confirm(ctx, intake.Claim{ID: "down", TokenHash: right}, t0, keepFor, nil)
			return err
		}},
		{"Withdraw", func() error { return s.Withdraw(ctx, intake.Claim{ID: "down", TokenHash: right}, t0, nil) }},
		{"RecordAttempt", func() error { return s.RecordAttempt(ctx, e) }},
		{"Confirm (decoy)", func() error { _, err := s.Confirm(ctx, decoy, t0, keepFor, nil); return err }},
		{"Withdraw (decoy)", func() error { return s.Withdraw(ctx, decoy, t0, nil) }},
		{"AttachableDraft", func() error {
			_, err := s.AttachableDraft(ctx, intake.Claim{ID: "down", TokenHash: right}, t0)
			return err
		}},
		{"SetAttachment", func() error {
			_, err := s.SetAttachment(ctx, intake.Claim{ID: "down", TokenHash: right}, t0, nil, func(string, string) string { return "" })
			return err
		}},
		{"AttachableDraft (decoy)", func() error { _, err := s.AttachableDraft(ctx, decoy, t0); return err }},
		{"SetAttachment (decoy)", func() error {
			_, err := s.SetAttachment(ctx, decoy, t0, nil, func(string, string) string { return "" })
			return err
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.call()
			var ie *intake.Error
			if !errors.As(err, &ie) || ie.Code != intake.CodeUnavailable || ie.RetryAfter <= 0 {
				t.Fatalf("%s = %v, want UNAVAILABLE with RetryAfter", tt.name, err)
			}
		})
	}
}
