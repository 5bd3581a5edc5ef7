package firestorestore

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"cloud.google.com/go/firestore"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/ownersite/introductions/shared/emulatortest"
	"github.com/ownersite/introductions/shared/intake"
)

func TestKeepConfirmWithdraw(t *testing.T) {
	ts := newTestStore(t)
	ctx := context.Background()
	k := withIdempotency(draft("happy", t0), "idem-happy")

	out, err := ts.KeepDraft(ctx, k)
	if err != nil {
		t.Fatalf("KeepDraft: %v", err)
	}
	if out.Replay != nil || len(out.RateDecisions) != 1 || out.RateDecisions[0].Decision != intake.RateAllow || out.RateDecisions[0].Count != 1 {
		t.Fatalf("KeepDraft outcome = %+v, want one ALLOW with count 1 and no replay", out)
	}
	for _, doc := range []string{Introductions + "/happy", Transcripts + "/happy", Ledger + "/happy",
		SpentChallenges + "/" + escapeKey("challenge/happy"), IdempotencyKeys + "/idem-happy", RateCounters + "/ip:ip-happy"} {
		coll, id, _ := strings.Cut(doc, "/")
		if !ts.exists(t, coll, id) {
			t.Errorf("%s not stored", doc)
		}
	}

	var kept intake.LedgerEntry
	snap, err := ts.client.Collection(Ledger).Doc("happy").Get(ctx)
	if err != nil || snap.DataTo(&kept) != nil {
		t.Fatalf("reading ledger: %v", err)
	}
	if n := len(kept.RateLimits); n == 0 || kept.RateLimits[n-1] != out.RateDecisions[0] {
		t.Fatalf("ledger rate limits %+v lack the store's decision %+v", kept.RateLimits, out.RateDecisions[0])
	}

	confirmAt := t0.Add(5 * time.Minute)
	first, err := ts.Confirm(ctx, intake.Claim{ID: "happy", TokenHash: intake.HashToken(token("happy"))}, confirmAt, keepFor, nil)
	if err != nil {
		t.Fatalf("Confirm: %v", err)
	}
	if first.State != intake.StateConfirmed || !first.ConfirmedAt.Equal(confirmAt) || !first.ExpireAt.Equal(confirmAt.Add(keepFor)) {
		t.Fatalf("Confirm = state %s confirmedAt %v expireAt %v", first.State, first.ConfirmedAt, first.ExpireAt)
	}
	if first.Fields != k.Introduction.Fields || !first.Consents[0].ConfirmedAt.Equal(confirmAt) {
		t.Fatalf("Confirm changed the fields or did not bind the consent: %+v", first)
	}
	again, err := ts.Confirm(ctx, intake.Claim{ID: "happy", TokenHash: intake.HashToken(token("happy"))}, confirmAt.Add(time.Minute), keepFor, nil)
	if err != nil {
		t.Fatalf("repeated Confirm: %v", err)
	}
	if !reflect.DeepEqual(first, again) {
		t.Fatalf("repeated Confirm differs:\nfirst %+v\nagain %+v", first, again)
	}
	if n := ts.transitions.Load(); n != 1 {
		t.Fatalf("transitions = %d, want 1", n)
	}
	var transcript transcriptDoc
	snap, err = ts.client.Collection(Transcripts).Doc("happy").Get(ctx)
	if err != nil || snap.DataTo(&transcript) != nil {
		t.Fatalf("reading transcript: %v", err)
	}
	if !transcript.ExpireAt.Equal(first.ExpireAt) {
		t.Fatalf("transcript expires %v, introduction %v", transcript.ExpireAt, first.ExpireAt)
	}
	var ledger intake.LedgerEntry
	snap, err = ts.client.Collection(Ledger).Doc("happy").Get(ctx)
	if err != nil || snap.DataTo(&ledger) != nil {
		t.Fatalf("reading ledger: %v", err)
	}
	if ledger.Decision != intake.DecisionHandoffPending || ledger.Retention.Class != intake.RetentionIntroduction ||
		!ledger.Retention.DeleteAfter.Equal(first.ExpireAt) || !ledger.ExpireAt.Equal(first.ExpireAt) ||
		!ledger.UpdatedAt.Equal(confirmAt) || len(ledger.Consents) != 1 || !ledger.Consents[0].ConfirmedAt.Equal(confirmAt) {
		t.Fatalf("ledger after Confirm = %+v", ledger)
	}

	withdrawAt := confirmAt.Add(time.Hour)
	if err := ts.Withdraw(ctx, intake.Claim{ID: "happy", TokenHash: intake.HashToken("wrong")}, withdrawAt, nil); err != intake.ErrNotFound {
		t.Fatalf("Withdraw with a wrong token = %v, want ErrNotFound", err)
	}
	if err := ts.Withdraw(ctx, intake.Claim{ID: "happy", TokenHash: intake.HashToken(token("happy"))}, withdrawAt, nil); err != nil {
		t.Fatalf("Withdraw: %v", err)
	}
	if _, err := ts.Confirm(ctx, intake.Claim{ID: "happy", TokenHash: intake.HashToken(token("happy"))}, withdrawAt, keepFor, nil); err != intake.ErrNotFound {
		t.Fatalf("Confirm after Withdraw = %v, want ErrNotFound", err)
	}
	if err := ts.Withdraw(ctx, intake.Claim{ID: "happy", TokenHash: intake.HashToken(token("happy"))}, withdrawAt, nil); err != intake.ErrNotFound {
		t.Fatalf("Withdraw after Withdraw = %v, want ErrNotFound", err)
	}
	if ts.exists(t, Introductions, "happy") || ts.exists(t, Transcripts, "happy") {
		t.Fatal("introduction or transcript survived the withdrawal")
	}
	snap, err = ts.client.Collection(Ledger).Doc("happy").Get(ctx)
	if err != nil {
		t.Fatalf("ledger entry gone after withdrawal: %v", err)
	}
	if err := snap.DataTo(&ledger); err != nil {
		t.Fatal(err)
	}
	if ledger.Decision != intake.DecisionWithdrawn || ledger.Reason != ReasonWithdrawn || !ledger.UpdatedAt.Equal(withdrawAt) {
		t.Fatalf("ledger after Withdraw = decision %s reason %q updatedAt %v", ledger.Decision, ledger.Reason, ledger.UpdatedAt)
	}
	content := []string{k.Introduction.Fields.Name, k.Introduction.Fields.Company, k.Introduction.Fields.Role,
		k.Introduction.Fields.Email, k.Introduction.Fields.Message, k.Transcript.Text, token("happy"), string(k.Introduction.TokenHash)}
	for _, v := range allStrings(snap.Data()) {
		for _, c := range content {
			if v == c || strings.Contains(v, "canary") {
				t.Errorf("ledger tombstone holds content %q", v)
			}
		}
	}
}

