package challenge

import (
	"crypto/rand"
	"fmt"

	"github.com/ownersite/introductions/functions/wiring"
	"github.com/ownersite/introductions/shared/altchapow"
	"github.com/ownersite/introductions/shared/intake"
	"github.com/ownersite/introductions/shared/keyring"
	"github.com/ownersite/introductions/shared/secretkeys"
)

// KeysPart names the HMAC keys among an instance's parts.
const KeysPart = "HMAC keys"

// HMACKeys are p's HMAC keys: the secret's versions, following rotations,
// else (without HMAC_SECRET) a random key of this process.
func HMACKeys(p *wiring.Parts) (intake.Keyring, error) {
	return wiring.Part(p, KeysPart, func() (intake.Keyring, error) {
		if err := p.May(wiring.SecretHMAC); err != nil {
			return nil, err
		}
		if p.Config.HMACSecret == "" {
			ring, err := keyring.Local(rand.Reader)
			if err != nil {
				return nil, fmt.Errorf("HMAC keys: %w", err)
			}
			return ring, nil
		}
		rotating, err := secretkeys.Open(p.Context(), p.Config.HMACSecret, p.Logger)
		if err != nil {
			return nil, fmt.Errorf("HMAC keys: %w", err)
		}
		p.OnClose(rotating.Close)
		return rotating, nil
	})
}

// ProofOfWork issues and verifies p's challenges under its HMAC keys.
func ProofOfWork(p *wiring.Parts) (*altchapow.ProofOfWork, error) {
	return wiring.Part(p, "proof of work", func() (*altchapow.ProofOfWork, error) {
		keys, err := HMACKeys(p)
		if err != nil {
			return nil, err
		}
		pow, err := altchapow.New(keys, p.Clock, altchapow.Config{MaxNumber: p.Config.PowMaxNumber, MaxEscalated: p.Config.PowMaxEscalated, Lifetime: p.Config.PowLifetime})
		if err != nil {
			return nil, fmt.Errorf("proof of work: %w", err)
		}
		return pow, nil
	})
}
