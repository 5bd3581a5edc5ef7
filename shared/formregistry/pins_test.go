package formregistry

import "testing"

// A published version never changes. These pins make an in-place
// edit fail the build: a change to a form's fields, limits, purposes or texts
// belongs in a new version file, with its own pins added here. Never update
// a pin to make this test pass.

type versionKey struct{ form, version string }

type textKey struct{ form, version, textVersion string }

// pinnedFiles are the SHA-256 of every version file ever published.
var pinnedFiles = map[versionKey]string{
	{"introduction", "1"}: "797e54e7df16f10b62870a8509025ac29b05bdbab79a2a7da27ada8b0773e8e7",
	{"introduction", "2"}: "4caccde3208d1d3e06bbedfba965274fdb974ba8397f99337818306ac326552d",
}

// pinnedTexts are the SHA-256 of every consent and notice text ever
// published, by form, version and textVersion.
var pinnedTexts = map[textKey]string{
	{"introduction", "1", "attach-conversation/1"}: "9ac670f0737173f4355b33999d2d3bb701375610985158b6235d637c8cbdcb82",
	{"introduction", "1", "introduction-notice/1"}: "7192e28a943601e223edcb38c7456d7e34dd2cab9521968066852d8dae2c4cc8",
	{"introduction", "2", "attach-conversation/1"}: "9ac670f0737173f4355b33999d2d3bb701375610985158b6235d637c8cbdcb82",
	{"introduction", "2", "future-roles/1"}:        "5068a8ba40a6a93cc42f3d00e57477caa135c1446095f2448e95fffed512066e",
	{"introduction", "2", "introduction-notice/2"}: "5ceaa984930d53a5176511c40d5023d1c191649e5d9dd6e099d0375ba5de38f4",
}

func TestPublishedVersionFilesArePinned(t *testing.T) {
	r := loadEmbedded(t)
	seen := map[versionKey]bool{}
	for _, formID := range r.FormIDs() {
		for _, n := range sortedVersions(r.forms[formID]) {
			v := r.forms[formID][n]
			k := versionKey{formID, n}
			seen[k] = true
			t.Run(formID+"/"+n, func(t *testing.T) {
				want, ok := pinnedFiles[k]
				if !ok {
					t.Fatalf("version file %s/%s.json is not pinned; add its SHA-256 %s to pinnedFiles", formID, n, v.FileSHA256)
				}
				if v.FileSHA256 != want {
					t.Fatalf("published version file %s/%s.json changed (SHA-256 %s, pinned %s): restore it and make a new version instead", formID, n, v.FileSHA256, want)
				}
			})
		}
	}
	for k := range pinnedFiles {
		if !seen[k] {
			t.Errorf("pinned version %s/%s is gone: a published version is never deleted", k.form, k.version)
		}
	}
}

func TestPublishedTextsArePinned(t *testing.T) {
	r := loadEmbedded(t)
	seen := map[textKey]bool{}
	for _, formID := range r.FormIDs() {
		for _, n := range sortedVersions(r.forms[formID]) {
			for tv, sum := range r.forms[formID][n].texts() {
				k := textKey{formID, n, tv}
				seen[k] = true
				t.Run(formID+"/"+n+"/"+tv, func(t *testing.T) {
					want, ok := pinnedTexts[k]
					if !ok {
						t.Fatalf("text %s of %s/%s is not pinned; add its SHA-256 %s to pinnedTexts", tv, formID, n, sum)
					}
					if sum != want {
						t.Fatalf("published text %s of %s/%s changed (SHA-256 %s, pinned %s): a changed text needs a new textVersion in a new version", tv, formID, n, sum, want)
					}
				})
			}
		}
	}
	for k := range pinnedTexts {
		if !seen[k] {
			t.Errorf("pinned text %s of %s/%s is gone", k.textVersion, k.form, k.version)
		}
	}
}
