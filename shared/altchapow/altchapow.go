// Package altchapow is the ALTCHA v1 proof of work, over
// github.com/altcha-org/altcha-lib-go v1.0.0: Issue hands out signed
// challenges with an expiry, a key version and a max number in the salt;
// Verify checks a solution without touching any store. README.md has the
// salt's format.
package altchapow

import (
	"cmp"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	altcha "github.com/altcha-org/altcha-lib-go"

	"github.com/ownersite/introductions/shared/intake"
	"github.com/ownersite/introductions/shared/keyring"
	"github.com/ownersite/introductions/shared/strictjson"
)

const (
	Purpose       = "altcha-v1" // the keyring.Derive purpose of the challenge-signing key
	Algorithm     = "SHA-256"   // the one ALTCHA algorithm issued and accepted
	Field         = "altcha"    // the body field proof-of-work errors are reported on
	MaxPayloadLen = 4096        // the longest payload Verify reads, in base64 characters
)

// Defaults (of a zero Config) and bounds (that New accepts) of Config.
const (
	DefaultMaxNumber   int64         = 100_000
	DefaultLifetime    time.Duration = 10 * time.Minute
	MaxMaxNumber       int64         = 100_000_000
	MaxEscalatedNumber int64         = 100_000_000_000
	DefaultEscalation                = 1000 // how many times MaxNumber a zero MaxEscalated allows
	MaxLifetime                      = 24 * time.Hour
)

const (
	maxSaltLen = 1024 // keeps every issued payload within MaxPayloadLen
	saltBytes  = 12   // random bytes the salt starts with, as hex
	// The reserved salt params, set by Issue and required by Verify.
	paramExpires, paramKey, paramMaxNumber = "expires", "kv", "mn"
)

// Reasons a payload is refused: the Cause of Verify's *intake.Error, for logs only. ErrMissing
// is POW_REQUIRED, ErrExpired POW_EXPIRED, the others POW_INVALID.
var (
	ErrMissing     = errors.New("altchapow: no payload")
	ErrMalformed   = errors.New("altchapow: malformed payload") // not strict base64 JSON, not SHA-256, a bad number or salt
	ErrNoExpiry    = errors.New("altchapow: challenge without expiry")
	ErrUnknownKey  = errors.New("altchapow: unknown key version") // no single kv, or a key not held or too short
	ErrBadSolution = errors.New("altchapow: hash or signature mismatch")
	ErrExpired     = errors.New("altchapow: challenge expired")
)

// Client-safe details, one per code.
const (
	detailRequired = "The proof of work is missing; please let the page finish it."
	detailInvalid  = "The proof of work could not be checked; please let the page solve a new one."
	detailExpired  = "The proof of work has expired; please let the page solve a new one."
)

// Config tunes the challenges; zero values take the defaults.
type Config struct {
	MaxNumber    int64         // the largest secret number a challenge hides
	MaxEscalated int64         // the largest max number IssueAt signs
	Lifetime     time.Duration // how long a challenge can be solved and spent
	Random       io.Reader     // salts and secret numbers; crypto/rand.Reader when nil
}

// ProofOfWork issues and verifies ALTCHA v1 challenges; safe for concurrent use.
type ProofOfWork struct {
	keys         intake.Keyring
	clock        intake.Clock
	maxNumber    int64
	maxEscalated int64
	lifetime     time.Duration

	randMu sync.Mutex
	random io.Reader
}

