package wiring_test

import (
	"fmt"
	"testing"
)

// draftFrom sends a valid draft naming email from addr and returns the
// status.
func (h *harness) draftFrom(addr, email string) response {
	h.t.Helper()
	return h.postJSON("/api/introductions", h.draftBody(map[string]any{"email": email}), fromAddress(addr)...)
}

// TestEmailLimitCountsOneAddressInAnySpelling sends, from one network, drafts
// naming one address in spellings that differ only in case, +tags,
// full-width letters and invisible characters: they are one sender, refused
// past the email limit (5) while the same network, under its address limit
// (10), may still name someone else.
func TestEmailLimitCountsOneAddressInAnySpelling(t *testing.T) {
	h := newHarness(t, noEscalation) // the limits are what this counts
	const from = "198.51.100.20"
	for i, email := range []string{"ada@example.com", "ADA@Example.com", "ada+jobs@example.com", "ａｄａ@ｅｘａｍｐｌｅ.com", "Ada@EXAMPLE.COM"} {
		if r := h.draftFrom(from, email); r.status != 201 {
			t.Fatalf("draft %d naming %q: %d %s", i+1, email, r.status, r.body)
		}
	}
	r := h.draftFrom(from, "ada+again@example.com")
	if r.status != 429 || r.code(t) != "RATE_LIMITED" || r.header.Get("Retry-After") == "" {
		t.Fatalf("a sixth draft naming the same address: %d %s, want 429 RATE_LIMITED with Retry-After (the email limit is 5)", r.status, r.body)
	}
	if r := h.draftFrom(from, "grace@example.com"); r.status != 201 {
		t.Fatalf("a draft naming another address from the same network: %d %s, want 201 (the address limit is 10)", r.status, r.body)
	}
}

// TestEmailLimitCannotLockSomeoneOut: a stranger who names a recruiter's
// address past the email limit is refused, and the recruiter, writing from
// their own network, is not.
func TestEmailLimitCannotLockSomeoneOut(t *testing.T) {
	h := newHarness(t, noEscalation)
	for i := range 5 {
		if r := h.draftFrom("198.51.100.30", "recruiter@example.com"); r.status != 201 {
			t.Fatalf("stranger's draft %d: %d %s", i+1, r.status, r.body)
		}
	}
	if r := h.draftFrom("198.51.100.30", "recruiter@example.com"); r.status != 429 {
		t.Fatalf("the stranger's sixth draft: %d %s, want 429", r.status, r.body)
	}
	if r := h.draftFrom("192.0.2.31", "Recruiter@Example.com"); r.status != 201 {
		t.Fatalf("the recruiter's own draft: %d %s, want 201", r.status, r.body)
	}
}

// TestIPv6ClientsAreCountedByTheir64 rotates the interface half of an IPv6
// address: one /64 is one client for the address limit, and the next /64 is
// another.
func TestIPv6ClientsAreCountedByTheir64(t *testing.T) {
	h := newHarness(t, map[string]string{"RATE_LIMIT_IP_PER_HOUR": "3", "FLOOD_LIMIT": "100"})
	for i := range 3 {
		addr := fmt.Sprintf("2001:db8:1:2:%x::%x", i*7+1, i+1)
		if r := h.draftFrom(addr, fmt.Sprintf("v6-%d@example.com", i)); r.status != 201 {
			t.Fatalf("draft %d from %s: %d %s", i+1, addr, r.status, r.body)
		}
	}
	if r := h.draftFrom("2001:db8:1:2:ffff:ffff:ffff:ffff", "v6-x@example.com"); r.status != 429 {
		t.Fatalf("a fourth draft from the same /64 at a new address: %d %s, want 429", r.status, r.body)
	}
	if r := h.draftFrom("2001:db8:1:3::1", "v6-y@example.com"); r.status != 201 {
		t.Fatalf("a draft from the next /64: %d %s, want 201", r.status, r.body)
	}
}
