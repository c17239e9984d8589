package console_test

import (
	"context"
	"flag"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"testing/fstest"

	"github.com/cadrehq/cadre/internal/browsertest"
	"github.com/cadrehq/cadre/pkg/agui"
	"github.com/cadrehq/cadre/pkg/assistant"
	"github.com/cadrehq/cadre/pkg/chat"
	"github.com/cadrehq/cadre/pkg/console"
	"github.com/cadrehq/cadre/pkg/llmtest"
	"github.com/cadrehq/cadre/pkg/model"
	"github.com/cadrehq/cadre/pkg/tool"
	"github.com/cadrehq/cadre/pkg/usage"
	"github.com/chromedp/chromedp"
	"github.com/tmc/langchaingo/llms"
)

var update = flag.Bool("update", false, "write docs/console-*.png from the console's browser tests")

// hostile is a tool result that would run script if the page rendered it as HTML.
const hostile = `<script>window.pwned = 1</script><img src="x" onerror="window.pwned = 2">`

type q struct {
	Q string `json:"q"`
}

// world is the console under test: a planner that answers, delegates to a slow researcher,
// books under approval, asks the person through a client tool, or looks something up whose
// result is hostile — by the prompt's first word.
type world struct {
	gate   atomic.Pointer[chan struct{}] // the researcher's model waits on it when it is set
	runs   atomic.Int64                  // requests to the planner's model
	booked atomic.Int64
}

// streamed answers text in pieces through the request's streaming function.
func streamed(ctx context.Context, req llmtest.Request, pieces ...string) llmtest.Reply {
	all := ""
	for _, p := range pieces {
		if f := req.Options.StreamingFunc; f != nil {
			if err := f(ctx, []byte(p)); err != nil {
				return llmtest.Fail(err)
			}
		}
		all += p
	}
	return llmtest.Reply{Text: all, Usage: usage.Usage{InputTokens: 1200, OutputTokens: 80}}
}

func lastTool(req llmtest.Request) (llms.ToolCallResponse, bool) {
	last := req.Messages[len(req.Messages)-1]
	if last.Role != llms.ChatMessageTypeTool {
		return llms.ToolCallResponse{}, false
	}
	r, ok := last.Parts[0].(llms.ToolCallResponse)
	return r, ok
}

func firstWord(req llmtest.Request) string {
	for i := len(req.Messages) - 1; i >= 0; i-- {
		if req.Messages[i].Role == llms.ChatMessageTypeHuman {
			for _, p := range req.Messages[i].Parts {
				if t, ok := p.(llms.TextContent); ok {
					w, _, _ := strings.Cut(strings.TrimSpace(t.Text), " ")
					return strings.ToLower(w)
				}
			}
		}
	}
	return ""
}

func call(id, name, args string) llmtest.Reply {
	return llmtest.Reply{ToolCalls: []llms.ToolCall{{ID: id, FunctionCall: &llms.FunctionCall{Name: name, Arguments: args}}},
		Usage: usage.Usage{InputTokens: 900, OutputTokens: 40}}
}

