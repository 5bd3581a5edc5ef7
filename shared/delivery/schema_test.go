package delivery_test

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/ownersite/introductions/shared/intake"
	"github.com/ownersite/introductions/shared/testsupport"
)

// TestLedgerSchemaHoldsRealEntries validates entries and envelopes read back
// from the emulator in each state the handoff leaves them: refused,
// confirmed with deliveries pending, retrying, complete, failed, withdrawn
// after handoff with its notice.
func TestLedgerSchemaHoldsRealEntries(t *testing.T) {
	ledger, envelope := testsupport.LedgerSchema(t, ""), testsupport.LedgerSchema(t, "#/$defs/envelope")
	mail := &sender{dest: intake.DestinationEmail, script: []intake.DeliveryResult{result(intake.DeliveryAccepted, "250 OK")}}
	hook := &sender{dest: intake.DestinationWebhook, script: []intake.DeliveryResult{
		{Status: intake.DeliveryRetryPending, Detail: "429 Too Many Requests", RetryAfter: time.Hour},
		result(intake.DeliveryDelivered, "200 OK"),
	}}
	w := newWorld(t, mail, hook)
	ctx := context.Background()

	refused := intake.LedgerEntry{ID: "refused1", Version: intake.LedgerVersion, FormID: "introduction", FormVersion: "2",
		Validation: intake.ValidationRecord{Result: intake.ValidationFail, Codes: []intake.Code{intake.CodeMessageInvalid}},
		Purposes:   []intake.PurposeRecord{}, Consents: []intake.ConsentEvidence{},
		Retention:  intake.RetentionRecord{Class: intake.RetentionRejectedEntry, DeleteAfter: t0.Add(720 * time.Hour)},
		RateLimits: []intake.RateDecision{{Layer: "ip", KeyHash: "ab12", WindowSeconds: 3600, Count: 1, Limit: 10, Decision: intake.RateAllow}},
		Abuse:      intake.AbuseRecord{State: intake.AbuseContentRejected, Signals: []string{"MESSAGE_INVALID"}},
		Redaction:  intake.RedactionRecord{Stored: []string{}, RedactedFromLogs: intake.RedactedFromLogs},
		Decision:   intake.DecisionRejected, Reason: "refused: MESSAGE_INVALID",
		Provenance: intake.Provenance{Function: "drafts", Revision: "test", RequestID: "r1", Time: t0},
		UpdatedAt:  t0, ExpireAt: t0.Add(720 * time.Hour)}
	if err := w.db.Intake(nil).RecordAttempt(ctx, refused); err != nil {
		t.Fatal(err)
	}
	testsupport.MatchesSchema(t, ledger, "a refused attempt's entry", w.ledger("refused1"))

	ids := w.confirmed("s1")
	testsupport.MatchesSchema(t, ledger, "a confirmed entry before any send", w.ledger("s1"))
	w.dispatch(ids)
	testsupport.MatchesSchema(t, ledger, "an entry with a retry scheduled", w.ledger("s1"))
	for _, id := range ids {
		testsupport.MatchesSchema(t, envelope, "envelope "+id, w.envelope(id))
	}
	w.clock.Advance(time.Hour)
	if _, err := w.svc.Run(ctx, w.clock.Now()); err != nil {
		t.Fatal(err)
	}
	if _, err := w.svc.ApplyEvent(ctx, intake.ProviderEvent{Provider: "mailgun", Destination: intake.DestinationEmail, Token: "t1", EnvelopeID: envID("s1", intake.DestinationEmail), Kind: intake.ProviderDelivered}); err != nil {
		t.Fatal(err)
	}
	if e := w.ledger("s1"); e.Decision != intake.DecisionHandoffComplete {
		t.Fatalf("decision %s", e.Decision)
	}
	testsupport.MatchesSchema(t, ledger, "a complete entry", w.ledger("s1"))
	w.withdraw("s1")
	w.dispatch([]string{intake.EnvelopeID("s1", intake.DestinationWebhook, intake.EventWithdrawn)})
	testsupport.MatchesSchema(t, ledger, "a withdrawn entry", w.ledger("s1"))
	testsupport.MatchesSchema(t, envelope, "a withdrawn notice", w.envelope(intake.EnvelopeID("s1", intake.DestinationWebhook, intake.EventWithdrawn)))

	// The schema refuses what it must: the visitor's words where a code
	// belongs, an unknown decision, a missing group.
	bad := w.ledger("refused1")
	bad.Decision = "MAYBE"
	if raw, _ := json.Marshal(bad); validateErr(ledger, raw) == nil {
		t.Error("the schema accepts an unknown decision")
	}
	var m map[string]any
	raw, _ := json.Marshal(w.ledger("refused1"))
	_ = json.Unmarshal(raw, &m)
	delete(m, "redaction")
	m["name"] = "Ada Lovelace"
	if raw, _ := json.Marshal(m); validateErr(ledger, raw) == nil {
		t.Error("the schema accepts an entry without its redaction record and with a visitor's name")
	}
}

func validateErr(s *jsonschema.Schema, raw []byte) error {
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return err
	}
	return s.Validate(inst)
}
