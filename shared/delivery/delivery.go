// Package delivery hands confirmed introductions on from the outbox the
// confirmation wrote: it sends each envelope after the commit under a
// lease, retries with backoff, binds every retry to the first send's bytes,
// and mirrors each status into the ledger entry. A provider's acceptance is
// ACCEPTED, never DELIVERED. It speaks domain types only; README.md has the
// handoff's rules and what to do when a delivery fails.
package delivery

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/ownersite/introductions/shared/formregistry"
	"github.com/ownersite/introductions/shared/intake"
)

// Store is the outbox's store. Errors: NOT_FOUND (absent or expired), UNAVAILABLE.
type Store interface {
	// LeaseEnvelope claims an envelope until now+leaseFor; false when it is leased or not due.
	LeaseEnvelope(ctx context.Context, id string, now time.Time, leaseFor time.Duration) (intake.Envelope, bool, error)
	// DeliveryContent returns a confirmed introduction and its conversation; NOT_FOUND once gone.
	DeliveryContent(ctx context.Context, submissionID string, now time.Time) (intake.Introduction, string, error)
	// UpdateEnvelope moves an envelope and its ledger entry through apply in one transaction.
	UpdateEnvelope(ctx context.Context, id string, now time.Time, apply func(*intake.Envelope, *intake.LedgerEntry) error) (intake.Envelope, error)
	// DueEnvelopes lists up to limit envelopes whose attempt is due.
	DueEnvelopes(ctx context.Context, now time.Time, limit int) ([]string, error)
	// ApplyProviderEvent records the event's token until keepUntil and moves its envelope through apply;
	// a replayed token is EVENT_REPLAYED, an unknown envelope NOT_FOUND.
	ApplyProviderEvent(ctx context.Context, ev intake.ProviderEvent, now, keepUntil time.Time, apply func(*intake.Envelope, *intake.LedgerEntry) error) (intake.Envelope, error)
}

// Config tunes delivery; what it leaves zero takes the Default of its name.
type Config struct {
	RetryBase      time.Duration // about the first retry's wait, doubled for each next one
	MaxAttempts    int           // sends before an envelope is FAILED
	SendTimeout    time.Duration // bounds one send; Lease must outlast it
	Lease          time.Duration // how long an attempt holds its envelope
	EventRetention time.Duration // how long a provider event's token is remembered
	SweepBatch     int           // the most envelopes one sweep run attempts
	// AdminURL returns an introduction's admin page; nil when unconfigured.
	AdminURL func(id string) string
	// OwnerLang is the language of the labels the owner's mail shows ("" for English).
	OwnerLang string
}

// The defaults of what Config leaves zero.
const (
	DefaultRetryBase      = time.Minute
	DefaultMaxAttempts    = 8
	DefaultSendTimeout    = 20 * time.Second
	DefaultLease          = time.Minute
	DefaultEventRetention = 7 * 24 * time.Hour
	DefaultSweepBatch     = 100
	maxBackoff            = 24 * time.Hour // caps the wait between two attempts
)

// Deps is what the service needs; New refuses a missing one or two senders of one destination.
type Deps struct {
	Store   Store
	Senders []intake.Sender
	Forms   *formregistry.Registry
	Clock   intake.Clock
	// Jitter returns a number in [0, 1); math/rand/v2's Float64 when nil.
	Jitter func() float64
	Logger *slog.Logger
	// Function and Revision name the code in each envelope's provenance.
	Function, Revision string
	Config
}

// Service delivers envelopes. It is safe for concurrent use.
type Service struct {
	d       Deps
	senders map[intake.Destination]intake.Sender
	wg      sync.WaitGroup
}