func TestNotFoundAlike(t *testing.T) {
	ts := newTestStore(t)
	ctx := context.Background()
	if _, err := ts.KeepDraft(ctx, draft("nf", t0)); err != nil {
		t.Fatal(err)
	}
	right := intake.HashToken(token("nf"))
	tests := []struct {
		name  string
		id    string
		token []byte
		now   time.Time
	}{
		{"wrong token", "nf", intake.HashToken("guess"), t0.Add(time.Minute)},
		{"short token hash", "nf", right[:16], t0.Add(time.Minute)},
		{"unknown id", "nobody", right, t0.Add(time.Minute)},
		{"id with a slash", "nf/x", right, t0.Add(time.Minute)},
		{"empty id", "", right, t0.Add(time.Minute)},
		{"expired at expireAt", "nf", right, t0.Add(draftLife)},
		{"expired after expireAt", "nf", right, t0.Add(draftLife + time.Hour)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := ts.Confirm(ctx, intake.Claim{ID: tt.id, TokenHash: tt.token}, tt.now, keepFor, nil); err != intake.ErrNotFound {
				t.Errorf("Confirm = %v, want exactly intake.ErrNotFound", err)
			}
			if err := ts.Withdraw(ctx, intake.Claim{ID: tt.id, TokenHash: tt.token}, tt.now, nil); err != intake.ErrNotFound {
				t.Errorf("Withdraw = %v, want exactly intake.ErrNotFound", err)
			}
		})
	}
	if err := ts.Withdraw(ctx, intake.Claim{ID: "nf", TokenHash: right}, t0.Add(time.Minute), nil); intake.CodeOf(err) != intake.CodeStateConflict {
		t.Fatalf("Withdraw of a draft = %v, want STATE_CONFLICT", err)
	}
	if ts.transitions.Load() != 0 || !ts.exists(t, Introductions, "nf") {
		t.Fatal("a refused call changed the draft")
	}
}

