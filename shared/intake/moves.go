package intake

import (
	"crypto/sha256"
	"crypto/subtle"
	"time"
)

// HashToken returns the SHA-256 of a confirmation token: the only form in
// which a token is stored.
func HashToken(token string) []byte {
	h := sha256.Sum256([]byte(token))
	return h[:]
}

func (in *Introduction) heldBy(tokenHash []byte, now time.Time) bool {
	return in.Live(now) && len(in.TokenHash) == sha256.Size &&
		subtle.ConstantTimeCompare(in.TokenHash, tokenHash) == 1
}

// ConfirmBy applies the confirm move for the holder of tokenHash at now and
// keeps the introduction for keepFor from now. It reports changed=false for
// a repeat on an introduction already confirmed (or handled): the same
// success, no second transition. An expired draft, or a token that does not
// match, is ErrNotFound.
func (in *Introduction) ConfirmBy(tokenHash []byte, now time.Time, keepFor time.Duration) (changed bool, err error) {
	if !in.heldBy(tokenHash, now) {
		return false, ErrNotFound
	}
	if in.State == StateConfirmed || in.State == StateHandled {
		return false, nil
	}
	next, err := in.State.Next(MoveConfirm)
	if err != nil {
		return false, err
	}
	in.State = next
	in.ConfirmedAt = now
	in.ExpireAt = now.Add(keepFor)
	for i := range in.Consents {
		in.Consents[i].ConfirmedAt = now
	}
	return true, nil
}

// WithdrawBy applies the withdraw move for the holder of tokenHash at now.
// ErrNotFound when the token does not match or the introduction is gone;
// STATE_CONFLICT for a draft, which is never sent and simply expires.
func (in *Introduction) WithdrawBy(tokenHash []byte, now time.Time) error {
	if !in.heldBy(tokenHash, now) {
		return ErrNotFound
	}
	next, err := in.State.Next(MoveWithdraw)
	if err != nil {
		return err
	}
	in.State = next
	return nil
}

// HandleAt applies the handle move (the owner has dealt with the
// introduction) at now. STATE_CONFLICT when the state does not allow it: a
// draft, or an introduction already handled; ErrNotFound when it is gone.
func (in *Introduction) HandleAt(now time.Time) error {
	if !in.Live(now) {
		return ErrNotFound
	}
	next, err := in.State.Next(MoveHandle)
	if err != nil {
		return err
	}
	in.State = next
	in.HandledAt = now
	return nil
}
