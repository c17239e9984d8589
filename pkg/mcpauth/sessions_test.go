package mcpauth_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/cadrehq/cadre/internal/oauthtest"
	"github.com/cadrehq/cadre/pkg/mcpauth"
	"github.com/mark3labs/mcp-go/server"
)

// sessionServer stands for mcp-go's streamable HTTP server behind Protect: the response to a
// request without Mcp-Session-Id begins the session it names, as the response to an initialize
// does. It counts the requests that reach it; a request whose body is "hold" waits there until
// held is closed, after telling holding; a DELETE whose body is "keep" is refused, as by a
// server that does not let clients end their sessions.
type sessionServer struct {
	n       atomic.Int32
	minted  atomic.Int32
	holding chan struct{}
	held    chan struct{}
}

func (s *sessionServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.n.Add(1)
	if r.Header.Get(server.HeaderKeySessionID) == "" {
		w.Header().Set(server.HeaderKeySessionID, fmt.Sprintf("mcp-session-%d", s.minted.Add(1)))
	}
	body, _ := io.ReadAll(r.Body)
	if string(body) == "hold" {
		s.holding <- struct{}{}
		<-s.held
	}
	if r.Method == http.MethodDelete && string(body) == "keep" {
		http.Error(w, "Session termination not allowed", http.StatusMethodNotAllowed)
		return
	}
	if r.Method == http.MethodDelete {
		return // 200, without WriteHeader
	}
	w.WriteHeader(http.StatusOK)
}

// sessionCall sends a request of method with token in session (none for "") through a.Protect
// to next, and returns its status and the session its response names.
func sessionCall(a *mcpauth.Authorizer, next http.Handler, method, token, session, body string) (int, string) {
	req := httptest.NewRequest(method, resource, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+token)
	if session != "" {
		req.Header.Set(server.HeaderKeySessionID, session)
	}
	rec := httptest.NewRecorder()
	a.Protect(next).ServeHTTP(rec, req)
	return rec.Code, rec.Header().Get(server.HeaderKeySessionID)
}

// A session belongs to the caller that began it — the subject of its token: another caller's
// token, even with the session's ID, reaches nothing of it (not a request, not a cancel, not
// its end), and gets 404 Not Found, as for a session that does not exist.
func TestProtectKeepsASessionToItsCaller(t *testing.T) {
	t.Parallel()
	key := oauthtest.NewKey(t, "k1")
	iss := oauthtest.NewIssuer(t, key)
	log := &refusals{}
	a := authorizer(t, iss, mcpauth.WithRefusalHandler(log.handle))
	next := &sessionServer{}
	ana := iss.Token(t, resource, "ana", map[string]any{"tenant": "acme"})
	anaAgain := iss.Token(t, resource, "ana", map[string]any{"tenant": "acme", "jti": "refreshed"})
	bo := iss.Token(t, resource, "bo", map[string]any{"tenant": "globex"})

	status, session := sessionCall(a, next, http.MethodPost, ana, "", "initialize")
	if status != http.StatusOK || session == "" {
		t.Fatalf("ana's initialize: %d, session %q", status, session)
	}
	steps := []struct {
		who, token, method, session, body string
		want                              int
	}{
		{"ana", ana, http.MethodPost, session, "", http.StatusOK},
		{"ana with a refreshed token", anaAgain, http.MethodPost, session, "", http.StatusOK},
		{"bo with ana's session", bo, http.MethodPost, session, "", http.StatusNotFound},
		{"bo ending ana's session", bo, http.MethodDelete, session, "", http.StatusNotFound},
		{"ana, after bo's tries", ana, http.MethodGet, session, "", http.StatusOK},
		{"bo with a session no one began", bo, http.MethodPost, "mcp-session-made-up", "", http.StatusOK},
		{"ana with the session bo made up", ana, http.MethodPost, "mcp-session-made-up", "", http.StatusNotFound},
		{"ana ending her session, which the server keeps", ana, http.MethodDelete, session, "keep", http.StatusMethodNotAllowed},
		{"bo with ana's session that the server kept", bo, http.MethodPost, session, "", http.StatusNotFound},
		{"ana ending her session", ana, http.MethodDelete, session, "", http.StatusOK},
		{"bo with the session ana ended", bo, http.MethodPost, session, "", http.StatusOK},
	}
	for _, step := range steps {
		before := next.n.Load()
		status, _ := sessionCall(a, next, step.method, step.token, step.session, step.body)
		reached := next.n.Load() - before
		if status != step.want || (reached == 1) != (step.want != http.StatusNotFound) {
			t.Errorf("%s: %d, %d requests reached the server; want %d", step.who, status, reached, step.want)
		}
	}
	// The refusal says what to do, as JSON.
	_, session = sessionCall(a, next, http.MethodPost, ana, "", "initialize")
	req := httptest.NewRequest(http.MethodPost, resource, strings.NewReader(`{}`))
	req.Header.Set("Authorization", "Bearer "+bo)
	req.Header.Set(server.HeaderKeySessionID, session)
	rec := httptest.NewRecorder()
	a.Protect(next).ServeHTTP(rec, req)
	var body map[string]string
	if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil ||
		rec.Code != http.StatusNotFound || rec.Header().Get("Content-Type") != "application/json" ||
		body["error"] != "session_not_found" || !strings.Contains(body["error_description"], "initialize") {
		t.Errorf("bo with ana's session got %d %s %s, want 404 and a JSON error that says to initialize", rec.Code, rec.Header().Get("Content-Type"), rec.Body)
	}

	errs := log.all()
	if len(errs) != 5 {
		t.Fatalf("the refusal handler was told %v, want five refusals", errs)
	}
	for _, err := range errs {
		if !errors.Is(err, mcpauth.ErrForeignSession) {
			t.Errorf("the refusal handler was told %v, want ErrForeignSession", err)
		}
	}
}

