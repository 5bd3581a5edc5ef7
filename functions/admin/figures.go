package admin

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"strconv"
	"time"

	"github.com/ownersite/introductions/shared/intake"
)

// ChartDays is how many finished UTC days the figures page's chart shows.
const ChartDays = 30

// FiguresStore keeps the daily figures (DailyFigures, PutDailyFigures, once) and counts one UTC
// day's from the ledger, solves at baseMaxNumber (CountDay). Errors: UNAVAILABLE.
type FiguresStore interface {
	DailyFigures(ctx context.Context, days []string) (map[string]intake.DailyFigures, error)
	CountDay(ctx context.Context, start time.Time, baseMaxNumber int64) (intake.DailyFigures, error)
	PutDailyFigures(ctx context.Context, f intake.DailyFigures) error
}

// DailyFiguresTask is the sweep task that counts, once, each finished day of the chart.
type DailyFiguresTask struct {
	store  FiguresStore
	base   int64
	logger *slog.Logger
}

// NewDailyFiguresTask returns the task counting solves at baseMaxNumber; it refuses a nil
// store or logger and a base below 1.
func NewDailyFiguresTask(store FiguresStore, baseMaxNumber int64, logger *slog.Logger) (*DailyFiguresTask, error) {
	if store == nil || logger == nil || baseMaxNumber < 1 {
		return nil, errors.New("admin: NewDailyFiguresTask needs a store, a base max number and a logger")
	}
	return &DailyFiguresTask{store: store, base: baseMaxNumber, logger: logger}, nil
}

// Name names the task in a sweep run.
func (t *DailyFiguresTask) Name() string { return "daily-figures" }

// Run counts the finished days before now that have no figures yet.
func (t *DailyFiguresTask) Run(ctx context.Context, now time.Time) (intake.SweepTaskResult, error) {
	days := chartDays(now)
	kept, err := t.store.DailyFigures(ctx, days)
	if err != nil {
		return intake.SweepTaskResult{}, err
	}
	counted := 0
	for _, day := range days {
		if _, ok := kept[day]; ok {
			continue
		}
		start, _ := time.Parse(time.DateOnly, day)
		f, err := t.store.CountDay(ctx, start, t.base)
		if err == nil {
			err = t.store.PutDailyFigures(ctx, f)
		}
		if err != nil {
			return intake.SweepTaskResult{}, fmt.Errorf("daily figures of %s: %w", day, err)
		}
		counted++
	}
	if counted > 0 {
		t.logger.LogAttrs(ctx, slog.LevelInfo, "admin: daily figures counted", slog.Int("days", counted))
	}
	return intake.SweepTaskResult{}, nil
}

// chartDays returns the ChartDays finished UTC days before now, oldest first.
func chartDays(now time.Time) []string {
	today := now.UTC().Truncate(24 * time.Hour)
	out := make([]string, ChartDays)
	for i := range out {
		out[i] = today.AddDate(0, 0, i-ChartDays).Format(time.DateOnly)
	}
	return out
}

// refusalReason is a refusal's abuse state and its class (its colour and catalogue key).
type refusalReason struct {
	State intake.AbuseState
	Class string
}

var refusalReasons = []refusalReason{
	{intake.AbuseRateLimited, "r-rate"}, {intake.AbuseHoneypot, "r-honeypot"},
	{intake.AbuseContentRejected, "r-content"}, {intake.AbusePowFailed, "r-pow"},
}

// chart is the list page's two panels of bars, laid out so the template only draws.
type chart struct {
	Width, Height                                          int
	Days                                                   []chartDay
	Bars                                                   []bar
	Ticks                                                  []tick
	Panels                                                 []panel
	Reasons                                                []refusalReason
	Counted, TotalConfirmed, TotalLikelySpam, TotalRefused int
	First, Last                                            string
}

type chartDay struct {
	Day                          string
	Counted                      bool
	Confirmed, LikelySpam, Total int   // LikelySpam is part of Confirmed
	Refused                      []int // in refusalReasons order
}