// New returns a ProofOfWork signing with keys' current key. It refuses nil keys or clock, a
// Config outside its ranges (zero values take the defaults) and a current key shorter than
// keyring.MinKeyLen.
func New(keys intake.Keyring, clock intake.Clock, cfg Config) (*ProofOfWork, error) {
	var problems []error
	if keys == nil {
		problems = append(problems, errors.New("altchapow: no keyring"))
	} else if _, k := keys.Current(); len(k) < keyring.MinKeyLen {
		problems = append(problems, fmt.Errorf("altchapow: current key is shorter than %d bytes", keyring.MinKeyLen))
	}
	if clock == nil {
		problems = append(problems, errors.New("altchapow: no clock"))
	}
	if cfg.MaxNumber == 0 {
		cfg.MaxNumber = DefaultMaxNumber
	}
	if cfg.MaxNumber < 1 || cfg.MaxNumber > MaxMaxNumber {
		problems = append(problems, fmt.Errorf("altchapow: MaxNumber %d is outside 1..%d", cfg.MaxNumber, MaxMaxNumber))
	}
	if cfg.MaxEscalated == 0 {
		cfg.MaxEscalated = min(DefaultEscalation*cfg.MaxNumber, MaxEscalatedNumber)
	}
	if cfg.MaxEscalated < cfg.MaxNumber || cfg.MaxEscalated > MaxEscalatedNumber {
		problems = append(problems, fmt.Errorf("altchapow: MaxEscalated %d is outside MaxNumber %d..%d", cfg.MaxEscalated, cfg.MaxNumber, MaxEscalatedNumber))
	}
	if cfg.Lifetime == 0 {
		cfg.Lifetime = DefaultLifetime
	}
	if cfg.Lifetime < time.Second || cfg.Lifetime > MaxLifetime {
		problems = append(problems, fmt.Errorf("altchapow: Lifetime %v is outside 1s..%v", cfg.Lifetime, MaxLifetime))
	}
	if err := errors.Join(problems...); err != nil {
		return nil, err
	}
	return &ProofOfWork{keys: keys, clock: clock, maxNumber: cfg.MaxNumber, maxEscalated: cfg.MaxEscalated,
		lifetime: cfg.Lifetime, random: cmp.Or[io.Reader](cfg.Random, rand.Reader)}, nil
}

// Challenge is an ALTCHA v1 challenge: {"algorithm","challenge","maxnumber","salt","signature"}.
type Challenge struct {
	Algorithm string `json:"algorithm"`
	Challenge string `json:"challenge"`
	MaxNumber int64  `json:"maxnumber"`
	Salt      string `json:"salt"`
	Signature string `json:"signature"`
}

// Issue returns a new challenge of the base max number, as IssueAt does.
func (p *ProofOfWork) Issue(params url.Values) (Challenge, error) {
	return p.IssueAt(p.maxNumber, params)
}

// IssueAt returns a challenge hiding a number up to maxNumber (clamped to MaxNumber..MaxEscalated),
// expiring Lifetime from now, with params in its salt. It fails when params use a reserved name
// (expires, kv, mn) or make the salt too long, when the current key is too short, or when the
// random source fails.
func (p *ProofOfWork) IssueAt(maxNumber int64, params url.Values) (Challenge, error) {
	maxNumber = min(max(maxNumber, p.maxNumber), p.maxEscalated)
	signed := url.Values{}
	for name, values := range params {
		if name == paramExpires || name == paramKey || name == paramMaxNumber {
			return Challenge{}, fmt.Errorf("altchapow: param %q is reserved", name)
		}
		signed[name] = append([]string(nil), values...)
	}
	version, master := p.keys.Current()
	if len(master) < keyring.MinKeyLen {
		return Challenge{}, fmt.Errorf("altchapow: current key is shorter than %d bytes; refusing to sign", keyring.MinKeyLen)
	}
	signed.Set(paramKey, version)
	signed.Set(paramMaxNumber, strconv.FormatInt(maxNumber, 10))
	expires := p.clock.Now().Add(p.lifetime)

	salt, number, err := p.draw(maxNumber)
	if err != nil {
		return Challenge{}, fmt.Errorf("altchapow: drawing a challenge: %w", err)
	}
	c, err := altcha.CreateChallenge(altcha.ChallengeOptions{
		Algorithm: altcha.SHA256,
		MaxNumber: maxNumber,
		HMACKey:   string(keyring.Derive(master, Purpose)),
		Salt:      salt,
		Number:    &number,
		Expires:   &expires,
		Params:    signed,
	})
	if err != nil {
		return Challenge{}, fmt.Errorf("altchapow: creating a challenge: %w", err)
	}
	if len(c.Salt) > maxSaltLen {
		return Challenge{}, fmt.Errorf("altchapow: params make a salt of %d bytes, more than %d", len(c.Salt), maxSaltLen)
	}
	return Challenge{Algorithm: c.Algorithm, Challenge: c.Challenge, MaxNumber: c.MaxNumber, Salt: c.Salt, Signature: c.Signature}, nil
}

// draw reads a random salt prefix and a secret number in [0, maxNumber].
func (p *ProofOfWork) draw(maxNumber int64) (string, int64, error) {
	p.randMu.Lock()
	defer p.randMu.Unlock()
	b := make([]byte, saltBytes)
	if _, err := io.ReadFull(p.random, b); err != nil {
		return "", 0, err
	}
	n, err := rand.Int(p.random, big.NewInt(maxNumber+1))
	if err != nil {
		return "", 0, err
	}
	return hex.EncodeToString(b), n.Int64(), nil
}

