package agui_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/cadrehq/cadre/pkg/agui"
	"github.com/cadrehq/cadre/pkg/assistant"
	"github.com/cadrehq/cadre/pkg/chat"
	"github.com/cadrehq/cadre/pkg/llmtest"
	"github.com/tmc/langchaingo/llms"
)

func assistantText(id, text string) string {
	return `{"id":"` + id + `","role":"assistant","content":"` + text + `"}`
}

// texts is the text of each message, in order, role first.
func texts(msgs []llms.MessageContent) string {
	var out []string
	for _, m := range msgs {
		for _, p := range m.Parts {
			if t, ok := p.(llms.TextContent); ok {
				out = append(out, string(m.Role)+":"+t.Text)
			}
		}
	}
	return strings.Join(out, " | ")
}

func TestHandlerThreadWithAStoreTakesOnlyWhatIsNew(t *testing.T) {
	var sent []string // what each request sent, past the system prompt
	var mu sync.Mutex
	m := llmtest.NewFunc(func(_ context.Context, req llmtest.Request) llmtest.Reply {
		mu.Lock()
		defer mu.Unlock()
		sent = append(sent, texts(req.Messages[1:]))
		return llmtest.Text("answer " + string(rune('A'+len(sent)-1)))
	})
	store := chat.NewMemory()
	a := assistant.New[string]("helper", assistant.WithModel(m), assistant.WithInstructions("Help."))
	h := agui.NewHandler(a, agui.WithStore(store))

	// A thread the store does not hold starts from the client's messages, which are kept.
	es := protocol(events(t, post(t, h, body("t1", "r1", "", user("u0", "before"), assistantText("a0", "earlier"), user("u1", "first")))))
	if f := finished(t, es); f.Result != "answer A" {
		t.Fatalf("first run: %s %v", types(es), f.Result)
	}
	// The client's copy of the thread is not read again: a changed past makes no difference.
	es = protocol(events(t, post(t, h, body("t1", "r2", "",
		user("u0", "before"), assistantText("a0", "TAMPERED"), user("u1", "first"), assistantText("a1", "answer A"), user("u2", "second"), user("u3", "third")))))
	if f := finished(t, es); f.Result != "answer B" {
		t.Fatalf("second run: %s %v", types(es), f.Result)
	}
	want := []string{
		"human:before | ai:earlier | human:first",
		"human:before | ai:earlier | human:first | ai:answer A | human:second\n\nthird",
	}
	if len(sent) != 2 || sent[0] != want[0] || sent[1] != want[1] {
		t.Errorf("sent:\n%q\nwant:\n%q", sent, want)
	}
	kept, err := store.Load(context.Background(), chat.ID{Chat: "t1"})
	if err != nil || texts(kept) != want[1]+" | ai:answer B" {
		t.Errorf("the store holds %q (%v)", texts(kept), err)
	}
}

func TestHandlerThreadsAreTheCallers(t *testing.T) {
	m := llmtest.NewFunc(func(_ context.Context, req llmtest.Request) llmtest.Reply {
		return llmtest.Text(texts(req.Messages[1:]))
	})
	store := chat.NewMemory()
	type who struct{}
	h := agui.NewHandler(assistant.New[string]("echo", assistant.WithModel(m), assistant.WithInstructions("Echo.")),
		agui.WithStore(store),
		agui.WithIdentity(func(ctx context.Context) (string, string, error) {
			u, _ := ctx.Value(who{}).(string)
			if u == "" {
				return "", "", errors.New("no user")
			}
			return "acme", u, nil
		}))
	as := func(u string) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			h.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), who{}, u)))
		})
	}
	finished(t, protocol(events(t, post(t, as("ana"), body("t1", "r1", "", user("u1", "ana's secret"))))))
	es := protocol(events(t, post(t, as("bo"), body("t1", "r2", "", user("u1", "hello")))))
	if f := finished(t, es); f.Result != "human:hello" {
		t.Errorf("bo's thread t1 answered %q; want it apart from ana's", f.Result)
	}
	resp := post(t, as(""), body("t1", "r3", "", user("u1", "hi")))
	if b, _ := io.ReadAll(resp.Body); resp.StatusCode != http.StatusForbidden || !strings.Contains(string(b), "no user") {
		t.Errorf("no identity: %s %q; want 403", resp.Status, b)
	}
}

