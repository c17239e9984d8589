package console

import (
	"io/fs"
	"net/http"
	"path"
	"sort"
	"strings"
	"time"
)

// reportInfo is an eval report as api/reports lists it.
type reportInfo struct {
	Name     string    `json:"name"`
	Modified time.Time `json:"modified"`
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
			info := reportInfo{Name: e.Name()}
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
