package browsertest

import (
	"bytes"
	"fmt"
	"image/png"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

// The pages under test, served on 127.0.0.1.
var pages = map[string]string{
	"/reveal": `<!doctype html>
<button id="show" onclick="document.getElementById('secret').hidden = false; this.dataset.state = 'open'">Show</button>
<p id="secret" hidden>revealed</p>
<ul><li>a</li><li>b</li><li>c</li></ul>`,

	"/errors": `<!doctype html>
<script>console.error("bad", "thing", 42); console.log("fine");</script>
<script>throw new Error("boom")</script>
<button id="fail" onclick="throw new TypeError('clicked wrong')">Fail</button>`,

	"/remote": `<!doctype html>
<img id="logo" src="http://example.com/logo.png">
<img id="local" src="/dot.svg">`,

	"/socket": `<!doctype html>
<script>window.ws = new WebSocket("ws://example.com/socket")</script>`,

	"/missing": `<!doctype html>
<img src="/nowhere.png">`,

	"/echo": `<!doctype html>
<textarea id="in"></textarea><p id="out"></p>
<script>
document.getElementById("in").addEventListener("input", e => {
	setTimeout(() => { document.getElementById("out").textContent = e.target.value.toUpperCase() }, 50)
})
sessionStorage.loads = String(Number(sessionStorage.loads || 0) + 1)
</script>`,

	"/dot.svg": `<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1"/>`,
}

// server serves pages and counts the requests for each path.
func server(t *testing.T) (*httptest.Server, func(path string) int) {
	t.Helper()
	var mu sync.Mutex
	hits := map[string]int{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		hits[r.URL.Path]++
		mu.Unlock()
		body, ok := pages[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		if strings.HasSuffix(r.URL.Path, ".svg") {
			w.Header().Set("Content-Type", "image/svg+xml")
		}
		fmt.Fprint(w, body)
	}))
	t.Cleanup(srv.Close)
	return srv, func(path string) int {
		mu.Lock()
		defer mu.Unlock()
		return hits[path]
	}
}

// One browser serves every subtest of a test: Chromium's start is most of a test's time,
// a page in a fresh browser context of its own a few milliseconds.
func TestPage(t *testing.T) {
	b := New(t)
	srv, hits := server(t)

	t.Run("a click reveals text", func(t *testing.T) {
		t.Parallel()
		p := b.Page(t)
		p.Navigate(srv.URL + "/reveal")
		if _, ok := p.Attribute("#show", "data-state"); ok {
			t.Fatal("the button has data-state before the click")
		}
		p.Click("#show")
		p.WaitVisible("#secret")
		if got := p.Text("#secret"); got != "revealed" {
			t.Errorf("Text(#secret) = %q, want %q", got, "revealed")
		}
		if got, ok := p.Attribute("#show", "data-state"); !ok || got != "open" {
			t.Errorf("Attribute(#show, data-state) = %q, %v; want open, true", got, ok)
		}
		if got := Eval[int](p, `document.querySelectorAll("li").length`); got != 3 {
			t.Errorf("Eval(number of items) = %d, want 3", got)
		}
		if got := Eval[string](p, `new Promise(done => setTimeout(() => done("later"), 0))`); got != "later" {
			t.Errorf("Eval(a promise) = %q, want the value it resolves to", got)
		}
	})

	t.Run("typed text reaches the page, which is waited for and reloaded", func(t *testing.T) {
		t.Parallel()
		p := b.Page(t)
		p.Navigate(srv.URL + "/echo")
		p.Type("#in", "hi there")
		p.WaitFor(`document.getElementById("out").textContent === "HI THERE"`)
		p.Reload()
		p.WaitFor(`sessionStorage.loads === "2"`)
		if got := Eval[string](p, `document.getElementById("out").textContent`); got != "" {
			t.Errorf("after a reload the page shows %q; want it new", got)
		}
	})

	t.Run("console errors and exceptions are collected", func(t *testing.T) {
		t.Parallel()
		p := b.Page(t)
		p.Navigate(srv.URL + "/errors")
		want := []Problem{
			{Kind: ConsoleError, Text: "bad thing 42", URL: srv.URL + "/errors"},
			{Kind: Exception, Text: "Uncaught Error: boom", URL: srv.URL + "/errors"},
		}
		if got := p.TakeProblems(); !slices.Equal(got, want) {
			t.Errorf("after loading, TakeProblems() = %v, want %v", got, want)
		}
		p.Click("#fail")
		want = []Problem{{Kind: Exception, Text: "Uncaught TypeError: clicked wrong", URL: srv.URL + "/errors"}}
		if got := p.TakeProblems(); !slices.Equal(got, want) {
			t.Errorf("after the click, TakeProblems() = %v, want %v", got, want)
		}
	})

	t.Run("a request for another host is blocked", func(t *testing.T) {
		t.Parallel()
		p := b.Page(t)
		p.Navigate(srv.URL + "/remote")
		want := []Problem{{Kind: Blocked, Text: "GET http://example.com/logo.png", URL: "http://example.com/logo.png"}}
		if got := p.TakeProblems(); !slices.Equal(got, want) {
			t.Errorf("TakeProblems() = %v, want %v", got, want)
		}
		// The image from this machine loaded, the other did not.
		if got := Eval[[]int](p, `[...document.images].map(img => img.naturalWidth)`); len(got) != 2 || got[0] != 0 || got[1] != 1 {
			t.Errorf("the widths of the images are %v, want [0 1]", got)
		}
		if n := hits("/dot.svg"); n != 1 {
			t.Errorf("the local image was asked for %d times, want 1", n)
		}
		// The request was failed in the page: it did not even reach the proxy.
		if asked := b.proxy.asked(); slices.ContainsFunc(asked, func(h string) bool { return strings.HasPrefix(h, "example.com") }) {
			t.Errorf("the proxy was asked for %v", asked)
		}
	})

	t.Run("a resource that does not load is a problem", func(t *testing.T) {
		t.Parallel()
		p := b.Page(t)
		p.Navigate(srv.URL + "/missing")
		got := p.TakeProblems()
		if len(got) != 1 || got[0].Kind != LogError || got[0].URL != srv.URL+"/nowhere.png" || !strings.Contains(got[0].Text, "404") {
			t.Errorf("TakeProblems() = %v, want one browser error for the 404 of /nowhere.png", got)
		}
	})

	t.Run("a self-contained file", func(t *testing.T) {
		t.Parallel()
		path := filepath.Join(t.TempDir(), "report.html")
		if err := os.WriteFile(path, []byte(`<!doctype html><h1 id="title">Report</h1>`), 0o600); err != nil {
			t.Fatal(err)
		}
		p := b.Page(t)
		p.Navigate("file://" + path)
		if got := p.Text("#title"); got != "Report" {
			t.Errorf("Text(#title) = %q, want Report", got)
		}
	})

	t.Run("a screenshot is a PNG of the page", func(t *testing.T) {
		t.Parallel()
		p := b.Page(t)
		p.Navigate(srv.URL + "/reveal")
		img, err := png.Decode(bytes.NewReader(p.Screenshot()))
		if err != nil {
			t.Fatalf("the screenshot is not a PNG: %v", err)
		}
		if r := img.Bounds(); r.Dx() == 0 || r.Dy() == 0 {
			t.Errorf("the screenshot is %v", r)
		}
	})
}

