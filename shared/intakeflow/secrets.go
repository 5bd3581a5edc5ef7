package intakeflow

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"io"
	"net/netip"
	"strings"

	"github.com/ownersite/introductions/shared/contentrules"
	"github.com/ownersite/introductions/shared/intake"
	"github.com/ownersite/introductions/shared/keyring"
	"github.com/ownersite/introductions/shared/spamsignals"
)

const (
	idBytes    = 16 // 128-bit ids
	tokenBytes = 32 // 256-bit tokens, from a CSPRNG
	decoyTag   = 6  // bytes of an id that authenticate a honeypot decoy
)

var b64 = base64.RawURLEncoding

// keyedHash is the HMAC of kind and value under the pepper: how a source,
// an email or an Idempotency-Key is named in storage and logs.
func (s *Service) keyedHash(kind, value string) string {
	mac := hmac.New(sha256.New, keyring.Derive(s.Pepper, "keyed-hash/v1"))
	mac.Write([]byte(kind))
	mac.Write([]byte{0})
	mac.Write([]byte(value))
	return hex.EncodeToString(mac.Sum(nil))
}

// draftKeys are a draft's keyed hashes, once per request ("" for none). The
// email key joins the client network, so that drafts in someone's name spend
// only the sender's budget, never the address owner's (README.md).
type draftKeys struct{ client, idempotency, email, message, sender string }

func (s *Service) keysOf(req DraftRequest) draftKeys {
	f, prefix := req.Submission.Fields, clientPrefix(req.Client)
	email, repeat := contentrules.NormaliseEmail(f.Email), spamsignals.RepeatKey(f.Message)
	k := draftKeys{client: s.keyedHash("ip", prefix)}
	if req.IdempotencyKey != "" {
		k.idempotency = s.keyedHash("idempotency", req.IdempotencyKey)
	}
	if f.Email != "" {
		k.email = s.keyedHash("email", email+"\x00"+prefix)
	}
	if repeat != "" {
		k.message, k.sender = s.keyedHash("message", repeat), s.keyedHash("message-sender", email)
	}
	return k
}

// clientPrefix is an address's rate-limit identity: IPv4 as is, IPv6 by its /64.
func clientPrefix(addr netip.Addr) string {
	addr = addr.Unmap()
	if !addr.IsValid() {
		return "unknown"
	}
	if addr.Is6() {
		p, _ := addr.Prefix(64)
		return p.String()
	}
	return addr.String()
}

func (s *Service) random(n int) ([]byte, error) {
	b := make([]byte, n)
	_, err := io.ReadFull(s.Entropy, b)
	return b, err
}

// newID returns a fresh 128-bit id that can never be mistaken for a decoy.
func (s *Service) newID() (string, error) {
	for {
		b, err := s.random(idBytes)
		if err != nil {
			return "", err
		}
		id := b64.EncodeToString(b)
		if !s.isDecoy(id) {
			return id, nil
		}
	}
}

// wellFormed reports whether s is n characters of the URL-safe base64 alphabet.
func wellFormed(s string, n int) bool {
	return len(s) == n && !strings.ContainsFunc(s, func(r rune) bool {
		return !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || r == '-' || r == '_')
	})
}

// decoyMAC is the keyed hash that marks a decoy, keyed from the pepper so
// that every instance knows a decoy across HMAC key rotations.
func (s *Service) decoyMAC(data []byte) []byte {
	mac := hmac.New(sha256.New, keyring.Derive(s.Pepper, "decoy/v2"))
	mac.Write(data)
	return mac.Sum(nil)
}

// newDecoy returns a decoy's id and token: the id carries a keyed tag and
// the token derives from the id, so that neither is stored.
func (s *Service) newDecoy() (id, token string, err error) {
	b, err := s.random(idBytes - decoyTag)
	if err != nil {
		return "", "", err
	}
	id = b64.EncodeToString(append(b, s.decoyMAC(b)[:decoyTag]...))
	return id, s.decoyToken(id), nil
}

func (s *Service) decoyToken(id string) string {
	return b64.EncodeToString(s.decoyMAC([]byte("token:" + id))[:tokenBytes])
}

// isDecoy reports whether id is a honeypot decoy's.
func (s *Service) isDecoy(id string) bool {
	raw, err := b64.DecodeString(id)
	if err != nil || len(raw) != idBytes {
		return false
	}
	body, tag := raw[:idBytes-decoyTag], raw[idBytes-decoyTag:]
	return hmac.Equal(s.decoyMAC(body)[:decoyTag], tag)
}

// claimOf is the claim of token's holder on id (for a decoy, with its token's hash).
func (s *Service) claimOf(id, token string) intake.Claim {
	c := intake.Claim{ID: id, TokenHash: intake.HashToken(token)}
	if s.isDecoy(id) {
		c.DecoyTokenHash = intake.HashToken(s.decoyToken(id))
	}
	return c
}
