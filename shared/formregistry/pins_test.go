package formregistry

import "testing"

// A published version never changes, in any of its languages. These pins
// make an in-place edit fail the build: a change to a form's fields,
// limits, purposes or texts belongs in a new version file (and its language
// files), with its own pins added here. Never update a pin to make this
// test pass.

// versionKey names a version file (lang "en") or a language file.
type versionKey struct{ form, version, lang string }

// textKey names one text: each language's consent and notice texts are
// pinned on their own.
type textKey struct{ form, version, lang, textVersion string }

// pinnedFiles are the SHA-256 of every version and language file ever
// published.
var pinnedFiles = map[versionKey]string{
	{"introduction", "1", "en"}: "797e54e7df16f10b62870a8509025ac29b05bdbab79a2a7da27ada8b0773e8e7",
	{"introduction", "2", "en"}: "4caccde3208d1d3e06bbedfba965274fdb974ba8397f99337818306ac326552d",
	{"introduction", "2", "fa"}: "0c72adcdb0e4e38b188386612e442aa8c8d4f9cc8461a27ac2b2440382c08cea",
	{"introduction", "3", "en"}: "6064ec648579cc694a5b603415d512794fb11c2b921e2efdc1d8ba0a9e680ed0",
	{"introduction", "3", "fa"}: "b29730f0b5ebf2e80483eac9125729731157dce36f252db3ae0e21997017b0c4",
}

// pinnedTexts are the SHA-256 of every consent and notice text ever
// published, by form, version, language and textVersion.
var pinnedTexts = map[textKey]string{
	{"introduction", "1", "en", "attach-conversation/1"}: "9ac670f0737173f4355b33999d2d3bb701375610985158b6235d637c8cbdcb82",
	{"introduction", "1", "en", "introduction-notice/1"}: "7192e28a943601e223edcb38c7456d7e34dd2cab9521968066852d8dae2c4cc8",
	{"introduction", "2", "en", "attach-conversation/1"}: "9ac670f0737173f4355b33999d2d3bb701375610985158b6235d637c8cbdcb82",
	{"introduction", "2", "en", "future-roles/1"}:        "5068a8ba40a6a93cc42f3d00e57477caa135c1446095f2448e95fffed512066e",
	{"introduction", "2", "en", "introduction-notice/2"}: "5ceaa984930d53a5176511c40d5023d1c191649e5d9dd6e099d0375ba5de38f4",
	{"introduction", "2", "fa", "attach-conversation/1"}: "d0e599be173a009c9dc3f3be1b925c3d95441802f6b0d4b5c726b2546b3653aa",
	{"introduction", "2", "fa", "future-roles/1"}:        "773a2a0841a619872f0e4246a2db87265657ccb1679f9aa1225b575ef7c660e7",
	{"introduction", "2", "fa", "introduction-notice/2"}: "fd6e87001ed4c577d087b00f82b15890711496582c392d12e9d46ae5f5184ce1",
	{"introduction", "3", "en", "attach-conversation/1"}: "9ac670f0737173f4355b33999d2d3bb701375610985158b6235d637c8cbdcb82",
	{"introduction", "3", "en", "future-roles/1"}:        "5068a8ba40a6a93cc42f3d00e57477caa135c1446095f2448e95fffed512066e",
	{"introduction", "3", "en", "introduction-notice/3"}: "fdaa8a77d4b257cab1e4d729705f69999d6e2ab70e96a051f867876ae22d9ba1",
	{"introduction", "3", "fa", "attach-conversation/1"}: "d0e599be173a009c9dc3f3be1b925c3d95441802f6b0d4b5c726b2546b3653aa",
	{"introduction", "3", "fa", "future-roles/1"}:        "773a2a0841a619872f0e4246a2db87265657ccb1679f9aa1225b575ef7c660e7",
	{"introduction", "3", "fa", "introduction-notice/3"}: "9f5a0d8830cfa5228d8d319d3075f736273cd9dc1817626616961ec18fdff7c9",
}

func TestPublishedVersionFilesArePinned(t *testing.T) {
	r := loadEmbedded(t)
	seen := map[versionKey]bool{}
	for _, formID := range r.FormIDs() {
		for _, n := range sortedVersions(r.forms[formID]) {
			for _, lang := range r.forms[formID][n].Langs() {
				v, _ := r.forms[formID][n].In(lang)
				k := versionKey{formID, n, lang}
				seen[k] = true
				file := formID + "/" + n + ".json"
				if lang != r.forms[formID][n].Lang {
					file = formID + "/" + n + "." + lang + ".json"
				}
				t.Run(file, func(t *testing.T) {
					want, ok := pinnedFiles[k]
					if !ok {
						t.Fatalf("file %s is not pinned; add its SHA-256 %s to pinnedFiles", file, v.FileSHA256)
					}
					if v.FileSHA256 != want {
						t.Fatalf("published file %s changed (SHA-256 %s, pinned %s): restore it and make a new version instead", file, v.FileSHA256, want)
					}
				})
			}
		}
	}
	for k := range pinnedFiles {
		if !seen[k] {
			t.Errorf("pinned version %s/%s (%s) is gone: a published version is never deleted", k.form, k.version, k.lang)
		}
	}
}

func TestPublishedTextsArePinned(t *testing.T) {
	r := loadEmbedded(t)
	seen := map[textKey]bool{}
	for _, formID := range r.FormIDs() {
		for _, n := range sortedVersions(r.forms[formID]) {
			for id, sum := range r.forms[formID][n].texts() {
				k := textKey{formID, n, id.Lang, id.TextVersion}
				seen[k] = true
				t.Run(formID+"/"+n+"/"+id.Lang+"/"+id.TextVersion, func(t *testing.T) {
					want, ok := pinnedTexts[k]
					if !ok {
						t.Fatalf("%s text %s of %s/%s is not pinned; add its SHA-256 %s to pinnedTexts", id.Lang, id.TextVersion, formID, n, sum)
					}
					if sum != want {
						t.Fatalf("published %s text %s of %s/%s changed (SHA-256 %s, pinned %s): a changed text needs a new textVersion in a new version", id.Lang, id.TextVersion, formID, n, sum, want)
					}
				})
			}
		}
	}
	for k := range pinnedTexts {
		if !seen[k] {
			t.Errorf("pinned %s text %s of %s/%s is gone", k.lang, k.textVersion, k.form, k.version)
		}
	}
}
