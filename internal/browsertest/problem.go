package browsertest

import (
	"net"
	"net/url"
	"strings"

	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
)

// Kind says what went wrong in a page.
type Kind string

// The kinds of Problem.
const (
	// ConsoleError is a call of console.error, or of console.assert with a false condition.
	ConsoleError Kind = "console error"
	// Exception is an exception that no code caught, or a promise rejection that nothing
	// handled.
	Exception Kind = "uncaught exception"
	// LogError is an error that the browser itself logged in the page's console, such as a
	// resource that did not load (a 404, a refused connection); but not the absence of
	// /favicon.ico, which the browser asks for by itself.
	LogError Kind = "browser error"
	// Blocked is a request for a host off this machine, which the page failed before it was
	// sent, or a WebSocket to one, whose connection the browser's proxy refused.
	Blocked Kind = "blocked request"
)

// Problem is something that went wrong in a page, as the developer tools would show it.
type Problem struct {
	Kind Kind
	// Text is what the console would show: the arguments of console.error, the exception
	// with its message, the browser's message; for a blocked request, its method and URL.
	Text string
	// URL is where the problem comes from, when the browser says: the script of a console call
	// or of an exception, the resource of a browser error, the URL of a blocked request.
	URL string
}

// String returns the kind, the text and the URL.
func (pr Problem) String() string {
	s := string(pr.Kind) + ": " + pr.Text
	if pr.URL != "" && !strings.Contains(pr.Text, pr.URL) {
		s += " (" + pr.URL + ")"
	}
	return s
}

// listen records the events of the page's tab that are problems, and answers its paused
// requests. It runs on the goroutine that reads the tab's messages, so it only records and
// hands slow work to another goroutine.
func (p *Page) listen(ev any) {
	switch ev := ev.(type) {
	case *fetch.EventRequestPaused:
		if onMachine(ev.Request.URL) {
			answer(p, fetch.ContinueRequest, fetch.ContinueRequestParams{RequestID: ev.RequestID})
			return
		}
		p.block(ev.Request.Method, ev.Request.URL)
		answer(p, fetch.FailRequest, fetch.FailRequestParams{RequestID: ev.RequestID, ErrorReason: network.ErrorReasonBlockedByClient})
	case *network.EventWebSocketCreated:
		// The Fetch domain does not pause a WebSocket: its connection goes to the refuser.
		if !onMachine(ev.URL) {
			p.block("WebSocket", ev.URL)
		}
	case *runtime.EventConsoleAPICalled:
		if ev.Type == runtime.ConsoleAPICalledTypeError || ev.Type == runtime.ConsoleAPICalledTypeAssert {
			p.record(Problem{Kind: ConsoleError, Text: argsText(ev.Args), URL: stackURL(ev.StackTrace)})
		}
	case *runtime.EventExceptionThrown:
		d := ev.ExceptionDetails
		u := d.URL
		if u == "" {
			u = stackURL(d.StackTrace)
		}
		p.record(Problem{Kind: Exception, Text: exceptionText(d), URL: u})
	case *log.EventEntryAdded:
		e := ev.Entry
		if e.Level != log.EntryLevelError {
			return
		}
		if !p.aboutBlocked(e) && !isFavicon(e.URL) {
			p.record(Problem{Kind: LogError, Text: e.Text, URL: e.URL})
		}
	}
}

// block records a request for rawURL, which does not leave the machine.
func (p *Page) block(method, rawURL string) {
	p.mu.Lock()
	p.blocked[rawURL] = true
	p.mu.Unlock()
	p.record(Problem{Kind: Blocked, Text: method + " " + rawURL, URL: rawURL})
}

// aboutBlocked reports whether the browser's entry is about a request that was blocked, which
// is a problem already: its failure to load, or a WebSocket's failure to connect, whose entry
// names the socket's URL in its text.
func (p *Page) aboutBlocked(e *log.Entry) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.blocked[e.URL] {
		return true
	}
	for u := range p.blocked {
		if strings.Contains(e.Text, "'"+u+"'") {
			return true
		}
	}
	return false
}

func (p *Page) record(pr Problem) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.problems = append(p.problems, pr)
}

// onMachine reports whether a request for rawURL stays on this machine: a URL with no host on a
// network (file:, data:, blob:, about:), or one whose host is a loopback address or localhost.
func onMachine(rawURL string) bool {
	u, err := url.Parse(rawURL)
	if err != nil {
		return false
	}
	switch u.Scheme {
	case "http", "https", "ws", "wss", "ftp":
	default:
		return true
	}
	host := u.Hostname()
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true // Chrome resolves these to the loopback addresses itself
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// isFavicon reports whether rawURL is the icon that the browser asks a site for by itself, when
// the page names none: its absence is the server's business, not the page's.
func isFavicon(rawURL string) bool {
	u, err := url.Parse(rawURL)
	return err == nil && u.Path == "/favicon.ico" && u.RawQuery == ""
}

// argsText renders the arguments of a console call roughly as the console shows them: strings
// as they are, other values by their description.
func argsText(args []*runtime.RemoteObject) string {
	parts := make([]string, len(args))
	for i, a := range args {
		parts[i] = valueText(a)
	}
	return strings.Join(parts, " ")
}

func valueText(o *runtime.RemoteObject) string {
	if o == nil {
		return "null"
	}
	if o.Type == runtime.RemoteObjectTypeString {
		var s string
		if jsonv2.Unmarshal(o.Value, &s) == nil {
			return s
		}
	}
	switch {
	case o.UnserializableValue != "":
		return string(o.UnserializableValue)
	case o.Description != "":
		return o.Description
	case len(o.Value) > 0:
		return string(o.Value)
	}
	return string(o.Type)
}

// exceptionText is the exception's text ("Uncaught", "Uncaught (in promise)") and the first line
// of the thrown value's description ("Error: boom"), without the stack that follows.
func exceptionText(d *runtime.ExceptionDetails) string {
	if d.Exception == nil {
		return d.Text
	}
	first, _, _ := strings.Cut(valueText(d.Exception), "\n")
	return strings.TrimSpace(d.Text + " " + first)
}

func stackURL(st *runtime.StackTrace) string {
	if st == nil || len(st.CallFrames) == 0 {
		return ""
	}
	return st.CallFrames[0].URL
}
