package console

import (
	"context"
	"crypto/rand"
	"embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"net/http"

	"github.com/cadrehq/cadre/internal/hostguard"
	"github.com/cadrehq/cadre/pkg/agui"
	"github.com/cadrehq/cadre/pkg/assistant"
	"github.com/cadrehq/cadre/pkg/chat"
	"github.com/cadrehq/cadre/pkg/model"
)

//go:embed static
var static embed.FS

// pagePolicy is the Content-Security-Policy of the console's page: its own scripts, styles
// and frames only, nothing inline, nothing from elsewhere.
const pagePolicy = "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; frame-src 'self'; " +
	"connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// reportPolicy is the Content-Security-Policy of an eval report: a sandbox of its own (an
// opaque origin, which cannot read the console's data or call its API), its inline script and
// styles, nothing loaded.
const reportPolicy = "sandbox allow-scripts; default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; " +
	"img-src data:; frame-ancestors 'self'"

// Option configures a console made by [New].
type Option func(*Console)

// entry is an assistant the console serves.
type entry struct {
	name, description string
	make              func(opts ...agui.Option) http.Handler
	handler           http.Handler
}

// WithAssistant serves a in the console, under its name: the page's picker lists it with its
// description, and its runs go through an AG-UI handler (agui.NewHandler) given the
// console's store, identity, prices, client tools, hosts and origins. Assistants are listed in
// the order given; New panics on two of one name.
func WithAssistant[O any](a *assistant.Assistant[O]) Option {
	return func(c *Console) {
		c.entries = append(c.entries, &entry{name: a.Name(), description: a.Description(),
			make: func(opts ...agui.Option) http.Handler { return agui.NewHandler(a, opts...) }})
	}
}

// WithStore keeps the console's chats in s: the page lists a person's chats with each
// assistant and reopens them, a paused run included, after a reload or in another process
// sharing s.
func WithStore(s chat.Store) Option { return func(c *Console) { c.store = s } }

// WithIdentity gives the console's chats their owner: f returns the caller's tenant and user
// (mcpauth.ClaimIdentity reads them from a bearer token), and a person sees and continues
// their own chats only. Without it every caller of the console is one person.
func WithIdentity(f func(ctx context.Context) (tenant, user string, err error)) Option {
	return func(c *Console) { c.identity = f }
}

// WithPrices prices each model request in the run tree, by model name (llmfactory's
// Factory.Prices gives them).
func WithPrices(prices map[string]model.Price) Option {
	return func(c *Console) { c.prices = prices }
}

// WithReports lists the eval reports in reports (the HTML files eval.WriteHTML wrote, at its
// root) in the page, which opens each in a sandboxed frame.
func WithReports(reports fs.FS) Option { return func(c *Console) { c.reports = reports } }

// WithClientTools offers tools that the person at the console answers to every assistant's
// model, as AG-UI's frontend tools: a call of one pauses the run, the page shows its arguments
// and a box for the answer, and the answer is the call's result.
func WithClientTools(tools ...agui.Tool) Option {
	return func(c *Console) { c.clientTools = append(c.clientTools, tools...) }
}

// WithAllowedHosts serves requests whose Host names one of hosts, besides loopback names.
// Beyond loopback, give WithAuth too.
func WithAllowedHosts(hosts ...string) Option {
	return func(c *Console) { c.guard.AddHosts(hosts...) }
}

// WithAllowedOrigins lets pages of origins call the console's API, besides its own page and
// other loopback pages.
func WithAllowedOrigins(origins ...string) Option {
	return func(c *Console) { c.guard.AddOrigins(origins...) }
}

// WithAuth puts the console's API — runs, chats, the list of reports — behind protect, such
// as mcpauth.Authorizer.Protect: the page itself (HTML, script, style, which hold no data) is
// served without it, and sends the person's bearer token with each call (see the package
// doc). A report opens in a frame, which cannot send the token: the list gives each report a
// link holding a ticket for it, valid for ten minutes.
func WithAuth(protect func(http.Handler) http.Handler) Option {
	return func(c *Console) { c.protect = protect }
}

// Console is the console's http.Handler: the page, its script and style, and the API the page
// calls. Mount it at the root of a server or under a prefix with http.StripPrefix; every URL
// the page uses is relative.
type Console struct {
	entries     []*entry
	byName      map[string]*entry
	store       chat.Store
	identity    func(ctx context.Context) (tenant, user string, err error)
	prices      map[string]model.Price
	reports     fs.FS
	clientTools []agui.Tool
	guard       hostguard.Guard
	protect     func(http.Handler) http.Handler
	key         [32]byte // signs the tickets of reports
	mux         *http.ServeMux
}