// New returns a service, or an error naming every missing dependency.
func New(d Deps) (*Service, error) {
	var errs []error
	for _, dep := range []struct {
		name string
		ok   bool
	}{{"Store", d.Store != nil}, {"Forms", d.Forms != nil}, {"Clock", d.Clock != nil}, {"Logger", d.Logger != nil}} {
		if !dep.ok {
			errs = append(errs, errors.New("delivery: missing "+dep.name))
		}
	}
	if d.Jitter == nil {
		d.Jitter = rand.Float64
	}
	d.RetryBase, d.SendTimeout = orDefault(d.RetryBase, DefaultRetryBase), orDefault(d.SendTimeout, DefaultSendTimeout)
	d.Lease, d.EventRetention = orDefault(d.Lease, DefaultLease), orDefault(d.EventRetention, DefaultEventRetention)
	d.MaxAttempts, d.SweepBatch = orDefault(d.MaxAttempts, DefaultMaxAttempts), orDefault(d.SweepBatch, DefaultSweepBatch)
	if d.Lease <= d.SendTimeout {
		errs = append(errs, fmt.Errorf("delivery: Lease %s must outlast SendTimeout %s", d.Lease, d.SendTimeout))
	}
	senders := map[intake.Destination]intake.Sender{}
	for _, s := range d.Senders {
		switch dest := s.Destination(); {
		case dest == intake.DestinationInbox:
			errs = append(errs, errors.New("delivery: the admin inbox needs no sender"))
		case senders[dest] != nil:
			errs = append(errs, fmt.Errorf("delivery: two senders for %s", dest))
		default:
			senders[dest] = s
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return &Service{d: d, senders: senders}, nil
}

// Destinations lists the admin inbox, then each configured destination.
func (s *Service) Destinations() []intake.Destination {
	out := []intake.Destination{intake.DestinationInbox}
	for _, d := range []intake.Destination{intake.DestinationEmail, intake.DestinationWebhook} {
		if s.senders[d] != nil {
			out = append(out, d)
		}
	}
	return out
}

// Outbox returns the content-free envelopes of submissionID's event: for introduction.confirmed
// the admin inbox (DELIVERED) and each configured destination (PENDING); for
// introduction.withdrawn the email and the webhook, where configured.
func (s *Service) Outbox(submissionID, event string, prov intake.Provenance) []intake.Envelope {
	prov.Function, prov.Revision = s.d.Function, s.d.Revision
	env := func(d intake.Destination, st intake.DeliveryStatus) intake.Envelope {
		return intake.Envelope{
			ID: intake.EnvelopeID(submissionID, d, event), SubmissionID: submissionID, Destination: d,
			Event: event, PayloadVersion: intake.HandoffPayloadVersion, Status: st,
			Attempts: []intake.DeliveryAttempt{}, Provenance: prov,
		}
	}
	var out []intake.Envelope
	switch event {
	case intake.EventConfirmed:
		inbox := env(intake.DestinationInbox, intake.DeliveryDelivered)
		inbox.Attempts = []intake.DeliveryAttempt{{At: prov.Time, Outcome: intake.DeliveryDelivered, Detail: "kept in the owner's admin inbox at confirmation"}}
		out = append(out, inbox)
	case intake.EventWithdrawn:
	default:
		return nil
	}
	for _, d := range s.Destinations()[1:] {
		out = append(out, env(d, intake.DeliveryPending))
	}
	return out
}

// Dispatch sends the envelopes in the background; what fails is left for the sweep.
func (s *Service) Dispatch(envelopeIDs []string) {
	if len(envelopeIDs) == 0 {
		return
	}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		ctx, cancel := context.WithTimeout(context.Background(), s.d.Lease)
		defer cancel()
		for _, id := range envelopeIDs {
			if _, err := s.attempt(ctx, id); err != nil && !errors.Is(err, intake.ErrNotFound) {
				s.d.Logger.LogAttrs(ctx, slog.LevelWarn, "delivery: attempt after commit failed; the sweep retries it",
					slog.String("envelopeId", id), slog.String("code", string(intake.CodeOf(err))), slog.String("error", err.Error()))
			}
		}
	}()
}

// Wait blocks until every background send started so far has finished.
func (s *Service) Wait() { s.wg.Wait() }

// Name names the sweep task.
func (s *Service) Name() string { return "delivery-retries" }

// Run attempts up to Config.SweepBatch due envelopes; its error is the first store failure.
func (s *Service) Run(ctx context.Context, now time.Time) (intake.SweepTaskResult, error) {
	var r intake.SweepTaskResult
	ids, err := s.d.Store.DueEnvelopes(ctx, now, s.d.SweepBatch)
	if err != nil {
		return r, err
	}
	for _, id := range ids {
		attempted, err := s.attempt(ctx, id)
		if attempted {
			r.DeliveriesAttempted++
		}
		if err != nil && !errors.Is(err, intake.ErrNotFound) {
			return r, err
		}
	}
	return r, nil
}

var _ intake.SweepTask = (*Service)(nil)

// RetryNow makes a FAILED, RETRY_PENDING or PENDING envelope due and attempts it in the
// background. Errors: NOT_FOUND; STATE_CONFLICT (delivered, accepted or being sent); UNAVAILABLE.
func (s *Service) RetryNow(ctx context.Context, envelopeID string) error {
	now := s.d.Clock.Now()
	_, err := s.d.Store.UpdateEnvelope(ctx, envelopeID, now, func(e *intake.Envelope, entry *intake.LedgerEntry) error {
		switch {
		case e.LeaseUntil.After(now):
			return intake.Errorf(intake.CodeStateConflict, "This delivery is being attempted right now.")
		case e.Status != intake.DeliveryFailed && e.Status != intake.DeliveryRetryPending && e.Status != intake.DeliveryPending:
			return intake.Errorf(intake.CodeStateConflict, "This delivery is %s: there is nothing to retry.", e.Status)
		}
		if e.Status != intake.DeliveryPending {
			e.Status, e.NextAttemptAt = intake.DeliveryRetryPending, now
		}
		s.mirror(e, entry)
		return nil
	})
	if err != nil {
		return err
	}
	s.d.Logger.LogAttrs(ctx, slog.LevelInfo, "delivery: retry requested by the owner", slog.String("envelopeId", envelopeID))
	s.Dispatch([]string{envelopeID})
	return nil
}

// attempt leases, sends and records the result with its ledger mirror; a provider's event applied
// meanwhile is never overwritten.
func (s *Service) attempt(ctx context.Context, id string) (bool, error) {
	e, ok, err := s.d.Store.LeaseEnvelope(ctx, id, s.d.Clock.Now(), s.d.Lease)
	if err != nil || !ok {
		return false, err
	}
	log := s.d.Logger.With(slog.String("envelopeId", e.ID), slog.String("destination", string(e.Destination)), slog.String("event", e.Event))
	result, sent := s.send(ctx, e)
	now := s.d.Clock.Now()
	stored, err := s.d.Store.UpdateEnvelope(ctx, id, now, func(st *intake.Envelope, entry *intake.LedgerEntry) error {
		if result.Status == intake.DeliveryAccepted && providerSpokeSince(*st, len(e.Attempts)) {
			// A provider's event on this send came first: its status stays.
			st.LeaseUntil = time.Time{}
			st.Attempts = append(st.Attempts, intake.DeliveryAttempt{At: now, Outcome: result.Status, Detail: result.Detail})
		} else {
			s.applyResult(st, result, now)
		}
		s.mirror(st, entry)
		return nil
	})
	if err != nil {
		log.LogAttrs(ctx, slog.LevelWarn, "delivery: the result could not be written; the same envelope is sent again after its lease",
			slog.Bool("sent", sent), slog.String("result", string(result.Status)), slog.String("code", string(intake.CodeOf(err))))
		return true, err
	}
	log.LogAttrs(ctx, slog.LevelInfo, "delivery: attempted", slog.Bool("sent", sent), slog.String("status", string(stored.Status)),
		slog.Int("attempts", stored.SendAttempts()), slog.String("detail", result.Detail))
	return true, nil
}

func providerSpokeSince(e intake.Envelope, n int) bool {
	return n < len(e.Attempts) && slices.ContainsFunc(e.Attempts[n:], func(a intake.DeliveryAttempt) bool {
		return strings.HasPrefix(a.Detail, intake.ProviderEventPrefix)
	})
}

// send renders the envelope and hands it to its sender; false when nothing may be sent.
func (s *Service) send(ctx context.Context, e intake.Envelope) (intake.DeliveryResult, bool) {
	sender := s.senders[e.Destination]
	if sender == nil {
		return intake.DeliveryResult{Status: intake.DeliveryFailed, Detail: "destination " + string(e.Destination) + " is not configured; nothing sent"}, false
	}
	d := intake.Delivery{Envelope: e}
	if e.Event == intake.EventConfirmed {
		in, conversation, err := s.d.Store.DeliveryContent(ctx, e.SubmissionID, s.d.Clock.Now())
		if errors.Is(err, intake.ErrNotFound) {
			return intake.DeliveryResult{Status: intake.DeliveryFailed, Detail: DetailContentGone}, false
		}
		if err != nil {
			return intake.DeliveryResult{Status: intake.DeliveryRetryPending, Detail: "the introduction could not be read: " + string(intake.CodeOf(err))}, false
		}
		d.Introduction, d.Conversation = in, conversation
		if s.d.AdminURL != nil {
			d.AdminURL = s.d.AdminURL(e.SubmissionID)
		}
		d.AddedLabels = s.addedLabels(in)
	}
	payload, err := sender.Payload(d)
	if err != nil {
		return intake.DeliveryResult{Status: intake.DeliveryFailed, Detail: "the payload could not be rendered: " + err.Error()}, false
	}
	if r, ok := s.bind(ctx, e, PayloadSHA256(payload)); !ok {
		return r, false
	}
	d.Payload = payload
	if left := e.LeaseUntil.Sub(s.d.Clock.Now()); left < s.d.SendTimeout {
		return intake.DeliveryResult{Status: intake.DeliveryRetryPending, Detail: DetailLeaseTooShort}, false
	}
	ctx, cancel := context.WithTimeout(ctx, s.d.SendTimeout)
	defer cancel()
	return sender.Send(ctx, d), true
}

// PayloadSHA256 is the lower-case hex SHA-256 of an envelope's payload.
func PayloadSHA256(payload []byte) string {
	sum := sha256.Sum256(payload)
	return hex.EncodeToString(sum[:])
}

// bind binds sum to the envelope on its first send; a retry must send the bound payload.
func (s *Service) bind(ctx context.Context, e intake.Envelope, sum string) (intake.DeliveryResult, bool) {
	if e.PayloadSHA256 != "" {
		if e.PayloadSHA256 != sum {
			return intake.DeliveryResult{Status: intake.DeliveryFailed, Detail: payloadChanged(e.PayloadSHA256, sum)}, false
		}
		return intake.DeliveryResult{}, true
	}
	_, err := s.d.Store.UpdateEnvelope(ctx, e.ID, s.d.Clock.Now(), func(st *intake.Envelope, entry *intake.LedgerEntry) error {
		switch st.PayloadSHA256 {
		case "":
			st.PayloadSHA256 = sum
		case sum:
		default:
			return intake.Errorf(intake.CodeStateConflict, "%s", payloadChanged(st.PayloadSHA256, sum))
		}
		s.mirror(st, entry)
		return nil
	})
	switch {
	case err == nil:
		return intake.DeliveryResult{}, true
	case intake.CodeOf(err) == intake.CodeStateConflict:
		var ie *intake.Error
		errors.As(err, &ie)
		return intake.DeliveryResult{Status: intake.DeliveryFailed, Detail: ie.Detail}, false
	default:
		return intake.DeliveryResult{Status: intake.DeliveryRetryPending, Detail: "the payload's hash could not be recorded before sending: " + string(intake.CodeOf(err))}, false
	}
}

// payloadChanged is the recorded reason a retry sent nothing.
func payloadChanged(bound, now string) string {
	return "the payload rendered now (sha256 " + now + ") differs from the one bound at the first send (sha256 " + bound + "); nothing sent, so the receiver never gets two different messages under one id"
}

func (s *Service) addedLabels(in intake.Introduction) map[string]string {
	if len(in.Added) == 0 {
		return nil
	}
	labels := map[string]string{}
	if v, ok := s.d.Forms.Find(in.FormID, in.FormVersion); ok {
		if owner, ok := v.In(s.d.OwnerLang); ok {
			v = owner
		}
		for name := range in.Added {
			if f, ok := v.Field(name); ok {
				labels[name] = f.Label
			}
		}
	}
	return labels
}

// The recorded reasons an envelope was not sent.
const (
	DetailLeaseTooShort = "too little of the lease was left for one send; nothing sent"
	DetailContentGone   = "the introduction was withdrawn or erased before it was sent; nothing sent"
)

func (s *Service) applyResult(e *intake.Envelope, r intake.DeliveryResult, now time.Time) {
	e.LeaseUntil = time.Time{}
	status := r.Status
	switch status {
	case intake.DeliveryAccepted, intake.DeliveryDelivered, intake.DeliveryFailed, intake.DeliveryRetryPending:
	default:
		status, r.Detail = intake.DeliveryRetryPending, "the sender gave no verdict: "+r.Detail
	}
	e.Attempts = append(e.Attempts, intake.DeliveryAttempt{At: now, Outcome: status, Detail: r.Detail})
	s.moveTo(e, status, r.Detail, r.RetryAfter, now)
}

func (s *Service) moveTo(e *intake.Envelope, status intake.DeliveryStatus, detail string, retryAfter time.Duration, now time.Time) {
	e.NextAttemptAt = time.Time{}
	switch status {
	case intake.DeliveryAccepted, intake.DeliveryDelivered:
		e.Status, e.LastError = status, ""
	case intake.DeliveryFailed:
		e.Status, e.LastError = status, detail
	case intake.DeliveryRetryPending:
		n := e.SendAttempts()
		if n >= s.d.MaxAttempts {
			e.Status, e.LastError = intake.DeliveryFailed, fmt.Sprintf("gave up after %d attempts; last: %s", n, detail)
			return
		}
		e.Status, e.LastError = intake.DeliveryRetryPending, detail
		e.NextAttemptAt = now.Add(s.Backoff(n, retryAfter))
	}
}

// Backoff is the wait after the attempts-th failure: RetryBase doubled per attempt, ±20%
// jitter, at least retryAfter, at most a day.
func (s *Service) Backoff(attempts int, retryAfter time.Duration) time.Duration {
	d := s.d.RetryBase
	for i := 1; i < attempts && d < maxBackoff; i++ {
		d *= 2
	}
	d = time.Duration(float64(d) * (0.8 + 0.4*s.d.Jitter()))
	return min(max(d, retryAfter), maxBackoff)
}

// mirror writes the envelope into its ledger entry.
func (s *Service) mirror(e *intake.Envelope, entry *intake.LedgerEntry) {
	if entry.ID == "" {
		return // the entry has expired with its records
	}
	entry.SetHandoff(e.Record())
	if w := entry.Withdrawal; w != nil && e.Event == intake.EventConfirmed && e.Destination != intake.DestinationInbox &&
		(e.Status == intake.DeliveryAccepted || e.Status == intake.DeliveryDelivered) && !slices.Contains(w.AlreadyDeliveredTo, e.Destination) {
		w.AlreadyDeliveredTo = append(w.AlreadyDeliveredTo, e.Destination)
	}
	entry.Decision, entry.Reason = Decide(*entry, s.d.Forms)
}

func orDefault[T int | time.Duration](v, def T) T {
	if v <= 0 {
		return def
	}
	return v
}
