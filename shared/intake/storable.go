package intake

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/ownersite/introductions/shared/textrules"
)

// Caps on stored bookkeeping values; the visitor's words are capped by the MaxStored* constants.
const (
	MaxStoredID        = 128  // bytes: introduction, ledger entry, and submission ids
	MaxStoredKey       = 512  // bytes: challenge keys, key hashes, fingerprints
	MaxStoredLabel     = 200  // bytes: form ids and versions, purposes, layers, ...
	MaxStoredText      = 2000 // bytes: reasons, withdrawal paths, signals
	MaxStoredList      = 64   // entries of any stored list
	MaxStoredSealed    = 1024 // bytes of a sealed token
	MaxStoredRateLimit = 10000
)

// TokenHashSize is the size of a stored token hash (SHA-256).
const TokenHashSize = 32

// StorableID reports whether id is 1 to MaxStoredID bytes of ASCII letters, digits, '-' and
// '_', not "__x__".
func StorableID(id string) bool {
	var c checker
	c.id("id", id)
	return len(c.problems) == 0
}

// The CheckStorable* functions re-check a record just before it is written. Each returns nil
// or an INTERNAL *Error whose cause names the field and rule, never the value.

// CheckStorableIntroduction checks an introduction as stored: id, state, the visitor's words
// as the API keeps them (see words), token hash, times, consent evidence and attachment.
func CheckStorableIntroduction(in Introduction) error {
	var c checker
	c.id("introduction.id", in.ID)
	switch in.State {
	case StateDraft:
		c.failIf(!in.ConfirmedAt.IsZero(), "introduction.confirmedAt", "set on a draft")
	case StateConfirmed, StateHandled:
		c.failIf(in.ConfirmedAt.IsZero(), "introduction.confirmedAt", "unset on a confirmed introduction")
		c.failIf((in.State == StateHandled) == in.HandledAt.IsZero(), "introduction.handledAt", "not set exactly when handled")
	default:
		c.fail("introduction.state", "not a storable state")
	}
	c.label("introduction.formId", in.FormID, true)
	c.label("introduction.formVersion", in.FormVersion, true)
	c.lang("introduction.lang", in.Lang)
	c.words("introduction.name", in.Fields.Name, MaxStoredShortField, true, oneLine)
	c.words("introduction.company", in.Fields.Company, MaxStoredShortField, false, oneLine)
	c.words("introduction.role", in.Fields.Role, MaxStoredShortField, false, oneLine)
	c.words("introduction.email", in.Fields.Email, MaxStoredEmail, true, oneLine)
	c.failIf(in.Fields.Email != "" && !strings.Contains(in.Fields.Email, "@"), "introduction.email", "no @")
	c.failIf(strings.ContainsFunc(in.Fields.Email, textrules.IsInvisible), "introduction.email", "invisible character")
	c.words("introduction.message", in.Fields.Message, MaxStoredMessage, false, linesAndLinks)
	c.failIf(len(in.Added) > MaxStoredAddedFields, "introduction.added", fmt.Sprintf("over %d fields", MaxStoredAddedFields))
	for name, v := range in.Added {
		c.label("introduction.added name", name, true)
		c.words("introduction.added", v, MaxStoredAdded, true, lines) // text or textarea: the store does not know which, and a text field has no link rule
	}
	c.failIf(len(in.TokenHash) != TokenHashSize, "introduction.tokenHash", fmt.Sprintf("not %d bytes", TokenHashSize))
	c.time("introduction.createdAt", in.CreatedAt)
	c.time("introduction.expireAt", in.ExpireAt)
	c.failIf(!in.CreatedAt.IsZero() && !in.ExpireAt.After(in.CreatedAt), "introduction.expireAt", "not after createdAt")
	c.consents("introduction.consents", in.Consents)
	c.err(CheckStorableAttachment(in.ID, in.Attachment))
	c.revisions("introduction.revisions", in.Revisions)
	return c.result()
}

// CheckStorableTranscript checks a transcript's id, text (see words) and expiry.
func CheckStorableTranscript(t Transcript) error {
	var c checker
	c.id("transcript.introductionId", t.IntroductionID)
	c.words("transcript.text", t.Text, MaxStoredConversation, true, linesAndLinks)
	c.time("transcript.expireAt", t.ExpireAt)
	return c.result()
}