func TestHandlerOneRunPerThread(t *testing.T) {
	entered, release := make(chan struct{}, 1), make(chan struct{})
	m := llmtest.NewFunc(func(ctx context.Context, req llmtest.Request) llmtest.Reply {
		if texts(req.Messages) == "human:slow" {
			entered <- struct{}{}
			<-release
		}
		return llmtest.Text("ok")
	})
	h := agui.NewHandler(assistant.New[string]("a", assistant.WithModel(m)))
	done := make(chan []agui.Event)
	go func() { done <- protocol(events(t, post(t, h, body("t1", "r1", "", user("u1", "slow"))))) }()
	<-entered
	resp := post(t, h, body("t1", "r2", "", user("u1", "fast")))
	if b, _ := io.ReadAll(resp.Body); resp.StatusCode != http.StatusConflict || !strings.Contains(string(b), "in progress") {
		t.Errorf("a second run on the thread: %s %q; want 409", resp.Status, b)
	}
	if f := finished(t, protocol(events(t, post(t, h, body("t2", "r3", "", user("u1", "fast")))))); f.Result != "ok" {
		t.Errorf("another thread: %v", f.Result)
	}
	close(release)
	if f := finished(t, <-done); f.Result != "ok" {
		t.Errorf("the first run: %v", f.Result)
	}
	if f := finished(t, protocol(events(t, post(t, h, body("t1", "r4", "", user("u1", "fast")))))); f.Result != "ok" {
		t.Errorf("the thread once free: %v", f.Result)
	}
}

// TestHandlerResumesOnceAcrossProcesses resumes one pause kept in a shared store from many
// requests to two handlers at once, as two processes would: the call runs once.
func TestHandlerResumesOnceAcrossProcesses(t *testing.T) {
	var sent atomic.Int64
	store := chat.NewMemory()
	script := func() llms.Model { // calls send_mail, then answers once the call has its result
		return llmtest.NewFunc(func(_ context.Context, req llmtest.Request) llmtest.Reply {
			if req.Messages[len(req.Messages)-1].Role == llms.ChatMessageTypeTool {
				return llmtest.Text("Done.")
			}
			return llmtest.Calls(llms.ToolCall{ID: "call_mail", FunctionCall: &llms.FunctionCall{Name: "send_mail", Arguments: `{"to":"ana@example.com"}`}})
		})
	}
	one, two := agui.NewHandler(mailer(&sent, script()), agui.WithStore(store)), agui.NewHandler(mailer(&sent, script()), agui.WithStore(store))
	es := protocol(events(t, post(t, one, body("t1", "r1", "", user("u1", "mail ana")))))
	call := finished(t, es).Outcome.Interrupts[0].ID
	resume := body("t1", "r2", `"resume":[{"interruptId":"`+call+`","status":"resolved","payload":{"approved":true}}]`,
		user("u1", "mail ana"), calling("a1", call, "send_mail"))

	var wg sync.WaitGroup
	var ok, refused atomic.Int64
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			h := one
			if i%2 == 1 {
				h = two
			}
			resp := post(t, h, resume)
			b, _ := io.ReadAll(resp.Body)
			switch {
			case resp.StatusCode == http.StatusOK && strings.Contains(string(b), `"result":"Done."`):
				ok.Add(1)
			case resp.StatusCode == http.StatusConflict || resp.StatusCode == http.StatusBadRequest:
				refused.Add(1)
			default:
				t.Errorf("%s %s", resp.Status, b)
			}
		}()
	}
	wg.Wait()
	if ok.Load() != 1 || refused.Load() != 7 || sent.Load() != 1 {
		t.Errorf("%d resumed, %d refused, %d mails sent; want 1, 7, 1", ok.Load(), refused.Load(), sent.Load())
	}
}

// nextOnFinish is a ResponseWriter that, as RUN_FINISHED is written to it, sends the thread's
// next request at once, as a client reading the stream may.
type nextOnFinish struct {
	*httptest.ResponseRecorder
	next   func() int
	status int
}

func (w *nextOnFinish) Write(b []byte) (int, error) {
	if w.status == 0 && strings.Contains(string(b), `"RUN_FINISHED"`) {
		w.status = w.next()
	}
	return w.ResponseRecorder.Write(b)
}

func TestHandlerFreesTheThreadBeforeItsLastEvent(t *testing.T) {
	h := agui.NewHandler(assistant.New[string]("a", assistant.WithModel(llmtest.NewScripted(llmtest.Text("ok")).Cycle())))
	w := &nextOnFinish{ResponseRecorder: httptest.NewRecorder(), next: func() int {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "http://127.0.0.1/", strings.NewReader(body("t1", "r2", "", user("u1", "a"), assistantText("a1", "ok"), user("u2", "b")))))
		return rec.Code
	}}
	h.ServeHTTP(w, httptest.NewRequest(http.MethodPost, "http://127.0.0.1/", strings.NewReader(body("t1", "r1", "", user("u1", "a")))))
	if w.status != http.StatusOK {
		t.Errorf("the next request, sent on RUN_FINISHED: %d; want 200", w.status)
	}
}
