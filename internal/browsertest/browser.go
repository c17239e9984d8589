package browsertest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// EnvSkip names the environment variable that, set to 1, says to skip the tests with a browser
// rather than fail them when Chromium is missing.
const EnvSkip = "CADRE_NO_BROWSER"

// EnvPath names the environment variable that names the Chromium executable to run, when it is
// not /usr/bin/chromium or on PATH.
const EnvPath = "CADRE_CHROMIUM"

// limit bounds the start of a browser and each action of a page. It turns a page that never
// shows what a test waits for into a failure that says so, rather than a test binary that
// hangs until go test's timeout; it asserts nothing about speed.
const limit = 30 * time.Second

// Browser is a headless Chromium that New started for a test. Its pages may be opened and used
// from several goroutines at once, each page by one goroutine.
type Browser struct {
	ctx   context.Context // the chromedp context of the browser's first tab
	proxy *refuser
}

// New starts a headless Chromium for t and stops it, removing its profile, when t ends. It
// skips t when CADRE_NO_BROWSER=1, and fails it, saying what to install, when no Chromium is
// found (see the package documentation for where it looks) or when Chromium does not start.
func New(t testing.TB) *Browser {
	t.Helper()
	if os.Getenv(EnvSkip) == "1" {
		t.Skip(EnvSkip + "=1: the tests with a browser are skipped")
	}
	// Debian's Chromium, then the names other systems give it.
	path, err := chromium(os.Getenv(EnvPath), "/usr/bin/chromium", "chromium", "chromium-browser", "google-chrome")
	if err != nil {
		t.Fatal(err)
	}
	proxy, err := startRefuser()
	if err != nil {
		t.Fatalf("browsertest: %v", err)
	}
	out := &syncBuffer{}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path),
		chromedp.NoSandbox,
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-sync", true),
		// chromedp's, and the query of the time that Chromium makes at its start even without
		// background networking.
		chromedp.Flag("disable-features", "Translate,BlinkGenPropertyTrees,NetworkTimeServiceQuerying"),
		// Chrome sends every request to the proxy but those to the loopback addresses.
		chromedp.ProxyServer("http://"+proxy.addr()),
		chromedp.CombinedOutput(out),
	)
	// chromedp makes a new empty profile directory (--user-data-dir) and removes it once
	// Chromium and the processes it started have ended.
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(allocCtx)
	b := &Browser{ctx: ctx, proxy: proxy}
	t.Cleanup(func() {
		// A graceful close, bounded: Chromium writes its profile as it exits.
		cctx, ccancel := context.WithTimeout(ctx, limit)
		if err := chromedp.Cancel(cctx); err != nil && !errors.Is(err, context.Canceled) {
			t.Errorf("browsertest: closing Chromium: %v", err)
		}
		ccancel()
		cancel()
		cancelAlloc()
		proxy.close()
		if asked := proxy.asked(); len(asked) > 0 {
			t.Logf("browsertest: the proxy refused connections to %s", strings.Join(asked, ", "))
		}
	})

	// The first Run starts Chromium and binds it to ctx, so ctx must not carry a deadline.
	watchdog := time.AfterFunc(limit, cancel)
	err = chromedp.Do(ctx)
	watchdog.Stop()
	if err != nil {
		t.Fatalf("browsertest: starting %s: %v\nits output:\n%s", path, err, out.String())
	}
	return b
}

// chromium returns the path of the Chromium to run: named, when it is not empty, or the first
// of candidates (paths, or names to look for on PATH) that is there.
func chromium(named string, candidates ...string) (string, error) {
	if named != "" {
		found, err := exec.LookPath(named)
		if err != nil {
			return "", fmt.Errorf("browsertest: %s=%s: %v: name a Chromium executable there, or unset it (%s=1 skips the tests with a browser)", EnvPath, named, err, EnvSkip)
		}
		return found, nil
	}
	for _, name := range candidates {
		if found, err := exec.LookPath(name); err == nil {
			return found, nil
		}
	}
	return "", errors.New("browsertest: Chromium is not installed: install it (apt-get install chromium; make test and " +
		".ci/run install it when they run as root), or name its executable in " + EnvPath + "; " +
		EnvSkip + "=1 skips the tests with a browser")
}

// syncBuffer is a bytes.Buffer that Chromium's output may be written to while it is read.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
