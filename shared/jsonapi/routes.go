// Package jsonapi is the HTTP edge of the JSON API: a route set served
// with problem+json 404 and 405 answers (NewRoutes), the one mapping from
// domain error codes to HTTP statuses and RFC 9457 problem+json bodies, the
// CORS allow-list and security headers every answer carries, and the one
// body prologue (ReadJSON) that refuses non-JSON, oversized and unreadable
// bodies with their documented codes.
package jsonapi

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"path"
	"slices"
	"strings"

	"github.com/ownersite/introductions/shared/intake"
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
