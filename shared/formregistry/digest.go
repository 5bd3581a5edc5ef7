package formregistry

import (
	"crypto/sha256"
	"encoding/hex"
	"maps"
	"slices"
)

// ConsentDigest is the hex SHA-256 of every consent purpose the registry
// knows (retired versions included) with its basis, text and control:
// registries with the same digest judge stored consent evidence alike.
func (r *Registry) ConsentDigest() string {
	h := sha256.New()
	for _, formID := range r.FormIDs() {
		for _, name := range slices.Sorted(maps.Keys(r.forms[formID])) {
			base := r.forms[formID][name]
			for _, lang := range base.langs {
				v := base.inLang[lang]
				for _, p := range v.Purposes {
					if p.Consent == nil {
						continue
					}
					for _, s := range []string{formID, name, lang, p.ID, string(p.Basis), p.Consent.TextVersion, p.Consent.SHA256, p.Consent.Control} {
						h.Write([]byte(s))
						h.Write([]byte{0})
					}
					h.Write([]byte{1})
				}
			}
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}
