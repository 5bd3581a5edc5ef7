package jsonapi

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"path"
	"strings"

	"github.com/ownersite/introductions/shared/intake"
)

// Handler is one route's handler: it answers on success and returns the
// refusal instead of writing it, so that every refusal is written in one
// place (WriteError, with the route set's logger).
type Handler func(w http.ResponseWriter, r *http.Request) error

// Route is one route of the API: a net/http ServeMux pattern that names its
// method ("POST /api/introductions/{id}/confirmation"; a GET pattern also
// answers HEAD), and its handler.
type Route struct {
	Pattern string
	Handle  Handler
}

// probedMethods are the methods a path is tried with to build its Allow
// header; a pattern with any other method is refused by NewRoutes.
var probedMethods = []string{http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete}

// routeSet serves a set of routes behind the edge headers.
type routeSet struct {
	mux     *http.ServeMux
	edge    edge
	logger  *slog.Logger
	methods []string
}

// NewRoutes returns a handler serving routes, every answer with the edge
// headers: the exact CORS allow-list of allowedOrigins (never *, null or
// credentials), no-store (a handler may set its own Cache-Control, as
// WritePublicJSON does), nosniff and a CSP that allows nothing. A path no
// route has (or not in its clean form) is answered 404 NOT_FOUND; a path
// some route has, with a method none has, 405 METHOD_NOT_ALLOWED with
// Allow; an OPTIONS request (a CORS preflight) to a known path, 204 with
// Allow. Both refusals are problem+json like every other. A panic in a
// handler is answered 500 INTERNAL and logged. It returns an error for a
// missing logger or handler, a pattern without a method or with one it does
// not serve, and two patterns that conflict.
func NewRoutes(routes []Route, allowedOrigins []string, logger *slog.Logger) (http.Handler, error) {
	if logger == nil {
		return nil, errors.New("jsonapi.NewRoutes: no logger")
	}
	s := &routeSet{mux: http.NewServeMux(), edge: newEdge(allowedOrigins), logger: logger}
	for _, rt := range routes {
		method, _, ok := strings.Cut(rt.Pattern, " ")
		if !ok || !validMethod(method) {
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

func validMethod(m string) bool {
	for _, p := range probedMethods {
		if m == p {
			return true
		}
	}
	return false
}

// handle registers one route, turning ServeMux's panic on a conflicting
// pattern into an error.
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
	s.edge.headers(w, r)
	if !clean(r.URL.Path) {
		notFound(w, r) // no route has it; ServeMux would redirect instead
		return
	}
	if r.Method == http.MethodOptions {
		allow := s.allowed(r)
		if allow == nil {
			notFound(w, r)
			return
		}
		s.edge.preflight(w, r, allow)
		return
	}
	s.mux.ServeHTTP(w, r)
}

// clean reports whether p has no empty, "." or ".." segment (a trailing
// slash aside).
func clean(p string) bool {
	c := path.Clean(p)
	return c == p || c+"/" == p
}

// fallback answers what no route matched: 405 when the path has routes
// under other methods, else 404.
func (s *routeSet) fallback(w http.ResponseWriter, r *http.Request) {
	if allow := s.allowed(r); allow != nil {
		methodNotAllowed(w, r, allow)
		return
	}
	notFound(w, r)
}

// allowed returns the methods some route answers at r's path, nil when
// none does.
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
