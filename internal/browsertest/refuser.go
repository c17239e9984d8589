package browsertest

import (
	"net"
	"net/http"
	"slices"
	"sync"
)

// refuser is the HTTP proxy that Chromium is given, on 127.0.0.1: Chrome sends it every
// connection but those to the loopback addresses, and it refuses each one, so that nothing
// leaves the machine, not even a DNS lookup (a proxy resolves the names it is sent). A page's
// requests do not reach it, as Page fails them first; what does is Chromium's own traffic,
// which its flags do not all turn off (component updates asked for on demand, the Google
// account), and what a page opens that Page cannot fail, such as a WebSocket.
type refuser struct {
	ln  net.Listener
	srv *http.Server

	mu    sync.Mutex
	hosts []string // host:port for a CONNECT, host for a plain request; each once
}

func startRefuser() (*refuser, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	r := &refuser{ln: ln}
	r.srv = &http.Server{Handler: r}
	go r.srv.Serve(ln)
	return r, nil
}

func (r *refuser) addr() string { return r.ln.Addr().String() }

// ServeHTTP refuses the request: a CONNECT to host:port, or a plain request for an absolute
// URL.
func (r *refuser) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	r.mu.Lock()
	if !slices.Contains(r.hosts, req.Host) {
		r.hosts = append(r.hosts, req.Host)
	}
	r.mu.Unlock()
	http.Error(w, "browsertest: this request would have left the machine", http.StatusForbidden)
}

// asked returns the hosts that were asked for, in the order of their first request.
func (r *refuser) asked() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.hosts)
}

func (r *refuser) close() { r.srv.Close() }