// CheckStorableLedgerEntry checks a ledger entry's id, version, known values, bounded
// bookkeeping, consent evidence, retention and expiry. Keeping visitor's words out is the
// caller's duty.
func CheckStorableLedgerEntry(e LedgerEntry) error {
	var c checker
	c.id("ledger.id", e.ID)
	c.failIf(e.Version != LedgerVersion, "ledger.version", "not "+LedgerVersion)
	c.label("ledger.formId", e.FormID, false)
	c.label("ledger.formVersion", e.FormVersion, false)
	c.lang("ledger.lang", e.Lang)
	if e.SubmissionID != "" {
		c.id("ledger.submissionId", e.SubmissionID)
	}
	c.key("ledger.idempotencyKeyHash", e.IdempotencyKeyHash, false)
	oneOf(&c, "ledger.validation.result", e.Validation.Result, ValidationPass, ValidationFail, ValidationUnknown)
	labels(&c, "ledger.validation.codes", e.Validation.Codes)
	c.list("ledger.purposes", len(e.Purposes))
	for _, p := range e.Purposes {
		c.label("ledger.purposes.id", p.ID, true)
		c.basis("ledger.purposes.basis", p.Basis)
	}
	c.consents("ledger.consents", e.Consents)
	c.text("ledger.withdrawalPath", e.WithdrawalPath)
	oneOf(&c, "ledger.retention.class", e.Retention.Class, RetentionDraft, RetentionIntroduction, RetentionRejectedEntry)
	c.failIf(!e.Retention.DeleteAfter.Equal(e.ExpireAt), "ledger.retention.deleteAfter", "differs from expireAt")
	c.list("ledger.rateLimits", len(e.RateLimits))
	for _, d := range e.RateLimits {
		c.label("ledger.rateLimits.layer", d.Layer, true)
		c.key("ledger.rateLimits.keyHash", d.KeyHash, true)
		oneOf(&c, "ledger.rateLimits.decision", d.Decision, RateAllow, RateBlock)
	}
	oneOf(&c, "ledger.abuse.state", e.Abuse.State, AbuseClean, AbuseHoneypot, AbuseContentRejected, AbusePowFailed, AbuseRateLimited)
	labels(&c, "ledger.abuse.signals", e.Abuse.Signals)
	labels(&c, "ledger.redaction.stored", e.Redaction.Stored)
	labels(&c, "ledger.redaction.redactedFromLogs", e.Redaction.RedactedFromLogs)
	c.revisions("ledger.revisions", e.Revisions)
	if r := e.Refusals; r != nil {
		c.key("ledger.refusals.keyHash", r.KeyHash, false)
		c.failIf(r.Count < 1 || r.Sources < 1 || r.WindowSeconds < 1, "ledger.refusals", "count, sources and window must be positive")
		c.time("ledger.refusals.windowStart", r.WindowStart)
		labels(&c, "ledger.refusals.codes", r.Codes)
		labels(&c, "ledger.refusals.moves", r.Moves)
	}
	c.list("ledger.adminActions", len(e.AdminActions))
	for _, a := range e.AdminActions {
		c.time("ledger.adminActions.at", a.At)
		c.label("ledger.adminActions.actor", a.Actor, true)
		c.label("ledger.adminActions.action", a.Action, true)
		c.label("ledger.adminActions.target", a.Target, false)
	}
	if e.Erasure != nil {
		c.time("ledger.erasure.at", e.Erasure.At)
		c.label("ledger.erasure.requestedBy", e.Erasure.RequestedBy, true)
		c.text("ledger.erasure.reason", e.Erasure.Reason)
	}
	oneOf(&c, "ledger.decision", e.Decision, DecisionAwaitingConfirmation, DecisionExpired, DecisionHandoffPending,
		DecisionHandoffComplete, DecisionRejected, DecisionWithdrawn, DecisionRepairNeeded)
	c.text("ledger.reason", e.Reason)
	c.label("ledger.provenance.function", e.Provenance.Function, false)
	c.label("ledger.provenance.revision", e.Provenance.Revision, false)
	c.key("ledger.provenance.requestId", e.Provenance.RequestID, false)
	c.time("ledger.expireAt", e.ExpireAt)
	return c.result()
}

