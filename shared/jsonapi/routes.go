// Package jsonapi is the HTTP edge of the JSON API: a route set served
// with problem+json 404 and 405 answers (NewRoutes), the one mapping from
// domain error codes to HTTP statuses and RFC 9457 problem+json bodies, the
// CORS allow-list and security headers every answer carries, and the one
// body prologue (ReadJSON) that refuses non-JSON, oversized and unreadable
// bodies with their documented codes.
package jsonapi

import (
	"bytes"
	"cmp"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"net/netip"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ownersite/introductions/shared/intake"
	"github.com/ownersite/introductions/shared/strictjson"
)

// Handler is one route's handler: it returns its refusal for WriteError to write.
type Handler func(w http.ResponseWriter, r *http.Request) error

// Route is one route: a ServeMux pattern with its method (a GET also answers HEAD) and its
// handler.
type Route struct {
	Pattern string
	Handle  Handler
}

// probedMethods are the methods a path's Allow header is built from.
var probedMethods = []string{http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete}

// routeSet serves a set of routes behind the edge headers.
type routeSet struct {
	mux     *http.ServeMux
	origins map[string]bool // the CORS allow-list
	logger  *slog.Logger
}

// NewRoutes returns a handler serving routes with the edge headers: an unknown or unclean
// path is 404 NOT_FOUND, a known path with another method 405 METHOD_NOT_ALLOWED, OPTIONS
// 204, a panic 500 INTERNAL. It refuses a missing logger or handler, a pattern without a
// served method, and conflicting patterns.
func NewRoutes(routes []Route, allowedOrigins []string, logger *slog.Logger) (http.Handler, error) {
	if logger == nil {
		return nil, errors.New("jsonapi.NewRoutes: no logger")
	}
	s := &routeSet{mux: http.NewServeMux(), origins: map[string]bool{}, logger: logger}
	for _, o := range allowedOrigins {
		s.origins[o] = o != "" && o != "*" && o != "null"
	}
	for _, rt := range routes {
		method, _, ok := strings.Cut(rt.Pattern, " ")
		if !ok || !slices.Contains(probedMethods, method) {
			return nil, fmt.Errorf("jsonapi.NewRoutes: pattern %q must start with one of %s", rt.Pattern, strings.Join(probedMethods, ", "))
		}
		if rt.Handle == nil {
			return nil, fmt.Errorf("jsonapi.NewRoutes: pattern %q has no handler", rt.Pattern)
		}
		if err := s.handle(rt); err != nil {
			return nil, err
		}
	}
	s.mux.HandleFunc("/", s.fallback)
	return s, nil
}

// handle registers one route, a conflicting pattern being an error.
func (s *routeSet) handle(rt Route) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("jsonapi.NewRoutes: %v", p)
		}
	}()
	s.mux.HandleFunc(rt.Pattern, func(w http.ResponseWriter, r *http.Request) {
		if err := rt.Handle(w, r); err != nil {
			WriteError(w, r, s.logger, err)
		}
	})
	return nil
}

func (s *routeSet) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	defer func() {
		if p := recover(); p != nil {
			if p == http.ErrAbortHandler {
				panic(p)
			}
			s.logger.ErrorContext(r.Context(), "handler panicked", slog.Any("panic", p))
			WriteError(w, r, nil, intake.Internal(fmt.Errorf("panic: %v", p)))
		}
	}()
	s.headers(w, r)
	// A path with an empty, "." or ".." segment has no route (ServeMux would redirect).
	if clean := path.Clean(r.URL.Path); clean != r.URL.Path && clean+"/" != r.URL.Path {
		WriteError(w, r, nil, intake.ErrNotFound)
		return
	}
	if r.Method != http.MethodOptions {
		s.mux.ServeHTTP(w, r)
		return
	}
	if allow := s.allowed(r); allow != nil {
		s.preflight(w, r, allow)
		return
	}
	WriteError(w, r, nil, intake.ErrNotFound)
}

// fallback answers 405 METHOD_NOT_ALLOWED when the path has routes under other methods, else
// 404 NOT_FOUND.
func (s *routeSet) fallback(w http.ResponseWriter, r *http.Request) {
	allow := s.allowed(r)
	if allow == nil {
		WriteError(w, r, nil, intake.ErrNotFound)
		return
	}
	methods := strings.Join(allow, ", ")
	w.Header().Set("Allow", methods+", OPTIONS")
	WriteError(w, r, nil, intake.Errorf(intake.CodeMethodNotAllowed, "This address accepts %s only.", methods))
}

// allowed returns the methods answered at r's path.
func (s *routeSet) allowed(r *http.Request) []string {
	var allow []string
	probe := r.Clone(r.Context())
	for _, m := range probedMethods {
		probe.Method = m
		if _, pattern := s.mux.Handler(probe); pattern != "" && pattern != "/" {
			allow = append(allow, m)
		}
	}
	return allow
}

