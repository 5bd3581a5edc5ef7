package wiring_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestEveryRefusalIsADocumentedProblem drives every documented refusal
// through the wired service and checks its status, code and problem+json
// shape, with no internal error text.
func TestEveryRefusalIsADocumentedProblem(t *testing.T) {
	h := newHarness(t, nil)
	tooLong := strings.Repeat("x", 12001)
	links := "see https://a.example https://b.example https://c.example https://d.example"
	cases := []struct {
		name        string
		send        func() response
		status      int
		code, field string
	}{
		{"unreadable body", func() response {
			return h.do("POST", "/api/introductions", "application/json", []byte(`{"name":`))
		}, 400, "UNREADABLE_BODY", ""},
		{"body not valid UTF-8", func() response {
			return h.do("POST", "/api/introductions", "application/json", bytes.Replace(mustJSON(t, h.draftBody(map[string]any{"name": "Ada MARK"})), []byte("MARK"), []byte{0xff, 0xfe}, 1))
		}, 400, "UNREADABLE_BODY", ""},
		{"a member named twice", func() response {
			return h.do("POST", "/api/introductions", "application/json", bytes.Replace(mustJSON(t, h.draftBody(nil)), []byte(`{`), []byte(`{"name":"Eve",`), 1))
		}, 400, "UNREADABLE_BODY", ""},
		{"a consent member in two cases", func() response {
			body := bytes.Replace(mustJSON(t, h.draftBody(map[string]any{"conversation": "guide: hi", "consents": consentTo("attach-conversation")})),
				[]byte(`"given":true`), []byte(`"given":false,"GIVEN":true`), 1)
			return h.do("POST", "/api/introductions", "application/json", body)
		}, 400, "UNREADABLE_BODY", ""},
		{"a consent member in another case", func() response {
			body := bytes.Replace(mustJSON(t, h.draftBody(map[string]any{"conversation": "guide: hi", "consents": consentTo("attach-conversation")})),
				[]byte(`"given":true`), []byte(`"GIVEN":true`), 1)
			return h.do("POST", "/api/introductions", "application/json", body)
		}, 422, "CONSENT_REQUIRED", "consents"},
		{"a token member in another case", func() response {
			return h.do("POST", "/api/introductions/AAAAAAAAAAAAAAAAAAAAAA/confirmation", "application/json", []byte(`{"TOKEN":"`+strings.Repeat("B", 43)+`"}`))
		}, 400, "UNREADABLE_BODY", ""},
		{"idempotency key empty", func() response {
			return h.postJSON("/api/introductions", h.draftBody(nil), "Idempotency-Key", "")
		}, 400, "IDEMPOTENCY_KEY_INVALID", ""},
		{"idempotency key empty quoted", func() response {
			return h.postJSON("/api/introductions", h.draftBody(nil), "Idempotency-Key", `""`)
		}, 400, "IDEMPOTENCY_KEY_INVALID", ""},
		{"unsupported media type", func() response {
			return h.do("POST", "/api/introductions", "text/plain", []byte(`{}`))
		}, 415, "UNSUPPORTED_MEDIA_TYPE", ""},
		{"body too large", func() response {
			return h.do("POST", "/api/introductions", "application/json", []byte(`{"message":"`+strings.Repeat("x", 70<<10)+`"}`))
		}, 413, "BODY_TOO_LARGE", ""},
		{"name missing", func() response { return h.postJSON("/api/introductions", h.draftBody(map[string]any{"name": ""})) }, 422, "NAME_INVALID", "name"},
		{"company control character", func() response {
			return h.postJSON("/api/introductions", h.draftBody(map[string]any{"company": "Acme\x00"}))
		}, 422, "COMPANY_INVALID", "company"},
		{"role too long", func() response {
			return h.postJSON("/api/introductions", h.draftBody(map[string]any{"role": strings.Repeat("r", 101)}))
		}, 422, "ROLE_INVALID", "role"},
		{"email without domain dot", func() response {
			return h.postJSON("/api/introductions", h.draftBody(map[string]any{"email": "ada@localhost"}))
		}, 422, "EMAIL_INVALID", "email"},
		{"message empty", func() response { return h.postJSON("/api/introductions", h.draftBody(map[string]any{"message": " "})) }, 422, "MESSAGE_INVALID", "message"},
		{"message four links", func() response {
			return h.postJSON("/api/introductions", h.draftBody(map[string]any{"message": links}))
		}, 422, "MESSAGE_TOO_MANY_LINKS", "message"},
		{"conversation control character", func() response {
			return h.postJSON("/api/introductions", h.draftBody(map[string]any{"conversation": "a\x07b", "consents": consentTo("attach-conversation")}))
		}, 422, "CONVERSATION_INVALID", "conversation"},
		{"conversation too long", func() response {
			return h.postJSON("/api/introductions", h.draftBody(map[string]any{"conversation": tooLong, "consents": consentTo("attach-conversation")}))
		}, 422, "CONVERSATION_TOO_LONG", "conversation"},
		{"conversation four links", func() response {
			return h.postJSON("/api/introductions", h.draftBody(map[string]any{"conversation": links, "consents": consentTo("attach-conversation")}))
		}, 422, "CONVERSATION_TOO_MANY_LINKS", "conversation"},
		{"form version unknown", func() response {
			return h.postJSON("/api/introductions", h.draftBody(map[string]any{"formVersion": "999"}))
		}, 422, "FORM_VERSION_UNKNOWN", "formVersion"},
		{"conversation without consent", func() response {
			return h.postJSON("/api/introductions", h.draftBody(map[string]any{"conversation": "guide: hi"}))
		}, 422, "CONSENT_REQUIRED", "consents"},
		{"no proof of work", func() response { return h.postJSON("/api/introductions", h.draftBody(map[string]any{"altcha": ""})) }, 422, "POW_REQUIRED", "altcha"},
		{"forged proof of work", func() response {
			return h.postJSON("/api/introductions", h.draftBody(map[string]any{"altcha": "eyJhbGdvcml0aG0iOiJTSEEtMjU2In0="}))
		}, 422, "POW_INVALID", "altcha"},
		{"expired proof of work", func() response {
			solution := h.solved()
			h.clock.Advance(11 * time.Minute)
			return h.postJSON("/api/introductions", h.draftBody(map[string]any{"altcha": solution}))
		}, 422, "POW_EXPIRED", "altcha"},
		{"spent proof of work", func() response {
			solution := h.solved()
			if r := h.postJSON("/api/introductions", h.draftBody(map[string]any{"altcha": solution}), fromAddress("192.0.2.10")...); r.status != 201 {
				t.Fatalf("first use: %d %s", r.status, r.body)
			}
			return h.postJSON("/api/introductions", h.draftBody(map[string]any{"altcha": solution, "email": "other@example.com"}), fromAddress("192.0.2.11")...)
		}, 422, "POW_SPENT", ""},
		{"idempotency key malformed", func() response {
			return h.postJSON("/api/introductions", h.draftBody(nil), "Idempotency-Key", "short")
		}, 400, "IDEMPOTENCY_KEY_INVALID", ""},
		{"unknown introduction", func() response {
			return h.postJSON("/api/introductions/AAAAAAAAAAAAAAAAAAAAAA/confirmation", map[string]string{"token": strings.Repeat("B", 43)})
		}, 404, "NOT_FOUND", ""},
		{"withdrawing a draft", func() response {
			d := h.postJSON("/api/introductions", h.draftBody(map[string]any{"email": "draft@example.com"}), fromAddress("192.0.2.12")...).json(t)
			return h.postJSON("/api/introductions/"+d["id"].(string)+"/withdrawal", map[string]string{"token": d["token"].(string)})
		}, 409, "STATE_CONFLICT", ""},
		{"method not allowed", func() response { return h.do("GET", "/api/introductions", "", nil) }, 405, "METHOD_NOT_ALLOWED", ""},
		{"unknown api path", func() response { return h.do("GET", "/api/nothing", "", nil) }, 404, "NOT_FOUND", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := tc.send()
			if r.status != tc.status {
				t.Fatalf("status %d, want %d: %s", r.status, tc.status, r.body)
			}
			if ct := r.header.Get("Content-Type"); ct != "application/problem+json" {
				t.Fatalf("Content-Type %q", ct)
			}
			var p struct {
				Type, Title, Code, Detail string
				Status                    int
				Errors                    []struct{ Field, Code, Detail string }
			}
			if err := json.NewDecoder(bytes.NewReader(r.body)).Decode(&p); err != nil {
				t.Fatal(err)
			}
			if p.Code != tc.code || p.Status != tc.status || p.Type == "" || p.Title == "" || p.Detail == "" {
				t.Fatalf("problem %+v, want code %s", p, tc.code)
			}
			if tc.field != "" {
				found := false
				for _, e := range p.Errors {
					found = found || (e.Field == tc.field && e.Code == tc.code && e.Detail != "")
				}
				if !found {
					t.Fatalf("no error at field %q with code %s: %+v", tc.field, tc.code, p.Errors)
				}
			}
			for _, leak := range []string{"rpc error", "firestore", "goroutine", ".go:", "panic"} {
				if strings.Contains(strings.ToLower(string(r.body)), leak) {
					t.Errorf("the answer leaks internal text %q: %s", leak, r.body)
				}
			}
		})
	}
}

