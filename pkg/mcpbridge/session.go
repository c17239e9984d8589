package mcpbridge

import (
	"context"
	"fmt"
	"net/http"
	"sync"

	"github.com/mark3labs/mcp-go/server"
)

// ErrSessionEnded is the cause of the context of a request that CancelOnSessionEnd cancels:
// the client ended the request's session. It wraps context.Canceled, so that a run's error
// is a cancellation for errors.Is as when the context is cancelled without a cause.
var ErrSessionEnded = fmt.Errorf("mcpbridge: the client ended its MCP session: %w", context.Canceled)

// CancelOnSessionEnd returns a handler that serves h, a streamable HTTP handler such as
// mcp-go's server.NewStreamableHTTPServer, and that cancels the requests of a session still in
// progress when the client ends the session (an HTTP DELETE with the session's Mcp-Session-Id
// that h accepts): the runs serving them stop, with the runs they delegated to, and their
// context's cause is ErrSessionEnded. mcp-go (v1.2.1) ends the session but lets its requests
// run to their end; a client that closes its connections instead cancels them without this
// handler.
//
// Only sessions are tracked: a request without an Mcp-Session-Id (protocol version 2026-07-28
// has no sessions; there, a request ends when its stream does) is served as h serves it. The
// handler is safe for concurrent use; it keeps an entry per request in progress, and nothing
// once the request is done.
func CancelOnSessionEnd(h http.Handler) http.Handler {
	return &sessionRequests{next: h, bySession: make(map[string]map[*sessionRequest]struct{})}
}

type sessionRequests struct {
	next      http.Handler
	mu        sync.Mutex
	bySession map[string]map[*sessionRequest]struct{} // the requests in progress, by session
}

type sessionRequest struct{ cancel context.CancelCauseFunc }

func (s *sessionRequests) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	id := r.Header.Get(server.HeaderKeySessionID)
	switch {
	case id == "":
		s.next.ServeHTTP(w, r)
	case r.Method == http.MethodDelete:
		status := &statusWriter{ResponseWriter: w}
		s.next.ServeHTTP(status, r)
		if status.code == 0 || status.code == http.StatusOK || status.code == http.StatusNoContent {
			s.end(id)
		}
	default:
		ctx, cancel := context.WithCancelCause(r.Context())
		defer cancel(nil)
		req := &sessionRequest{cancel: cancel}
		s.add(id, req)
		defer s.remove(id, req)
		s.next.ServeHTTP(w, r.WithContext(ctx))
	}
}

func (s *sessionRequests) add(id string, req *sessionRequest) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.bySession[id] == nil {
		s.bySession[id] = make(map[*sessionRequest]struct{})
	}
	s.bySession[id][req] = struct{}{}
}

func (s *sessionRequests) remove(id string, req *sessionRequest) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.bySession[id], req)
	if len(s.bySession[id]) == 0 {
		delete(s.bySession, id)
	}
}

// end cancels the requests of session id in progress.
func (s *sessionRequests) end(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for req := range s.bySession[id] {
		req.cancel(ErrSessionEnded)
	}
}

// statusWriter records the status code of a response.
type statusWriter struct {
	http.ResponseWriter
	code int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.code == 0 {
		w.code = code
	}
	w.ResponseWriter.WriteHeader(code)
}

// Unwrap lets http.ResponseController reach the writer's other abilities.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