func (w *world) console() *console.Console {
	researcherModel := llmtest.NewFunc(func(ctx context.Context, req llmtest.Request) llmtest.Reply {
		if gate := w.gate.Load(); gate != nil {
			select {
			case <-*gate:
			case <-ctx.Done():
				return llmtest.Fail(ctx.Err())
			}
		}
		return streamed(ctx, req, "Porto ", "has ", "good ", "fish.")
	})
	researcher := assistant.New[string]("researcher", assistant.WithDescription("Finds places."),
		assistant.WithModels(model.Fixed(model.Describe("small", researcherModel))))
	var n atomic.Int64
	plannerModel := llmtest.NewFunc(func(ctx context.Context, req llmtest.Request) llmtest.Reply {
		w.runs.Add(1)
		id := func(s string) string { return s + "_" + string(rune('a'+n.Add(1)%26)) }
		if r, ok := lastTool(req); ok {
			return streamed(ctx, req, "Done: ", r.Content)
		}
		switch firstWord(req) {
		case "research":
			return call(id("call_research"), "researcher", `{"input":"where to eat in Porto"}`)
		case "book":
			return call(id("call_book"), "book", `{"q":"table for two"}`)
		case "ask":
			return call(id("call_ask"), "ask_user", `{"question":"Which night?"}`)
		case "lookup":
			return call(id("call_lookup"), "lookup", `{"q":"page"}`)
		}
		return streamed(ctx, req, "Hello ", "from ", "the ", "planner.")
	})
	book := tool.Func("book", "Books a table.", func(_ context.Context, in q) (string, error) {
		w.booked.Add(1)
		return "booked " + in.Q, nil
	})
	lookup := tool.Func("lookup", "Looks a page up.", func(context.Context, q) (string, error) { return hostile, nil })
	ask := assistant.ApproverFunc(func(context.Context, assistant.ToolCall) (assistant.Decision, error) { return assistant.Pending(), nil })
	planner := assistant.New[string]("planner", assistant.WithDescription("Plans evenings."),
		assistant.WithModels(model.Fixed(model.Describe("large", plannerModel))),
		assistant.WithTools(book, lookup, assistant.AsTool[string](researcher)), assistant.WithApproval(ask, "book"))

	reports := fstest.MapFS{"nightly.html": {Data: []byte(`<!doctype html><title>nightly</title><h1 id="r">Nightly eval</h1>`)}}
	return console.New(console.WithAssistant(planner), console.WithAssistant(researcher),
		console.WithStore(chat.NewMemory()), console.WithReports(reports),
		console.WithPrices(map[string]model.Price{"large": {Input: 2, Output: 8}, "small": {Input: 0.5, Output: 2}}),
		console.WithClientTools(agui.Tool{Name: "ask_user", Description: "Asks the person at the console.",
			Parameters: []byte(`{"type":"object","properties":{"question":{"type":"string"}},"required":["question"]}`)}))
}

// open opens the console in a new page the size of a laptop's screen.
func open(t *testing.T, b *browsertest.Browser, url string) *browsertest.Page {
	p := b.Page(t)
	if _, err := chromedp.Run(p.Context(), chromedp.EmulateViewport(1280, 800)); err != nil {
		t.Fatal(err)
	}
	p.Navigate(url)
	p.WaitVisible("#prompt")
	return p
}

// send types a prompt and sends it.
func send(p *browsertest.Page, prompt string) {
	p.Type("#prompt", prompt)
	p.Click("#send")
}

// lastAssistant waits for the text of the last assistant message to hold want.
func waitAssistant(p *browsertest.Page, want string) {
	p.WaitFor(`[...document.querySelectorAll('#messages .message[data-role="assistant"]')].some(m => m.textContent.includes(` + jsString(want) + `))`)
}

func jsString(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'"
}