// bar is N of Class on Day.
type bar struct {
	X, Y, W, H float64
	Class, Day string
	N          int
}

// tick is a Day on the time axis, or the count N on a panel's.
type tick struct {
	X, Y        float64
	Day, Anchor string
	N           int
}

type panel struct {
	Top, Bottom float64
	Max         int
}

const (
	chartWidth  = 720
	chartLeft   = 40.0
	chartRight  = 8.0
	panelHeight = 90.0
	panelTitle  = 22.0
	panelGap    = 18.0
	axisLabels  = 22.0
)

// niceMax rounds n up to 1, 2 or 5 times a power of ten.
func niceMax(n int) int {
	if n <= 1 {
		return 1
	}
	for p := 1; ; p *= 10 {
		for _, m := range []int{1, 2, 5} {
			if m*p >= n {
				return m * p
			}
		}
	}
}

func buildChart(days []string, kept map[string]intake.DailyFigures) chart {
	c := chart{Width: chartWidth, Reasons: refusalReasons}
	maxConfirmed, maxRefused := 0, 0
	for _, d := range days {
		cd := chartDay{Day: d, Refused: make([]int, len(refusalReasons))}
		if f, ok := kept[d]; ok {
			cd.Counted = true
			c.Counted++
			cd.Confirmed = f.Confirmed
			cd.LikelySpam = min(f.LikelySpam, f.Confirmed)
			for i, r := range refusalReasons {
				cd.Refused[i] = f.Refused[string(r.State)]
				cd.Total += f.Refused[string(r.State)]
			}
		}
		c.TotalConfirmed += cd.Confirmed
		c.TotalLikelySpam += cd.LikelySpam
		c.TotalRefused += cd.Total
		maxConfirmed, maxRefused = max(maxConfirmed, cd.Confirmed), max(maxRefused, cd.Total)
		c.Days = append(c.Days, cd)
	}
	if len(days) > 0 {
		c.First, c.Last = days[0], days[len(days)-1]
	}
	top1 := panelTitle
	top2 := top1 + panelHeight + panelGap + panelTitle
	c.Panels = []panel{
		{Top: top1, Bottom: top1 + panelHeight, Max: niceMax(maxConfirmed)},
		{Top: top2, Bottom: top2 + panelHeight, Max: niceMax(maxRefused)},
	}
	c.Height = int(top2 + panelHeight + axisLabels)
	step := (chartWidth - chartLeft - chartRight) / float64(len(days))
	w := step * 0.7
	for i, d := range c.Days {
		x := chartLeft + float64(i)*step + (step-w)/2
		if !d.Counted {
			c.Bars = append(c.Bars, bar{X: x, Y: c.Panels[0].Bottom - 2, W: w, H: 2, Class: "uncounted", Day: d.Day})
			continue
		}
		p := c.Panels[0]
		clean := d.Confirmed - d.LikelySpam
		h := panelHeight * float64(clean) / float64(p.Max)
		if clean > 0 {
			c.Bars = append(c.Bars, bar{X: x, Y: p.Bottom - h, W: w, H: h, Class: "confirmed", Day: d.Day, N: clean})
		}
		if d.LikelySpam > 0 {
			hs := panelHeight * float64(d.LikelySpam) / float64(p.Max)
			c.Bars = append(c.Bars, bar{X: x, Y: p.Bottom - h - hs, W: w, H: hs, Class: "likely-spam", Day: d.Day, N: d.LikelySpam})
		}
		p = c.Panels[1]
		y := p.Bottom
		for j, r := range refusalReasons {
			n := d.Refused[j]
			if n == 0 {
				continue
			}
			h := panelHeight * float64(n) / float64(p.Max)
			y -= h
			c.Bars = append(c.Bars, bar{X: x, Y: y, W: w, H: h, Class: r.Class, Day: d.Day, N: n})
		}
	}
	for _, p := range c.Panels {
		c.Ticks = append(c.Ticks,
			tick{X: chartLeft - 6, Y: p.Top + 4, N: p.Max, Anchor: "end"},
			tick{X: chartLeft - 6, Y: p.Bottom, Anchor: "end"})
	}
	for i := 0; i < len(c.Days)-3; i += 7 {
		x := chartLeft + float64(i)*step + step/2
		c.Ticks = append(c.Ticks, tick{X: x, Y: float64(c.Height) - 6, Day: c.Days[i].Day, Anchor: "middle"})
	}
	if n := len(c.Days); n > 0 {
		x := chartLeft + float64(n-1)*step + step/2
		c.Ticks = append(c.Ticks, tick{X: x, Y: float64(c.Height) - 6, Day: c.Days[n-1].Day, Anchor: "end"})
	}
	return c
}

