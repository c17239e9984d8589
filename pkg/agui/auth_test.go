package agui_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/cadrehq/cadre/internal/oauthtest"
	"github.com/cadrehq/cadre/pkg/agui"
	"github.com/cadrehq/cadre/pkg/assistant"
	"github.com/cadrehq/cadre/pkg/chat"
	"github.com/cadrehq/cadre/pkg/llmtest"
	"github.com/cadrehq/cadre/pkg/mcpauth"
)

// TestHandlerBehindBearerTokens serves the endpoint beyond loopback as the docs say: behind
// mcpauth's authorizer, with each thread its caller's, by the claims of their token.
func TestHandlerBehindBearerTokens(t *testing.T) {
	const resource = "https://agents.example.com/agui"
	iss := oauthtest.NewIssuer(t, oauthtest.NewKey(t, "k1"))
	auth, err := mcpauth.NewAuthorizer(t.Context(), resource, iss.URL)
	if err != nil {
		t.Fatal(err)
	}
	m := llmtest.NewFunc(func(_ context.Context, req llmtest.Request) llmtest.Reply {
		return llmtest.Text(texts(req.Messages))
	})
	h := auth.Protect(agui.NewHandler(assistant.New[string]("echo", assistant.WithModel(m)),
		agui.WithAllowedHosts("agents.example.com"), agui.WithStore(chat.NewMemory()),
		agui.WithIdentity(mcpauth.ClaimIdentity("tenant", "sub"))))
	send := func(token, prompt string) (int, string) {
		req := httptest.NewRequest(http.MethodPost, resource, strings.NewReader(body("t1", "r1", "", user("u1", prompt))))
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		b, _ := io.ReadAll(rec.Result().Body)
		return rec.Code, string(b)
	}
	if code, _ := send("", "hi"); code != http.StatusUnauthorized {
		t.Errorf("no token: %d; want 401", code)
	}
	ana := iss.Token(t, resource, "ana", map[string]any{"tenant": "acme"})
	bo := iss.Token(t, resource, "bo", map[string]any{"tenant": "acme"})
	if code, b := send(ana, "ana's secret"); code != http.StatusOK || !strings.Contains(b, `"result":"human:ana's secret"`) {
		t.Fatalf("ana: %d %s", code, b)
	}
	if code, b := send(bo, "hello"); code != http.StatusOK || !strings.Contains(b, `"result":"human:hello"`) || strings.Contains(b, "secret") {
		t.Errorf("bo's thread t1: %d %s; want it apart from ana's", code, b)
	}
	if code, b := send(ana, "again"); code != http.StatusOK || !strings.Contains(b, `human:ana's secret | ai:human:ana's secret | human:again`) {
		t.Errorf("ana's thread t1 again: %d %s; want her history", code, b)
	}
	noTenant := iss.Token(t, resource, "cy", nil)
	if code, b := send(noTenant, "hi"); code != http.StatusForbidden || !strings.Contains(b, "tenant") {
		t.Errorf("a token without the tenant claim: %d %s; want 403 naming it", code, b)
	}
}
