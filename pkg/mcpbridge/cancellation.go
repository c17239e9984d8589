package mcpbridge

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// ErrSessionEnded is the cause of the context of a request that CancellationHandler cancels:
// the client ended the request's session. It wraps context.Canceled, so that a run's error
// is a cancellation for errors.Is as when the context is cancelled without a cause.
var ErrSessionEnded = fmt.Errorf("mcpbridge: the client ended its MCP session: %w", context.Canceled)

// CancellationHandler returns a handler that serves h, a streamable HTTP handler such as
// mcp-go's server.NewStreamableHTTPServer, so that a client's cancellation reaches the
// requests it should, and only those:
//
//   - When a client ends its session (an HTTP DELETE with the session's Mcp-Session-Id, which
//     h accepts), the handler cancels the session's requests still in progress: the runs
//     serving them stop, with the runs they delegated to, and their context's cause is
//     ErrSessionEnded. mcp-go (v1.2.1) ends the session and lets its requests run to their end.
//   - It answers a notifications/cancelled that comes without a session (protocol version
//     2026-07-28 has none, nor has a stateless server) with 202 Accepted, and does not pass it
//     on: such a notification names a request ID and nothing to tell whose request it is, and
//     mcp-go would cancel any client's request of that ID. Over streamable HTTP a sessionless
//     client cancels a request by closing its stream, as the protocol asks, which ends the
//     request's context without this handler.
//
// A client that closes its connections cancels its requests without this handler too. The
// handler is safe for concurrent use; it keeps an entry per request of a session in progress,
// and nothing once the request is done.
func CancellationHandler(h http.Handler) http.Handler {
	return &cancellation{next: h, bySession: make(map[string]map[*sessionRequest]struct{})}
}

type cancellation struct {
	next      http.Handler
	mu        sync.Mutex
	bySession map[string]map[*sessionRequest]struct{} // the requests in progress, by session
}

type sessionRequest struct{ cancel context.CancelCauseFunc }

func (c *cancellation) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	id := r.Header.Get(server.HeaderKeySessionID)
	switch {
	case id == "" && r.Method == http.MethodPost:
		c.serveSessionless(w, r)
	case id == "":
		c.next.ServeHTTP(w, r)
	case r.Method == http.MethodDelete:
		status := &statusWriter{ResponseWriter: w}
		c.next.ServeHTTP(status, r)
		if status.code == 0 || status.code == http.StatusOK || status.code == http.StatusNoContent {
			c.end(id)
		}
	default:
		ctx, cancel := context.WithCancelCause(r.Context())
		defer cancel(nil)
		req := &sessionRequest{cancel: cancel}
		c.add(id, req)
		defer c.remove(id, req)
		c.next.ServeHTTP(w, r.WithContext(ctx))
	}
}

// serveSessionless passes on a POST without a session, unless it is a notifications/cancelled,
// which it accepts and drops. The body is read whole, as mcp-go reads it.
func (c *cancellation) serveSessionless(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, "reading the request body: "+err.Error(), http.StatusBadRequest)
		return
	}
	var msg struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	if json.Unmarshal(body, &msg) == nil && msg.ID == nil && msg.Method == string(mcp.MethodNotificationCancelled) {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	c.next.ServeHTTP(w, r)
}

func (c *cancellation) add(id string, req *sessionRequest) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.bySession[id] == nil {
		c.bySession[id] = make(map[*sessionRequest]struct{})
	}
	c.bySession[id][req] = struct{}{}
}

func (c *cancellation) remove(id string, req *sessionRequest) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.bySession[id], req)
	if len(c.bySession[id]) == 0 {
		delete(c.bySession, id)
	}
}

// end cancels the requests of session id in progress.
func (c *cancellation) end(id string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for req := range c.bySession[id] {
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