// TestRefusedKeepWritesNothing: a refused KeepDraft leaves the database
// exactly as it was: no introduction, transcript, idempotency record,
// ledger entry or counter change.
func TestRefusedKeepWritesNothing(t *testing.T) {
	ts := newTestStore(t)
	ctx := context.Background()
	// A spent challenge and a full counter to be refused by.
	if _, err := ts.KeepDraft(ctx, draft("spender", t0)); err != nil {
		t.Fatal(err)
	}
	full := draft("filler", t0)
	full.RateKeys = []intake.RateKey{ipKey("full", 1)}
	if _, err := ts.KeepDraft(ctx, full); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		mutate func(k *intake.DraftKeeping)
		code   intake.Code
	}{
		{"challenge spent", func(k *intake.DraftKeeping) { k.Challenge.Key = "challenge/spender" }, intake.CodePowSpent},
		{"one of two rate keys blocked", func(k *intake.DraftKeeping) {
			fresh := intake.RateKey{RateRule: intake.RateRule{Layer: "email", Limit: 5, Window: time.Hour}, KeyHash: "fresh"}
			k.RateKeys = []intake.RateKey{fresh, ipKey("full", 1)}
		}, intake.CodeRateLimited},
		{"message over the cap", func(k *intake.DraftKeeping) {
			k.Introduction.Fields.Message = strings.Repeat("m", intake.MaxStoredMessage+1)
		}, intake.CodeInternal},
		{"token hash missing", func(k *intake.DraftKeeping) { k.Introduction.TokenHash = nil }, intake.CodeInternal},
		{"ledger expiry unset", func(k *intake.DraftKeeping) { k.Ledger.ExpireAt = time.Time{} }, intake.CodeInternal},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := ts.dump(t)
			k := withIdempotency(draft("refused", t0.Add(time.Minute)), "idem-refused")
			tt.mutate(&k)
			out, err := ts.KeepDraft(ctx, k)
			if got := codeOf(t, err); got != tt.code {
				t.Fatalf("KeepDraft = %v, want %s", err, tt.code)
			}
			if tt.code == intake.CodeRateLimited {
				var e *intake.Error
				errors.As(err, &e)
				if e.RetryAfter <= 0 || len(out.RateDecisions) != 2 || out.RateDecisions[1].Decision != intake.RateBlock {
					t.Fatalf("rate refusal: RetryAfter %v, decisions %+v", e.RetryAfter, out.RateDecisions)
				}
			}
			if after := ts.dump(t); !reflect.DeepEqual(before, after) {
				t.Fatalf("a refused KeepDraft changed the database:\nbefore %v\nafter  %v", before, after)
			}
		})
	}
}

func TestRateWindowRolls(t *testing.T) {
	ts := newTestStore(t)
	ctx := context.Background()
	key := ipKey("rolling", 2)
	keep := func(id string, now time.Time) (intake.KeepOutcome, error) {
		k := draft(id, now)
		k.RateKeys = []intake.RateKey{key}
		return ts.KeepDraft(ctx, k)
	}
	steps := []struct {
		name      string
		at        time.Duration
		code      intake.Code
		count     int
		retryFrom time.Duration // for a block: the wait, before coarsening
	}{
		{"first", 0, "", 1, 0},
		{"second", 10 * time.Minute, "", 2, 0},
		{"third blocked", 20 * time.Minute, intake.CodeRateLimited, 2, 40 * time.Minute},
		{"first hit still inside at the window's edge", time.Hour - time.Second, intake.CodeRateLimited, 2, time.Second},
		{"first hit out of the window", time.Hour, "", 2, 0},
		{"blocked again until the second leaves", time.Hour + time.Minute, intake.CodeRateLimited, 2, 9 * time.Minute},
	}
	for i, st := range steps {
		out, err := keep(fmt.Sprintf("step-%d", i), t0.Add(st.at))
		if got := codeOf(t, err); got != st.code {
			t.Fatalf("step %d %q: code %q (%v), want %q", i, st.name, got, err, st.code)
		}
		if len(out.RateDecisions) != 1 || out.RateDecisions[0].Count != st.count {
			t.Fatalf("step %d %q: decisions %+v, want count %d", i, st.name, out.RateDecisions, st.count)
		}
		if st.code == intake.CodeRateLimited {
			var e *intake.Error
			errors.As(err, &e)
			if want := intake.CoarseRetryAfter(st.retryFrom); e.RetryAfter != want {
				t.Fatalf("step %d %q: RetryAfter %v, want %v", i, st.name, e.RetryAfter, want)
			}
		}
	}
	var c rateCounterDoc
	snap, err := ts.client.Collection(RateCounters).Doc("ip:rolling").Get(ctx)
	if err != nil || snap.DataTo(&c) != nil {
		t.Fatalf("reading counter: %v", err)
	}
	wantHits := []time.Time{t0.Add(10 * time.Minute), t0.Add(time.Hour)}
	if len(c.Hits) != 2 || !c.Hits[0].Equal(wantHits[0]) || !c.Hits[1].Equal(wantHits[1]) {
		t.Fatalf("counter hits = %v, want %v (old hits dropped)", c.Hits, wantHits)
	}
	if !c.ExpireAt.Equal(t0.Add(2*time.Hour)) || c.Layer != "ip" {
		t.Fatalf("counter = %+v, want layer ip, expireAt newest hit + window", c)
	}
}