// With WithSessionOwner, the claims it names together say whose a session is: another
// tenant's user of the same subject is another caller.
func TestProtectKeepsASessionToTheOwnerClaims(t *testing.T) {
	t.Parallel()
	key := oauthtest.NewKey(t, "k1")
	iss := oauthtest.NewIssuer(t, key)
	next := &sessionServer{}
	acme := iss.Token(t, resource, "ana", map[string]any{"tenant": "acme", "scope": "travel"})
	for _, tc := range []struct {
		name   string
		opts   []mcpauth.Option
		token  string
		status int
	}{
		{"by default, the subject: the same subject of another tenant", nil, iss.Token(t, resource, "ana", map[string]any{"tenant": "globex"}), http.StatusOK},
		{"tenant and subject: the same subject of another tenant", []mcpauth.Option{mcpauth.WithSessionOwner("tenant", "sub")}, iss.Token(t, resource, "ana", map[string]any{"tenant": "globex"}), http.StatusNotFound},
		{"tenant and subject: the same subject without a tenant", []mcpauth.Option{mcpauth.WithSessionOwner("tenant", "sub")}, iss.Token(t, resource, "ana", nil), http.StatusNotFound},
		{"tenant and subject: a token of the same tenant and subject with other scopes", []mcpauth.Option{mcpauth.WithSessionOwner("tenant", "sub")}, iss.Token(t, resource, "ana", map[string]any{"tenant": "acme"}), http.StatusOK},
	} {
		a := authorizer(t, iss, tc.opts...)
		_, session := sessionCall(a, next, http.MethodPost, acme, "", "initialize")
		if status, _ := sessionCall(a, next, http.MethodPost, tc.token, session, ""); status != tc.status {
			t.Errorf("%s: %d, want %d", tc.name, status, tc.status)
		}
	}
	for _, claims := range [][]string{nil, {"tenant", ""}} {
		if _, err := mcpauth.NewAuthorizer(t.Context(), resource, iss.URL, mcpauth.WithSessionOwner(claims...)); err == nil || !strings.Contains(err.Error(), "WithSessionOwner") {
			t.Errorf("WithSessionOwner(%q): %v, want an error naming it", claims, err)
		}
	}
}

// A token without a subject ("sub") names no caller: its sessions belong to the token itself.
func TestProtectKeepsASessionToATokenWithoutSubject(t *testing.T) {
	t.Parallel()
	key := oauthtest.NewKey(t, "k1")
	iss := oauthtest.NewIssuer(t, key)
	a := authorizer(t, iss)
	next := &sessionServer{}
	token := func(id string) string {
		claims := iss.Claims(resource, "")
		delete(claims, "sub")
		claims["jti"] = id
		return oauthtest.Sign(t, key, claims)
	}
	first, second := token("1"), token("2")
	_, session := sessionCall(a, next, http.MethodPost, first, "", "initialize")
	if status, _ := sessionCall(a, next, http.MethodPost, first, session, ""); status != http.StatusOK {
		t.Errorf("the token that began the session: %d", status)
	}
	if status, _ := sessionCall(a, next, http.MethodPost, second, session, ""); status != http.StatusNotFound {
		t.Errorf("another token without a subject: %d, want 404", status)
	}
}

