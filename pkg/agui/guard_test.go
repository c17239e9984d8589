package agui_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/cadrehq/cadre/pkg/agui"
	"github.com/cadrehq/cadre/pkg/assistant"
	"github.com/cadrehq/cadre/pkg/llmtest"
)

func TestHandlerChecksHostAndOrigin(t *testing.T) {
	runs := 0
	m := llmtest.NewFunc(func(_ context.Context, _ llmtest.Request) llmtest.Reply { runs++; return llmtest.Text("ok") })
	a := assistant.New[string]("a", assistant.WithModel(m))
	open := agui.NewHandler(a)
	wide := agui.NewHandler(a, agui.WithAllowedHosts("agents.example.com"), agui.WithAllowedOrigins("https://app.example.com"))
	for _, tc := range []struct {
		name         string
		h            http.Handler
		method, host string
		origin       string
		status       int
		allowOrigin  string
	}{
		{"loopback, no origin", open, "POST", "127.0.0.1:8080", "", 200, ""},
		{"localhost page", open, "POST", "localhost:8080", "http://localhost:5173", 200, "http://localhost:5173"},
		{"ipv6 loopback", open, "POST", "[::1]:8080", "http://[::1]:3000", 200, "http://[::1]:3000"},
		{"rebinding", open, "POST", "evil.example:8080", "", 403, ""},
		{"cross-site page", open, "POST", "127.0.0.1:8080", "https://evil.example", 403, ""},
		{"sandboxed page", open, "POST", "127.0.0.1:8080", "null", 403, ""},
		{"cross-site preflight", open, "OPTIONS", "127.0.0.1:8080", "https://evil.example", 403, ""},
		{"preflight", open, "OPTIONS", "127.0.0.1:8080", "http://localhost:5173", 204, "http://localhost:5173"},
		{"allowed host", wide, "POST", "agents.example.com", "https://app.example.com", 200, "https://app.example.com"},
		{"allowed host, other page", wide, "POST", "agents.example.com", "https://other.example.com", 403, ""},
		{"other host", wide, "POST", "other.example.com", "", 403, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := runs
			req := httptest.NewRequest(tc.method, "http://"+tc.host+"/agent", strings.NewReader(body("t-"+tc.name, "r1", "", user("u1", "hi"))))
			req.Host = tc.host
			if tc.origin != "" {
				req.Header.Set("Origin", tc.origin)
			}
			if tc.method == "OPTIONS" {
				req.Header.Set("Access-Control-Request-Method", "POST")
				req.Header.Set("Access-Control-Request-Headers", "content-type")
			}
			rec := httptest.NewRecorder()
			tc.h.ServeHTTP(rec, req)
			b, _ := io.ReadAll(rec.Result().Body)
			if rec.Code != tc.status {
				t.Fatalf("status %d %q; want %d", rec.Code, b, tc.status)
			}
			if got := rec.Header().Get("Access-Control-Allow-Origin"); got != tc.allowOrigin {
				t.Errorf("Access-Control-Allow-Origin %q; want %q", got, tc.allowOrigin)
			}
			if tc.status == 403 && runs != before {
				t.Errorf("a refused request ran the assistant")
			}
			if tc.status == 403 && !strings.Contains(string(b), "WithAllowed") {
				t.Errorf("refusal %q does not say what to do", b)
			}
			if tc.method == "OPTIONS" && tc.status == 204 && rec.Header().Get("Access-Control-Allow-Methods") != "POST" {
				t.Errorf("preflight headers %v", rec.Header())
			}
		})
	}
}
