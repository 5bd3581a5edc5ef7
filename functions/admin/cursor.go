package admin

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"strings"
	"time"

	"github.com/ownersite/introductions/shared/intake"
	"github.com/ownersite/introductions/shared/keyring"
)

// CursorPurpose is the keyring.Derive purpose of the key that signs the
// list's cursors, so a cursor's MAC is never a challenge's or a decoy's.
const CursorPurpose = "admin-cursor/v1"

// maxCursor bounds the length of a cursor read back (one the list made is
// about 130 characters).
const maxCursor = 512

// cursorBody is what a cursor says: the list position and the version of
// the HMAC key that signed it.
type cursorBody struct {
	T time.Time `json:"t"`
	I string    `json:"i"`
	K string    `json:"k"`
}

var b64 = base64.RawURLEncoding

func cursorMAC(master []byte, body []byte) []byte {
	m := hmac.New(sha256.New, keyring.Derive(master, CursorPurpose))
	m.Write(body)
	return m.Sum(nil)
}

// encodeCursor makes a list position opaque to clients and authenticated:
// the position and the key version, then an HMAC-SHA256 over them under
// the current HMAC key's CursorPurpose key. Any instance holding that key
// version reads it back, so a cursor outlives the instance that made it
// and a key rotation (while the older version is enabled).
func (h *Handlers) encodeCursor(p *intake.ListPosition) string {
	if p == nil {
		return ""
	}
	version, master := h.Keys.Current()
	body, _ := json.Marshal(cursorBody{T: p.ConfirmedAt.UTC(), I: p.ID, K: version})
	return b64.EncodeToString(body) + "." + b64.EncodeToString(cursorMAC(master, body))
}

// decodeCursor reads a cursor encodeCursor made: nil for "",
// CURSOR_INVALID for anything it did not make (whatever its form: a
// forged position, however well formed, fails the MAC).
func (h *Handlers) decodeCursor(s string) (*intake.ListPosition, error) {
	if s == "" {
		return nil, nil
	}
	bad := intake.Errorf(intake.CodeCursorInvalid, "The cursor is not one this list gave out; start again without it.")
	encBody, encMAC, ok := strings.Cut(s, ".")
	if !ok || len(s) > maxCursor {
		return nil, bad
	}
	body, err1 := b64.DecodeString(encBody)
	mac, err2 := b64.DecodeString(encMAC)
	var c cursorBody
	if err1 != nil || err2 != nil || json.Unmarshal(body, &c) != nil || c.K == "" {
		return nil, bad
	}
	master, ok := h.Keys.Key(c.K)
	if !ok || !hmac.Equal(mac, cursorMAC(master, body)) {
		return nil, bad
	}
	if c.T.IsZero() || !intake.StorableID(c.I) {
		return nil, bad
	}
	return &intake.ListPosition{ConfirmedAt: c.T, ID: c.I}, nil
}