// solveFigures is the list page's solve telemetry per day and over the window.
type solveFigures struct {
	Target time.Duration
	Base   int64 // the POW_MAX_NUMBER in force
	Days   []solveDay
	Total  solveDay
}

// solveDay is the solves counted at MaxNumber and the POW_MAX_NUMBER Suggested for a 90th
// percentile at the target (0 without solves).
type solveDay struct {
	Day         string
	MaxNumber   int64
	Solves      int
	Median, P90 time.Duration
	Suggested   int64
}

// buildSolveFigures summarises the kept days' solve histograms; the total counts only days at
// the base in force.
func buildSolveFigures(days []string, kept map[string]intake.DailyFigures, target SolveTarget) solveFigures {
	out := solveFigures{Target: target.TargetP90, Base: target.MaxNumber}
	all := map[int64]int{}
	for _, d := range days {
		f, ok := kept[d]
		if !ok || f.SolveMaxNumber < 1 {
			continue
		}
		hist := map[int64]int{}
		for k, n := range f.Solves {
			b, err := strconv.ParseInt(k, 10, 64)
			if err != nil || n <= 0 {
				continue
			}
			hist[b] += n
			if f.SolveMaxNumber == target.MaxNumber {
				all[b] += n
			}
		}
		day := summarise(hist, f.SolveMaxNumber, target.TargetP90)
		if day.Solves == 0 {
			continue
		}
		day.Day = d
		out.Days = append(out.Days, day)
	}
	out.Total = summarise(all, target.MaxNumber, target.TargetP90)
	return out
}

func summarise(hist map[int64]int, maxNumber int64, target time.Duration) solveDay {
	out := solveDay{MaxNumber: maxNumber}
	for _, n := range hist {
		out.Solves += n
	}
	if out.Solves == 0 {
		return out
	}
	p90 := percentile(hist, out.Solves, 0.9)
	out.Median, out.P90 = time.Duration(percentile(hist, out.Solves, 0.5))*time.Millisecond, time.Duration(p90)*time.Millisecond
	out.Suggested = SuggestMaxNumber(maxNumber, p90, target)
	return out
}

// percentile is the bucket where the q-quantile of the histogram falls.
func percentile(hist map[int64]int, total int, q float64) int64 {
	need := int(math.Ceil(q * float64(total)))
	seen := 0
	for _, b := range intake.SolveBuckets {
		seen += hist[b]
		if seen >= need {
			return b
		}
	}
	return intake.SolveBuckets[len(intake.SolveBuckets)-1]
}

// SuggestMaxNumber is the max number whose 90th-percentile solve would take target (maxNumber
// scaled by target over the middle of bucket p90), to two significant digits, within 1 to 1e8.
func SuggestMaxNumber(maxNumber, p90 int64, target time.Duration) int64 {
	mid := float64(p90)
	for i, b := range intake.SolveBuckets {
		if b == p90 && i+1 < len(intake.SolveBuckets) {
			mid = float64(b+intake.SolveBuckets[i+1]) / 2
		}
	}
	if mid <= 0 {
		mid = 1
	}
	v := float64(maxNumber) * float64(target.Milliseconds()) / mid
	if v >= 100 {
		scale := math.Pow(10, math.Floor(math.Log10(v))-1)
		v = math.Round(v/scale) * scale
	}
	return min(max(int64(math.Round(v)), 1), 100_000_000)
}
