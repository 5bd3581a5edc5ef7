package checks_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/ownersite/introductions/shared/checks"
	"github.com/ownersite/introductions/shared/floodlimit"
	"github.com/ownersite/introductions/shared/intake"
	"github.com/ownersite/introductions/shared/testsupport"
)

var now = time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)

func attempt(t *testing.T, sub intake.Submission) *checks.Attempt {
	t.Helper()
	form := testsupport.Must(testsupport.Forms(t).Version("introduction", "1"))(t)
	sub.FormID, sub.FormVersion = "introduction", "1"
	return &checks.Attempt{Now: now, Form: form, Submission: sub, ClientKey: "client-hash", EmailKey: "email-hash"}
}

var valid = intake.Submission{Fields: intake.Fields{Name: "  Ada Lovelace ", Email: "ada@example.com", Message: "Hello."}, Altcha: "payload"}

func flood(t *testing.T, limit int) *floodlimit.Limiter {
	return testsupport.Must(floodlimit.New(limit, time.Minute))(t)
}

func TestRateLimit(t *testing.T) {
	t.Run("lets the limit through, then refuses with the wait", func(t *testing.T) {
		check := checks.RateLimit{Flood: flood(t, 2)}
		for i := 0; i < 2; i++ {
			if err := check.Check(context.Background(), attempt(t, valid)); err != nil {
				t.Fatalf("request %d: %v", i+1, err)
			}
		}
		a := attempt(t, valid)
		err := check.Check(context.Background(), a)
		var e *intake.Error
		if !errors.As(err, &e) || e.Code != intake.CodeRateLimited || e.RetryAfter <= 0 {
			t.Fatalf("third request: %v", err)
		}
		if a.Abuse != intake.AbuseRateLimited || !slices.Contains(a.Signals, "flood-limit") || len(a.RateDecisions) != 1 || a.RateDecisions[0].Decision != intake.RateBlock {
			t.Fatalf("attempt records %+v", a)
		}
	})
	t.Run("refuses an email the store reported blocked", func(t *testing.T) {
		limiter := flood(t, 100)
		limiter.Block("email-hash", now.Add(time.Hour))
		a := attempt(t, valid)
		err := checks.RateLimit{Flood: limiter}.Check(context.Background(), a)
		var e *intake.Error
		if !errors.As(err, &e) || e.Code != intake.CodeRateLimited || e.RetryAfter < time.Hour || !slices.Contains(a.Signals, "authoritative-limit-remembered") {
			t.Fatalf("%v, attempt %+v", err, a)
		}
	})
}

func TestHoneypot(t *testing.T) {
	for _, tc := range []struct {
		name, value string
		filled      bool
	}{
		{"empty", "", false},
		{"blank", " \t", false},
		{"filled", "http://spam.example", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sub := valid
			sub.Honeypot = tc.value
			a := attempt(t, sub)
			if err := (checks.Honeypot{}).Check(context.Background(), a); err != nil {
				t.Fatalf("the honeypot stopped the attempt: %v (it must only mark it)", err)
			}
			if tc.filled != a.Honeypot || tc.filled != (a.Abuse == intake.AbuseHoneypot) || tc.filled != slices.Contains(a.Signals, "honeypot-filled") {
				t.Fatalf("attempt records %+v", a)
			}
		})
	}
}

func TestContentRules(t *testing.T) {
	t.Run("replaces the submission with what is kept", func(t *testing.T) {
		a := attempt(t, valid)
		if err := (checks.ContentRules{}).Check(context.Background(), a); err != nil {
			t.Fatal(err)
		}
		if a.Submission.Fields.Name != "Ada Lovelace" || a.Submission.Altcha != "payload" || a.Abuse != "" {
			t.Fatalf("kept %+v", a.Submission)
		}
	})
	t.Run("refuses every broken field at once", func(t *testing.T) {
		sub := valid
		sub.Fields.Name, sub.Fields.Email = "", "not-an-email"
		a := attempt(t, sub)
		err := checks.ContentRules{}.Check(context.Background(), a)
		var e *intake.Error
		if !errors.As(err, &e) || len(e.Fields) != 2 || a.Abuse != intake.AbuseContentRejected ||
			!slices.Equal(a.Signals, []string{string(intake.CodeNameInvalid), string(intake.CodeEmailInvalid)}) {
			t.Fatalf("%v, attempt %+v", err, a)
		}
	})
}

// verifier accepts "good" and refuses anything else with POW_INVALID.
type verifier struct{}

func (verifier) Verify(payload string) (intake.SpentChallenge, error) {
	if payload != "good" {
		return intake.SpentChallenge{}, intake.Invalid(intake.FieldError{Field: "altcha", Code: intake.CodePowInvalid, Detail: "invalid"})
	}
	return intake.SpentChallenge{Key: "spent-key", ExpireAt: now.Add(time.Minute)}, nil
}

func TestProofOfWork(t *testing.T) {
	sub := valid
	sub.Altcha = "good"
	a := attempt(t, sub)
	if err := (checks.ProofOfWork{Verifier: verifier{}}).Check(context.Background(), a); err != nil || a.Challenge.Key != "spent-key" {
		t.Fatalf("%v, challenge %+v", err, a.Challenge)
	}
	a = attempt(t, valid)
	err := checks.ProofOfWork{Verifier: verifier{}}.Check(context.Background(), a)
	if intake.CodeOf(err) != intake.CodePowInvalid || a.Abuse != intake.AbusePowFailed || !slices.Equal(a.Signals, []string{"POW_INVALID"}) || a.Challenge.Key != "" {
		t.Fatalf("%v, attempt %+v", err, a)
	}
}

// recorder is a check that notes it ran and answers err.
type recorder struct {
	name string
	ran  *[]string
	err  error
}

func (r recorder) Check(context.Context, *checks.Attempt) error {
	*r.ran = append(*r.ran, r.name)
	return r.err
}

func TestChainRunsInOrderAndStopsAtTheFirstRefusal(t *testing.T) {
	var ran []string
	a := attempt(t, valid)
	if err := (checks.Chain{recorder{"a", &ran, nil}, recorder{"b", &ran, nil}}).Run(context.Background(), a); err != nil || a.Abuse != intake.AbuseClean || !slices.Equal(ran, []string{"a", "b"}) {
		t.Fatalf("%v, abuse %q, ran %v", err, a.Abuse, ran)
	}
	ran = nil
	a = attempt(t, valid)
	stop := intake.Errorf(intake.CodePowInvalid, "stop")
	err := checks.Chain{recorder{"a", &ran, nil}, recorder{"b", &ran, stop}, recorder{"c", &ran, nil}}.Run(context.Background(), a)
	if err != stop || a.Abuse == intake.AbuseClean || !slices.Equal(ran, []string{"a", "b"}) {
		t.Fatalf("%v, abuse %q, ran %v", err, a.Abuse, ran)
	}
}

func TestAMissingDependencyIsInternalNotAPanic(t *testing.T) {
	for name, check := range map[string]checks.Check{"RateLimit": checks.RateLimit{}, "ProofOfWork": checks.ProofOfWork{}} {
		if err := check.Check(context.Background(), attempt(t, valid)); intake.CodeOf(err) != intake.CodeInternal {
			t.Errorf("%s without its dependency: %v", name, err)
		}
	}
}
