package adminseed

import (
	"context"
	"fmt"
	"strings"
	"time"

	"cloud.google.com/go/firestore"

	"github.com/ownersite/introductions/shared/firestorestore"
	"github.com/ownersite/introductions/shared/intake"
)

// Realistic returns a month of plausible introductions ending at now,
// newest first: recruiters and founders, some with a conversation, some
// handled, with deliveries in every state.
func Realistic(now time.Time) []Sample {
	day := func(d int, h, m int) time.Time {
		t := now.UTC().Truncate(24*time.Hour).AddDate(0, 0, -d)
		return t.Add(time.Duration(h)*time.Hour + time.Duration(m)*time.Minute)
	}
	conversation := strings.Join([]string{
		"Visitor: Hi! I found the site through the talk on retention policies. Is the owner open to platform roles?",
		"Guide: They are open to hearing about staff-level platform and infrastructure roles, remote or in Berlin.",
		"Visitor: Great. We run about 40 services on Cloud Run and want someone to own reliability and cost.",
		"Guide: That fits. The best next step is an introduction with the role and the team, which I can help you write.",
		"Visitor: Perfect, I'll send one now. Thanks!",
	}, "\n\n")
	inbox := func(at time.Time) intake.Envelope {
		return intake.Envelope{Destination: intake.DestinationInbox, Status: intake.DeliveryDelivered,
			Attempts: []intake.DeliveryAttempt{{At: at, Outcome: intake.DeliveryDelivered, Detail: "kept in the admin inbox"}}}
	}
	email := func(at time.Time, status intake.DeliveryStatus, attempts ...intake.DeliveryAttempt) intake.Envelope {
		e := intake.Envelope{Destination: intake.DestinationEmail, Status: status, Attempts: attempts}
		if status == intake.DeliveryRetryPending {
			// Due a little after now, so no sweep retries it at once.
			e.NextAttemptAt = now.UTC().Add(12 * time.Minute).Truncate(time.Minute)
		}
		if n := len(attempts); n > 0 && (status == intake.DeliveryFailed || status == intake.DeliveryRetryPending) {
			e.LastError = attempts[n-1].Detail
		}
		return e
	}
	webhook := func(at time.Time) intake.Envelope {
		return intake.Envelope{Destination: intake.DestinationWebhook, Status: intake.DeliveryDelivered,
			Attempts: []intake.DeliveryAttempt{{At: at.Add(2 * time.Second), Outcome: intake.DeliveryDelivered, Detail: "HTTP 204 from the receiver"}}}
	}
	a := func(at time.Time, o intake.DeliveryStatus, d string) intake.DeliveryAttempt {
		return intake.DeliveryAttempt{At: at, Outcome: o, Detail: d}
	}
	ago := func(d time.Duration) time.Time { return now.UTC().Add(-d).Truncate(time.Minute) }
	t0, t1, t2, t3 := ago(50*time.Minute), ago(27*time.Hour+20*time.Minute), day(2, 11, 5), day(4, 14, 30)
	yes := true
	samples := []Sample{
		{Fields: intake.Fields{Name: "Ada Lovelace", Company: "Analytical Engines Ltd", Role: "Head of Platform Hiring", Email: "ada@analytical-engines.example",
			Message: "Hello! I lead hiring for our platform team. We are looking for a staff engineer to own reliability and cost on Cloud Run, remote-first with a Berlin office.\n\nWould you be open to a 30-minute call next week? I can share the role description and the team's roadmap beforehand."},
			Conversation: conversation, ConfirmedAt: t0,
			Envelopes: []intake.Envelope{inbox(t0), email(t0, intake.DeliveryRetryPending,
				a(t0.Add(time.Second), intake.DeliveryAccepted, "SMTP 250 2.0.0 queued"),
				a(t0.Add(3*time.Minute), intake.DeliveryRetryPending, "provider event: failed (temporary), mailbox full")), webhook(t0)}},
		{Fields: intake.Fields{Name: "Grace Hopper", Company: "Compiler Works", Role: "Founder", Email: "grace@compilerworks.example",
			Message: "We are a 12-person startup building developer tooling. I enjoyed your write-up on honest delivery status and wondered whether you would advise us for a few hours a month."},
			ConfirmedAt: t1,
			Envelopes: []intake.Envelope{inbox(t1), email(t1, intake.DeliveryFailed,
				a(t1.Add(time.Second), intake.DeliveryRetryPending, "SMTP 451 4.3.0 try again later"),
				a(t1.Add(2*time.Minute), intake.DeliveryRetryPending, "SMTP 451 4.3.0 try again later"),
				a(t1.Add(6*time.Minute), intake.DeliveryFailed, "SMTP 550 5.1.1 mailbox unavailable"))}},
		{Fields: intake.Fields{Name: "Katherine Johnson", Company: "Orbital Analytics", Role: "Engineering Manager", Email: "kjohnson@orbital.example",
			Message: "Hi, we have an opening for a senior backend engineer (Go, Firestore, GCP). Fully remote within the EU. Happy to share salary bands up front."},
			ConfirmedAt: t2, HandledAt: t2.Add(20 * time.Hour),
			Envelopes: []intake.Envelope{inbox(t2), email(t2, intake.DeliveryDelivered,
				a(t2.Add(time.Second), intake.DeliveryAccepted, "SMTP 250 2.0.0 queued"),
				a(t2.Add(40*time.Second), intake.DeliveryDelivered, "provider event: delivered"))}},
		{Fields: intake.Fields{Name: "Margaret Hamilton", Company: "Apollo Systems", Role: "VP Engineering", Email: "margaret@apollo.example",
			Message: "Your post on sweeping expired data with indexed queries was spot on. We are hiring a principal engineer for our data-retention platform; would you like to talk?"},
			ConfirmedAt: t3, HandledAt: t3.Add(26 * time.Hour), Envelopes: []intake.Envelope{inbox(t3)}},
		{Fields: intake.Fields{Name: "Alan Turing", Company: "Bletchley Talent", Role: "Technical Recruiter", Email: "alan@bletchley.example",
			Message: "Hello, I recruit for several London fintechs looking for Go engineers. Would you be interested in contract work?"},
			ConfirmedAt: day(7, 10, 15), HandledAt: day(6, 9, 0)},
		{Fields: intake.Fields{Name: "Radia Perlman", Company: "Spanning Tree Networks", Role: "CTO", Email: "radia@spanning.example",
			Message: "We are building a small networking team and would love your perspective on our architecture. Coffee?"},
			ConfirmedAt: day(11, 15, 2)},
		{Fields: intake.Fields{Name: "Barbara Liskov", Company: "Substitution Labs", Role: "Head of Engineering", Email: "barbara@substitution.example",
			Message: "Hi! Staff engineer role, distributed systems, hybrid in Amsterdam. The team is eight people and growing."},
			ConfirmedAt: day(15, 8, 45), HandledAt: day(14, 12, 0)},
		{Fields: intake.Fields{Name: "Frances Allen", Company: "Optimising Compilers GmbH", Role: "Talent Partner", Email: "frances@optimising.example",
			Message: "Guten Tag! We have a senior role in our compiler team in Munich and think your background fits well."},
			ConfirmedAt: day(21, 13, 20), HandledAt: day(20, 10, 0)},
		{Fields: intake.Fields{Name: "John Backus", Company: "Formula Translation", Role: "Recruiter", Email: "john@fortran.example",
			Message: "Quick question: are you open to relocation to Zurich for the right role?"},
			ConfirmedAt: day(26, 17, 55), HandledAt: day(25, 9, 30)},
		// What the spam signals caught: one waiting for the owner's word,
		// one the owner marked spam.
		{Fields: intake.Fields{Name: "Growth Desk", Company: "Rank Rocket", Role: "Partnerships", Email: "desk@rankrocket.example",
			Message: "Boost your site to page one in 7 days! Guaranteed traffic, see our offer: https://bit.ly/rank-offer"},
			ConfirmedAt: day(1, 3, 12), Signals: []string{"filled-fast", "automation", "shortened-link"}, LikelySpam: true,
			Envelopes: []intake.Envelope{inbox(day(1, 3, 12)), email(day(1, 3, 12), intake.DeliveryDelivered,
				a(day(1, 3, 12).Add(time.Second), intake.DeliveryAccepted, "SMTP 250 2.0.0 queued"),
				a(day(1, 3, 13), intake.DeliveryDelivered, "provider event: delivered"))}},
		{Fields: intake.Fields{Name: "Xqzv Brtlk", Company: "Qwrtp Lmnx", Role: "Manager", Email: "offer@mailinator.com",
			Message: "Dear sir we offer cheap backlinks and guest posts for your website, reply for price list."},
			ConfirmedAt: day(3, 4, 40), Signals: []string{"gibberish", "filled-fast", "disposable-email"}, LikelySpam: true, Spam: &yes,
			Envelopes: []intake.Envelope{inbox(day(3, 4, 40)), email(day(3, 4, 40), intake.DeliveryDelivered,
				a(day(3, 4, 40).Add(time.Second), intake.DeliveryAccepted, "SMTP 250 2.0.0 queued"),
				a(day(3, 4, 41), intake.DeliveryDelivered, "provider event: delivered"))}},
		// Written in Persian, with English inside: each value keeps its own direction.
		{Fields: intake.Fields{Name: "سارا محمدی", Company: "دیجی‌کالا", Role: "Senior Engineering Manager", Email: "sara@digikala.example",
			Message: "سلام! ما در تیم Platform دنبال یک مهندس ارشد برای Cloud Run هستیم. خوشحال می‌شوم گفت‌وگو کنیم."},
			Lang: "fa", ConfirmedAt: day(5, 9, 30), Envelopes: []intake.Envelope{inbox(day(5, 9, 30))}},
	}
	// The solve times their pages reported, at the base cost.
	for i, ms := range []int64{750, 1500, 500, 1000, 2000, 750, 3000, 1000, 500, 100, 200} {
		samples[i].SolveMillis = ms
	}
	return samples
}

