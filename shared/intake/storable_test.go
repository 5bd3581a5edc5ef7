package intake

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// validDraft returns a DraftKeeping that every check accepts; each case below
// breaks one thing.
func validDraft() DraftKeeping {
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	exp := now.Add(30 * time.Minute)
	return DraftKeeping{
		Now: now,
		Introduction: Introduction{
			ID: "intro_01", State: StateDraft, FormID: "introduction", FormVersion: "2026-11",
			Fields: Fields{Name: "Ada Lovelace", Company: "Analytical Engines", Role: "CTO",
				Email: "ada@example.com", Message: "Hello,\nthere."},
			HasConversation: true,
			Consents: []ConsentEvidence{{Purpose: "attach-conversation", Basis: BasisConsent,
				TextVersion: "1", TextSHA256: strings.Repeat("ab", 32), Control: "attach", ActivelyChecked: true,
				GivenAt: now, WithdrawalPath: "/api/introductions/intro_01/withdrawal"}},
			TokenHash: HashToken("token"),
			CreatedAt: now,
			ExpireAt:  exp,
		},
		Transcript: &Transcript{IntroductionID: "intro_01", Text: "guide: hi\nvisitor: hello", ExpireAt: exp},
		Challenge:  SpentChallenge{Key: "c/1+=", ExpireAt: now.Add(10 * time.Minute)},
		Idempotency: &IdempotencyRecord{KeyHash: "k1", Fingerprint: "f1", IntroductionID: "intro_01",
			SealedToken: []byte{1, 2, 3}, ExpireAt: exp},
		RateKeys: []RateKey{
			{RateRule: RateRule{Layer: "ip", Limit: 10, Window: time.Hour}, KeyHash: "h1"},
			{RateRule: RateRule{Layer: "email", Limit: 5, Window: time.Hour}, KeyHash: "h2"},
		},
		Ledger: LedgerEntry{
			ID: "intro_01", Version: LedgerVersion, FormID: "introduction", FormVersion: "2026-11",
			SubmissionID: "intro_01", IdempotencyKeyHash: "k1",
			Validation: ValidationRecord{Result: ValidationPass},
			Purposes:   []PurposeRecord{{ID: "introduce", Basis: BasisLegitimateInterests, Required: true, Granted: true}},
			Retention:  RetentionRecord{Class: RetentionDraft, DeleteAfter: exp},
			RateLimits: []RateDecision{{Layer: "ip", KeyHash: "h1", Limit: 10, Count: 1, Decision: RateAllow}},
			Abuse:      AbuseRecord{State: AbuseClean},
			Redaction:  RedactionRecord{Stored: []string{"name"}, RedactedFromLogs: RedactedFromLogs},
			Decision:   DecisionAwaitingConfirmation,
			Reason:     "awaiting confirmation",
			ExpireAt:   exp,
		},
	}
}

