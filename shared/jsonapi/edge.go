package jsonapi

import (
	"errors"
	"io"
	"mime"
	"net/http"
	"strings"

	"github.com/ownersite/introductions/shared/intake"
	"github.com/ownersite/introductions/shared/strictjson"
)

// MaxBody is the largest request body the API reads.
const MaxBody = 64 << 10

// edge sets the headers every JSON answer carries: the exact CORS allow-list, no-store unless
// the handler says otherwise, nosniff and a CSP that allows nothing.
type edge struct{ allowed map[string]bool }

func newEdge(allowedOrigins []string) edge {
	allowed := make(map[string]bool, len(allowedOrigins))
	for _, o := range allowedOrigins {
		if o != "" && o != "*" && o != "null" {
			allowed[o] = true
		}
	}
	return edge{allowed: allowed}
}

func (e edge) headers(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Security-Policy", "default-src 'none'; frame-ancestors 'none'")
	h.Set("Referrer-Policy", "no-referrer")
	h.Add("Vary", "Origin")
	if origin := r.Header.Get("Origin"); e.allowed[origin] {
		h.Set("Access-Control-Allow-Origin", origin)
		h.Set("Access-Control-Expose-Headers", "Retry-After")
	}
}

// preflight answers an OPTIONS request to a path whose routes accept allow.
func (e edge) preflight(w http.ResponseWriter, r *http.Request, allow []string) {
	h := w.Header()
	methods := strings.Join(allow, ", ")
	if e.allowed[r.Header.Get("Origin")] {
		h.Set("Access-Control-Allow-Methods", methods)
		h.Set("Access-Control-Allow-Headers", "Content-Type, Idempotency-Key, Authorization, Content-Disposition")
		h.Set("Access-Control-Max-Age", "600")
	}
	h.Set("Allow", methods+", OPTIONS")
	w.WriteHeader(http.StatusNoContent)
}

// methodNotAllowed answers 405 METHOD_NOT_ALLOWED with the Allow header.
func methodNotAllowed(w http.ResponseWriter, r *http.Request, allow []string) {
	methods := strings.Join(allow, ", ")
	w.Header().Set("Allow", methods+", OPTIONS")
	WriteError(w, r, nil, intake.Errorf(intake.CodeMethodNotAllowed, "This address accepts %s only.", methods))
}

// notFound answers 404 NOT_FOUND.
func notFound(w http.ResponseWriter, r *http.Request) {
	WriteError(w, r, nil, intake.ErrNotFound)
}

// ReadJSON reads r's body into v. Errors: UNSUPPORTED_MEDIA_TYPE unless application/json,
// BODY_TOO_LARGE past MaxBody, UNREADABLE_BODY for anything strictjson.Decode refuses.
func ReadJSON(w http.ResponseWriter, r *http.Request, v any) error {
	body, err := readBody(w, r)
	if err != nil {
		return err
	}
	if err := strictjson.Decode(body, v, strictjson.RefuseUnknown); err != nil {
		return intake.Errorf(intake.CodeUnreadableBody, "The body must be one JSON object with the expected members.")
	}
	return nil
}

// readBody returns the JSON body of r, or its refusal (see ReadJSON).
func readBody(w http.ResponseWriter, r *http.Request) ([]byte, error) {
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
	return body, nil
}
