package hostguard_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/cadrehq/cadre/internal/hostguard"
)

func TestCheck(t *testing.T) {
	g := hostguard.Guard{}
	g.AddHosts("agents.example.com")
	g.AddOrigins("https://app.example.com/")
	for _, tc := range []struct {
		host, origin string
		ok           bool
	}{
		{"127.0.0.1:8080", "", true},
		{"agents.example.com", "", true},
		{"evil.example", "", false},
		{"agents.example.com", "https://agents.example.com", true}, // its own page
		{"agents.example.com:8443", "https://agents.example.com:8443", true},
		{"agents.example.com", "https://agents.example.com:8443", false}, // another port is another origin
		{"agents.example.com", "https://app.example.com", true},
		{"agents.example.com", "https://evil.example", false},
		{"agents.example.com", "null", false},
		{"127.0.0.1:8080", "http://localhost:5173", true},
	} {
		r := httptest.NewRequest(http.MethodPost, "http://"+tc.host+"/", nil)
		if tc.origin != "" {
			r.Header.Set("Origin", tc.origin)
		}
		rec := httptest.NewRecorder()
		if got := g.Check(rec, r, "WithAllowedHosts", "WithAllowedOrigins"); got != tc.ok {
			t.Errorf("Host %s, Origin %q: %v (%d); want %v", tc.host, tc.origin, got, rec.Code, tc.ok)
		}
	}
}
