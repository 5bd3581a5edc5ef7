package intakeflow

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"io"
	"net/netip"
	"regexp"
	"sync"

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

// keyedHash is the HMAC of kind and value under the pepper: how a client
// address, an email or an Idempotency-Key is named in storage and logs,
// never raw. The pepper does not rotate with the HMAC keys, so neither do
// these names.
func (s *Service) keyedHash(kind, value string) string {
	mac := hmac.New(sha256.New, keyring.Derive(s.Pepper, "keyed-hash/v1"))
	mac.Write([]byte(kind))
	mac.Write([]byte{0})
	mac.Write([]byte(value))
	return hex.EncodeToString(mac.Sum(nil))
}

// draftKeys are the keyed hashes a draft is named by in storage and logs,
// computed once per request by keysOf ("" for what the draft has none of):
// its client network (clientPrefix), its Idempotency-Key, its email, and
// its message and sender for the repeated-message check.
type draftKeys struct{ client, idempotency, email, message, sender string }

// keysOf computes req's draftKeys. The email key is what the email limit
// counts: drafts naming one address (in contentrules.NormaliseEmail's one
// normal form, so invisible characters, full-width letters, case and +tags
// do not make a new sender) from one client network.
//
// The threat it defends against is a lock-out: were the key the address
// alone, anyone who knows a recruiter's address could send five drafts in
// their name and refuse the recruiter's own introduction for an hour. With
// the network in the key, drafts in someone's name spend only the sender's
// own budget, and the recruiter, writing from their own network, is never
// refused for what a stranger did. What it gives up: many networks naming
// one address are each limited on their own — they still pay a proof of
// work and the address limit per draft, and nothing reaches the owner
// unconfirmed.
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

// clientPrefix is the rate-limit identity of an address: IPv4 as is, IPv6
// by its /64.
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

func (s *Service) newToken() (string, error) {
	b, err := s.random(tokenBytes)
	if err != nil {
		return "", err
	}
	return b64.EncodeToString(b), nil
}

var (
	idPattern    = lazyPattern(`^[A-Za-z0-9_-]{22}$`)
	tokenPattern = lazyPattern(`^[A-Za-z0-9_-]{43}$`)
)

// pattern is a regular expression compiled on its first use, not at
// start-up: every function links this package through the route table,
// and compiling these counted repetitions costs thousands of allocations.
type pattern func() *regexp.Regexp

func lazyPattern(expr string) pattern {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}

// MatchString reports whether s matches the pattern.
func (p pattern) MatchString(s string) bool { return p().MatchString(s) }

// decoyMAC is the keyed hash that marks a honeypot's decoy. It is keyed
// from the pepper, which does not rotate, not from the HMAC keys: a decoy id
// names no key version, so a decoy keyed from a rotating key would be a
// stranger to an instance that has not yet read the newest key (or no
// longer holds the old one) — a 404 where a real draft is confirmed, which
// would tell a bot its draft was a decoy.
func (s *Service) decoyMAC(data []byte) []byte {
	mac := hmac.New(sha256.New, keyring.Derive(s.Pepper, "decoy/v2"))
	mac.Write(data)
	return mac.Sum(nil)
}

// newIdentity returns a fresh id and token — for a draft, a random id that
// is never a decoy's and a random token; for a honeypot's decoy, newDecoy's
// — and, for an Idempotency-Key, the token sealed under it.
func (s *Service) newIdentity(decoy bool, idempotencyKey string) (id, token string, sealed []byte, err error) {
	if decoy {
		id, token, err = s.newDecoy()
	} else if id, err = s.newID(); err == nil {
		token, err = s.newToken()
	}
	if err == nil && idempotencyKey != "" {
		sealed, err = s.seal(idempotencyKey, token)
	}
	return id, token, sealed, err
}

// newDecoy returns an id and token for a honeypot's decoy: they look like
// real ones (random, of the same length), and both are recognised later by
// a keyed hash — the id carries a tag over its random part, and the token
// is derived from the id — so that every instance knows a decoy's id and
// its token without storing either.
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

// claimOf is the claim of the holder of token on id; for a decoy, with
// the hash of the decoy's own token, which no record keeps.
func (s *Service) claimOf(id, token string) intake.Claim {
	c := intake.Claim{ID: id, TokenHash: intake.HashToken(token)}
	if s.isDecoy(id) {
		c.DecoyTokenHash = intake.HashToken(s.decoyToken(id))
	}
	return c
}

// sealKey derives the key that seals a draft's token for replays from the
// Idempotency-Key itself: the database holds only the key's keyed hash, so
// it alone never yields a usable token.
func sealKey(idempotencyKey string) []byte {
	mac := hmac.New(sha256.New, []byte(idempotencyKey))
	mac.Write([]byte("introductions/idempotency-seal/v1"))
	return mac.Sum(nil)
}

func (s *Service) seal(idempotencyKey, token string) ([]byte, error) {
	block, err := aes.NewCipher(sealKey(idempotencyKey))
	if err != nil {
		return nil, err
	}
	gcm, err := cipher.NewGCM(block)
	if err != nil {
		return nil, err
	}
	nonce, err := s.random(gcm.NonceSize())
	if err != nil {
		return nil, err
	}
	return gcm.Seal(nonce, nonce, []byte(token), nil), nil
}

func unseal(idempotencyKey string, sealed []byte) (string, error) {
	block, err := aes.NewCipher(sealKey(idempotencyKey))
	if err != nil {
		return "", err
	}
	gcm, err := cipher.NewGCM(block)
	if err != nil {
		return "", err
	}
	if len(sealed) < gcm.NonceSize() {
		return "", errors.New("sealed token too short")
	}
	plain, err := gcm.Open(nil, sealed[:gcm.NonceSize()], sealed[gcm.NonceSize():], nil)
	return string(plain), err
}

// idempotencyKeyPattern accepts what the IETF draft allows in practice: a
// client-made string of 8 to 255 visible ASCII characters (UUIDs, ULIDs,
// random base64).
var idempotencyKeyPattern = lazyPattern(`^[\x21-\x7e]{8,255}$`)
