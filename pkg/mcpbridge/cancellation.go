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
//   - It answers 202 Accepted, and does not pass on, a notifications/cancelled of protocol
//     version 2026-07-28 or later — by its MCP-Protocol-Version header or by the protocol
//     version in its params._meta — and one without an Mcp-Session-Id (a stateless server has
//     none). Such a notification names a request ID and nothing that tells whose request it
//     is: mcp-go serves a message of that version as one without a session, whatever
//     Mcp-Session-Id it carries, and would cancel any client's request of that ID. Over
//     streamable HTTP such a client cancels a request by closing its stream, as the protocol
//     asks, which ends the request's context without this handler.
//   - It passes on a notifications/cancelled of an older version with a session, which
//     mcp-go applies to the requests of that session alone.
//
// To tell them apart, the handler reads the body of every POST whole before h does, as mcp-go
// does, with no limit of its own: to bound what a client may send, wrap the handler in
// http.MaxBytesHandler, and h then fails a body over the limit as it would without this
// handler. mcp-go (v1.2.1) refuses JSON-RPC batches, so a notification in a batch cancels
// nothing.
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
	if r.Method == http.MethodPost && r.Body != nil && c.dropCancel(w, r, id) {
		return
	}
	switch {
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

// dropCancel reads the body of POST r, of session id (none for ""), and answers 202 Accepted
// to a notifications/cancelled that must not reach h, reporting whether it did. Otherwise it
// puts the body back for h to read, with the error that ended the reading, if any: h answers
// a body it could not read as it would without this handler.
func (c *cancellation) dropCancel(w http.ResponseWriter, r *http.Request, id string) bool {
	body, err := io.ReadAll(r.Body)
	if err == nil && isCancel(body) && (id == "" || isModern(r.Header, body)) {
		w.WriteHeader(http.StatusAccepted)
		return true
	}
	rest := io.Reader(bytes.NewReader(body))
	if err != nil {
		rest = io.MultiReader(rest, errReader{err})
	}
	r.Body = struct {
		io.Reader
		io.Closer
	}{rest, r.Body}
	return false
}

// isCancel reports whether body is a notifications/cancelled, read as mcp-go reads a message's
// method. It ignores an ID, which a notification has not: mcp-go takes a null one for none.
func isCancel(body []byte) bool {
	var msg struct {
		Method string `json:"method"`
	}
	return json.Unmarshal(body, &msg) == nil && msg.Method == string(mcp.MethodNotificationCancelled)
}

// isModern reports whether a message of header and body is of protocol version 2026-07-28
// or later, by either of the signals mcp-go's streamable HTTP server reads: the
// MCP-Protocol-Version header, and the protocol version in params._meta.
func isModern(header http.Header, body []byte) bool {
	if mcp.IsModernProtocol(header.Get(mcp.HeaderProtocolVersion)) {
		return true
	}
	var msg struct {
		Params struct {
			Meta *mcp.Meta `json:"_meta"`
		} `json:"params"`
	}
	return json.Unmarshal(body, &msg) == nil && mcp.IsModernProtocol(msg.Params.Meta.ProtocolVersion())
}

// errReader fails every read with err.
type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

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
