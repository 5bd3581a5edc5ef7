package jsonapi

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/ownersite/introductions/shared/intake"
)

// statusOf is the single table from problem code to HTTP status.
var statusOf = func() map[intake.Code]int {
	m := map[intake.Code]int{}
	for status, codes := range map[int][]intake.Code{
		http.StatusBadRequest: {
			intake.CodeUnreadableBody, intake.CodeIdempotencyKeyInvalid, intake.CodeCursorInvalid,
			intake.CodeFilterInvalid, intake.CodeDateRangeInvalid,
		},
		http.StatusUnsupportedMediaType:  {intake.CodeUnsupportedMediaType, intake.CodeAttachmentTypeRefused},
		http.StatusRequestEntityTooLarge: {intake.CodeBodyTooLarge, intake.CodeAttachmentTooLarge},
		http.StatusUnprocessableEntity: {
			intake.CodeNameInvalid, intake.CodeCompanyInvalid, intake.CodeRoleInvalid,
			intake.CodeEmailInvalid, intake.CodeMessageInvalid, intake.CodeMessageTooManyLinks,
			intake.CodeFieldInvalid, intake.CodeConversationInvalid, intake.CodeConversationTooLong,
			intake.CodeConversationManyLinks, intake.CodeFormVersionUnknown, intake.CodeConsentRequired,
			intake.CodePowRequired, intake.CodePowInvalid, intake.CodePowExpired, intake.CodePowSpent,
			intake.CodePowTooEasy, intake.CodeIdempotencyKeyReused, intake.CodeAttachmentEmpty,
		},
		http.StatusTooManyRequests: {intake.CodeRateLimited},
		http.StatusConflict: {
			intake.CodeIdempotencyInFlight, intake.CodeStateConflict, intake.CodeEventReplayed,
			intake.CodeAttachmentNotOffered,
		},
		http.StatusNotFound:            {intake.CodeNotFound},
		http.StatusMethodNotAllowed:    {intake.CodeMethodNotAllowed},
		http.StatusForbidden:           {intake.CodeCrossOriginRefused, intake.CodeEventSignatureInvalid, intake.CodeEventStale},
		http.StatusMisdirectedRequest:  {intake.CodeHostNotServed},
		http.StatusServiceUnavailable:  {intake.CodeUnavailable},
		http.StatusInternalServerError: {intake.CodeInternal},
	} {
		for _, c := range codes {
			m[c] = status
		}
	}
	return m
}()

// titleOfCode gives codes whose status's title does not fit them their own.
var titleOfCode = map[intake.Code]string{
	intake.CodeAttachmentTooLarge:    "The file is too large",
	intake.CodeAttachmentTypeRefused: "The file's type is refused",
	intake.CodeAttachmentEmpty:       "The file is empty",
	intake.CodeAttachmentNotOffered:  "No attachment here",
}

// titleOf gives each status a short, stable human title.
var titleOf = map[int]string{
	http.StatusBadRequest:            "The request could not be read",
	http.StatusUnsupportedMediaType:  "The body must be JSON",
	http.StatusRequestEntityTooLarge: "The body is too large",
	http.StatusUnprocessableEntity:   "The introduction was not kept",
	http.StatusTooManyRequests:       "Too many introductions",
	http.StatusConflict:              "Conflict",
	http.StatusForbidden:             "Forbidden",
	http.StatusNotFound:              "Not found",
	http.StatusMisdirectedRequest:    "Misdirected request",
	http.StatusMethodNotAllowed:      "Method not allowed",
	http.StatusServiceUnavailable:    "Briefly unavailable",
	http.StatusInternalServerError:   "Internal error",
}

// Problem is the RFC 9457 body; Type is a stable URN per code, with no instance member.
type Problem struct {
	Type   string              `json:"type"`
	Title  string              `json:"title"`
	Status int                 `json:"status"`
	Code   intake.Code         `json:"code"`
	Detail string              `json:"detail"`
	Errors []intake.FieldError `json:"errors,omitempty"`
	// RequiredMaxNumber is set on POW_TOO_EASY.
	RequiredMaxNumber int64 `json:"requiredMaxNumber,omitempty"`
}

