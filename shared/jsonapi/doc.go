// Package jsonapi is the HTTP edge of the JSON API: a route set served
// with problem+json 404 and 405 answers (NewRoutes), the one mapping from
// domain error codes to HTTP statuses and RFC 9457 problem+json bodies, the
// CORS allow-list and security headers every answer carries, and the one
// body prologue (ReadJSON) that refuses non-JSON, oversized and unreadable
// bodies with their documented codes.
package jsonapi
