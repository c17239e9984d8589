package agui

import (
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
)

// WithAllowedHosts serves requests whose Host header names one of hosts (a name, without its
// port), besides the loopback names that are always served (localhost, 127.0.0.0/8, ::1).
// Serve beyond loopback only behind an authorizer (mcpauth.Authorizer.Protect): the handler
// checks no caller itself.
func WithAllowedHosts(hosts ...string) Option {
	return func(c *handlerConfig) {
		for _, h := range hosts {
			c.hosts = append(c.hosts, strings.ToLower(h))
		}
	}
}

// WithAllowedOrigins lets the pages of origins (such as "https://app.example.com": scheme,
// host and port, as a browser's Origin header writes them) call the handler, besides pages of
// loopback origins, which always may; "*" lets any origin's.
func WithAllowedOrigins(origins ...string) Option {
	return func(c *handlerConfig) {
		for _, o := range origins {
			c.origins = append(c.origins, strings.ToLower(strings.TrimSuffix(o, "/")))
		}
	}
}

// guard checks r's Host and Origin, answers a refused request with 403 and a preflight of an
// allowed origin with 204, sets the CORS headers of an allowed origin, and reports whether the
// request goes on.
func (c *handlerConfig) guard(w http.ResponseWriter, r *http.Request) bool {
	host := r.Host
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.ToLower(strings.TrimSuffix(strings.Trim(host, "[]"), "."))
	if !loopback(host) && !slices.Contains(c.hosts, host) {
		http.Error(w, "agui: host "+r.Host+" is not served: a loopback host is, and the hosts given with WithAllowedHosts", http.StatusForbidden)
		return false
	}
	origin := r.Header.Get("Origin")
	if origin == "" {
		if r.Method == http.MethodOptions {
			w.Header().Set("Allow", "POST, OPTIONS")
			w.WriteHeader(http.StatusNoContent)
			return false
		}
		return true
	}
	if !c.originAllowed(origin) {
		http.Error(w, "agui: origin "+origin+" may not call this endpoint: a loopback origin may, and the origins given with WithAllowedOrigins", http.StatusForbidden)
		return false
	}
	h := w.Header()
	h.Set("Access-Control-Allow-Origin", origin)
	h.Add("Vary", "Origin")
	h.Set("Access-Control-Allow-Credentials", "true")
	if r.Method == http.MethodOptions {
		h.Set("Access-Control-Allow-Methods", "POST")
		headers := r.Header.Get("Access-Control-Request-Headers")
		if headers == "" {
			headers = "Content-Type, Accept, Authorization"
		}
		h.Set("Access-Control-Allow-Headers", headers)
		h.Set("Access-Control-Max-Age", "600")
		w.WriteHeader(http.StatusNoContent)
		return false
	}
	return true
}

func (c *handlerConfig) originAllowed(origin string) bool {
	o := strings.ToLower(origin)
	if slices.Contains(c.origins, "*") || slices.Contains(c.origins, o) {
		return true
	}
	u, err := url.Parse(o)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return false // "null" among them: a sandboxed frame, a file
	}
	return loopback(strings.TrimSuffix(u.Hostname(), "."))
}

// loopback reports whether host (without port or brackets) names this machine only.
func loopback(host string) bool {
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
