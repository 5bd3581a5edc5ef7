package intake

import (
	"errors"
	"testing"
	"time"
)

func TestEveryMoveOfEveryState(t *testing.T) {
	legal := map[State]map[Move]State{
		StateDraft:     {MoveConfirm: StateConfirmed},
		StateConfirmed: {MoveHandle: StateHandled, MoveWithdraw: StateWithdrawn},
		StateHandled:   {MoveWithdraw: StateWithdrawn},
		StateWithdrawn: {},
		State("BOGUS"): {},
	}
	moves := []Move{MoveConfirm, MoveHandle, MoveWithdraw, Move("teleport")}
	for from, allowed := range legal {
		for _, m := range moves {
			t.Run(string(from)+"/"+string(m), func(t *testing.T) {
				next, err := from.Next(m)
				want, ok := allowed[m]
				if ok {
					if err != nil || next != want {
						t.Fatalf("%s --%s--> %q, %v; want %q", from, m, next, err, want)
					}
					return
				}
				var e *Error
				if !errors.As(err, &e) || e.Code != CodeStateConflict || next != from {
					t.Fatalf("%s --%s--> %q, %v; want STATE_CONFLICT and no move", from, m, next, err)
				}
			})
		}
	}
}

func TestConfirmByAndWithdrawBy(t *testing.T) {
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	token := HashToken("the-token")
	draft := func() *Introduction {
		return &Introduction{ID: "x", State: StateDraft, TokenHash: token, ExpireAt: now.Add(time.Minute),
			Consents: []ConsentEvidence{{Purpose: "p"}}}
	}
	in := draft()
	changed, err := in.ConfirmBy(token, now, time.Hour)
	if err != nil || !changed || in.State != StateConfirmed || !in.ConfirmedAt.Equal(now) || !in.ExpireAt.Equal(now.Add(time.Hour)) || !in.Consents[0].ConfirmedAt.Equal(now) {
		t.Fatalf("confirm: %v %v %+v", changed, err, in)
	}
	if changed, err := in.ConfirmBy(token, now.Add(time.Second), time.Hour); err != nil || changed || !in.ConfirmedAt.Equal(now) {
		t.Fatalf("a repeat must not change anything: %v %v", changed, err)
	}
	if _, err := draft().ConfirmBy(HashToken("wrong"), now, time.Hour); err != ErrNotFound {
		t.Fatalf("wrong token: %v", err)
	}
	if _, err := draft().ConfirmBy(token, now.Add(time.Minute), time.Hour); err != ErrNotFound {
		t.Fatalf("expired draft (expireAt == now): %v", err)
	}
	if err := draft().WithdrawBy(token, now); CodeOf(err) != CodeStateConflict {
		t.Fatalf("withdrawing a draft: %v", err)
	}
	if err := in.WithdrawBy(HashToken("wrong"), now); err != ErrNotFound {
		t.Fatalf("withdraw with a wrong token: %v", err)
	}
	if err := in.WithdrawBy(token, now); err != nil || in.State != StateWithdrawn {
		t.Fatalf("withdraw: %v %s", err, in.State)
	}
}

func TestRateKeyAdmitRollsTheWindow(t *testing.T) {
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	k := RateKey{RateRule: RateRule{Layer: "ip", Limit: 2, Window: time.Hour}, KeyHash: "h"}
	hits := []time.Time{now.Add(-2 * time.Hour), now.Add(-30 * time.Minute), now.Add(-10 * time.Minute)}
	kept, d, wait := k.Admit(hits, now)
	if d.Decision != RateBlock || d.Count != 2 || len(kept) != 2 || wait != 31*time.Minute {
		t.Fatalf("at the limit: %+v kept %d wait %s", d, len(kept), wait)
	}
	kept, d, wait = k.Admit(hits, now.Add(31*time.Minute))
	if d.Decision != RateAllow || d.Count != 2 || len(kept) != 2 || wait != 0 {
		t.Fatalf("after the oldest hit left the window: %+v kept %d", d, len(kept))
	}
}

func TestInvalidWithoutAFieldIsInternal(t *testing.T) {
	if err := Invalid(); err.Code != CodeInternal {
		t.Fatalf("Invalid() = %v", err)
	}
}

func TestHandleAt(t *testing.T) {
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name  string
		state State
		live  bool
		code  Code
	}{
		{"confirmed", StateConfirmed, true, ""},
		{"handled again", StateHandled, true, CodeStateConflict},
		{"draft", StateDraft, true, CodeStateConflict},
		{"expired", StateConfirmed, false, CodeNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := Introduction{State: tt.state, ExpireAt: now.Add(time.Hour)}
			if !tt.live {
				in.ExpireAt = now
			}
			err := in.HandleAt(now)
			if CodeOf(err) != tt.code {
				t.Fatalf("HandleAt = %v, want code %q", err, tt.code)
			}
			if err == nil && (in.State != StateHandled || !in.HandledAt.Equal(now)) {
				t.Fatalf("after HandleAt: %s at %v", in.State, in.HandledAt)
			}
			if err != nil && !in.HandledAt.IsZero() {
				t.Fatal("a refused move set the handled time")
			}
		})
	}
}
