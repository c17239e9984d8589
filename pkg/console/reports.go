package console

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"io/fs"
	"net/http"
	"net/url"
	"path"
	"sort"
	"strconv"
	"strings"
	"time"
)

// reportInfo is an eval report as api/reports lists it: URL is where the page loads it from,
// relative to the page, with a ticket when the API is behind WithAuth.
type reportInfo struct {
	Name     string    `json:"name"`
	URL      string    `json:"url"`
	Modified time.Time `json:"modified"`
}

// ticketLife is how long a report's ticket lets the page load it.
const ticketLife = 10 * time.Minute

// ticket is what lets a frame, which cannot send the person's bearer token, load one report
// for a while: the report's name and the ticket's expiry, signed with the console's key.
func (c *Console) ticket(name string, now time.Time) string {
	exp := strconv.FormatInt(now.Add(ticketLife).Unix(), 10)
	return exp + "." + c.sign(name, exp)
}

func (c *Console) sign(name, exp string) string {
	mac := hmac.New(sha256.New, c.key[:])
	mac.Write([]byte(name + "\x00" + exp))
	return base64.RawURLEncoding.EncodeToString(mac.Sum(nil))
}

// ticketed lets a request for a report through with a ticket that api/reports gave for it and
// that has not expired; others get 401.
func (c *Console) ticketed(next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		exp, sig, ok := strings.Cut(r.URL.Query().Get("ticket"), ".")
		unix, err := strconv.ParseInt(exp, 10, 64)
		if !ok || err != nil || time.Now().Unix() > unix || !hmac.Equal([]byte(sig), []byte(c.sign(r.PathValue("name"), exp))) {
			http.Error(w, "console: a report is opened from the console's list (its link holds a ticket, valid for a few minutes): open it there again", http.StatusUnauthorized)
			return
		}
		next(w, r)
	}
}

// reportList lists the HTML files at the root of the reports, newest first.
func (c *Console) reportList(w http.ResponseWriter, r *http.Request) {
	out := []reportInfo{}
	if c.reports != nil {
		entries, err := fs.ReadDir(c.reports, ".")
		if err != nil {
			http.Error(w, "console: listing reports: "+err.Error(), http.StatusServiceUnavailable)
			return
		}
		for _, e := range entries {
			if e.IsDir() || !strings.HasSuffix(e.Name(), ".html") {
				continue
			}
			info := reportInfo{Name: e.Name(), URL: "reports/" + url.PathEscape(e.Name())}
			if c.protect != nil {
				info.URL += "?ticket=" + url.QueryEscape(c.ticket(e.Name(), time.Now()))
			}
			if fi, err := e.Info(); err == nil {
				info.Modified = fi.ModTime().UTC()
			}
			out = append(out, info)
		}
		sort.SliceStable(out, func(i, j int) bool { return out[i].Modified.After(out[j].Modified) })
	}
	writeJSON(w, struct {
		Reports []reportInfo `json:"reports"`
	}{out})
}

// report serves one report in a sandbox of its own: it runs its script in an opaque origin,
// which can neither read the console's data nor call its API, and loads nothing.
func (c *Console) report(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	if c.reports == nil || path.Base(name) != name || !strings.HasSuffix(name, ".html") || !fs.ValidPath(name) {
		http.NotFound(w, r)
		return
	}
	data, err := fs.ReadFile(c.reports, name)
	if err != nil {
		http.NotFound(w, r)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Security-Policy", reportPolicy)
	h.Set("X-Frame-Options", "SAMEORIGIN")
	h.Set("Cache-Control", "no-cache")
	_, _ = w.Write(data)
}
