package contentrules

import (
	"crypto/sha256"
	"encoding/hex"
)

// SubjectKey names the data subject behind an email address: the SHA-256,
// in hex, of the address as NormaliseEmail makes it, so that "Ada@Example.com"
// and "ada+jobs@example.com " name the same person. It is stored beside the
// address (never instead of it, and never in the ledger) so that a data
// subject's request finds every introduction of theirs with one indexed
// query. It is no secret: whoever reads the introduction reads the address.
func SubjectKey(email string) string {
	sum := sha256.Sum256([]byte("subject/v1\x00" + NormaliseEmail(email)))
	return hex.EncodeToString(sum[:])
}