func consentTo(purpose string) []any {
	return []any{map[string]any{"purpose": purpose, "textVersion": purpose + "/1", "given": true}}
}

func TestRateLimitedSourceGetsRetryAfterAndOthersDoNot(t *testing.T) {
	h := newHarness(t, map[string]string{"RATE_LIMIT_IP_PER_HOUR": "2"})
	for i := 0; i < 2; i++ {
		if r := h.postJSON("/api/introductions", h.draftBody(map[string]any{"email": "a" + string(rune('a'+i)) + "@example.com"}), fromAddress("192.0.2.20")...); r.status != 201 {
			t.Fatalf("draft %d: %d %s", i, r.status, r.body)
		}
	}
	r := h.postJSON("/api/introductions", h.draftBody(map[string]any{"email": "third@example.com"}), fromAddress("192.0.2.20")...)
	if r.status != http.StatusTooManyRequests || r.code(t) != "RATE_LIMITED" || r.header.Get("Retry-After") == "" {
		t.Fatalf("third draft from one address: %d %s (Retry-After %q)", r.status, r.body, r.header.Get("Retry-After"))
	}
	if r := h.postJSON("/api/introductions", h.draftBody(map[string]any{"email": "fourth@example.com"}), fromAddress("192.0.2.21")...); r.status != 201 {
		t.Fatalf("an independent source is still allowed: %d %s", r.status, r.body)
	}
	// The client-controlled leftmost entry does not help the blocked source.
	spoof := []string{"X-Forwarded-For", "192.0.2.99, 192.0.2.20"}
	if r := h.postJSON("/api/introductions", h.draftBody(map[string]any{"email": "fifth@example.com"}), spoof...); r.status != http.StatusTooManyRequests {
		t.Fatalf("a spoofed leftmost X-Forwarded-For entry must not reset the limit: %d", r.status)
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
