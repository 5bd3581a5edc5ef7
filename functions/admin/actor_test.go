package admin

import (
	"encoding/base64"
	"net/http/httptest"
	"testing"
)

func TestActorIsTheIdentityTokensEmail(t *testing.T) {
	enc := base64.RawURLEncoding.EncodeToString
	tests := []struct{ name, header, want string }{
		{"no token: the dev server", "", LocalOwner},
		{"Cloud Run's token, signature removed", "Bearer " + enc([]byte(`{"alg":"RS256"}`)) + "." + enc([]byte(`{"email":"owner@site.example"}`)) + ".SIGNATURE_REMOVED_BY_GOOGLE", "owner@site.example"},
		{"the scheme in lower case, two spaces", "bearer  h." + enc([]byte(`{"email":"o@x.example"}`)) + ".s", "o@x.example"},
		{"padded payload", "Bearer h." + base64.URLEncoding.EncodeToString([]byte(`{"email":"o@x.example"}`)) + ".s", "o@x.example"},
		{"no email claim", "Bearer h." + enc([]byte(`{"sub":"123"}`)) + ".s", "unidentified caller"},
		{"not a JWT", "Bearer opaque-token", "unidentified caller"},
		{"not base64", "Bearer h.!!!.s", "unidentified caller"},
		{"another scheme", "Basic b3duZXI6cHc=", "unidentified caller"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest("GET", "/admin/", nil)
			if tt.header != "" {
				r.Header.Set("Authorization", tt.header)
			}
			if got := actor(r); got != tt.want {
				t.Errorf("actor = %q, want %q", got, tt.want)
			}
		})
	}
}
