package jsonapi

import (
	"crypto/rand"
	"encoding/hex"
	"net/http"
	"net/netip"
	"regexp"
	"strings"
)

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
