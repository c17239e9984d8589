package browsertest

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/chromedp"
)

// Page is a browser tab that Browser.Page opened for a test, in a browser context of its own
// (its cookies and storage are its own). Its methods are called from the goroutine of that test,
// and each fails the test (t.Fatal) when the browser cannot do what it asks within 30 seconds.
type Page struct {
	t      testing.TB
	ctx    context.Context // the tab's chromedp context
	cancel context.CancelFunc

	// answering counts the goroutines that answer paused requests; close waits for them.
	answering sync.WaitGroup

	mu       sync.Mutex // guards what follows, which the tab's event listener writes
	problems []Problem
	blocked  map[string]bool // the URLs of the requests that were failed, as the browser logs them
	closed   bool            // no more answering goroutines start
}

// Page opens a blank tab for t and closes it when t ends, after failing t with the problems the
// page recorded that t did not take (TakeProblems). t may be the test that made the browser or
// one of its subtests.
func (b *Browser) Page(t testing.TB) *Page {
	t.Helper()
	p := &Page{t: t, blocked: make(map[string]bool)}
	// The listener is there before the tab's first event, so that it sees every request.
	p.ctx, p.cancel = chromedp.NewContext(b.ctx, chromedp.WithNewBrowserContext(), chromedp.WithListener(p.listen))
	t.Cleanup(p.close)

	// The first Run opens the tab and binds it to p.ctx, which must not carry a deadline.
	watchdog := time.AfterFunc(limit, p.cancel)
	_, err := chromedp.Call(p.ctx, fetch.Enable, fetch.EnableParams{Patterns: []*fetch.RequestPattern{{URLPattern: "*"}}})
	watchdog.Stop()
	if err != nil {
		t.Fatalf("browsertest: opening a page: %v", err)
	}
	return p
}

// Navigate loads url in the page and waits for its load event. It fails the test when the page
// does not load, a request for a host off this machine among the reasons.
func (p *Page) Navigate(url string) {
	p.t.Helper()
	run(p, "loading "+url, chromedp.Navigate(url))
}

// Click waits until the first element that the CSS selector sel matches is visible, then clicks
// its centre with the mouse, as a user would.
func (p *Page) Click(sel string) {
	p.t.Helper()
	run(p, fmt.Sprintf("clicking %q", sel), chromedp.Click(chromedp.CSS(sel)))
}

// Type waits until the first element that the CSS selector sel matches is visible, focuses
// it and types text into it, key by key, as a user would.
func (p *Page) Type(sel, text string) {
	p.t.Helper()
	run(p, fmt.Sprintf("typing into %q", sel), chromedp.SendKeys(chromedp.CSS(sel), text))
}

// WaitFor waits until the JavaScript expression is truthy in the page, evaluating it again
// as the page changes (and at least every few milliseconds).
func (p *Page) WaitFor(expression string) {
	p.t.Helper()
	run(p, "waiting for "+expression, chromedp.Poll[chromedp.Void](expression, chromedp.WithPollingInterval(20*time.Millisecond)))
}

// Reload loads the page again, as the browser's reload button does.
func (p *Page) Reload() {
	p.t.Helper()
	run(p, "reloading", chromedp.Reload())
}

// WaitVisible waits until the first element that the CSS selector sel matches is visible:
// displayed, with a box of some size.
func (p *Page) WaitVisible(sel string) {
	p.t.Helper()
	run(p, fmt.Sprintf("waiting for %q to be visible", sel), chromedp.WaitVisible(chromedp.CSS(sel)))
}

// Text waits until an element matches the CSS selector sel and returns the text that the first
// one shows (its innerText: what is rendered, without what is hidden).
func (p *Page) Text(sel string) string {
	p.t.Helper()
	return run(p, fmt.Sprintf("reading the text of %q", sel), chromedp.Text(chromedp.CSS(sel)))
}

// Attribute waits until an element matches the CSS selector sel and returns the value of the
// first one's attribute name, and whether it has that attribute.
func (p *Page) Attribute(sel, name string) (value string, ok bool) {
	p.t.Helper()
	res := run(p, fmt.Sprintf("reading the attribute %s of %q", name, sel), chromedp.AttributeValue(chromedp.CSS(sel), name))
	return res.Value, res.Exists
}

// Eval evaluates the JavaScript expression in the page, waits for the promise it returns if it
// returns one, and decodes its value, as JSON, into a T. An exception fails the test.
func Eval[T any](p *Page, expression string) T {
	p.t.Helper()
	return run(p, "evaluating "+expression, chromedp.Evaluate[T](expression, chromedp.EvalAwaitPromise))
}

// Screenshot returns a PNG of the whole page, beyond the window where the page is longer.
func (p *Page) Screenshot() []byte {
	p.t.Helper()
	return run(p, "taking a screenshot", chromedp.FullScreenshot(100))
}

// Context returns the page's chromedp context, for what the methods above do not do:
// chromedp.Run(p.Context(), chromedp.SendKeys(...)). It is done when the test ends.
func (p *Page) Context() context.Context { return p.ctx }

// TakeProblems returns the problems the page recorded up to the last thing it did, oldest first,
// and forgets them, so that the end of the test does not report them. It first waits for the
// browser to deliver what the page reported before this call.
func (p *Page) TakeProblems() []Problem {
	p.t.Helper()
	if err := p.settle(); err != nil {
		p.t.Fatalf("browsertest: %v", err)
	}
	return p.take()
}

// settle returns once the events that the page sent before it have been recorded: the browser
// sends a tab's events and replies in order, and the listener records each event before the
// next message is read.
func (p *Page) settle() error {
	ctx, cancel := context.WithTimeout(p.ctx, limit)
	defer cancel()
	if err := chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void]("0")); err != nil {
		return fmt.Errorf("waiting for the page's events: %w", err)
	}
	return nil
}

func (p *Page) take() []Problem {
	p.mu.Lock()
	defer p.mu.Unlock()
	taken := p.problems
	p.problems = nil
	return taken
}

// close fails the test with the problems it did not take, then closes the tab.
func (p *Page) close() {
	if err := p.settle(); err != nil {
		p.t.Errorf("browsertest: %v", err)
	}
	if left := p.take(); len(left) > 0 {
		lines := make([]string, len(left))
		for i, pr := range left {
			lines[i] = "\t" + pr.String()
		}
		p.t.Errorf("browsertest: the page reported problems that the test did not take:\n%s", strings.Join(lines, "\n"))
	}
	p.mu.Lock()
	p.closed = true
	p.mu.Unlock()
	p.cancel()
	p.answering.Wait()
}

// run runs the action in the page within limit, failing the test when it returns an error.
func run[T any](p *Page, what string, a chromedp.Action[T]) T {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, limit)
	defer cancel()
	v, err := chromedp.Run(ctx, a)
	if err != nil {
		p.t.Fatalf("browsertest: %s: %v", what, err)
	}
	return v
}

// answer sends the command that lets a paused request go on, or fails it. The listener that
// sees the request cannot send a command itself: the reply would come through the goroutine
// that runs the listener. An error is left alone: the browser refuses the answer for a request
// it dropped meanwhile (the page navigated away), and a request that stays paused shows as the
// page's failure to load.
func answer[P any](p *Page, cmd cdp.Command[P, cdp.Empty], params P) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return
	}
	p.answering.Add(1)
	go func() {
		defer p.answering.Done()
		chromedp.Call(p.ctx, cmd, params)
	}()
}
