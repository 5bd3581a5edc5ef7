package jsonapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"strings"

	"github.com/ownersite/introductions/shared/intake"
)

// MaxBody is the largest request body the API reads (SPEC §8).
const MaxBody = 64 << 10

// Edge wraps next with the headers every JSON API answer carries: the exact
// CORS allow-list of the site's origins (never *, never null, never
// credentials), no-store caching, nosniff and a CSP that allows nothing. It
// answers CORS preflights itself. methods is the Allow list of next.
func Edge(allowedOrigins []string, methods string, next http.Handler) http.Handler {
	allowed := make(map[string]bool, len(allowedOrigins))
	for _, o := range allowedOrigins {
		if o != "" && o != "*" && o != "null" {
			allowed[o] = true
		}
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Cache-Control", "no-store")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Content-Security-Policy", "default-src 'none'; frame-ancestors 'none'")
		h.Set("Referrer-Policy", "no-referrer")
		h.Add("Vary", "Origin")
		origin := r.Header.Get("Origin")
		if allowed[origin] {
			h.Set("Access-Control-Allow-Origin", origin)
			h.Set("Access-Control-Expose-Headers", "Retry-After")
		}
		if r.Method == http.MethodOptions {
			if allowed[origin] {
				h.Set("Access-Control-Allow-Methods", methods)
				h.Set("Access-Control-Allow-Headers", "Content-Type, Idempotency-Key")
				h.Set("Access-Control-Max-Age", "600")
			}
			h.Set("Allow", methods+", OPTIONS")
			w.WriteHeader(http.StatusNoContent)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// MethodNotAllowed answers 405 METHOD_NOT_ALLOWED with the Allow header.
func MethodNotAllowed(w http.ResponseWriter, r *http.Request, allow string) {
	w.Header().Set("Allow", allow+", OPTIONS")
	WriteError(w, r, nil, intake.Errorf(intake.CodeMethodNotAllowed, "This address accepts %s only.", allow))
}

// NotFound answers 404 NOT_FOUND.
func NotFound(w http.ResponseWriter, r *http.Request) {
	WriteError(w, r, nil, intake.ErrNotFound)
}

// ReadBody returns the JSON body of r: UNSUPPORTED_MEDIA_TYPE unless the
// Content-Type is application/json, BODY_TOO_LARGE past MaxBody,
// UNREADABLE_BODY when it cannot be read or is not one JSON object.
func ReadBody(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	mt, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mt != "application/json" {
		return nil, intake.Errorf(intake.CodeUnsupportedMediaType, "Send the body as application/json.")
	}
	if cs, ok := params["charset"]; ok && !strings.EqualFold(cs, "utf-8") {
		return nil, intake.Errorf(intake.CodeUnsupportedMediaType, "Send the body as UTF-8 JSON.")
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxBody))
	if err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			return nil, intake.Errorf(intake.CodeBodyTooLarge, "The body is larger than %d KiB.", MaxBody>>10)
		}
		return nil, intake.Errorf(intake.CodeUnreadableBody, "The body could not be read.")
	}
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) == 0 || trimmed[0] != '{' || !json.Valid(trimmed) {
		return nil, intake.Errorf(intake.CodeUnreadableBody, "The body must be one JSON object.")
	}
	return trimmed, nil
}

// DecodeStrict decodes one JSON object into v, refusing unknown members and
// trailing data as UNREADABLE_BODY.
func DecodeStrict(body []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return intake.Errorf(intake.CodeUnreadableBody, "The body does not have the expected members.")
	}
	if dec.More() {
		return intake.Errorf(intake.CodeUnreadableBody, "The body must be one JSON object.")
	}
	return nil
}

// Recover turns a panic in next into a 500 INTERNAL problem (the panic is
// logged, never sent).
func Recover(logger interface {
	Error(msg string, args ...any)
}, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			if p := recover(); p != nil {
				if p == http.ErrAbortHandler {
					panic(p)
				}
				logger.Error("handler panicked", "panic", p)
				WriteError(w, r, nil, intake.Errorf(intake.CodeInternal, "Something went wrong on our side."))
			}
		}()
		next.ServeHTTP(w, r)
	})
}