func TestCheckStorableDraft(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(k *DraftKeeping)
		// field is the field name the refusal must mention; "" means accepted.
		field string
	}{
		{"valid", func(k *DraftKeeping) {}, ""},
		{"valid without transcript or idempotency", func(k *DraftKeeping) {
			k.Transcript, k.Introduction.HasConversation, k.Idempotency = nil, false, nil
		}, ""},
		{"name at cap in multibyte characters", func(k *DraftKeeping) {
			k.Introduction.Fields.Name = strings.Repeat("é", MaxStoredShortField)
		}, ""},
		{"now unset", func(k *DraftKeeping) { k.Now = time.Time{} }, "draft.now"},
		{"empty id", func(k *DraftKeeping) { k.Introduction.ID = "" }, "introduction.id"},
		{"id with slash", func(k *DraftKeeping) { k.Introduction.ID = "a/b" }, "introduction.id"},
		{"reserved id", func(k *DraftKeeping) { k.Introduction.ID = "__x__" }, "introduction.id"},
		{"id too long", func(k *DraftKeeping) { k.Introduction.ID = strings.Repeat("a", MaxStoredID+1) }, "introduction.id"},
		{"unknown state", func(k *DraftKeeping) { k.Introduction.State = "LOST" }, "introduction.state"},
		{"withdrawn state", func(k *DraftKeeping) { k.Introduction.State = StateWithdrawn }, "introduction.state"},
		{"confirmed draft kept", func(k *DraftKeeping) {
			k.Introduction.State, k.Introduction.ConfirmedAt = StateConfirmed, k.Now
		}, "draft.introduction.state"},
		{"draft with confirmedAt", func(k *DraftKeeping) { k.Introduction.ConfirmedAt = k.Now }, "introduction.confirmedAt"},
		{"name over cap", func(k *DraftKeeping) {
			k.Introduction.Fields.Name = strings.Repeat("é", MaxStoredShortField+1)
		}, "introduction.name"},
		{"name empty", func(k *DraftKeeping) { k.Introduction.Fields.Name = "" }, "introduction.name"},
		{"name with newline", func(k *DraftKeeping) { k.Introduction.Fields.Name = "Ada\nL" }, "introduction.name"},
		{"company invalid UTF-8", func(k *DraftKeeping) { k.Introduction.Fields.Company = "A\xffB" }, "introduction.company"},
		{"role over cap", func(k *DraftKeeping) {
			k.Introduction.Fields.Role = strings.Repeat("r", MaxStoredShortField+1)
		}, "introduction.role"},
		{"email without at", func(k *DraftKeeping) { k.Introduction.Fields.Email = "ada.example.com" }, "introduction.email"},
		{"email over cap", func(k *DraftKeeping) {
			k.Introduction.Fields.Email = strings.Repeat("a", MaxStoredEmail) + "@x"
		}, "introduction.email"},
		{"message over cap", func(k *DraftKeeping) {
			k.Introduction.Fields.Message = strings.Repeat("m", MaxStoredMessage+1)
		}, "introduction.message"},
		{"message with NUL", func(k *DraftKeeping) { k.Introduction.Fields.Message = "a\x00b" }, "introduction.message"},
		{"message with C1 control", func(k *DraftKeeping) { k.Introduction.Fields.Message = "a\u0085b" }, "introduction.message"},
		// The character and link rules the API applies (shared/textrules),
		// applied again to what is stored.
		{"message at the link cap", func(k *DraftKeeping) {
			k.Introduction.Fields.Message = "https://a.example www.b.example c.example/x"
		}, ""},
		{"message over the link cap", func(k *DraftKeeping) {
			k.Introduction.Fields.Message = "https://a.example www.b.example c.example/x hxxp://d.example"
		}, "introduction.message"},
		{"message with a CR", func(k *DraftKeeping) { k.Introduction.Fields.Message = "Hello,\r\nthere." }, "introduction.message"},
		{"message with a tab", func(k *DraftKeeping) { k.Introduction.Fields.Message = "Hello,\tthere." }, "introduction.message"},
		{"message with a bidi override", func(k *DraftKeeping) { k.Introduction.Fields.Message = "Hello \u202Eereht" }, "introduction.message"},
		{"message with hidden tag text", func(k *DraftKeeping) { k.Introduction.Fields.Message = "Hi\U000E0049\U000E0047" }, "introduction.message"},
		{"name with a zero-width space", func(k *DraftKeeping) { k.Introduction.Fields.Name = "Ada\u200bLovelace" }, "introduction.name"},
		{"name in Persian with a zero-width non-joiner", func(k *DraftKeeping) { k.Introduction.Fields.Name = "نرگس می\u200cخواهد" }, ""},
		{"company with a private-use character", func(k *DraftKeeping) { k.Introduction.Fields.Company = "Acme \ue000" }, "introduction.company"},
		{"role with an emoji ZWJ sequence", func(k *DraftKeeping) { k.Introduction.Fields.Role = "Engineer 👩🏽\u200d💻 ❤\ufe0f" }, ""},
		{"role with stacked variation selectors", func(k *DraftKeeping) { k.Introduction.Fields.Role = "CTO\ufe0f\ufe0f\ufe0f" }, "introduction.role"},
		{"email with a zero-width joiner", func(k *DraftKeeping) { k.Introduction.Fields.Email = "a\u200dda@example.com" }, "introduction.email"},
		{"email with a left-to-right mark", func(k *DraftKeeping) { k.Introduction.Fields.Email = "\u200eada@example.com" }, "introduction.email"},
		{"added field with a bidi isolate", func(k *DraftKeeping) { k.Introduction.Added = map[string]string{"availability": "\u2066Mondays\u2069"} }, "introduction.added"},
		{"added field with four links (a single-line one has no link rule)", func(k *DraftKeeping) {
			k.Introduction.Added = map[string]string{"availability": "https://a.example https://b.example https://c.example https://d.example"}
		}, ""},
		{"transcript over the link cap", func(k *DraftKeeping) {
			k.Transcript.Text = "see https://a.example\nsee https://b.example\nsee https://c.example\nsee ｈｔｔｐｓ：／／ｄ．ｅｘａｍｐｌｅ"
		}, "transcript.text"},
		{"transcript with a zero-width space", func(k *DraftKeeping) { k.Transcript.Text = "Guide: hi\u200b" }, "transcript.text"},
		{"transcript with an isolate", func(k *DraftKeeping) { k.Transcript.Text = "Guide: \u2067hi\u2069" }, "transcript.text"},
		{"short token hash", func(k *DraftKeeping) { k.Introduction.TokenHash = []byte("short") }, "introduction.tokenHash"},
		{"no token hash", func(k *DraftKeeping) { k.Introduction.TokenHash = nil }, "introduction.tokenHash"},
		{"expiry unset", func(k *DraftKeeping) { k.Introduction.ExpireAt = time.Time{} }, "introduction.expireAt"},
		{"expired at now", func(k *DraftKeeping) {
			k.Introduction.ExpireAt = k.Now
			k.Transcript.ExpireAt = k.Now
		}, "draft.introduction.expireAt"},
		{"consent with unknown basis", func(k *DraftKeeping) { k.Introduction.Consents[0].Basis = "vibes" }, "introduction.consents.basis"},
		{"consent hash not hex", func(k *DraftKeeping) {
			k.Introduction.Consents[0].TextSHA256 = strings.Repeat("G", 64)
		}, "introduction.consents.textSha256"},
		{"consent not given at a time", func(k *DraftKeeping) { k.Introduction.Consents[0].GivenAt = time.Time{} }, "introduction.consents.givenAt"},
		{"transcript missing", func(k *DraftKeeping) { k.Transcript = nil }, "draft.transcript"},
		{"transcript unannounced", func(k *DraftKeeping) { k.Introduction.HasConversation = false }, "draft.transcript"},
		{"transcript of another id", func(k *DraftKeeping) { k.Transcript.IntroductionID = "intro_02" }, "draft.transcript.introductionId"},
		{"transcript over cap", func(k *DraftKeeping) {
			k.Transcript.Text = strings.Repeat("t", MaxStoredConversation+1)
		}, "transcript.text"},
		{"transcript empty", func(k *DraftKeeping) { k.Transcript.Text = "" }, "transcript.text"},
		{"transcript with escape", func(k *DraftKeeping) { k.Transcript.Text = "a\x1b[31m" }, "transcript.text"},
		{"transcript outlives introduction", func(k *DraftKeeping) {
			k.Transcript.ExpireAt = k.Introduction.ExpireAt.Add(time.Hour)
		}, "draft.transcript.expireAt"},
		{"challenge key empty", func(k *DraftKeeping) { k.Challenge.Key = "" }, "challenge.key"},
		{"challenge key too long", func(k *DraftKeeping) { k.Challenge.Key = strings.Repeat("k", MaxStoredKey+1) }, "challenge.key"},
		{"challenge already expired", func(k *DraftKeeping) { k.Challenge.ExpireAt = k.Now }, "draft.challenge.expireAt"},
		{"challenge expiry unset", func(k *DraftKeeping) { k.Challenge.ExpireAt = time.Time{} }, "challenge.expireAt"},
		{"idempotency for another id", func(k *DraftKeeping) { k.Idempotency.IntroductionID = "intro_02" }, "draft.idempotency.introductionId"},
		{"idempotency without sealed token", func(k *DraftKeeping) { k.Idempotency.SealedToken = nil }, "idempotency.sealedToken"},
		{"idempotency without fingerprint", func(k *DraftKeeping) { k.Idempotency.Fingerprint = "" }, "idempotency.fingerprint"},
		{"idempotency expiry unset", func(k *DraftKeeping) { k.Idempotency.ExpireAt = time.Time{} }, "idempotency.expireAt"},
		{"rate layer with slash", func(k *DraftKeeping) { k.RateKeys[0].Layer = "i/p" }, "rateKey.layer"},
		{"rate key hash empty", func(k *DraftKeeping) { k.RateKeys[0].KeyHash = "" }, "rateKey.keyHash"},
		{"rate limit zero", func(k *DraftKeeping) { k.RateKeys[0].Limit = 0 }, "rateKey.limit"},
		{"rate window zero", func(k *DraftKeeping) { k.RateKeys[0].Window = 0 }, "rateKey.window"},
		{"rate keys duplicated", func(k *DraftKeeping) { k.RateKeys[1] = k.RateKeys[0] }, "draft.rateKeys"},
		{"ledger without id", func(k *DraftKeeping) { k.Ledger.ID = "" }, "ledger.id"},
		{"ledger of another version", func(k *DraftKeeping) { k.Ledger.Version = "v0" }, "ledger.version"},
		{"ledger for another submission", func(k *DraftKeeping) { k.Ledger.SubmissionID = "intro_02" }, "draft.ledger.submissionId"},
		{"ledger decision unknown", func(k *DraftKeeping) { k.Ledger.Decision = "MAYBE" }, "ledger.decision"},
		{"ledger decision not awaiting", func(k *DraftKeeping) { k.Ledger.Decision = DecisionHandoffPending }, "draft.ledger.decision"},
		{"ledger validation unknown", func(k *DraftKeeping) { k.Ledger.Validation.Result = "" }, "ledger.validation.result"},
		{"ledger abuse unknown", func(k *DraftKeeping) { k.Ledger.Abuse.State = "" }, "ledger.abuse.state"},
		{"ledger retention unknown", func(k *DraftKeeping) { k.Ledger.Retention.Class = "forever" }, "ledger.retention.class"},
		{"ledger delete-after not its expiry", func(k *DraftKeeping) { k.Ledger.ExpireAt = k.Ledger.ExpireAt.Add(30 * 24 * time.Hour) }, "ledger.retention.deleteAfter"},
		{"ledger verdict unknown", func(k *DraftKeeping) { k.Ledger.RateLimits[0].Decision = "PERHAPS" }, "ledger.rateLimits.decision"},
		{"ledger reason too long", func(k *DraftKeeping) { k.Ledger.Reason = strings.Repeat("r", MaxStoredText+1) }, "ledger.reason"},
		{"ledger too many signals", func(k *DraftKeeping) {
			k.Ledger.Abuse.Signals = make([]string, MaxStoredList+1)
			for i := range k.Ledger.Abuse.Signals {
				k.Ledger.Abuse.Signals[i] = "s"
			}
		}, "ledger.abuse.signals"},
		{"ledger expiry unset", func(k *DraftKeeping) { k.Ledger.ExpireAt = time.Time{} }, "ledger.expireAt"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k := validDraft()
			tt.mutate(&k)
			err := CheckStorableDraft(k)
			if tt.field == "" {
				if err != nil {
					t.Fatalf("refused a valid draft: %v", err)
				}
				return
			}
			if CodeOf(err) != CodeInternal {
				t.Fatalf("code = %q (%v), want INTERNAL", CodeOf(err), err)
			}
			if !strings.Contains(err.Error(), tt.field+":") {
				t.Fatalf("error %q does not name %s", err, tt.field)
			}
		})
	}
}

