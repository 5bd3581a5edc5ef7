package admin_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/ownersite/introductions/functions/admin"
	"github.com/ownersite/introductions/functions/admin/adminseed"
	"github.com/ownersite/introductions/shared/intake"
)

// TestNothingPersonalInLogs drives every admin route, successes and
// refusals, with canary values in every field and in the owner's identity
// token, and checks that no log line holds any of them.
func TestNothingPersonalInLogs(t *testing.T) {
	f := newFixture(t, func(d *admin.Deps) {
		d.Scheduler = fixedScheduler{status: intake.SchedulerStatus{Schedule: "0 3 * * *", LastStatus: "OK", LastAttempt: now}}
	})
	canaries := intake.Fields{Name: "CanaryName7731", Company: "CanaryCompany7731", Role: "CanaryRole7731",
		Email: "canary.mail7731@example.com", Message: "CanaryMessage7731"}
	s := adminseed.Sample{Fields: canaries, Conversation: "CanaryConversation7731", ConfirmedAt: now.Add(-time.Hour),
		Envelopes: []intake.Envelope{{Destination: intake.DestinationEmail, Status: intake.DeliveryFailed}}}
	id := f.keep(s)
	other := adminseed.Sample{Fields: canaries, ConfirmedAt: now.Add(-2 * time.Hour)}
	other.Fields.Name = "CanaryOther7731"
	otherID := f.keep(other)
	if err := adminseed.SweepRun(context.Background(), f.client, intake.SweepRun{StartedAt: now, FinishedAt: now, Deleted: map[string]int{}}); err != nil {
		t.Fatal(err)
	}
	token := identity("canary.owner7731@example.com")
	email := url.QueryEscape(canaries.Email)
	f.logs.buf.Reset()

	type call struct{ method, path, body string }
	calls := []call{
		{"GET", "/admin/", ""}, {"GET", "/admin/?cursor=bad", ""},
		{"GET", "/admin/introductions/" + id, ""}, {"GET", "/admin/introductions/nope", ""},
		{"GET", "/admin/subjects", ""}, {"GET", "/admin/retention", ""}, {"GET", "/admin/assets/admin.css", ""}, {"GET", "/admin/nowhere", ""},
		{"GET", "/admin/api/introductions", ""}, {"GET", "/admin/api/introductions?cursor=CanaryCursor7731", ""},
		{"GET", "/admin/api/introductions/" + id, ""}, {"GET", "/admin/api/introductions/no-such-id", ""},
		{"POST", "/admin/api/deliveries/" + intake.EnvelopeID(id, intake.DestinationEmail, intake.EventConfirmed) + "/retry", ""}, {"POST", "/admin/api/deliveries/no-such-envelope/retry", ""},
		{"GET", "/admin/api/subjects?email=" + email, ""}, {"GET", "/admin/api/subjects?email=CanaryBad7731", ""},
		{"GET", "/admin/api/health", ""},
		{"POST", "/admin/api/introductions/" + id + "/handled", ""}, {"POST", "/admin/api/introductions/" + id + "/handled", ""},
		{"POST", "/admin/api/subjects/erasure", `{"email":"CanaryBad7731"}`},
		{"GET", "/admin/introductions/export?format=csv&from=" + now.AddDate(0, 0, -1).Format(time.DateOnly) + "&to=" + now.Format(time.DateOnly), ""},
		{"GET", "/admin/introductions/export?format=CanaryFormat7731&from=2026-11-01&to=2026-11-30", ""},
	}
	for _, c := range calls {
		f.do(c.method, c.path, c.body, "Authorization", token)
	}
	f.form("/admin/introductions/"+otherID+"/handled", "")
	f.form("/admin/subjects", "email="+email)
	f.form("/admin/subjects/export", "email="+email)
	f.form("/admin/subjects/erasure", "email="+email)
	f.do(http.MethodPost, "/admin/api/subjects/erasure", `{"email":"`+canaries.Email+`"}`, "Authorization", token, "Sec-Fetch-Site", "cross-site")
	f.do(http.MethodPost, "/admin/api/subjects/erasure", `{"email":"`+canaries.Email+`"}`, "Authorization", token)

	logs := f.logs.String()
	if !strings.Contains(logs, `"action":"erased"`) || !strings.Contains(logs, `"action":"handled"`) || !strings.Contains(logs, `"format":"csv","introductions":2,"action":"exported"`) {
		t.Fatalf("the admin's actions were not logged at all:\n%s", logs)
	}
	for _, canary := range []string{"Canary", "canary", "CANARY"} { // not the bare digits: a timestamp may hold them
		if strings.Contains(logs, canary) {
			for _, line := range strings.Split(logs, "\n") {
				if strings.Contains(line, canary) {
					t.Errorf("a log line holds %q: %s", canary, line)
				}
			}
		}
	}
}
