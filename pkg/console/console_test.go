package console_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/cadrehq/cadre/pkg/agui"
	"github.com/cadrehq/cadre/pkg/assistant"
	"github.com/cadrehq/cadre/pkg/chat"
	"github.com/cadrehq/cadre/pkg/console"
	"github.com/cadrehq/cadre/pkg/llmtest"
	"github.com/cadrehq/cadre/pkg/tool"
	"github.com/tmc/langchaingo/llms"
)

type booking struct {
	Table string `json:"table"`
}

// booker books a table once a person approves, then says so.
func booker() *assistant.Assistant[string] {
	m := llmtest.NewFunc(func(_ context.Context, req llmtest.Request) llmtest.Reply {
		if req.Messages[len(req.Messages)-1].Role == llms.ChatMessageTypeTool {
			return llmtest.Text("Booked.")
		}
		return llmtest.Calls(llms.ToolCall{ID: "call_book", FunctionCall: &llms.FunctionCall{Name: "book", Arguments: `{"table":"t4"}`}})
	})
	book := tool.Func("book", "Books a table.", func(_ context.Context, in booking) (string, error) { return "booked " + in.Table, nil })
	ask := assistant.ApproverFunc(func(context.Context, assistant.ToolCall) (assistant.Decision, error) { return assistant.Pending(), nil })
	return assistant.New[string]("booker", assistant.WithDescription("Books tables."), assistant.WithModel(m),
		assistant.WithTools(book), assistant.WithApproval(ask, "book"))
}

func get(t *testing.T, h http.Handler, path string, header ...string) (int, http.Header, string) {
	t.Helper()
	req := httptest.NewRequest(http.MethodGet, "http://127.0.0.1:8080"+path, nil)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec.Code, rec.Header(), rec.Body.String()
}

func postRun(t *testing.T, h http.Handler, assistantName, body string) string {
	t.Helper()
	req := httptest.NewRequest(http.MethodPost, "http://127.0.0.1:8080/api/run/"+assistantName, strings.NewReader(body))
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusOK {
		t.Fatalf("run: %d %s", rec.Code, rec.Body)
	}
	return rec.Body.String()
}

func TestConsoleServesThePageAndItsAPI(t *testing.T) {
	store := chat.NewMemory()
	reports := fstest.MapFS{"nightly.html": {Data: []byte("<p>report</p>")}, "notes.txt": {Data: []byte("x")}}
	c := console.New(console.WithAssistant(booker()), console.WithStore(store), console.WithReports(reports),
		console.WithClientTools(agui.Tool{Name: "ask_user", Description: "Asks the person."}))

	code, h, body := get(t, c, "/")
	if code != 200 || !strings.Contains(body, "static/console.js") || !strings.Contains(h.Get("Content-Security-Policy"), "script-src 'self'") {
		t.Errorf("page: %d %q %v", code, body, h)
	}
	if code, _, _ := get(t, c, "/static/console.js"); code != 200 {
		t.Errorf("script: %d", code)
	}

	code, _, body = get(t, c, "/api/assistants")
	var list struct {
		Assistants     []struct{ Name, Description string }
		ClientTools    []agui.Tool
		Chats, Reports bool
	}
	if err := json.Unmarshal([]byte(body), &list); err != nil || code != 200 || len(list.Assistants) != 1 ||
		list.Assistants[0].Name != "booker" || list.Assistants[0].Description != "Books tables." ||
		len(list.ClientTools) != 1 || !list.Chats || !list.Reports {
		t.Errorf("assistants: %d %s", code, body)
	}

	// A run that pauses; the chat lists it and gives back its messages and interrupt.
	stream := postRun(t, c, "booker", `{"threadId":"booker~1","runId":"r1","messages":[{"id":"u1","role":"user","content":"a table for two"}]}`)
	if !strings.Contains(stream, `"type":"interrupt"`) {
		t.Fatalf("stream %s", stream)
	}
	code, _, body = get(t, c, "/api/chats?assistant=booker")
	if code != 200 || !strings.Contains(body, `"threadId":"booker~1"`) || !strings.Contains(body, `"title":"a table for two"`) {
		t.Errorf("chats: %d %s", code, body)
	}
	code, _, body = get(t, c, "/api/chats/booker~1")
	var one struct {
		Messages   []agui.Message
		Interrupts []agui.Interrupt
	}
	if err := json.Unmarshal([]byte(body), &one); err != nil || code != 200 || len(one.Messages) != 2 ||
		one.Messages[0].Content.Text != "a table for two" || len(one.Messages[1].ToolCalls) != 1 ||
		len(one.Interrupts) != 1 || one.Interrupts[0].ID != "call_book" {
		t.Fatalf("chat: %d %s", code, body)
	}
	// Resumed from what the chat gave back, the run goes on.
	stream = postRun(t, c, "booker", `{"threadId":"booker~1","runId":"r2","messages":[],"resume":[{"interruptId":"call_book","status":"resolved","payload":{"approved":true}}]}`)
	if !strings.Contains(stream, `"result":"Booked."`) || !strings.Contains(stream, "booked t4") {
		t.Errorf("resumed: %s", stream)
	}
	code, _, body = get(t, c, "/api/chats/booker~1")
	if code != 200 || !strings.Contains(body, "Booked.") || strings.Contains(body, `"id":"call_book","reason"`) {
		t.Errorf("chat after: %d %s", code, body)
	}
	if code, _, _ := get(t, c, "/api/chats/other~1"); code != 404 {
		t.Errorf("a thread of no assistant: %d", code)
	}

	code, _, body = get(t, c, "/api/reports")
	if code != 200 || !strings.Contains(body, "nightly.html") || strings.Contains(body, "notes.txt") {
		t.Errorf("reports: %d %s", code, body)
	}
	code, h, body = get(t, c, "/reports/nightly.html")
	if code != 200 || body != "<p>report</p>" || !strings.HasPrefix(h.Get("Content-Security-Policy"), "sandbox allow-scripts") {
		t.Errorf("report: %d %s %v", code, body, h)
	}
	for _, bad := range []string{"/reports/notes.txt", "/reports/..%2Fsecret.html", "/reports/missing.html"} {
		if code, _, _ := get(t, c, bad); code != 404 {
			t.Errorf("%s: %d", bad, code)
		}
	}
}

