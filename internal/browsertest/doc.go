// Package browsertest gives tests a real browser: Debian's Chromium, headless, driven through
// github.com/chromedp/chromedp, for the pages cadre makes (an eval report, the console) and
// serves on 127.0.0.1 or writes to a file.
//
// A test starts a browser with New and opens a page in it with Browser.Page; both end with
// the test that made them. Starting Chromium takes most of a second and a page far less, so
// tests that share a browser make it once and open a page in each subtest:
//
//	func TestReport(t *testing.T) {
//		b := browsertest.New(t)
//		srv := httptest.NewServer(handler)
//		defer srv.Close()
//		t.Run("filter", func(t *testing.T) {
//			p := b.Page(t)
//			p.Navigate(srv.URL)
//			p.Click("#only-failed")
//			if got := p.Text("#count"); got != "2 failed" {
//				t.Errorf("count = %q", got)
//			}
//		})
//	}
//
// Every method of a Page fails the test when the browser cannot do what it asks. A page records
// what a user would see go wrong in the developer tools: a console.error or a failed
// console.assert, an uncaught exception or promise rejection, an error the browser logged (a
// resource that did not load), and a request that tried to leave the machine. At the end of the
// test, those the test did not take with TakeProblems fail it, so that a page that breaks
// quietly does not pass.
//
// Nothing leaves the machine. A page's requests to a host other than the loopback addresses
// (127.0.0.0/8, ::1, localhost) are failed before they are sent and recorded as problems; so is
// a WebSocket to one, whose connection the proxy below refuses. file:, data: and blob: URLs load. Chromium runs with its background
// networking, component updates, sync, QUIC and GPU off, and with a proxy of this package's on
// 127.0.0.1 for every connection but those to the loopback addresses: the proxy refuses them all,
// so that neither a connection nor a DNS lookup leaves. What it refused, Chromium's own attempts
// that its flags do not stop among them, is logged (t.Logf) when the browser's test ends.
//
// Chromium is looked for in $CADRE_CHROMIUM, then at /usr/bin/chromium, then as chromium,
// chromium-browser or google-chrome on PATH. Without it New fails the test, saying what to
// install: `make test` and .ci/run install Debian's chromium where it is missing
// (scripts/ensure-chromium). CADRE_NO_BROWSER=1 skips the browser tests instead. Chromium runs
// with --no-sandbox: the sandbox needs either a user that is not root or user namespaces,
// which containers that run CI often lack, and the pages under test are cadre's own.
package browsertest