func shot(t *testing.T, p *browsertest.Page, name string) {
	if *update {
		if err := os.WriteFile(filepath.Join("..", "..", "docs", name), p.Screenshot(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestConsoleInABrowser drives the console in Chromium as a person would.
func TestConsoleInABrowser(t *testing.T) {
	b := browsertest.New(t)
	w := &world{}
	srv := httptest.NewServer(w.console())
	defer srv.Close()

	t.Run("a message gets a streamed answer, and the chat is there after a reload", func(t *testing.T) {
		p := open(t, b, srv.URL+"/")
		send(p, "hello there")
		waitAssistant(p, "Hello from the planner.")
		p.WaitFor(`document.querySelector('#tree .node[data-kind="request"][data-state="done"]') !== null`)
		if got := p.Text(`#messages .message[data-role="user"]`); !strings.Contains(got, "hello there") {
			t.Errorf("the user's message shows %q", got)
		}
		shot(t, p, "console-chat.png")

		p.Reload()
		p.WaitFor(`document.querySelector('#chats .chat') !== null`)
		p.Click(`#chats .chat`)
		waitAssistant(p, "Hello from the planner.")
	})

	t.Run("the tree grows while a delegated run works", func(t *testing.T) {
		gate := make(chan struct{})
		w.gate.Store(&gate)
		defer w.gate.Store(nil)
		p := open(t, b, srv.URL+"/")
		send(p, "research Porto")
		p.WaitFor(`document.querySelector('#tree .node[data-kind="run"][data-name="researcher"][data-state="running"]') !== null`)
		p.WaitFor(`document.querySelector('#tree .node[data-kind="tool"]') !== null`)
		close(gate)
		p.WaitFor(`document.querySelector('#tree .node[data-kind="run"][data-name="researcher"][data-state="done"]') !== null`)
		waitAssistant(p, "Done: Porto has good fish.")
		// The researcher's run sits under the planner's call that delegated to it.
		nested := browsertest.Eval[bool](p, `(() => {
			const sub = document.querySelector('#tree .node[data-kind="run"][data-name="researcher"]');
			const call = sub.parentElement.closest('.node[data-kind="tool"]');
			return call !== null && call.closest('.node[data-kind="run"][data-name="planner"]') !== null;
		})()`)
		if !nested {
			t.Error("the researcher's run is not nested under the planner's tool call")
		}
		if text := p.Text("#tree"); !strings.Contains(text, "large") || !strings.Contains(text, "small") {
			t.Errorf("the tree does not name the models: %q", text)
		}
		shot(t, p, "console-tree.png")
	})

	t.Run("a pending call is approved and the run finishes", func(t *testing.T) {
		p := open(t, b, srv.URL+"/")
		send(p, "book a table")
		p.WaitVisible("#approvals .approval")
		if args := p.Text("#approvals .approval"); !strings.Contains(args, "table for two") {
			t.Errorf("the approval shows %q; want the call's arguments", args)
		}
		shot(t, p, "console-approval.png")
		before := w.booked.Load()
		p.Click("#approvals .approval .approve")
		waitAssistant(p, "Done: booked table for two")
		if got := w.booked.Load() - before; got != 1 {
			t.Errorf("the tool ran %d times; want once", got)
		}
	})

	t.Run("a client tool is answered by the person", func(t *testing.T) {
		p := open(t, b, srv.URL+"/")
		send(p, "ask me")
		p.WaitVisible("#client-calls .client-call .answer")
		if q := p.Text("#client-calls .client-call"); !strings.Contains(q, "Which night?") {
			t.Errorf("the client call shows %q", q)
		}
		p.Type("#client-calls .client-call .answer", "Friday")
		p.Click("#client-calls .client-call .send-answer")
		waitAssistant(p, "Done: Friday")
	})

	t.Run("a hostile tool result is shown as text", func(t *testing.T) {
		p := open(t, b, srv.URL+"/")
		send(p, "lookup the page")
		waitAssistant(p, "Done: ")
		p.WaitFor(`document.body.textContent.includes('<img src="x" onerror=')`)
		if pwned := browsertest.Eval[bool](p, `window.pwned !== undefined`); pwned {
			t.Error("a script in a tool result ran")
		}
		if imgs := browsertest.Eval[int](p, `document.querySelectorAll('#messages img, #tree img').length`); imgs != 0 {
			t.Errorf("%d img elements made of a tool result", imgs)
		}
	})

	t.Run("an eval report opens in its sandbox", func(t *testing.T) {
		p := open(t, b, srv.URL+"/")
		p.WaitVisible("#reports .report")
		p.Click("#reports .report")
		p.WaitVisible("#report-frame")
		if src, _ := p.Attribute("#report-frame", "src"); !strings.HasSuffix(src, "reports/nightly.html") {
			t.Errorf("the frame shows %q", src)
		}
		if sandbox, ok := p.Attribute("#report-frame", "sandbox"); !ok || strings.Contains(sandbox, "allow-same-origin") {
			t.Errorf("the frame's sandbox is %q (%v)", sandbox, ok)
		}
	})

	t.Run("a page of another origin cannot run an assistant", func(t *testing.T) {
		p := b.Page(t)
		before := w.runs.Load()
		body := `{"threadId":"planner~x","runId":"r1","messages":[{"id":"u1","role":"user","content":"hello"}]}`
		p.Navigate("data:text/html,<!doctype html><script>window.status_ = fetch(" + jsString(srv.URL+"/api/run/planner") +
			", {method: 'POST', headers: {'Content-Type': 'text/plain'}, body: " + jsString(body) + "}).then(r => r.status, e => 'blocked')</script>")
		got := browsertest.Eval[string](p, `window.status_.then(String)`)
		p.TakeProblems() // the browser reports the refused response as a CORS error
		if got != "blocked" && got != "403" {
			t.Errorf("the cross-site request ended with %q", got)
		}
		if w.runs.Load() != before {
			t.Error("a request from another origin ran the assistant")
		}
	})
}
