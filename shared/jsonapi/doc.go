// Package jsonapi is the HTTP edge of the public JSON API: the one mapping
// from domain error codes to HTTP statuses and RFC 9457 problem+json bodies,
// the CORS allow-list and security headers every answer carries, and a body
// reader that refuses non-JSON, oversized and unreadable bodies with their
// documented codes.
package jsonapi
