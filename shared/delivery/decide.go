package delivery

import (
	"cmp"
	"fmt"
	"strings"

	"github.com/ownersite/introductions/shared/contentrules"
	"github.com/ownersite/introductions/shared/formregistry"
	"github.com/ownersite/introductions/shared/intake"
)

// Decide returns a ledger entry's decision and reason from its evidence: HANDOFF_COMPLETE only
// when validation passed, the form version is known, every consent matches the registry and
// every destination is DELIVERED; REPAIR_NEEDED for evidence the registry no longer matches.
// WITHDRAWN, REJECTED, EXPIRED and AWAITING_CONFIRMATION stay as they are.
func Decide(e intake.LedgerEntry, forms *formregistry.Registry) (intake.Decision, string) {
	switch e.Decision {
	case intake.DecisionWithdrawn, intake.DecisionRejected, intake.DecisionExpired, intake.DecisionAwaitingConfirmation:
		return e.Decision, e.Reason
	}
	switch e.Validation.Result {
	case intake.ValidationPass:
	case intake.ValidationFail:
		return intake.DecisionRejected, "validation FAIL: a delivery never makes an invalid introduction valid"
	default:
		return intake.DecisionHandoffPending, fmt.Sprintf("validation %s: evidence is missing, and a delivery never supplies it", cmp.Or(string(e.Validation.Result), "unset"))
	}
	v, ok := forms.Find(e.FormID, e.FormVersion)
	if !ok {
		return intake.DecisionRepairNeeded, fmt.Sprintf("form %s version %s is not in the registry", e.FormID, e.FormVersion)
	}
	for _, c := range e.Consents {
		switch {
		case !contentrules.EvidenceMatches(v, c):
			return intake.DecisionRepairNeeded, fmt.Sprintf("consent evidence for %q no longer matches the registry's text for %s version %s", c.Purpose, e.FormID, e.FormVersion)
		case c.ConfirmedAt.IsZero():
			return intake.DecisionHandoffPending, fmt.Sprintf("consent for %q is not bound to the confirm step", c.Purpose)
		}
	}
	var waiting, failed []string
	confirmed := 0
	for _, h := range e.Handoffs {
		if h.Event != intake.EventConfirmed {
			continue
		}
		confirmed++
		switch h.Status {
		case intake.DeliveryDelivered:
		case intake.DeliveryFailed:
			failed = append(failed, fmt.Sprintf("%s FAILED (%s)", h.Destination, h.LastError))
		case intake.DeliveryAccepted:
			waiting = append(waiting, fmt.Sprintf("%s ACCEPTED, no receipt yet", h.Destination))
		default:
			waiting = append(waiting, fmt.Sprintf("%s %s", h.Destination, h.Status))
		}
	}
	switch {
	case confirmed == 0:
		return intake.DecisionHandoffPending, "no handoff envelope recorded"
	case len(failed) > 0:
		return intake.DecisionHandoffPending, "handoff incomplete: " + strings.Join(append(failed, waiting...), "; ") + "; the owner can retry a failed delivery"
	case len(waiting) > 0:
		// The decision's own label says "handoff pending": the reason says what waits.
		return intake.DecisionHandoffPending, strings.Join(waiting, "; ")
	}
	return intake.DecisionHandoffComplete, "evidence closed: validation PASS, form version and consents match the registry, every destination DELIVERED"
}