// TestExpiredRecordsCountAsAbsent: a spent challenge, an idempotency record
// or a counter whose expireAt has passed no longer counts, though the TTL
// policy has not deleted it.
func TestExpiredRecordsCountAsAbsent(t *testing.T) {
	ts := newTestStore(t)
	ctx := context.Background()
	k := withIdempotency(draft("old", t0), "idem-reused")
	k.RateKeys = []intake.RateKey{ipKey("reused", 1)}
	if _, err := ts.KeepDraft(ctx, k); err != nil {
		t.Fatal(err)
	}
	later := t0.Add(2 * time.Hour) // past the draft, the challenge, the idempotency record and the counter window
	k2 := withIdempotency(draft("new", later), "idem-reused")
	k2.RateKeys = k.RateKeys
	k2.Challenge = intake.SpentChallenge{Key: k.Challenge.Key, ExpireAt: later.Add(10 * time.Minute)}
	out, err := ts.KeepDraft(ctx, k2)
	if err != nil || out.Replay != nil {
		t.Fatalf("KeepDraft over expired records = %+v, %v; want kept", out, err)
	}
	if out.RateDecisions[0].Count != 1 {
		t.Fatalf("counter kept an expired hit: %+v", out.RateDecisions)
	}
}

func TestRPCCounts(t *testing.T) {
	ts := newTestStore(t)
	ctx := context.Background()
	ts.rpcs.Reset()
	if _, err := ts.KeepDraft(ctx, withIdempotency(draft("rpc", t0), "idem-rpc")); err != nil {
		t.Fatal(err)
	}
	keep := ts.rpcs.Count()
	ts.rpcs.Reset()
	if _, err := ts.Confirm(ctx, intake.Claim{ID: "rpc", TokenHash: intake.HashToken(token("rpc"))}, t0.Add(time.Minute), keepFor, nil); err != nil {
		t.Fatal(err)
	}
	confirm := ts.rpcs.Count()
	ts.rpcs.Reset()
	if _, err := ts.Confirm(ctx, intake.Claim{ID: "rpc", TokenHash: intake.HashToken(token("rpc"))}, t0.Add(2*time.Minute), keepFor, nil); err != nil {
		t.Fatal(err)
	}
	repeat := ts.rpcs.Count()
	ts.rpcs.Reset()
	if err := ts.Withdraw(ctx, intake.Claim{ID: "rpc", TokenHash: intake.HashToken(token("rpc"))}, t0.Add(3*time.Minute), nil); err != nil {
		t.Fatal(err)
	}
	withdraw := ts.rpcs.Count()
	t.Logf("RPCs: KeepDraft %d, Confirm %d, repeated Confirm %d, Withdraw %d", keep, confirm, repeat, withdraw)
	if keep == 0 || confirm == 0 {
		t.Fatal("the counter counted nothing: it is not on the client")
	}
	if keep > 3 || confirm > 3 || repeat > 3 || withdraw > 3 {
		t.Fatalf("round trips over 3: KeepDraft %d, Confirm %d, repeated Confirm %d, Withdraw %d", keep, confirm, repeat, withdraw)
	}
}