// A problem that the test does not take fails it, so that a page that breaks quietly does not
// pass.
func TestProblemsLeftFailTheTest(t *testing.T) {
	b := New(t)
	srv, _ := server(t)
	var rec *recorder
	t.Run("page", func(t *testing.T) {
		rec = &recorder{TB: t}
		p := b.Page(rec)
		p.Navigate(srv.URL + "/errors")
	})
	errs := rec.errors()
	if len(errs) != 1 || !strings.Contains(errs[0], "console error: bad thing 42") || !strings.Contains(errs[0], "uncaught exception: Uncaught Error: boom") {
		t.Errorf("the end of the test reported %q, want the console error and the exception", errs)
	}
}

// A WebSocket, which the page cannot fail before it connects, is a problem of the page, and
// its connection is refused by the browser's proxy on this machine.
func TestWebSocketIsRefused(t *testing.T) {
	b := New(t)
	srv, _ := server(t)
	p := b.Page(t)
	p.Navigate(srv.URL + "/socket")
	Eval[bool](p, `new Promise(done => { if (ws.readyState === WebSocket.CLOSED) done(true); else ws.onclose = () => done(true) })`)
	want := []Problem{{Kind: Blocked, Text: "WebSocket ws://example.com/socket", URL: "ws://example.com/socket"}}
	if got := p.TakeProblems(); !slices.Equal(got, want) {
		t.Errorf("TakeProblems() = %v, want %v", got, want)
	}
	if asked := b.proxy.asked(); !slices.Contains(asked, "example.com:80") {
		t.Errorf("the proxy was asked for %v, want example.com:80 among them", asked)
	}
}

func TestSkipAndMissing(t *testing.T) {
	t.Run("CADRE_NO_BROWSER=1 skips", func(t *testing.T) {
		t.Setenv(EnvSkip, "1")
		var skipped bool
		t.Run("browser", func(t *testing.T) {
			defer func() { skipped = t.Skipped() }()
			New(t)
		})
		if !skipped {
			t.Error("New did not skip the test")
		}
	})
	t.Run("a missing Chromium says what to install", func(t *testing.T) {
		_, err := chromium("", filepath.Join(t.TempDir(), "chromium"))
		if err == nil || !strings.Contains(err.Error(), "apt-get install chromium") || !strings.Contains(err.Error(), "CADRE_NO_BROWSER=1") {
			t.Errorf("chromium() = %v, want an error naming what to install and how to skip", err)
		}
	})
	t.Run("CADRE_CHROMIUM names one that is not there", func(t *testing.T) {
		named := filepath.Join(t.TempDir(), "chrome")
		_, err := chromium(named, "/bin/sh")
		if err == nil || !strings.Contains(err.Error(), named) {
			t.Errorf("chromium(%q) = %v, want an error naming it", named, err)
		}
	})
}

func TestOnMachine(t *testing.T) {
	for url, want := range map[string]bool{
		"http://127.0.0.1:8080/":     true,
		"http://127.1.2.3/":          true,
		"https://[::1]:443/x":        true,
		"http://localhost:3000/":     true,
		"ws://app.localhost/socket":  true,
		"file:///tmp/report.html":    true,
		"data:text/plain,hi":         true,
		"blob:http://127.0.0.1/abcd": true,
		"http://example.com/x.png":   false,
		"https://93.184.216.34/":     false,
		"http://[2001:db8::1]/":      false,
		"http://10.0.0.1/":           false,
		"wss://localhost.evil.com/":  false,
		"http://127.0.0.1.nip.io/":   false,
	} {
		if got := onMachine(url); got != want {
			t.Errorf("onMachine(%q) = %v, want %v", url, got, want)
		}
	}
}

// recorder is a testing.TB whose errors are recorded rather than reported.
type recorder struct {
	testing.TB
	mu   sync.Mutex
	errs []string
}

func (r *recorder) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

func (r *recorder) errors() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.errs...)
}
