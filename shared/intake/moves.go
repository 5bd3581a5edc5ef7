package intake

import (
	"crypto/sha256"
	"crypto/subtle"
	"time"
)

// HashToken returns the SHA-256 of a confirmation token, its only stored form.
func HashToken(token string) []byte {
	h := sha256.Sum256([]byte(token))
	return h[:]
}

func (in *Introduction) heldBy(tokenHash []byte, now time.Time) bool {
	return in.Live(now) && len(in.TokenHash) == sha256.Size &&
		subtle.ConstantTimeCompare(in.TokenHash, tokenHash) == 1
}

// ConfirmBy confirms for the holder of tokenHash and keeps the introduction keepFor from now;
// changed is false for a repeat. Errors: ErrNotFound.
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

// WithdrawBy withdraws for the holder of tokenHash. Errors: ErrNotFound; STATE_CONFLICT for a
// draft.
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

// HandleAt applies the handle move. Errors: STATE_CONFLICT; ErrNotFound when gone.
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