// New returns a console serving the assistants given with WithAssistant. It panics on no
// assistant and on two of one name.
func New(opts ...Option) *Console {
	c := &Console{byName: map[string]*entry{}}
	_, _ = rand.Read(c.key[:])
	for _, o := range opts {
		if o != nil {
			o(c)
		}
	}
	if len(c.entries) == 0 {
		panic("console: no assistant: give one with WithAssistant")
	}
	var aopts []agui.Option
	if c.store != nil {
		aopts = append(aopts, agui.WithStore(c.store))
	}
	if c.identity != nil {
		aopts = append(aopts, agui.WithIdentity(c.identity))
	}
	if c.prices != nil {
		aopts = append(aopts, agui.WithPrices(c.prices))
	}
	aopts = append(aopts, agui.WithAllowedHosts(c.guard.Hosts...), agui.WithAllowedOrigins(c.guard.Origins...))
	for _, e := range c.entries {
		if _, dup := c.byName[e.name]; dup {
			panic(fmt.Sprintf("console: two assistants are named %q", e.name))
		}
		e.handler = e.make(aopts...)
		c.byName[e.name] = e
	}

	api := http.NewServeMux()
	api.HandleFunc("GET /api/assistants", c.assistants)
	api.HandleFunc("POST /api/run/{assistant}", c.run)
	api.HandleFunc("GET /api/chats", c.chats)
	api.HandleFunc("GET /api/chats/{thread}", c.chat)
	api.HandleFunc("GET /api/reports", c.reportList)
	var protected http.Handler = api
	if c.protect != nil {
		protected = c.protect(api)
	}

	c.mux = http.NewServeMux()
	c.mux.HandleFunc("GET /{$}", c.page)
	c.mux.Handle("GET /static/", c.staticFiles())
	c.mux.Handle("/api/", protected)
	if c.protect != nil {
		// A frame cannot send the bearer token: a report is loaded with a ticket api/reports gave.
		c.mux.HandleFunc("GET /reports/{name}", c.ticketed(c.report))
	} else {
		c.mux.HandleFunc("GET /reports/{name}", c.report)
	}
	return c
}

// ServeHTTP checks the request's Host and Origin (a loopback host and origin, or the ones
// given), then serves the page or the API.
func (c *Console) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !c.guard.Check(w, r, "console.WithAllowedHosts", "console.WithAllowedOrigins") {
		return
	}
	h := w.Header()
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	c.mux.ServeHTTP(w, r)
}

func (c *Console) page(w http.ResponseWriter, r *http.Request) {
	page, err := static.ReadFile("static/index.html")
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Security-Policy", pagePolicy)
	h.Set("X-Frame-Options", "DENY")
	h.Set("Cache-Control", "no-cache")
	_, _ = w.Write(page)
}

func (c *Console) staticFiles() http.Handler {
	files := http.FileServerFS(static)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-cache")
		files.ServeHTTP(w, r)
	})
}

// assistantInfo is an assistant as api/assistants lists it.
type assistantInfo struct {
	Name        string `json:"name"`
	Description string `json:"description"`
}

func (c *Console) assistants(w http.ResponseWriter, r *http.Request) {
	out := struct {
		Assistants  []assistantInfo `json:"assistants"`
		ClientTools []agui.Tool     `json:"clientTools"`
		Chats       bool            `json:"chats"`
		Reports     bool            `json:"reports"`
	}{Assistants: []assistantInfo{}, ClientTools: c.clientTools, Chats: c.store != nil, Reports: c.reports != nil}
	if out.ClientTools == nil {
		out.ClientTools = []agui.Tool{}
	}
	for _, e := range c.entries {
		out.Assistants = append(out.Assistants, assistantInfo{Name: e.name, Description: e.description})
	}
	writeJSON(w, out)
}

// run hands a run of an assistant to its AG-UI handler.
func (c *Console) run(w http.ResponseWriter, r *http.Request) {
	e, ok := c.byName[r.PathValue("assistant")]
	if !ok {
		http.Error(w, fmt.Sprintf("console: no assistant %q", r.PathValue("assistant")), http.StatusNotFound)
		return
	}
	e.handler.ServeHTTP(w, r)
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	_ = json.NewEncoder(w).Encode(v)
}
