package deliveryevents

import (
	"errors"

	"github.com/ownersite/introductions/shared/intake"
	"github.com/ownersite/introductions/shared/mailgun"
)

// ProviderMailgun is the {provider} of Mailgun's events.
const ProviderMailgun = "mailgun"

// Mailgun returns the Provider of Mailgun's events, verified and read by
// the mailgun package (Mailgun's documented webhook format).
func Mailgun(v *mailgun.Verifier) Provider { return mailgunProvider{v} }

type mailgunProvider struct{ v *mailgun.Verifier }

func (p mailgunProvider) Read(body []byte) (intake.ProviderEvent, bool, error) {
	e, err := p.v.Parse(body)
	switch {
	case errors.Is(err, mailgun.ErrSignature):
		return intake.ProviderEvent{}, false, intake.Errorf(intake.CodeEventSignatureInvalid, "The event's signature does not verify; nothing changed.")
	case errors.Is(err, mailgun.ErrStale):
		return intake.ProviderEvent{}, false, intake.Errorf(intake.CodeEventStale, "The event was signed more than 5 minutes from now; nothing changed.")
	case err != nil:
		return intake.ProviderEvent{}, false, intake.Errorf(intake.CodeUnreadableBody, "The body is not a signed Mailgun event.")
	}
	if !e.Applies() {
		return intake.ProviderEvent{}, false, nil
	}
	kind := intake.ProviderFailedPermanent
	switch e.Status {
	case intake.DeliveryDelivered:
		kind = intake.ProviderDelivered
	case intake.DeliveryRetryPending:
		kind = intake.ProviderFailedTemporary
	}
	return intake.ProviderEvent{Provider: ProviderMailgun, Destination: intake.DestinationEmail, Token: e.Token, EnvelopeID: e.EnvelopeID, Kind: kind, Reason: e.Detail, At: e.At}, true, nil
}