// TestCheckStorableNamesNoValue: a refusal names the field and the rule, never
// the value, since causes are logged.
func TestCheckStorableNamesNoValue(t *testing.T) {
	k := validDraft()
	canary := "canary-Ada-\x00-secret"
	k.Introduction.Fields.Name = canary
	k.Introduction.Fields.Message = canary
	k.Transcript.Text = canary
	k.Challenge.Key = canary + strings.Repeat("k", MaxStoredKey)
	err := CheckStorableDraft(k)
	if err == nil {
		t.Fatal("accepted control characters")
	}
	if strings.Contains(err.Error(), "canary") {
		t.Fatalf("refusal carries the value: %v", err)
	}
	var e *Error
	if !errors.As(err, &e) || e.Cause == nil {
		t.Fatalf("want an *Error with a cause, got %#v", err)
	}
}

func TestCheckStorableIntroductionStates(t *testing.T) {
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name        string
		state       State
		confirmedAt time.Time
		handledAt   time.Time
		ok          bool
	}{
		{"draft", StateDraft, time.Time{}, time.Time{}, true},
		{"confirmed", StateConfirmed, now, time.Time{}, true},
		{"handled", StateHandled, now, now, true},
		{"confirmed without time", StateConfirmed, time.Time{}, time.Time{}, false},
		{"handled without time", StateHandled, time.Time{}, now, false},
		{"handled without handled time", StateHandled, now, time.Time{}, false},
		{"confirmed with a handled time", StateConfirmed, now, now, false},
		{"withdrawn", StateWithdrawn, now, time.Time{}, false},
		{"no state", "", time.Time{}, time.Time{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := validDraft().Introduction
			in.State, in.ConfirmedAt, in.HandledAt = tt.state, tt.confirmedAt, tt.handledAt
			err := CheckStorableIntroduction(in)
			if (err == nil) != tt.ok {
				t.Fatalf("CheckStorableIntroduction = %v, want ok=%v", err, tt.ok)
			}
		})
	}
}

