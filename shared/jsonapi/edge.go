package jsonapi

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io"
	"mime"
	"net/http"
	"net/netip"
	"regexp"
	"strings"

	"github.com/ownersite/introductions/shared/intake"
	"github.com/ownersite/introductions/shared/strictjson"
)

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