// MaxBody is the largest request body the API reads.
const MaxBody = 64 << 10

// headers sets what every JSON answer carries: the exact CORS allow-list, no-store unless the
// handler says otherwise, nosniff and a CSP that allows nothing.
func (s *routeSet) headers(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Security-Policy", "default-src 'none'; frame-ancestors 'none'")
	h.Set("Referrer-Policy", "no-referrer")
	h.Add("Vary", "Origin")
	if origin := r.Header.Get("Origin"); s.origins[origin] {
		h.Set("Access-Control-Allow-Origin", origin)
		h.Set("Access-Control-Expose-Headers", "Retry-After")
	}
}

// preflight answers an OPTIONS request to a path whose routes accept allow.
func (s *routeSet) preflight(w http.ResponseWriter, r *http.Request, allow []string) {
	h := w.Header()
	methods := strings.Join(allow, ", ")
	if s.origins[r.Header.Get("Origin")] {
		h.Set("Access-Control-Allow-Methods", methods)
		h.Set("Access-Control-Allow-Headers", "Content-Type, Idempotency-Key, Authorization, Content-Disposition")
		h.Set("Access-Control-Max-Age", "600")
	}
	h.Set("Allow", methods+", OPTIONS")
	w.WriteHeader(http.StatusNoContent)
}

// ReadJSON reads r's body into v. Errors: UNSUPPORTED_MEDIA_TYPE unless application/json in
// UTF-8, ReadBody's past MaxBody, UNREADABLE_BODY for anything strictjson.Decode refuses.
func ReadJSON(w http.ResponseWriter, r *http.Request, v any) error {
	mt, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mt != "application/json" {
		return intake.Errorf(intake.CodeUnsupportedMediaType, "Send the body as application/json.")
	}
	if cs, ok := params["charset"]; ok && !strings.EqualFold(cs, "utf-8") {
		return intake.Errorf(intake.CodeUnsupportedMediaType, "Send the body as UTF-8 JSON.")
	}
	body, err := ReadBody(w, r, MaxBody)
	if err != nil {
		return err
	}
	if err := strictjson.Decode(body, v, strictjson.RefuseUnknown); err != nil {
		return intake.Errorf(intake.CodeUnreadableBody, "The body must be one JSON object with the expected members.")
	}
	return nil
}

// ReadBody reads r's body, at most max bytes. Errors: BODY_TOO_LARGE, UNREADABLE_BODY.
func ReadBody(w http.ResponseWriter, r *http.Request, max int64) ([]byte, error) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, max))
	var tooLarge *http.MaxBytesError
	switch {
	case errors.As(err, &tooLarge):
		return nil, intake.Errorf(intake.CodeBodyTooLarge, "The body is larger than %d KiB.", max>>10)
	case err != nil:
		return nil, intake.Errorf(intake.CodeUnreadableBody, "The body could not be read.")
	}
	return body, nil
}

var traceID = regexp.MustCompile(`^[0-9a-fA-F]{32}`)

// RequestID names a request: Cloud Run's trace id, or a random id.
func RequestID(r *http.Request) string {
	if m := traceID.FindString(r.Header.Get("X-Cloud-Trace-Context")); m != "" {
		return strings.ToLower(m)
	}
	b := make([]byte, 16)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// ClientAddr returns the client address: the connection's with position 0, else the
// X-Forwarded-For entry position from the right, falling back to the connection's.
func ClientAddr(r *http.Request, position int) netip.Addr {
	var entries []string
	for _, h := range r.Header.Values("X-Forwarded-For") {
		for _, e := range strings.Split(h, ",") {
			if e = strings.TrimSpace(e); e != "" {
				entries = append(entries, e)
			}
		}
	}
	if position >= 1 && len(entries) >= position {
		if a, err := netip.ParseAddr(entries[len(entries)-position]); err == nil {
			return a.Unmap()
		}
	}
	if ap, err := netip.ParseAddrPort(r.RemoteAddr); err == nil {
		return ap.Addr().Unmap()
	}
	return netip.Addr{}
}

// BearerToken is the token of an Authorization header of scheme Bearer, in
// any case, after one or more spaces; "" without one.
func BearerToken(r *http.Request) string {
	scheme, token, _ := strings.Cut(r.Header.Get("Authorization"), " ")
	if !strings.EqualFold(scheme, "Bearer") {
		return ""
	}
	return strings.TrimSpace(token)
}

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
	Type              string              `json:"type"`
	Title             string              `json:"title"`
	Status            int                 `json:"status"`
	Code              intake.Code         `json:"code"`
	Detail            string              `json:"detail"`
	Errors            []intake.FieldError `json:"errors,omitempty"`
	RequiredMaxNumber int64               `json:"requiredMaxNumber,omitempty"` // set on POW_TOO_EASY
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