// SeedRealistic writes Realistic(now), refused attempts on each of the 30
// days before now and a few sweep runs. It returns the ids in Realistic's order.
func SeedRealistic(ctx context.Context, db *firestorestore.DB, client *firestore.Client, now time.Time) ([]string, error) {
	var ids []string
	for _, s := range Realistic(now) {
		id, err := Keep(ctx, db, s)
		if err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	today := now.UTC().Truncate(24 * time.Hour)
	states := []intake.AbuseState{intake.AbuseRateLimited, intake.AbuseHoneypot, intake.AbuseContentRejected, intake.AbusePowFailed}
	for d := 1; d <= 30; d++ {
		for i := 0; i < (d*7)%9; i++ {
			state := states[(d+i*i)%len(states)]
			if d%6 == 0 && i%2 == 0 {
				state = intake.AbuseRateLimited // a burst now and then
			}
			at := today.AddDate(0, 0, -d).Add(time.Duration(1+i*2) * time.Hour)
			if err := Refused(ctx, db, fmt.Sprint(d, "-", i), state, at); err != nil {
				return nil, err
			}
		}
	}
	for i, h := range []int{3, 27, 51} {
		start := today.Add(-time.Duration(h) * time.Hour)
		run := intake.SweepRun{Trigger: intake.SweepByScheduler, StartedAt: start, FinishedAt: start.Add(time.Duration(380+90*i) * time.Millisecond),
			Deleted:             map[string]int{"drafts": 4 - i, "spentChallenges": 9 + i, "rateCounters": 6, "idempotencyKeys": 2, "ledger": 3 + 2*i, "introductions": i % 2, "transcripts": i % 2},
			DeliveriesAttempted: 1}
		if i == 1 {
			run.Trigger = intake.SweepByQuietSpell
		}
		if i == 2 {
			run.Trigger, run.Error = intake.SweepByColdStart, "ledger: UNAVAILABLE (Firestore timed out); the next run goes on"
		}
		if err := SweepRun(ctx, client, run); err != nil {
			return nil, err
		}
	}
	return ids, nil
}