func TestRecordAttempt(t *testing.T) {
	ts := newTestStore(t)
	ctx := context.Background()
	e := intake.LedgerEntry{
		ID: "attempt-1", Version: intake.LedgerVersion, FormID: "introduction", FormVersion: "v1",
		Validation: intake.ValidationRecord{Result: intake.ValidationFail, Codes: []intake.Code{intake.CodeMessageTooManyLinks}},
		Retention:  intake.RetentionRecord{Class: intake.RetentionRejectedEntry, DeleteAfter: t0.Add(30 * 24 * time.Hour)},
		Abuse:      intake.AbuseRecord{State: intake.AbuseContentRejected, Signals: []string{"links"}},
		Decision:   intake.DecisionRejected, Reason: "content rules", UpdatedAt: t0, ExpireAt: t0.Add(30 * 24 * time.Hour),
	}
	if err := ts.RecordAttempt(ctx, e); err != nil {
		t.Fatalf("RecordAttempt: %v", err)
	}
	var got intake.LedgerEntry
	snap, err := ts.client.Collection(Ledger).Doc("attempt-1").Get(ctx)
	if err != nil || snap.DataTo(&got) != nil {
		t.Fatalf("reading entry: %v", err)
	}
	got.ID = snap.Ref.ID
	if got.Decision != e.Decision || got.Validation.Codes[0] != e.Validation.Codes[0] || !got.ExpireAt.Equal(e.ExpireAt) || got.ID != e.ID {
		t.Fatalf("stored entry = %+v", got)
	}
	tests := []struct {
		name   string
		mutate func(e *intake.LedgerEntry)
	}{
		{"no expiry", func(e *intake.LedgerEntry) { e.ID, e.ExpireAt = "attempt-2", time.Time{} }},
		{"no id", func(e *intake.LedgerEntry) { e.ID = "" }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := e
			tt.mutate(&e)
			if err := ts.RecordAttempt(ctx, e); codeOf(t, err) != intake.CodeInternal {
				t.Fatalf("RecordAttempt = %v, want INTERNAL", err)
			}
		})
	}
	// The same id again (a write retried after its answer was lost) is no
	// error and leaves the entry there as it was.
	again := e
	again.Reason = "a second write"
	if err := ts.RecordAttempt(ctx, again); err != nil {
		t.Fatalf("RecordAttempt of a taken id = %v, want nil", err)
	}
	snap, err = ts.client.Collection(Ledger).Doc("attempt-1").Get(ctx)
	if err != nil || snap.DataTo(&got) != nil || got.Reason != e.Reason {
		t.Fatalf("the entry after a second write: %q, %v", got.Reason, err)
	}
	if n := ts.count(t, Ledger); n != 1 {
		t.Fatalf("%d ledger entries, want 1", n)
	}
}

func TestConfigRefusals(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name   string
		cfg    Config
		logger bool
		want   string
	}{
		{"no database", Config{Project: "p", OpTimeout: time.Second}, true, "Database"},
		{"no timeout", Config{Project: "p", Database: "introductions"}, true, "OpTimeout"},
		{"negative timeout", Config{Project: "p", Database: "introductions", OpTimeout: -time.Second}, true, "OpTimeout"},
		{"no logger", Config{Project: "p", Database: "introductions", OpTimeout: time.Second}, false, "logger"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			logger := discard
			if !tt.logger {
				logger = nil
			}
			s, err := Open(ctx, tt.cfg, logger, unreachable(t)...)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Open = %v, %v; want an error naming %s", s, err, tt.want)
			}
		})
	}
	t.Run("client on another database", func(t *testing.T) {
		c, err := firestore.NewClient(ctx, "p", unreachable(t)...)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		_, err = New(c, Config{Database: emulatortest.Database, OpTimeout: time.Second}, discard)
		if err == nil || !strings.Contains(err.Error(), "(default)") {
			t.Fatalf("New over a (default) client = %v, want refused", err)
		}
	})
	t.Run("nil client", func(t *testing.T) {
		if _, err := New(nil, Config{Database: emulatortest.Database, OpTimeout: time.Second}, discard); err == nil {
			t.Fatal("New(nil) accepted")
		}
	})
	t.Run("every problem named at once", func(t *testing.T) {
		for name, err := range map[string]error{
			"New":  func() error { _, err := New(nil, Config{}, nil); return err }(),
			"Open": func() error { _, err := Open(ctx, Config{}, nil); return err }(),
		} {
			for _, want := range []string{"Database", "OpTimeout", "logger"} {
				if err == nil || !strings.Contains(err.Error(), want) {
					t.Errorf("%s with nothing: %v, want it to name %s", name, err, want)
				}
			}
		}
	})
}

