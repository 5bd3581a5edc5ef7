package admin

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/ownersite/introductions/shared/intake"
)

// ChartDays is how many finished UTC days the list page's chart shows.
const ChartDays = 30

// FiguresStore keeps the daily figures and counts them from the ledger.
// Errors: UNAVAILABLE.
type FiguresStore interface {
	// DailyFigures returns the kept figures of the given days by day.
	DailyFigures(ctx context.Context, days []string) (map[string]intake.DailyFigures, error)
	// CountDay counts one UTC day's figures from the ledger without
	// reading its entries.
	CountDay(ctx context.Context, start time.Time) (intake.DailyFigures, error)
	// PutDailyFigures keeps one day's figures, once.
	PutDailyFigures(ctx context.Context, f intake.DailyFigures) error
}

// DailyFiguresTask is the sweep task that aggregates, once, each finished
// UTC day of the chart's window that has no figures yet. A run that finds
// every day counted costs one read of ChartDays documents.
type DailyFiguresTask struct {
	store  FiguresStore
	logger *slog.Logger
}

// NewDailyFiguresTask returns the task; it refuses a nil store or logger.
func NewDailyFiguresTask(store FiguresStore, logger *slog.Logger) (*DailyFiguresTask, error) {
	if store == nil || logger == nil {
		return nil, errors.New("admin: NewDailyFiguresTask needs a store and a logger")
	}
	return &DailyFiguresTask{store: store, logger: logger}, nil
}

var _ intake.SweepTask = (*DailyFiguresTask)(nil)

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
		f, err := t.store.CountDay(ctx, start)
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

// chartDays returns the ChartDays finished UTC days before now, oldest
// first, as YYYY-MM-DD.
func chartDays(now time.Time) []string {
	today := now.UTC().Truncate(24 * time.Hour)
	out := make([]string, ChartDays)
	for i := range out {
		out[i] = today.AddDate(0, 0, i-ChartDays).Format(time.DateOnly)
	}
	return out
}

// refusalReason is one reason an attempt was refused, as the chart shows
// it.
type refusalReason struct {
	State intake.AbuseState
	Label string
	Class string
}

var refusalReasons = []refusalReason{
	{intake.AbuseRateLimited, "rate limit", "r-rate"},
	{intake.AbuseHoneypot, "honeypot", "r-honeypot"},
	{intake.AbuseContentRejected, "content", "r-content"},
	{intake.AbusePowFailed, "proof of work", "r-pow"},
}

// chart is the list page's picture of the last ChartDays days: two panels
// of bars (introductions confirmed; refused attempts stacked by reason),
// laid out here so the template only draws.
type chart struct {
	Width, Height  int
	Days           []chartDay
	Bars           []bar
	Ticks          []tick
	Panels         []panel
	Reasons        []refusalReason
	Counted        int
	TotalConfirmed int
	TotalRefused   int
	First, Last    string
}

type chartDay struct {
	Day       string
	Label     string
	Counted   bool
	Confirmed int
	Refused   []int // in refusalReasons order
	Total     int
}

type bar struct {
	X, Y, W, H float64
	Class      string
	Title      string
}

type tick struct {
	X, Y   float64
	Text   string
	Anchor string
}

type panel struct {
	Title  string
	Top    float64
	Bottom float64
	Max    int
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

// niceMax rounds a maximum up to 1, 2 or 5 times a power of ten (at least
// 1), so the axis reads well.
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
		t, _ := time.Parse(time.DateOnly, d)
		cd := chartDay{Day: d, Label: t.Format("2 Jan"), Refused: make([]int, len(refusalReasons))}
		if f, ok := kept[d]; ok {
			cd.Counted = true
			c.Counted++
			cd.Confirmed = f.Confirmed
			for i, r := range refusalReasons {
				cd.Refused[i] = f.Refused[string(r.State)]
				cd.Total += f.Refused[string(r.State)]
			}
		}
		c.TotalConfirmed += cd.Confirmed
		c.TotalRefused += cd.Total
		maxConfirmed, maxRefused = max(maxConfirmed, cd.Confirmed), max(maxRefused, cd.Total)
		c.Days = append(c.Days, cd)
	}
	if len(days) > 0 {
		c.First, c.Last = c.Days[0].Label, c.Days[len(c.Days)-1].Label
	}
	top1 := panelTitle
	top2 := top1 + panelHeight + panelGap + panelTitle
	c.Panels = []panel{
		{Title: "Introductions confirmed per day", Top: top1, Bottom: top1 + panelHeight, Max: niceMax(maxConfirmed)},
		{Title: "Attempts refused per day, by reason", Top: top2, Bottom: top2 + panelHeight, Max: niceMax(maxRefused)},
	}
	c.Height = int(top2 + panelHeight + axisLabels)
	step := (chartWidth - chartLeft - chartRight) / float64(len(days))
	w := step * 0.7
	for i, d := range c.Days {
		x := chartLeft + float64(i)*step + (step-w)/2
		if !d.Counted {
			c.Bars = append(c.Bars, bar{X: x, Y: c.Panels[0].Bottom - 2, W: w, H: 2, Class: "uncounted", Title: d.Label + ": not counted yet"})
			continue
		}
		p := c.Panels[0]
		h := panelHeight * float64(d.Confirmed) / float64(p.Max)
		if d.Confirmed > 0 {
			c.Bars = append(c.Bars, bar{X: x, Y: p.Bottom - h, W: w, H: h, Class: "confirmed", Title: fmt.Sprintf("%s: %d confirmed", d.Label, d.Confirmed)})
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
			c.Bars = append(c.Bars, bar{X: x, Y: y, W: w, H: h, Class: r.Class, Title: fmt.Sprintf("%s: %d refused (%s)", d.Label, n, r.Label)})
		}
	}
	for _, p := range c.Panels {
		c.Ticks = append(c.Ticks,
			tick{X: chartLeft - 6, Y: p.Top + 4, Text: fmt.Sprint(p.Max), Anchor: "end"},
			tick{X: chartLeft - 6, Y: p.Bottom, Text: "0", Anchor: "end"})
	}
	for i := 0; i < len(c.Days)-3; i += 7 {
		x := chartLeft + float64(i)*step + step/2
		c.Ticks = append(c.Ticks, tick{X: x, Y: float64(c.Height) - 6, Text: c.Days[i].Label, Anchor: "middle"})
	}
	if n := len(c.Days); n > 0 {
		x := chartLeft + float64(n-1)*step + step/2
		c.Ticks = append(c.Ticks, tick{X: x, Y: float64(c.Height) - 6, Text: c.Days[n-1].Label, Anchor: "end"})
	}
	return c
}
