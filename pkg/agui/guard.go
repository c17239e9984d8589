package agui

import (
	"net/http"
)

// WithAllowedHosts serves requests whose Host header names one of hosts (a name, without its
// port), besides the loopback names that are always served (localhost, 127.0.0.0/8, ::1).
// Serve beyond loopback only behind an authorizer (mcpauth.Authorizer.Protect): the handler
// checks no caller itself.
func WithAllowedHosts(hosts ...string) Option {
	return func(c *handlerConfig) { c.guard.AddHosts(hosts...) }
}

// WithAllowedOrigins lets the pages of origins (such as "https://app.example.com": scheme,
// host and port, as a browser's Origin header writes them) call the handler, besides pages of
// loopback origins, which always may; "*" lets any origin's.
func WithAllowedOrigins(origins ...string) Option {
	return func(c *handlerConfig) { c.guard.AddOrigins(origins...) }
}

// check checks r's Host and Origin (hostguard.Guard.Check) and reports whether the request
// goes on.
func (c *handlerConfig) check(w http.ResponseWriter, r *http.Request) bool {
	return c.guard.Check(w, r, "agui.WithAllowedHosts", "agui.WithAllowedOrigins")
}
