package admin

import (
	"testing"
	"time"

	"github.com/ownersite/introductions/shared/intake"
)

// TestSolveTotalsCountOnlyTheBaseInForce: a day measured at another base
// cost is shown as its own day, but the window's total adds only the days
// measured at the POW_MAX_NUMBER in force.
func TestSolveTotalsCountOnlyTheBaseInForce(t *testing.T) {
	kept := map[string]intake.DailyFigures{
		"2026-03-01": {SolveMaxNumber: 1000, Solves: map[string]int{"300": 9, "500": 1}},
		"2026-03-02": {SolveMaxNumber: 50000, Solves: map[string]int{"15000": 30}},
		"2026-03-03": {SolveMaxNumber: 1000, Solves: map[string]int{"300": 10}},
	}
	got := buildSolveFigures([]string{"2026-03-01", "2026-03-02", "2026-03-03"}, kept, SolveTarget{MaxNumber: 1000, TargetP90: time.Second})
	if len(got.Days) != 3 || got.Days[1].MaxNumber != 50000 || got.Days[1].Solves != 30 {
		t.Fatalf("days: %+v", got.Days)
	}
	if got.Total.Solves != 20 || got.Total.MaxNumber != 1000 || got.Total.P90 != 300*time.Millisecond {
		t.Fatalf("total: %+v, want 20 solves at 1000, 90th percentile 300ms", got.Total)
	}
}