func TestEscapeKey(t *testing.T) {
	long := strings.Repeat("/", 400)
	tests := []struct {
		name, key, want string
	}{
		{"plain", "abc-DEF_1.2~", "abc-DEF_1.2~"},
		{"slash", "a/b", "a%2Fb"},
		{"percent", "a%2Fb", "a%252Fb"},
		{"dot", ".", "%2E"},
		{"dot dot", "..", "%2E."},
		{"reserved underscores", "__x__", "%5F_x__"},
		{"too long", long, "%H" + "8"},
	}
	seen := map[string]string{}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := escapeKey(tt.key)
			if tt.name == "too long" {
				if !strings.HasPrefix(got, "%H") || len(got) != 2+64 {
					t.Fatalf("escapeKey(long) = %q, want %%H and a SHA-256", got)
				}
			} else if got != tt.want {
				t.Fatalf("escapeKey(%q) = %q, want %q", tt.key, got, tt.want)
			}
			if strings.Contains(got, "/") {
				t.Fatalf("escapeKey(%q) = %q holds a slash", tt.key, got)
			}
			if other, dup := seen[got]; dup {
				t.Fatalf("%q and %q escape alike", other, tt.key)
			}
			seen[got] = tt.key
		})
	}
}

func TestTranslate(t *testing.T) {
	domain := intake.Errorf(intake.CodePowSpent, "spent")
	tests := []struct {
		name string
		err  error
		want intake.Code
	}{
		{"nil", nil, ""},
		{"domain error passes", domain, intake.CodePowSpent},
		{"context deadline", context.DeadlineExceeded, intake.CodeUnavailable},
		{"wrapped cancellation", fmt.Errorf("get: %w", context.Canceled), intake.CodeUnavailable},
		{"unavailable", status.Error(codes.Unavailable, "down"), intake.CodeUnavailable},
		{"deadline exceeded", status.Error(codes.DeadlineExceeded, "slow"), intake.CodeUnavailable},
		{"aborted", status.Error(codes.Aborted, "contention"), intake.CodeUnavailable},
		{"resource exhausted", status.Error(codes.ResourceExhausted, "quota"), intake.CodeUnavailable},
		{"not found", status.Error(codes.NotFound, "gone"), intake.CodeInternal},
		{"already exists", status.Error(codes.AlreadyExists, "taken"), intake.CodeInternal},
		{"failed precondition", status.Error(codes.FailedPrecondition, "index"), intake.CodeInternal},
		{"invalid argument", status.Error(codes.InvalidArgument, "bad"), intake.CodeInternal},
		{"permission denied", status.Error(codes.PermissionDenied, "iam"), intake.CodeInternal},
		{"plain error", errors.New("decode"), intake.CodeInternal},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := translate(tt.err)
			if code := codeOf(t, got); code != tt.want {
				t.Fatalf("translate(%v) = %v, want %s", tt.err, got, tt.want)
			}
			if tt.err == nil {
				return
			}
			if !errors.Is(got, tt.err) {
				t.Fatalf("translate lost the cause %v", tt.err)
			}
			var e *intake.Error
			errors.As(got, &e)
			if tt.want == intake.CodeUnavailable && e.RetryAfter <= 0 {
				t.Fatalf("UNAVAILABLE without RetryAfter")
			}
		})
	}
	if translate(domain) != domain {
		t.Fatal("a domain error was rewrapped")
	}
}

// TestOpenOnEmulator: Open connects to the named database (here the
// emulator's, through FIRESTORE_EMULATOR_HOST) and an RPCCounter's options
// still count its calls.
func TestOpenOnEmulator(t *testing.T) {
	client, project := emulatortest.Client(t)
	ctx := context.Background()
	rpcs := &emulatortest.RPCCounter{}
	s, err := Open(ctx, Config{Project: project, Database: emulatortest.Database, OpTimeout: 10 * time.Second}, discard, rpcs.ClientOptions(emulatortest.Host(t))...)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	defer s.Close()
	e := draft("opened", t0).Ledger
	if err := s.Intake(nil).RecordAttempt(ctx, e); err != nil {
		t.Fatalf("RecordAttempt: %v", err)
	}
	if rpcs.Count() != 1 {
		t.Fatalf("RecordAttempt counted %d RPCs, want 1", rpcs.Count())
	}
	snap, err := client.Collection(Ledger).Doc("opened").Get(ctx)
	if err != nil || !snap.Exists() {
		t.Fatalf("the entry is not in database %s of %s: %v", emulatortest.Database, project, err)
	}
}
