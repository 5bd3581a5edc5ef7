// Package textrules holds the character and link rules for a visitor's
// words: which invisible, bidi, tag and private-use characters a text may
// hold (BadCharacter), and how many links it holds as a reader would see
// them (CountLinks). The content rules (shared/contentrules) apply them to
// each field of a submission, and the store's re-check before every write
// (intake.CheckStorable*) applies them again, so that a bug upstream cannot
// store what the API refuses. It imports nothing of the module.
package textrules