// ProblemFor builds the body for err: its code's safe detail, never its cause.
func ProblemFor(err *intake.Error) Problem {
	status := cmp.Or(statusOf[err.Code], http.StatusInternalServerError)
	detail := err.Detail
	if err.Code == intake.CodeInternal {
		detail = "Something went wrong on our side."
	}
	title := titleOf[status]
	if t, ok := titleOfCode[err.Code]; ok {
		title = t
	}
	return Problem{Type: "urn:introductions:problem:" + string(err.Code), Title: title, Status: status, Code: err.Code,
		Detail: detail, Errors: err.Fields, RequiredMaxNumber: err.RequiredMaxNumber}
}

// WriteError answers with err as problem+json, logging internal and unavailable causes once.
func WriteError(w http.ResponseWriter, r *http.Request, logger *slog.Logger, err error) {
	e := intake.AsError(err)
	p := ProblemFor(e)
	if e.Cause != nil && logger != nil {
		logger.LogAttrs(r.Context(), levelFor(p.Status), "request failed",
			slog.String("code", string(e.Code)), slog.Int("status", p.Status), slog.String("cause", e.Cause.Error()))
	}
	if e.RetryAfter > 0 || p.Status == http.StatusServiceUnavailable || p.Status == http.StatusTooManyRequests {
		w.Header().Set("Retry-After", retryAfterSeconds(e.RetryAfter))
	}
	body, _ := json.Marshal(p)
	w.Header().Set("Content-Type", "application/problem+json")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(p.Status)
	w.Write(body)
}

func levelFor(status int) slog.Level {
	if status >= 500 && status != http.StatusServiceUnavailable {
		return slog.LevelError
	}
	return slog.LevelWarn
}

func retryAfterSeconds(d time.Duration) string {
	if d <= 0 {
		d = 5 * time.Second
	}
	return strconv.FormatInt(int64((d+time.Second-1)/time.Second), 10)
}

// WriteJSON answers with v as JSON, HTML characters unescaped.
func WriteJSON(w http.ResponseWriter, status int, v any) {
	body, err := encodeJSON(v)
	if err != nil {
		WriteError(w, nil, nil, intake.Internal(err))
		return
	}
	writeBody(w, status, body)
}

// WritePublicJSON answers 200 with v, cacheable by anyone for maxAge, with a strong ETag; an
// If-None-Match naming it is answered 304.
func WritePublicJSON(w http.ResponseWriter, r *http.Request, maxAge time.Duration, v any) {
	body, err := encodeJSON(v)
	if err != nil {
		WriteError(w, r, nil, intake.Internal(err))
		return
	}
	sum := sha256.Sum256(body)
	etag := `"` + base64.RawURLEncoding.EncodeToString(sum[:18]) + `"`
	w.Header().Set("Cache-Control", "public, max-age="+strconv.FormatInt(int64(maxAge/time.Second), 10))
	w.Header().Set("ETag", etag)
	if listed(r.Header.Values("If-None-Match"), etag) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	writeBody(w, http.StatusOK, body)
}

// listed reports whether the If-None-Match values name etag, by weak comparison.
func listed(ifNoneMatch []string, etag string) bool {
	for _, v := range ifNoneMatch {
		for {
			v = strings.TrimLeft(v, " \t,")
			if strings.HasPrefix(v, "*") {
				return true
			}
			v = strings.TrimPrefix(v, "W/")
			if !strings.HasPrefix(v, `"`) {
				break
			}
			tag, rest, closed := strings.Cut(v[1:], `"`)
			if !closed {
				break
			}
			if `"`+tag+`"` == etag {
				return true
			}
			v = rest
		}
	}
	return false
}

func encodeJSON(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

func writeBody(w http.ResponseWriter, status int, body []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	w.Write(body)
}