func TestCheckStorableLedgerEntryRejected(t *testing.T) {
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	e := LedgerEntry{
		ID: "att_01", Version: LedgerVersion,
		Validation: ValidationRecord{Result: ValidationFail, Codes: []Code{CodeMessageTooManyLinks}},
		Retention:  RetentionRecord{Class: RetentionRejectedEntry, DeleteAfter: now.Add(24 * time.Hour)},
		Abuse:      AbuseRecord{State: AbuseContentRejected, Signals: []string{"links"}},
		Decision:   DecisionRejected, Reason: "content rules", ExpireAt: now.Add(24 * time.Hour),
	}
	if err := CheckStorableLedgerEntry(e); err != nil {
		t.Fatalf("refused a content-free rejection: %v", err)
	}
	e.Validation.Codes = append(e.Validation.Codes, "BAD\nCODE")
	if err := CheckStorableLedgerEntry(e); err == nil {
		t.Fatal("accepted a code with a newline")
	}
}

func TestStorableID(t *testing.T) {
	tests := []struct {
		name string
		id   string
		want bool
	}{
		{"letters digits dash underscore", "aZ09-_x", true},
		{"at cap", strings.Repeat("a", MaxStoredID), true},
		{"empty", "", false},
		{"over cap", strings.Repeat("a", MaxStoredID+1), false},
		{"slash", "a/b", false},
		{"dot", ".", false},
		{"reserved", "__name__", false},
		{"non-ASCII", "é", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := StorableID(tt.id); got != tt.want {
				t.Fatalf("StorableID(%q) = %v, want %v", tt.id, got, tt.want)
			}
		})
	}
}
