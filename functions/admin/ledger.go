package admin

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"time"

	"github.com/ownersite/introductions/shared/intake"
)

// MaxLedgerDays is the longest span one ledger export covers.
const MaxLedgerDays = 366

// ledgerRange reads ?from=YYYY-MM-DD&to=YYYY-MM-DD (UTC days, both included, at most
// MaxLedgerDays) as a half-open span.
func ledgerRange(q url.Values) (from, to time.Time, err error) {
	bad := func(field, detail string) (time.Time, time.Time, error) {
		return time.Time{}, time.Time{}, &intake.Error{Code: intake.CodeDateRangeInvalid, Detail: detail,
			Fields: []intake.FieldError{{Field: field, Code: intake.CodeDateRangeInvalid, Detail: detail}}}
	}
	if from, err = time.Parse(time.DateOnly, q.Get("from")); err != nil {
		return bad("from", "Give from as a day, YYYY-MM-DD (UTC).")
	}
	if to, err = time.Parse(time.DateOnly, q.Get("to")); err != nil {
		return bad("to", "Give to as a day, YYYY-MM-DD (UTC).")
	}
	switch days := int(to.Sub(from).Hours()/24) + 1; {
	case days < 1:
		return bad("to", "The range ends before it starts: to must not be before from.")
	case days > MaxLedgerDays:
		return bad("to", fmt.Sprintf("The range spans %d days; export at most %d at a time.", days, MaxLedgerDays))
	}
	return from, to.AddDate(0, 0, 1), nil
}

// exportLedger streams the range's ledger entries as NDJSON, oldest first. A refusal comes
// before anything is written; a later failure aborts the response.
func (h *Handlers) exportLedger(w http.ResponseWriter, r *http.Request, download bool) error {
	from, to, err := ledgerRange(r.URL.Query())
	if err != nil {
		return err
	}
	rc := http.NewResponseController(w)
	enc := json.NewEncoder(w)
	started, n := false, 0
	start := func() {
		if started {
			return
		}
		started = true
		w.Header().Set("Content-Type", "application/x-ndjson")
		if download {
			w.Header().Set("Content-Disposition", fmt.Sprintf(`attachment; filename="ledger-%s-to-%s.ndjson"`,
				from.Format(time.DateOnly), to.AddDate(0, 0, -1).Format(time.DateOnly)))
		}
		w.WriteHeader(http.StatusOK)
	}
	err = h.Store.LedgerEntries(r.Context(), from, to, h.Clock.Now(), func(entries []intake.LedgerEntry) error {
		start()
		for _, e := range entries {
			if err := enc.Encode(e); err != nil {
				return err
			}
		}
		n += len(entries)
		return rc.Flush()
	})
	h.logAction(r, "ledger-export", err, slog.Int("entries", n), slog.String("from", from.Format(time.DateOnly)), slog.String("to", to.AddDate(0, 0, -1).Format(time.DateOnly)))
	switch {
	case err != nil && !started:
		return err
	case err != nil:
		panic(http.ErrAbortHandler)
	}
	start()
	return nil
}
