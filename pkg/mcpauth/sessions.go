package mcpauth

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/server"
)

// sessionIdle is how long the Authorizer keeps a session whose caller sends no request: a
// client may go away without ending its session.
const sessionIdle = time.Hour

// sessionOwners binds the MCP sessions that reach an Authorizer to their callers: mcp-go binds
// a session to nothing but its ID, which a caller who learns it could send with a token of
// its own. Its methods are safe for concurrent use.
type sessionOwners struct {
	mu        sync.Mutex
	byID      map[string]*sessionOwner
	lastSweep time.Time
}

// sessionOwner is the caller of a session, and how the session is used.
type sessionOwner struct {
	caller   string
	inFlight int       // the session's requests in progress
	lastUsed time.Time // when its last request began or ended
}

func newSessionOwners() *sessionOwners {
	return &sessionOwners{byID: make(map[string]*sessionOwner)}
}

// callerOf returns who calls with token, whose claims are claims, by the claims named owner:
// their values; for a token with none of them, the token itself.
func callerOf(claims Claims, owner []string, token string) string {
	values := make([]any, len(owner))
	named := false
	for i, name := range owner {
		values[i] = claims[name]
		named = named || (values[i] != nil && values[i] != "")
	}
	if b, err := json.Marshal(values); named && err == nil {
		return "claims:" + string(b)
	}
	sum := sha256.Sum256([]byte(token))
	return "token:" + hex.EncodeToString(sum[:])
}

// enter records a request of caller in session id, which becomes caller's if no one holds it,
// and returns the session's owner, whose leave the request calls when it ends. It reports
// false, and records nothing, when another caller holds the session.
func (s *sessionOwners) enter(id, caller string) (*sessionOwner, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := time.Now()
	o := s.byID[id]
	switch {
	case o == nil:
		o = s.add(id, caller, now)
	case o.caller != caller:
		return nil, false
	}
	o.inFlight++
	o.lastUsed = now
	return o, true
}

// leave records the end of a request of o's session.
func (s *sessionOwners) leave(o *sessionOwner) {
	s.mu.Lock()
	defer s.mu.Unlock()
	o.inFlight--
	o.lastUsed = time.Now()
}

// begin makes session id, which a response began, caller's, unless someone holds it already.
func (s *sessionOwners) begin(id, caller string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.byID[id] == nil {
		s.add(id, caller, time.Now())
	}
}

// end forgets session id, which its caller ended.
func (s *sessionOwners) end(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.byID, id)
}

// add makes session id caller's, and forgets the sessions idle for longer than sessionIdle,
// looking for them at most every quarter of it. The caller holds s.mu.
func (s *sessionOwners) add(id, caller string, now time.Time) *sessionOwner {
	if now.Sub(s.lastSweep) >= sessionIdle/4 {
		s.lastSweep = now
		for id, o := range s.byID {
			if o.inFlight == 0 && now.Sub(o.lastUsed) > sessionIdle {
				delete(s.byID, id)
			}
		}
	}
	o := &sessionOwner{caller: caller, lastUsed: now}
	s.byID[id] = o
	return o
}

// serveSession serves r, of caller, with next, if r's session is caller's or none: a response
// that begins a session makes it caller's, and a DELETE that next accepts forgets it.
func (a *Authorizer) serveSession(w http.ResponseWriter, r *http.Request, next http.Handler, caller string) {
	id := r.Header.Get(server.HeaderKeySessionID)
	if id == "" {
		next.ServeHTTP(&sessionWriter{ResponseWriter: w, began: func(id string) { a.sessions.begin(id, caller) }}, r)
		return
	}
	owner, ok := a.sessions.enter(id, caller)
	if !ok {
		a.refuse(w, r, ErrForeignSession)
		return
	}
	defer a.sessions.leave(owner)
	if r.Method != http.MethodDelete {
		next.ServeHTTP(w, r)
		return
	}
	status := &sessionWriter{ResponseWriter: w}
	next.ServeHTTP(status, r)
	if status.code == 0 || status.code == http.StatusOK || status.code == http.StatusNoContent {
		a.sessions.end(id)
	}
}

// sessionWriter is the writer of a response through Protect. It records the response's status
// code, and tells began, when set, of the session that the response begins — the
// Mcp-Session-Id of the response's header — when the header is written, before the client can
// learn the ID.
type sessionWriter struct {
	http.ResponseWriter
	began func(id string)
	code  int // the status code written first; 0 while none is
	once  sync.Once
}

// head records that the header is written, with code.
func (w *sessionWriter) head(code int) {
	w.once.Do(func() {
		w.code = code
		if id := w.Header().Get(server.HeaderKeySessionID); id != "" && w.began != nil {
			w.began(id)
		}
	})
}

func (w *sessionWriter) WriteHeader(code int) {
	w.head(code)
	w.ResponseWriter.WriteHeader(code)
}

func (w *sessionWriter) Write(p []byte) (int, error) {
	w.head(http.StatusOK)
	return w.ResponseWriter.Write(p)
}

// Flush flushes the response, when the writer underneath can: mcp-go streams a response
// (server-sent events) only to a writer that is an http.Flusher.
func (w *sessionWriter) Flush() {
	w.head(http.StatusOK)
	_ = http.NewResponseController(w.ResponseWriter).Flush()
}

// Unwrap lets http.ResponseController reach the writer's other abilities.
func (w *sessionWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