// The Authorizer forgets a session that no request has used for an hour, so that the sessions
// of clients that go away without ending them do not pile up — and not while a request of the
// session is in progress, however long it takes.
func TestProtectForgetsIdleSessions(t *testing.T) {
	t.Parallel()
	key := oauthtest.NewKey(t, "k1")
	iss := oauthtest.NewIssuer(t, key)
	a := authorizer(t, iss) // outside the bubble: it fetches the keys over HTTP
	synctest.Test(t, func(t *testing.T) {
		next := &sessionServer{holding: make(chan struct{}), held: make(chan struct{})}
		ana := iss.Token(t, resource, "ana", nil)
		_, idle := sessionCall(a, next, http.MethodPost, ana, "", "initialize")
		_, busy := sessionCall(a, next, http.MethodPost, ana, "", "initialize")
		sessionCall(a, next, http.MethodPost, ana, idle, "") // a request that came and went
		done := make(chan struct{})
		go func() {
			defer close(done)
			sessionCall(a, next, http.MethodPost, ana, busy, "hold")
		}()
		<-next.holding

		bo := func(session string) int {
			status, _ := sessionCall(a, next, http.MethodPost, iss.Token(t, resource, "bo", nil), session, "")
			return status
		}
		time.Sleep(30 * time.Minute)
		bo(fmt.Sprintf("mcp-session-bo-%v", time.Now().Unix())) // a new session: the Authorizer looks for idle ones
		if status := bo(idle); status != http.StatusNotFound {
			t.Errorf("bo with ana's session idle for 30 minutes: %d, want 404", status)
		}
		time.Sleep(2 * time.Hour)
		bo(fmt.Sprintf("mcp-session-bo-%v", time.Now().Unix()))
		if status := bo(idle); status != http.StatusOK {
			t.Errorf("bo with ana's session idle for hours: %d, want it forgotten", status)
		}
		if status := bo(busy); status != http.StatusNotFound {
			t.Errorf("bo with ana's session of a request in progress for hours: %d, want 404", status)
		}
		close(next.held)
		<-done
		// Its request ended, the busy session idles like any other.
		time.Sleep(2 * time.Hour)
		bo(fmt.Sprintf("mcp-session-bo-%v", time.Now().Unix()))
		if status := bo(busy); status != http.StatusOK {
			t.Errorf("bo with ana's session idle for hours since its request ended: %d, want it forgotten", status)
		}
	})
}

// testContext returns a context that ends with the test, and at the latest after a minute, so
// that a test whose behaviour is missing fails instead of hanging.
func testContext(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// A response that begins a session streams through Protect as it would without it: mcp-go
// streams (server-sent events) only to a writer that can flush, and the client receives each
// event as the server flushes it.
func TestProtectKeepsResponsesStreaming(t *testing.T) {
	t.Parallel()
	key := oauthtest.NewKey(t, "k1")
	iss := oauthtest.NewIssuer(t, key)
	a := authorizer(t, iss)
	received := make(chan struct{})
	ctx := testContext(t)
	events := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		f, ok := w.(http.Flusher)
		if !ok {
			http.Error(w, "cannot stream", http.StatusNotImplemented)
			return
		}
		w.Header().Set(server.HeaderKeySessionID, "mcp-session-streamed")
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, "data: first\n\n")
		f.Flush()
		select {
		case <-received: // the client read the first event before the response ended
		case <-ctx.Done(): // it did not: the test fails rather than hangs
			return
		}
		fmt.Fprint(w, "data: last\n\n")
	})
	srv := httptest.NewServer(a.Protect(events))
	t.Cleanup(srv.Close)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL, strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+iss.Token(t, resource, "ana", nil))
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	first := make([]byte, len("data: first\n\n"))
	if _, err := io.ReadFull(resp.Body, first); err != nil || string(first) != "data: first\n\n" {
		t.Fatalf("%s: the first event %q, %v", resp.Status, first, err)
	}
	close(received)
	if rest, err := io.ReadAll(resp.Body); err != nil || string(rest) != "data: last\n\n" {
		t.Errorf("the rest: %q, %v", rest, err)
	}
	if got := resp.Header.Get(server.HeaderKeySessionID); got != "mcp-session-streamed" {
		t.Errorf("the session %q", got)
	}
}
