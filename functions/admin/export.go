package admin

import (
	"bytes"
	"cmp"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ownersite/introductions/shared/intake"
)

// actionExported is the ledger's admin action of an export of the owner's introductions.
const actionExported = "exported"

// exportRow is one introduction as the export gives it: the JSON's object and, in the order of
// its fields and under their JSON names, the CSV's row.
type exportRow struct {
	ID               string `json:"id"`
	ConfirmedAt      string `json:"confirmedAt"`
	HandledAt        string `json:"handledAt"`
	Folder           string `json:"folder"`
	Lang             string `json:"lang"`
	FormVersion      string `json:"formVersion"`
	Name             string `json:"name"`
	Company          string `json:"company"`
	Role             string `json:"role"`
	Email            string `json:"email"`
	Message          string `json:"message"`
	Added            string `json:"added"` // the version's added fields as a JSON object, or ""
	Conversation     string `json:"conversation"`
	AttachmentName   string `json:"attachmentName"`
	AttachmentType   string `json:"attachmentType"`
	AttachmentSize   string `json:"attachmentSize"` // bytes
	AttachmentSHA256 string `json:"attachmentSha256"`
	AttachmentURL    string `json:"attachmentUrl"`
}

// exportIntroductions answers GET /admin/introductions/export?format=csv|json&folder=&from=&to=:
// the folder's introductions confirmed in the range, as a download, each export recorded in
// the ledger entry of every introduction it holds (who, when, the format and how many).
func (h *Handlers) exportIntroductions(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	format, folder := cmp.Or(q.Get("format"), "csv"), q.Get("folder")
	if format != "csv" && format != "json" || folder != "" && !slices.Contains(filters, folder) {
		return intake.Errorf(intake.CodeFilterInvalid, "The export's format is csv or json, and its folder inbox, likely-spam or spam, or none for every introduction.")
	}
	from, to, err := ledgerRange(q)
	if err != nil {
		return err
	}
	now := h.Clock.Now()
	recs, err := h.Store.ExportIntroductions(r.Context(), folder, from, to, now, intake.AdminAction{At: now, Actor: actor(r), Action: actionExported, Target: format})
	h.logAction(r, actionExported, err, slog.String("format", format), slog.Int("introductions", len(recs)))
	if err != nil {
		return err
	}
	scheme := "http"
	if r.TLS != nil || r.Header.Get("X-Forwarded-Proto") == "https" {
		scheme = "https"
	}
	rows := make([]exportRow, len(recs))
	for i, rec := range recs {
		in := rec.Introduction
		f := in.Fields
		rows[i] = exportRow{ID: in.ID, ConfirmedAt: stamp(in.ConfirmedAt), HandledAt: stamp(in.HandledAt), Folder: in.Folder(), Lang: in.Lang,
			FormVersion: in.FormVersion, Name: f.Name, Company: f.Company, Role: f.Role, Email: f.Email, Message: f.Message, Conversation: rec.Conversation}
		if len(in.Added) > 0 {
			added, _ := json.Marshal(in.Added)
			rows[i].Added = string(added)
		}
		if a := in.Attachment; a != nil {
			rows[i].AttachmentName, rows[i].AttachmentType, rows[i].AttachmentSize, rows[i].AttachmentSHA256 = a.Name, a.Type, strconv.FormatInt(a.Size, 10), a.SHA256
			rows[i].AttachmentURL = scheme + "://" + r.Host + "/admin/introductions/" + url.PathEscape(in.ID) + "/attachment"
		}
	}
	var body bytes.Buffer
	if format == "json" {
		enc := json.NewEncoder(&body)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		enc.Encode(rows)
		w.Header().Set("Content-Type", "application/json")
	} else {
		writeCSV(&body, rows)
		w.Header().Set("Content-Type", "text/csv; charset=utf-8")
	}
	w.Header().Set("Content-Disposition", fmt.Sprintf(`attachment; filename="introductions-%s-to-%s.%s"`,
		from.Format(time.DateOnly), to.AddDate(0, 0, -1).Format(time.DateOnly), format))
	w.Header().Set("Content-Length", strconv.Itoa(body.Len()))
	_, err = w.Write(body.Bytes())
	return err
}

// writeCSV writes rows as UTF-8 CSV with a byte order mark and CRLF lines, a header of the
// JSON names first; a cell that a spreadsheet would take for a formula is prefixed with '.
func writeCSV(b *bytes.Buffer, rows []exportRow) {
	b.WriteString("\uFEFF")
	cw := csv.NewWriter(b)
	cw.UseCRLF = true
	t := reflect.TypeFor[exportRow]()
	cells := make([]string, t.NumField())
	for i := range cells {
		cells[i] = t.Field(i).Tag.Get("json")
	}
	cw.Write(cells)
	for _, row := range rows {
		v := reflect.ValueOf(row)
		for i := range cells {
			cells[i] = neutralised(v.Field(i).String())
		}
		cw.Write(cells)
	}
	cw.Flush()
}

// neutralised is s as a CSV cell no spreadsheet runs: one beginning with =, +, -, @, a tab or a
// carriage return gains a leading '.
func neutralised(s string) string {
	if s != "" && strings.ContainsRune("=+-@\t\r", rune(s[0])) {
		return "'" + s
	}
	return s
}

// stamp is t in RFC 3339, UTC; "" when zero.
func stamp(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}
