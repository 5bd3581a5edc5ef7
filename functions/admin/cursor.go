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

// CursorPurpose is the keyring.Derive purpose of the list cursors' key.
const CursorPurpose = "admin-cursor/v1"

// maxCursor bounds a cursor read back.
const maxCursor = 512

// cursorBody is a cursor's list position and key version.
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

// encodeCursor makes a list position opaque and authenticated by an HMAC under the current
// key's CursorPurpose key, readable on any instance holding that version.
func (h *Handlers) encodeCursor(p *intake.ListPosition) string {
	if p == nil {
		return ""
	}
	version, master := h.Keys.Current()
	body, _ := json.Marshal(cursorBody{T: p.ConfirmedAt.UTC(), I: p.ID, K: version})
	return b64.EncodeToString(body) + "." + b64.EncodeToString(cursorMAC(master, body))
}

// decodeCursor reads a cursor encodeCursor made: nil for "", CURSOR_INVALID otherwise.
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
