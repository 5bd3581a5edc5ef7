package wiring_test

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"testing"

	introductions "github.com/ownersite/introductions"
	"github.com/ownersite/introductions/functions/wiring/dbparts"
	"github.com/ownersite/introductions/shared/cloudlog"
	"github.com/ownersite/introductions/shared/config"
	"github.com/ownersite/introductions/shared/emulatortest"
	"github.com/ownersite/introductions/shared/intake"
)

// BenchmarkDraftAndConfirm measures, through the wired HTTP handlers on the
// emulator, the Firestore round trips (RPCs counted by a gRPC interceptor)
// of one draft, one revision of it (the visitor's Edit) and one
// confirmation. The target is at most 3 each.
func BenchmarkDraftAndConfirm(b *testing.B) {
	counter := &emulatortest.RPCCounter{}
	// The background sweeps (the first draft of the day starts one) would
	// add their queries to whichever request they overlap: counted apart.
	h := benchHarness(b, nil, dbparts.Overrides{StoreOptions: counter.ClientOptions(emulatortest.Host(b)), SweepRunner: idleSweep{}})
	var draftRPCs, reviseRPCs, confirmRPCs int64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		body := h.draftBody(map[string]any{"email": fmt.Sprintf("bench%d@example.com", i)})
		b.StartTimer()
		before := counter.Count()
		r := h.postJSON("/api/introductions", body, fromAddress(addr(i))...)
		if r.status != http.StatusCreated {
			b.Fatalf("draft: %d %s", r.status, r.body)
		}
		mid := counter.Count()
		d := r.json(h.t)
		rev := h.postJSON("/api/introductions/"+d["id"].(string)+"/revision", revision(d["token"].(string), map[string]any{"email": fmt.Sprintf("bench%d@example.com", i), "message": "Revised."}))
		if rev.status != http.StatusOK {
			b.Fatalf("revision: %d %s", rev.status, rev.body)
		}
		revised := counter.Count()
		c := h.postJSON("/api/introductions/"+d["id"].(string)+"/confirmation", map[string]string{"token": d["token"].(string)})
		if c.status != http.StatusOK {
			b.Fatalf("confirm: %d %s", c.status, c.body)
		}
		draftRPCs += mid - before
		reviseRPCs += revised - mid
		confirmRPCs += counter.Count() - revised
	}
	b.ReportMetric(float64(draftRPCs)/float64(b.N), "rpcs/draft")
	b.ReportMetric(float64(reviseRPCs)/float64(b.N), "rpcs/revision")
	b.ReportMetric(float64(confirmRPCs)/float64(b.N), "rpcs/confirm")
}

// BenchmarkEscalatedDraft counts the Firestore round trips of a source's
// fourth draft: its POW_TOO_EASY refusal at the base cost and its kept
// retry at the owed cost (what a first draft costs, BenchmarkDraftAndConfirm,
// is the reference: the owed cost is read from the counter the draft
// already reads).
func BenchmarkEscalatedDraft(b *testing.B) {
	counter := &emulatortest.RPCCounter{}
	h := benchHarness(b, map[string]string{"POW_MAX_ESCALATED": "1000000", "CLIENT_ADDRESS": "cloud-run"},
		dbparts.Overrides{StoreOptions: counter.ClientOptions(emulatortest.Host(b)), SweepRunner: idleSweep{}})
	var refusalRPCs, keptRPCs int64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		escalatedSources++
		from := fromAddress(fmt.Sprintf("2001:db8:%x::1", escalatedSources))
		for j := range 3 {
			if r := h.postJSON("/api/introductions", h.draftBody(map[string]any{"email": fmt.Sprintf("e%d-%d@example.com", i, j)}), from...); r.status != http.StatusCreated {
				b.Fatalf("draft %d: %d %s", j+1, r.status, r.body)
			}
		}
		body := h.draftBody(map[string]any{"email": fmt.Sprintf("e%d-3@example.com", i)})
		b.StartTimer()
		before := counter.Count()
		r := h.postJSON("/api/introductions", body, from...)
		if r.status != http.StatusUnprocessableEntity {
			b.Fatalf("fourth draft at the base: %d %s", r.status, r.body)
		}
		refused := counter.Count()
		b.StopTimer()
		body["altcha"] = h.solvedAt(int64(r.json(h.t)["requiredMaxNumber"].(float64)))
		b.StartTimer()
		mid := counter.Count()
		if r := h.postJSON("/api/introductions", body, from...); r.status != http.StatusCreated {
			b.Fatalf("fourth draft at the owed cost: %d %s", r.status, r.body)
		}
		refusalRPCs += refused - before
		keptRPCs += counter.Count() - mid
	}
	b.ReportMetric(float64(refusalRPCs)/float64(b.N), "rpcs/refusal")
	b.ReportMetric(float64(keptRPCs)/float64(b.N), "rpcs/escalated-draft")
}

