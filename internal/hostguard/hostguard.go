// Package hostguard keeps the pages of other sites away from an endpoint served on loopback:
// it checks a request's Host (against DNS rebinding) and Origin (against cross-site
// requests), and answers the CORS preflight of an origin it allows. pkg/agui's handler and
// pkg/console's use it.
package hostguard

import (
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
)

// Guard says which hosts and origins are served besides loopback ones. The zero Guard serves
// loopback only.
type Guard struct {
	Hosts   []string // Host names (without port), lower case
	Origins []string // origins ("https://app.example.com"), lower case, without a trailing slash; "*" for any
	Methods string   // the methods a preflight allows, such as "POST"; "" for "GET, POST"
}

// AddHosts adds host names, as an option of the packages using it takes them.
func (g *Guard) AddHosts(hosts ...string) {
	for _, h := range hosts {
		g.Hosts = append(g.Hosts, strings.ToLower(h))
	}
}

// AddOrigins adds origins, as an option of the packages using it takes them.
func (g *Guard) AddOrigins(origins ...string) {
	for _, o := range origins {
		g.Origins = append(g.Origins, strings.ToLower(strings.TrimSuffix(o, "/")))
	}
}

// Check checks r's Host and Origin (a loopback one, one of g's, or the endpoint's own: the
// Host the request was sent to), answers a refused request with 403 (its text naming the
// options that would allow it: hostOption, originOption) and a preflight with 204, sets the
// CORS headers of an allowed origin, and reports whether the request goes on.
func (g Guard) Check(w http.ResponseWriter, r *http.Request, hostOption, originOption string) bool {
	host := r.Host
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.ToLower(strings.TrimSuffix(strings.Trim(host, "[]"), "."))
	if !Loopback(host) && !slices.Contains(g.Hosts, host) {
		http.Error(w, "host "+r.Host+" is not served: a loopback host is, and the hosts given with "+hostOption, http.StatusForbidden)
		return false
	}
	origin := r.Header.Get("Origin")
	if origin == "" {
		if r.Method == http.MethodOptions {
			w.Header().Set("Allow", g.methods()+", OPTIONS")
			w.WriteHeader(http.StatusNoContent)
			return false
		}
		return true
	}
	if !g.OriginAllowed(origin) && !sameOrigin(origin, r.Host) {
		http.Error(w, "origin "+origin+" may not call this endpoint: a loopback origin may, and the origins given with "+originOption, http.StatusForbidden)
		return false
	}
	h := w.Header()
	h.Set("Access-Control-Allow-Origin", origin)
	h.Add("Vary", "Origin")
	h.Set("Access-Control-Allow-Credentials", "true")
	if r.Method == http.MethodOptions {
		h.Set("Access-Control-Allow-Methods", g.methods())
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

// sameOrigin reports whether origin is the endpoint's own, whose Host was checked: its own
// page calling it.
func sameOrigin(origin, host string) bool {
	u, err := url.Parse(origin)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && strings.EqualFold(u.Host, host)
}

// OriginAllowed reports whether a page of origin may call: a loopback origin, or one of g's.
// "null" (a sandboxed frame, a file) is allowed only by "*".
func (g Guard) OriginAllowed(origin string) bool {
	o := strings.ToLower(origin)
	if slices.Contains(g.Origins, "*") || slices.Contains(g.Origins, o) {
		return true
	}
	u, err := url.Parse(o)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return false
	}
	return Loopback(strings.TrimSuffix(u.Hostname(), "."))
}

// Loopback reports whether host (without port or brackets) names this machine only.
func Loopback(host string) bool {
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func (g Guard) methods() string {
	if g.Methods == "" {
		return "GET, POST"
	}
	return g.Methods
}
