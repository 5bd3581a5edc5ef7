package delivery_test

import (
	"strings"
	"testing"
	"time"

	"github.com/ownersite/introductions/shared/delivery"
	"github.com/ownersite/introductions/shared/intake"
	"github.com/ownersite/introductions/shared/testsupport"
)

// closedEntry is a confirmed version-1 entry with a matching consent and
// every destination DELIVERED: its evidence is closed.
func closedEntry(t *testing.T) intake.LedgerEntry {
	v, _ := testsupport.Forms(t).Find("introduction", "1")
	p, _ := v.Purpose("attach-conversation")
	delivered := func(d intake.Destination) intake.HandoffRecord {
		return intake.HandoffRecord{EnvelopeID: intake.EnvelopeID("x", d, intake.EventConfirmed), Destination: d, Event: intake.EventConfirmed, Status: intake.DeliveryDelivered, Attempts: 1}
	}
	return intake.LedgerEntry{
		ID: "x", FormID: "introduction", FormVersion: "1", Decision: intake.DecisionHandoffPending,
		Validation: intake.ValidationRecord{Result: intake.ValidationPass},
		Consents: []intake.ConsentEvidence{{Purpose: p.ID, Basis: p.Basis, TextVersion: p.Consent.TextVersion, TextSHA256: p.Consent.SHA256,
			Control: p.Consent.Control, ConfirmedAt: t0, GivenAt: t0}},
		Handoffs: []intake.HandoffRecord{delivered(intake.DestinationInbox), delivered(intake.DestinationEmail), delivered(intake.DestinationWebhook)},
	}
}

func TestDecide(t *testing.T) {
	tests := []struct {
		name   string
		change func(e *intake.LedgerEntry)
		want   intake.Decision
		reason string
	}{
		{"evidence closed", func(*intake.LedgerEntry) {}, intake.DecisionHandoffComplete, "every destination DELIVERED"},
		{"validation FAIL, every provider succeeded", func(e *intake.LedgerEntry) { e.Validation.Result = intake.ValidationFail }, intake.DecisionRejected, "validation FAIL"},
		{"validation UNKNOWN, every provider succeeded", func(e *intake.LedgerEntry) { e.Validation.Result = intake.ValidationUnknown }, intake.DecisionHandoffPending, "validation UNKNOWN"},
		{"email only ACCEPTED", func(e *intake.LedgerEntry) { e.Handoffs[1].Status = intake.DeliveryAccepted }, intake.DecisionHandoffPending, "email ACCEPTED, no receipt yet"},
		{"webhook FAILED", func(e *intake.LedgerEntry) {
			e.Handoffs[2].Status, e.Handoffs[2].LastError = intake.DeliveryFailed, "410 Gone"
		}, intake.DecisionHandoffPending, "webhook FAILED (410 Gone)"},
		{"consent text changed", func(e *intake.LedgerEntry) { e.Consents[0].TextSHA256 = strings.Repeat("0", 64) }, intake.DecisionRepairNeeded, "no longer matches"},
		{"consent not bound to the confirm step", func(e *intake.LedgerEntry) { e.Consents[0].ConfirmedAt = time.Time{} }, intake.DecisionHandoffPending, "not bound"},
		{"unknown form version", func(e *intake.LedgerEntry) { e.FormVersion = "99" }, intake.DecisionRepairNeeded, "not in the registry"},
		{"no envelopes", func(e *intake.LedgerEntry) { e.Handoffs = nil }, intake.DecisionHandoffPending, "no handoff envelope"},
		{"withdrawn stays withdrawn", func(e *intake.LedgerEntry) { e.Decision, e.Reason = intake.DecisionWithdrawn, "withdrawn" }, intake.DecisionWithdrawn, "withdrawn"},
		{"expired stays expired", func(e *intake.LedgerEntry) { e.Decision, e.Reason = intake.DecisionExpired, "expired" }, intake.DecisionExpired, "expired"},
		{"a withdrawn notice does not count as a destination of the confirmation", func(e *intake.LedgerEntry) {
			e.Handoffs = append(e.Handoffs, intake.HandoffRecord{Destination: intake.DestinationWebhook, Event: intake.EventWithdrawn, Status: intake.DeliveryPending})
		}, intake.DecisionHandoffComplete, "every destination DELIVERED"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := closedEntry(t)
			tt.change(&e)
			got, reason := delivery.Decide(e, testsupport.Forms(t))
			if got != tt.want || !strings.Contains(reason, tt.reason) {
				t.Fatalf("Decide = %s %q, want %s with %q", got, reason, tt.want, tt.reason)
			}
		})
	}
}
