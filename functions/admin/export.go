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
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ownersite/introductions/shared/intake"
)

// actionExported is the ledger's admin action of an export of the owner's introductions.
const actionExported = "exported"

// exportColumns name an introduction's cells in the export: the JSON's members, the CSV's header.
var exportColumns = []string{"id", "confirmedAt", "handledAt", "folder", "lang", "formVersion", "name", "company", "role", "email",
	"message", "added", "conversation", "attachmentName", "attachmentType", "attachmentSize", "attachmentSha256", "attachmentUrl"}

// exportCells are rec's cells in exportColumns' order: times in RFC 3339 (UTC), the version's
// added fields as a JSON object, the attachment's size in bytes and its link under base.
func exportCells(rec intake.Record, base string) []string {
	in, f := rec.Introduction, rec.Introduction.Fields
	handled, added := "", ""
	if !in.HandledAt.IsZero() {
		handled = in.HandledAt.UTC().Format(time.RFC3339)
	}
	if len(in.Added) > 0 {
		b, _ := json.Marshal(in.Added)
		added = string(b)
	}
	cells := []string{in.ID, in.ConfirmedAt.UTC().Format(time.RFC3339), handled, in.Folder(), in.Lang, in.FormVersion, f.Name, f.Company, f.Role, f.Email,
		f.Message, added, rec.Conversation, "", "", "", "", ""}
	if a := in.Attachment; a != nil {
		copy(cells[13:], []string{a.Name, a.Type, strconv.FormatInt(a.Size, 10), a.SHA256, base + url.PathEscape(in.ID) + "/attachment"})
	}
	return cells
}

// exportIntroductions answers GET /admin/introductions/export?format=csv|json&folder=&from=&to=:
// the folder's introductions confirmed in the range, as a download, each export recorded in
// the ledger entry of every introduction it holds (who, when, the format and how many).
func (h *Handlers) exportIntroductions(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	format, folder := cmp.Or(q.Get("format"), "csv"), q.Get("folder")
	if format != "csv" && format != "json" || folder != "" && !slices.Contains([]string{intake.FolderInbox, intake.FolderLikelySpam, intake.FolderSpam}, folder) {
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
	base := "http://" + r.Host + "/admin/introductions/"
	if r.TLS != nil || r.Header.Get("X-Forwarded-Proto") == "https" {
		base = "https" + base[4:]
	}
	var body bytes.Buffer
	if format == "json" {
		objects := make([]map[string]string, len(recs))
		for i, rec := range recs {
			objects[i] = map[string]string{}
			for c, cell := range exportCells(rec, base) {
				objects[i][exportColumns[c]] = cell
			}
		}
		enc := json.NewEncoder(&body)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		enc.Encode(objects)
		w.Header().Set("Content-Type", "application/json")
	} else {
		// UTF-8 with a byte order mark and CRLF lines; no cell a spreadsheet would run as a formula.
		body.WriteString("\uFEFF")
		cw := csv.NewWriter(&body)
		cw.UseCRLF = true
		cw.Write(exportColumns)
		for _, rec := range recs {
			cells := exportCells(rec, base)
			for i, c := range cells {
				if c != "" && strings.ContainsRune("=+-@\t\r", rune(c[0])) {
					cells[i] = "'" + c
				}
			}
			cw.Write(cells)
		}
		cw.Flush()
		w.Header().Set("Content-Type", "text/csv; charset=utf-8")
	}
	w.Header().Set("Content-Disposition", fmt.Sprintf(`attachment; filename="introductions-%s-to-%s.%s"`,
		from.Format(time.DateOnly), to.AddDate(0, 0, -1).Format(time.DateOnly), format))
	w.Header().Set("Content-Length", strconv.Itoa(body.Len()))
	_, err = w.Write(body.Bytes())
	return err
}