// Verify checks a solved payload (base64 of the ALTCHA v1 payload JSON) and returns the
// challenge it spends; the caller must remember it. Errors: *intake.Error on field "altcha":
// POW_REQUIRED when empty, POW_EXPIRED past its expiry, POW_INVALID otherwise, with an Err*
// Cause.
func (p *ProofOfWork) Verify(payload string) (intake.SpentChallenge, error) {
	if payload == "" {
		return intake.SpentChallenge{}, refuse(intake.CodePowRequired, detailRequired, ErrMissing)
	}
	pl, expires, version, maxNumber, err := parsePayload(payload)
	if err != nil {
		return intake.SpentChallenge{}, refuse(intake.CodePowInvalid, detailInvalid, err)
	}
	master, ok := p.keys.Key(version)
	if !ok || len(master) < keyring.MinKeyLen {
		return intake.SpentChallenge{}, refuse(intake.CodePowInvalid, detailInvalid, ErrUnknownKey)
	}
	valid, err := altcha.VerifySolutionSafe(pl, string(keyring.Derive(master, Purpose)), false)
	if err != nil || !valid {
		return intake.SpentChallenge{}, refuse(intake.CodePowInvalid, detailInvalid, ErrBadSolution)
	}
	expireAt := time.Unix(expires, 0)
	if !expireAt.After(p.clock.Now()) {
		return intake.SpentChallenge{}, refuse(intake.CodePowExpired, detailExpired, ErrExpired)
	}
	key := sha256.Sum256([]byte("altcha-v1 spent\n" + pl.Challenge))
	if maxNumber == 0 {
		maxNumber = p.maxNumber
	}
	return intake.SpentChallenge{Key: hex.EncodeToString(key[:]), ExpireAt: expireAt, MaxNumber: maxNumber}, nil
}

// parsePayload checks everything about a payload that needs no key.
func parsePayload(payload string) (pl altcha.Payload, expires int64, version string, maxNumber int64, err error) {
	if len(payload) > MaxPayloadLen {
		return pl, 0, "", 0, ErrMalformed
	}
	raw, err := base64.StdEncoding.Strict().DecodeString(payload)
	// DecodeString skips '\r' and '\n'; re-encoding refuses them too.
	if err != nil || base64.StdEncoding.EncodeToString(raw) != payload {
		return pl, 0, "", 0, ErrMalformed
	}
	var fields struct {
		Algorithm string `json:"algorithm"`
		Challenge string `json:"challenge"`
		Number    *int64 `json:"number"`
		Salt      string `json:"salt"`
		Signature string `json:"signature"`
	}
	if strictjson.Decode(raw, &fields, strictjson.IgnoreUnknown) != nil || fields.Algorithm != Algorithm || fields.Number == nil || *fields.Number < 0 {
		return pl, 0, "", 0, ErrMalformed
	}
	salt := fields.Salt
	if strings.Count(salt, "?") != 1 || !strings.HasSuffix(salt, "&") {
		return pl, 0, "", 0, ErrMalformed
	}
	params, err := url.ParseQuery(salt[strings.IndexByte(salt, '?')+1:])
	if err != nil {
		return pl, 0, "", 0, ErrMalformed
	}
	e := params[paramExpires]
	if len(e) != 1 {
		return pl, 0, "", 0, ErrNoExpiry
	}
	expires, err = strconv.ParseInt(e[0], 10, 64)
	if err != nil || expires <= 0 {
		return pl, 0, "", 0, ErrNoExpiry
	}
	kv := params[paramKey]
	if len(kv) != 1 || kv[0] == "" {
		return pl, 0, "", 0, ErrUnknownKey
	}
	if mn, ok := params[paramMaxNumber]; ok {
		if len(mn) != 1 {
			return pl, 0, "", 0, ErrMalformed
		}
		maxNumber, err = strconv.ParseInt(mn[0], 10, 64)
		if err != nil || maxNumber < 1 {
			return pl, 0, "", 0, ErrMalformed
		}
	}
	pl = altcha.Payload{Algorithm: fields.Algorithm, Challenge: fields.Challenge, Number: *fields.Number, Salt: salt, Signature: fields.Signature}
	return pl, expires, kv[0], maxNumber, nil
}

// refuse builds the one error shape Verify returns.
func refuse(code intake.Code, detail string, reason error) error {
	e := intake.Invalid(intake.FieldError{Field: Field, Code: code, Detail: detail})
	e.Cause = reason
	return e
}
