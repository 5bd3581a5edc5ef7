package intake_test

import (
	"fmt"
	"sync"
	"testing"

	"github.com/ownersite/introductions/shared/intake"
)

func TestEscalationOwed(t *testing.T) {
	e := intake.Escalation{Layer: "ip", Free: 3, Base: 1000, Max: 1000 * 1000}
	tests := []struct {
		kept int
		want int64
	}{
		{0, 1000}, {1, 1000}, {2, 1000}, {3, 2000}, {4, 4000}, {5, 8000}, {9, 128_000}, {12, 1_000_000}, {40, 1_000_000},
	}
	for _, tt := range tests {
		if got := e.Owed(tt.kept); got != tt.want {
			t.Errorf("Owed(%d) = %d, want %d", tt.kept, got, tt.want)
		}
	}
	if got := (intake.Escalation{}).Owed(99); got != 0 {
		t.Errorf("a zero Escalation owes %d, want 0", got)
	}
}

// BenchmarkEscalationCurve prints the escalation's cost curve at the
// defaults (base 100000, ceiling 1000 × base): the max number owed and the
// expected hashes (half the max number: the secret is uniform in 0..N) for
// drafts 1–10 of one source, and for a second source's first draft.
func BenchmarkEscalationCurve(b *testing.B) {
	e := intake.Escalation{Layer: "ip", Free: 3, Base: 100_000, Max: 1000 * 100_000}
	for range b.N {
		_ = e.Owed(9)
	}
	b.StopTimer()
	curveOnce.Do(func() {
		line := func(source string, draft int, owed int64) {
			fmt.Printf("escalation: source %s draft %2d owes maxnumber %11d, expected hashes %11d (%4.0f× base)\n", source, draft, owed, (owed+1)/2, float64(owed)/float64(e.Base))
		}
		for kept := range 10 {
			line("A", kept+1, e.Owed(kept))
		}
		line("B", 1, e.Owed(0))
	})
}

var curveOnce sync.Once