// escalatedSources numbers BenchmarkEscalatedDraft's sources across its
// runs, so that each run's sources are fresh.
var escalatedSources int

// idleSweep stands in for the retention sweep where a benchmark counts the
// round trips of requests alone.
type idleSweep struct{}

func (idleSweep) Run(context.Context, intake.SweepTrigger) (intake.SweepRun, error) {
	return intake.SweepRun{}, nil
}

// BenchmarkDecoyConfirmation times, through the wired handlers on the
// emulator, the confirmation of a real draft and of a honeypot's decoy,
// first and repeated, so `make bench` can print their ratio: a decoy must
// answer within the noise of a real confirmation's store round trips.
func BenchmarkDecoyConfirmation(b *testing.B) {
	h := benchHarness(b, nil, dbparts.Overrides{})
	for _, kind := range realAndDecoy {
		b.Run(kind.name, func(b *testing.B) {
			drafts := h.benchDrafts(b, kind, b.N, nil)
			b.ResetTimer()
			for _, d := range drafts {
				for range 2 { // the first confirmation and a repeat
					c := h.postJSON("/api/introductions/"+d["id"].(string)+"/confirmation", map[string]string{"token": d["token"].(string)})
					if c.status != http.StatusOK {
						b.Fatalf("confirm: %d %s", c.status, c.body)
					}
				}
			}
		})
	}
}

// draftKind is a real draft or a honeypot's decoy: the honeypot's value.
type draftKind struct{ name, honeypot string }

// realAndDecoy are the two kinds a decoy benchmark compares.
var realAndDecoy = []draftKind{{"real", ""}, {"decoy", "https://spam.example/"}}

// benchDrafts keeps n drafts of kind, each from its own address, with
// overrides on draftBody, and returns their answers.
func (h *harness) benchDrafts(b *testing.B, kind draftKind, n int, overrides map[string]any) []map[string]any {
	b.Helper()
	drafts := make([]map[string]any, n)
	for i := range drafts {
		body := h.draftBody(withOverrides(map[string]any{"email": fmt.Sprintf("%s%d@example.com", kind.name, i), "website": kind.honeypot}, overrides))
		r := h.postJSON("/api/introductions", body, fromAddress(addr(i))...)
		if r.status != http.StatusCreated {
			b.Fatalf("draft: %d %s", r.status, r.body)
		}
		drafts[i] = r.json(h.t)
	}
	return drafts
}

// benchHarness serves the wired service on a reset emulator, with limits
// no benchmark reaches and extra settings on top; it is closed when b
// ends.
func benchHarness(b *testing.B, extra map[string]string, o dbparts.Overrides) *harness {
	b.Helper()
	host := emulatortest.Host(b)
	project := emulatortest.Project(b)
	emulatortest.Reset(b, host, project)
	// Every draft comes from the connection's one address: the escalating
	// work is off (BenchmarkEscalatedDraft measures it).
	vars := map[string]string{"FIRESTORE_PROJECT": project, "POW_MAX_NUMBER": "1000", "RATE_LIMIT_IP_PER_HOUR": "10000",
		"RATE_LIMIT_EMAIL_PER_HOUR": "10000", "FLOOD_LIMIT": "1000000", "POW_MAX_ESCALATED": "1000"}
	maps.Copy(vars, extra)
	cfg, err := config.Load(func(k string) string { return vars[k] })
	if err != nil {
		b.Fatal(err)
	}
	svc, err := introductions.Build(context.Background(), cfg, cloudlog.New(os.Stderr, slog.LevelError), o)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { svc.Close() })
	srv := httptest.NewServer(svc.Mux(http.NotFoundHandler()))
	b.Cleanup(srv.Close)
	return &harness{t: &testing.T{}, svc: svc, srv: srv}
}
