package wiring_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/ownersite/introductions/shared/altchapow"
	"github.com/ownersite/introductions/shared/testsupport"
)

// noEscalation turns the escalating work off (POW_MAX_ESCALATED equal to
// the harness's POW_MAX_NUMBER), for tests that count the rate limits.
var noEscalation = map[string]string{"POW_MAX_ESCALATED": "3000"}

// solvedAt fetches a challenge of maxNumber and solves it.
func (h *harness) solvedAt(maxNumber int64) string {
	h.t.Helper()
	c := h.challengeAt(maxNumber)
	payload, _ := testsupport.Solve(h.t, c)
	return payload
}

func (h *harness) challengeAt(maxNumber int64) altchapow.Challenge {
	h.t.Helper()
	r := h.do(http.MethodGet, "/api/introductions/challenge?maxnumber="+strconv.FormatInt(maxNumber, 10), "", nil)
	if r.status != http.StatusOK {
		h.t.Fatalf("challenge: %d %s", r.status, r.body)
	}
	var c altchapow.Challenge
	if err := json.Unmarshal(r.body, &c); err != nil {
		h.t.Fatal(err)
	}
	return c
}

// answer is what a visitor can tell of a draft's answer.
type answer struct {
	status   int
	code     string
	required int64
}

func answerOf(t *testing.T, r response) answer {
	t.Helper()
	a := answer{status: r.status}
	if r.status != http.StatusCreated {
		m := r.json(t)
		a.code, _ = m["code"].(string)
		if n, ok := m["requiredMaxNumber"].(float64); ok {
			a.required = int64(n)
		}
	}
	return a
}

// TestEscalatingWorkPerSource: from one source, drafts 1–3 pass at the
// base; from the 4th the owed max number doubles with each draft, a
// base-cost solution is refused POW_TOO_EASY with requiredMaxNumber, and a
// solution of that cost passes with the same content. The refused solution
// is not spent (another source uses it at the base), a corrected field and
// a revision owe nothing new, and a honeypot source sees the same answers.
func TestEscalatingWorkPerSource(t *testing.T) {
	h := newHarness(t, nil)
	const base = 3000
	run := func(source, website string) []answer {
		var answers []answer
		for i := 1; i <= 6; i++ {
			body := h.draftBody(map[string]any{"email": fmt.Sprintf("n%d@%t.example", i, website != ""), "website": website})
			r := h.postJSON("/api/introductions", body, fromAddress(source)...)
			a := answerOf(t, r)
			answers = append(answers, a)
			if a.code != "POW_TOO_EASY" {
				continue
			}
			if r.header.Get("Content-Type") != "application/problem+json" || r.status != http.StatusUnprocessableEntity {
				t.Fatalf("%s draft %d: %d %s", source, i, r.status, r.header.Get("Content-Type"))
			}
			// The refused solution is not spent: another source takes it.
			if i == 6 {
				if r := h.postJSON("/api/introductions", body, fromAddress("192.0.2."+strconv.Itoa(len(website)+10))...); r.status != http.StatusCreated {
					t.Fatalf("the refused solution, from another source at the base: %d %s", r.status, r.body)
				}
			}
			// The same content with a solution of the owed cost passes.
			body["altcha"] = h.solvedAt(a.required)
			r = h.postJSON("/api/introductions", body, fromAddress(source)...)
			answers = append(answers, answerOf(t, r))
		}
		return answers
	}
	got := run("198.51.100.77", "")
	want := []answer{{201, "", 0}, {201, "", 0}, {201, "", 0},
		{422, "POW_TOO_EASY", 2 * base}, {201, "", 0},
		{422, "POW_TOO_EASY", 4 * base}, {201, "", 0},
		{422, "POW_TOO_EASY", 8 * base}, {201, "", 0}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("answers from one source:\n got %v\nwant %v", got, want)
	}
	if decoy := run("198.51.100.78", "https://spam.example/"); fmt.Sprint(decoy) != fmt.Sprint(got) {
		t.Fatalf("a honeypot source's answers differ from a real one's:\n decoy %v\n real  %v", decoy, got)
	}
	// Each refusal left a content-free ledger entry saying why.
	refused := 0
	for _, doc := range h.docs("ledger") {
		if strings.Contains(doc, `"POW_TOO_EASY"`) && strings.Contains(doc, `"POW_FAILED"`) {
			refused++
		}
	}
	if refused != 6 {
		t.Fatalf("%d ledger entries record a POW_TOO_EASY refusal, want 6", refused)
	}
	if r := h.draftFrom("198.51.100.79", "bystander@example.com"); r.status != http.StatusCreated {
		t.Fatalf("another source at the base: %d %s", r.status, r.body)
	}

	// A fresh source's 4th draft: a field to correct first, then the same
	// 2× solution with the field corrected; then a revision.
	const person = "198.51.100.80"
	for i := range 3 {
		if r := h.draftFrom(person, fmt.Sprintf("p%d@example.com", i)); r.status != http.StatusCreated {
			t.Fatalf("person's draft %d: %d %s", i+1, r.status, r.body)
		}
	}
	body := h.draftBody(map[string]any{"email": "not an address", "altcha": h.solvedAt(2 * base)})
	if r := h.postJSON("/api/introductions", body, fromAddress(person)...); r.code(t) != "EMAIL_INVALID" {
		t.Fatalf("a field to correct: %d %s", r.status, r.body)
	}
	body["email"] = "p3@example.com"
	r := h.postJSON("/api/introductions", body, fromAddress(person)...)
	if r.status != http.StatusCreated {
		t.Fatalf("the corrected draft with the same solution: %d %s", r.status, r.body)
	}
	d := r.json(t)
	if rev := h.postJSON("/api/introductions/"+d["id"].(string)+"/revision", revision(d["token"].(string), map[string]any{"email": "p3@example.com", "message": "Revised."}),
		fromAddress(person)...); rev.status != http.StatusOK {
		t.Fatalf("a revision: %d %s", rev.status, rev.body)
	}
}

// TestEscalatedChallengeIsSignedAndBounded: ?maxnumber=N signs a challenge
// of N, brought into the base to POW_MAX_ESCALATED, its max number in the
// signed salt.
func TestEscalatedChallengeIsSignedAndBounded(t *testing.T) {
	h := newHarness(t, map[string]string{"POW_MAX_ESCALATED": "48000"})
	for _, tt := range []struct{ ask, want int64 }{{0, 3000}, {1, 3000}, {24000, 24000}, {48000, 48000}, {1 << 50, 48000}} {
		c := h.challengeAt(tt.ask)
		if c.MaxNumber != tt.want {
			t.Errorf("?maxnumber=%d: a challenge of %d, want %d", tt.ask, c.MaxNumber, tt.want)
		}
	}
	if r := h.do(http.MethodGet, "/api/introductions/challenge?maxnumber=lots", "", nil); r.status != http.StatusOK || r.json(t)["maxnumber"] != 3000.0 {
		t.Errorf("?maxnumber=lots: %d %s, want the base", r.status, r.body)
	}
}