// CheckStorableAttachment checks introduction id's attachment: an object under
// AttachmentPrefix(id), a type of AttachmentTypes, a positive size, a hex SHA-256 and a clean
// display name. Nil is storable.
func CheckStorableAttachment(id string, a *Attachment) error {
	if a == nil {
		return nil
	}
	var c checker
	c.id("attachment.introductionId", id)
	if rest, ok := strings.CutPrefix(a.Object, AttachmentPrefix(id)); !ok || rest == "" || len(a.Object) > MaxStoredKey {
		c.fail("attachment.object", "not a name under the introduction's prefix")
	}
	c.attachmentEvidence(a)
	return c.result()
}

// CheckStorableDecoyAttachment checks a decoy's attachment as
// CheckStorableAttachment, without an object.
func CheckStorableDecoyAttachment(a *Attachment) error {
	if a == nil {
		return nil
	}
	var c checker
	c.failIf(a.Object != "", "attachment.object", "set on a decoy's attachment")
	c.attachmentEvidence(a)
	return c.result()
}

// attachmentEvidence checks an attachment's type, size, hash and name.
func (c *checker) attachmentEvidence(a *Attachment) {
	c.failIf(!slices.Contains(AttachmentTypes, a.Type), "attachment.type", "not an attachment type")
	c.failIf(a.Size <= 0, "attachment.size", "not positive")
	c.sha256("attachment.sha256", a.SHA256)
	switch {
	case !utf8.ValidString(a.Name):
		c.fail("attachment.name", "not valid UTF-8")
	case utf8.RuneCountInString(a.Name) > MaxAttachmentNameLength:
		c.fail("attachment.name", fmt.Sprintf("over %d characters", MaxAttachmentNameLength))
	case strings.ContainsAny(a.Name, `/\`):
		c.fail("attachment.name", "a path separator")
	case textrules.BadCharacter(a.Name, false) != "":
		c.fail("attachment.name", "a character the text rules refuse")
	}
}

// CheckStorableDraft checks everything KeepDraft writes, each record alone and together.
func CheckStorableDraft(k DraftKeeping) error {
	var c checker
	c.time("draft.now", k.Now)
	if k.Decoy {
		// A decoy carries no content at all: only its id and token hash.
		c.id("draft.introduction.id", k.Introduction.ID)
		if k.Introduction.Fields != (Fields{}) || len(k.Introduction.Added) > 0 || k.Introduction.HasConversation || len(k.Introduction.Consents) > 0 || k.Transcript != nil {
			c.fail("draft.introduction", "a decoy carries content")
		}
	} else {
		c.err(CheckStorableIntroduction(k.Introduction))
	}
	c.failIf(k.Introduction.State != StateDraft, "draft.introduction.state", "not DRAFT")
	c.failIf(!k.Introduction.Live(k.Now), "draft.introduction.expireAt", "not after now")
	switch {
	case k.Transcript == nil && k.Introduction.HasConversation:
		c.fail("draft.transcript", "missing while hasConversation")
	case k.Transcript != nil && !k.Introduction.HasConversation:
		c.fail("draft.transcript", "present while not hasConversation")
	case k.Transcript != nil:
		c.err(CheckStorableTranscript(*k.Transcript))
		c.failIf(k.Transcript.IntroductionID != k.Introduction.ID, "draft.transcript.introductionId", "not the introduction's id")
		c.failIf(!k.Transcript.ExpireAt.Equal(k.Introduction.ExpireAt), "draft.transcript.expireAt", "not the introduction's expiry")
	}
	c.key("challenge.key", k.Challenge.Key, true)
	c.time("challenge.expireAt", k.Challenge.ExpireAt)
	c.failIf(!k.Challenge.ExpireAt.After(k.Now), "draft.challenge.expireAt", "not after now")
	if r := k.Idempotency; r != nil {
		c.key("idempotency.keyHash", r.KeyHash, true)
		c.key("idempotency.fingerprint", r.Fingerprint, true)
		c.id("idempotency.introductionId", r.IntroductionID)
		c.failIf(len(r.SealedToken) == 0 || len(r.SealedToken) > MaxStoredSealed, "idempotency.sealedToken",
			fmt.Sprintf("not 1 to %d bytes", MaxStoredSealed))
		c.time("idempotency.expireAt", r.ExpireAt)
		c.failIf(r.IntroductionID != k.Introduction.ID, "draft.idempotency.introductionId", "not the introduction's id")
		c.failIf(!r.ExpireAt.After(k.Now), "draft.idempotency.expireAt", "not after now")
	}
	c.list("draft.rateKeys", len(k.RateKeys))
	seen := make(map[[2]string]bool, len(k.RateKeys))
	for _, rk := range k.RateKeys {
		c.label("rateKey.layer", rk.Layer, true)
		c.failIf(strings.Trim(rk.Layer, lower+digits+"-_") != "", "rateKey.layer", "not [a-z0-9_-]")
		c.key("rateKey.keyHash", rk.KeyHash, true)
		c.failIf(rk.Limit <= 0 || rk.Limit > MaxStoredRateLimit, "rateKey.limit", fmt.Sprintf("not 1 to %d", MaxStoredRateLimit))
		c.failIf(rk.Window < time.Second, "rateKey.window", "under one second")
		id := [2]string{rk.Layer, rk.KeyHash}
		c.failIf(seen[id], "draft.rateKeys", "duplicate layer and key")
		seen[id] = true
	}
	c.err(CheckStorableLedgerEntry(k.Ledger))
	c.failIf(k.Ledger.SubmissionID != k.Introduction.ID, "draft.ledger.submissionId", "not the introduction's id")
	switch {
	case k.Decoy && (k.Ledger.Decision != DecisionRejected || k.Ledger.Decoy == nil || k.Ledger.Abuse.State != AbuseHoneypot):
		c.fail("draft.ledger", "a decoy's entry is REJECTED, HONEYPOT, with its decoy record")
	case !k.Decoy && k.Ledger.Decision != DecisionAwaitingConfirmation:
		c.fail("draft.ledger.decision", "not "+string(DecisionAwaitingConfirmation))
	}
	c.failIf(!k.Ledger.ExpireAt.After(k.Now), "draft.ledger.expireAt", "not after now")
	return c.result()
}

// checker collects violations; it records field names and rules only.
type checker struct{ problems []string }

func (c *checker) fail(field, rule string) { c.problems = append(c.problems, field+": "+rule) }

func (c *checker) failIf(bad bool, field, rule string) {
	if bad {
		c.fail(field, rule)
	}
}

func (c *checker) err(err error) {
	var ns notStorable
	if errors.As(err, &ns) {
		c.problems = append(c.problems, ns...)
	} else if err != nil {
		c.problems = append(c.problems, err.Error())
	}
}

func (c *checker) result() error {
	if len(c.problems) == 0 {
		return nil
	}
	return Internal(notStorable(c.problems))
}

// IsNotStorable reports whether err is a CheckStorable* refusal.
func IsNotStorable(err error) bool {
	var ns notStorable
	return errors.As(err, &ns)
}

// notStorable lists the violations of one check.
type notStorable []string

func (ns notStorable) Error() string { return "not storable: " + strings.Join(ns, "; ") }

const lower, upper, digits = "abcdefghijklmnopqrstuvwxyz", "ABCDEFGHIJKLMNOPQRSTUVWXYZ", "0123456789"

// id checks a document id, safe as a path segment.
func (c *checker) id(field, s string) {
	if s == "" || len(s) > MaxStoredID {
		c.fail(field, fmt.Sprintf("not 1 to %d bytes", MaxStoredID))
		return
	}
	if strings.Trim(s, lower+upper+digits+"-_") != "" {
		c.fail(field, "not [A-Za-z0-9_-]")
		return
	}
	c.failIf(strings.HasPrefix(s, "__") && strings.HasSuffix(s, "__"), field, "reserved form __id__")
}

// bounded checks valid UTF-8 of at most max bytes without control characters.
func (c *checker) bounded(field, s string, max int, required bool) {
	switch {
	case required && s == "":
		c.fail(field, "empty")
	case len(s) > max:
		c.fail(field, fmt.Sprintf("over %d bytes", max))
	case !utf8.ValidString(s):
		c.fail(field, "not valid UTF-8")
	case strings.IndexFunc(s, unicode.IsControl) >= 0:
		c.fail(field, "control character")
	}
}

func (c *checker) label(field, s string, required bool) {
	c.bounded(field, s, MaxStoredLabel, required)
}

// lang checks a language tag: empty, or two or three lower-case letters.
func (c *checker) lang(field, s string) {
	c.failIf(s != "" && (len(s) < 2 || len(s) > 3 || strings.Trim(s, lower) != ""), field, "not a language tag")
}
func (c *checker) key(field, s string, required bool) { c.bounded(field, s, MaxStoredKey, required) }
func (c *checker) text(field, s string)               { c.bounded(field, s, MaxStoredText, false) }

// wordsKind says which line and link rules apply to a visitor's words.
type wordsKind int

const (
	oneLine       wordsKind = iota // no line break, no link rule
	lines                          // line breaks allowed, no link rule
	linesAndLinks                  // line breaks allowed, at most MaxStoredLinks links
)

// words checks a visitor's words as the content rules keep them: at most max characters that
// textrules.BadCharacter accepts, and at most MaxStoredLinks links where links count.
func (c *checker) words(field, s string, max int, required bool, kind wordsKind) {
	multiline := kind != oneLine
	switch {
	case required && s == "":
		c.fail(field, "empty")
	case !utf8.ValidString(s):
		c.fail(field, "not valid UTF-8")
	case utf8.RuneCountInString(s) > max:
		c.fail(field, fmt.Sprintf("over %d characters", max))
	case textrules.BadCharacter(s, multiline) != "":
		c.fail(field, "a character the text rules refuse")
	case kind == linesAndLinks && textrules.CountLinks(s) > MaxStoredLinks:
		c.fail(field, fmt.Sprintf("over %d links", MaxStoredLinks))
	}
}

func (c *checker) time(field string, t time.Time) { c.failIf(t.IsZero(), field, "unset") }

func (c *checker) list(field string, n int) {
	c.failIf(n > MaxStoredList, field, fmt.Sprintf("over %d entries", MaxStoredList))
}

func (c *checker) basis(field string, b Basis) {
	oneOf(c, field, b, BasisConsent, BasisContract, BasisLegitimateInterests, BasisLegalObligation)
}

func (c *checker) revisions(field string, n int) {
	c.failIf(n < 0 || n > MaxRevisions, field, fmt.Sprintf("not 0 to %d", MaxRevisions))
}

func (c *checker) sha256(field, s string) {
	c.failIf(len(s) != 64 || strings.Trim(s, "0123456789abcdef") != "", field, "not 64 lowercase hex digits")
}

// oneOf checks that v is one of known.
func oneOf[T comparable](c *checker, field string, v T, known ...T) {
	c.failIf(!slices.Contains(known, v), field, "unknown")
}

// labels checks a bounded list of required labels.
func labels[S ~string](c *checker, field string, list []S) {
	c.list(field, len(list))
	for _, s := range list {
		c.label(field, string(s), true)
	}
}

func (c *checker) consents(field string, cs []ConsentEvidence) {
	c.list(field, len(cs))
	for _, e := range cs {
		c.label(field+".purpose", e.Purpose, true)
		c.basis(field+".basis", e.Basis)
		c.label(field+".textVersion", e.TextVersion, true)
		c.lang(field+".lang", e.Lang)
		c.sha256(field+".textSha256", e.TextSHA256)
		c.label(field+".control", e.Control, false)
		c.time(field+".givenAt", e.GivenAt)
		c.text(field+".withdrawalPath", e.WithdrawalPath)
	}
}

// CheckStorableEnvelope checks an envelope's ids, known values, bounded details and times.
func CheckStorableEnvelope(e Envelope) error {
	var c checker
	c.id("envelope.id", e.ID)
	c.id("envelope.submissionId", e.SubmissionID)
	oneOf(&c, "envelope.destination", e.Destination, DestinationInbox, DestinationEmail, DestinationWebhook)
	oneOf(&c, "envelope.event", e.Event, EventConfirmed, EventWithdrawn)
	c.label("envelope.payloadVersion", e.PayloadVersion, true)
	c.key("envelope.payloadSha256", e.PayloadSHA256, false)
	oneOf(&c, "envelope.status", e.Status, DeliveryPending, DeliveryAccepted, DeliveryDelivered, DeliveryRetryPending, DeliveryFailed)
	c.list("envelope.attempts", len(e.Attempts))
	for _, a := range e.Attempts {
		c.time("envelope.attempts.at", a.At)
		c.text("envelope.attempts.detail", a.Detail)
	}
	c.text("envelope.lastError", e.LastError)
	c.time("envelope.createdAt", e.CreatedAt)
	c.time("envelope.expireAt", e.ExpireAt)
	return c.result()
}