func TestConsoleRefusesOtherSites(t *testing.T) {
	c := console.New(console.WithAssistant(booker()))
	for _, tc := range []struct {
		path   string
		header []string
	}{
		{"/api/assistants", []string{"Origin", "https://evil.example"}},
		{"/", []string{"Origin", "https://evil.example"}},
	} {
		if code, _, _ := get(t, c, tc.path, tc.header...); code != http.StatusForbidden {
			t.Errorf("%s %v: %d; want 403", tc.path, tc.header, code)
		}
	}
	req := httptest.NewRequest(http.MethodGet, "http://evil.example:8080/api/assistants", nil)
	rec := httptest.NewRecorder()
	c.ServeHTTP(rec, req)
	if rec.Code != http.StatusForbidden {
		t.Errorf("a rebound host: %d", rec.Code)
	}
	req = httptest.NewRequest(http.MethodPost, "http://127.0.0.1/api/run/booker", strings.NewReader(`{"threadId":"booker~1","runId":"r1","messages":[{"id":"u1","role":"user","content":"hi"}]}`))
	req.Header.Set("Origin", "https://evil.example")
	rec = httptest.NewRecorder()
	c.ServeHTTP(rec, req)
	if b, _ := io.ReadAll(rec.Body); rec.Code != http.StatusForbidden {
		t.Errorf("a run from another site: %d %s", rec.Code, b)
	}
}

func TestConsoleAPIBehindAuth(t *testing.T) {
	deny := func(http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get("Authorization") != "Bearer good" {
				http.Error(w, "no token", http.StatusUnauthorized)
				return
			}
			w.WriteHeader(http.StatusTeapot)
		})
	}
	c := console.New(console.WithAssistant(booker()), console.WithAuth(deny))
	if code, _, _ := get(t, c, "/"); code != 200 {
		t.Errorf("the page: %d; want it without a token", code)
	}
	if code, _, _ := get(t, c, "/api/assistants"); code != http.StatusUnauthorized {
		t.Errorf("the API without a token: %d", code)
	}
	if code, _, _ := get(t, c, "/reports/x.html"); code != http.StatusUnauthorized {
		t.Errorf("a report without a token: %d", code)
	}
	if code, _, _ := get(t, c, "/api/assistants", "Authorization", "Bearer good"); code != http.StatusTeapot {
		t.Errorf("the API with a token: %d", code)
	}
}

func TestConsoleReportsBehindAuthOpenWithATicket(t *testing.T) {
	pass := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get("Authorization") != "Bearer good" {
				http.Error(w, "no token", http.StatusUnauthorized)
				return
			}
			next.ServeHTTP(w, r)
		})
	}
	reports := fstest.MapFS{"a.html": {Data: []byte("A")}, "b.html": {Data: []byte("B")}}
	c := console.New(console.WithAssistant(booker()), console.WithAuth(pass), console.WithReports(reports))
	code, _, body := get(t, c, "/api/reports", "Authorization", "Bearer good")
	var list struct{ Reports []struct{ Name, URL string } }
	if err := json.Unmarshal([]byte(body), &list); err != nil || code != 200 || len(list.Reports) != 2 {
		t.Fatalf("reports: %d %s", code, body)
	}
	urls := map[string]string{}
	for _, r := range list.Reports {
		urls[r.Name] = r.URL
	}
	if code, _, body := get(t, c, "/"+urls["a.html"]); code != 200 || body != "A" {
		t.Errorf("a.html with its ticket: %d %q", code, body)
	}
	_, ticketB, _ := strings.Cut(urls["b.html"], "?")
	for name, path := range map[string]string{
		"no ticket":         "/reports/a.html",
		"another's ticket":  "/reports/a.html?" + ticketB,
		"a tampered ticket": "/" + urls["a.html"] + "x",
		"an expired ticket": "/reports/a.html?ticket=1." + strings.SplitN(urls["a.html"], ".", 3)[2],
	} {
		if code, _, _ := get(t, c, path); code != http.StatusUnauthorized {
			t.Errorf("%s: %d; want 401", name, code)
		}
	}
}
