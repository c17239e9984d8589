package mcpbridge_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/cadrehq/cadre/pkg/assistant"
	"github.com/cadrehq/cadre/pkg/chat"
	"github.com/cadrehq/cadre/pkg/llmtest"
	"github.com/cadrehq/cadre/pkg/mcpbridge"
	"github.com/google/go-cmp/cmp"
	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/tmc/langchaingo/llms"
)

// caller is who a request comes from, as a transport would put it in the request's context
// (over streamable HTTP, with server.WithHTTPContextFunc). The in-process client hands the
// context of each request to the server.
type caller struct{ tenant, user string }

type callerKey struct{}

func as(ctx context.Context, tenant, user string) context.Context {
	return context.WithValue(ctx, callerKey{}, caller{tenant, user})
}

// identify is a WithIdentity function: the caller in the context, or an error.
func identify(ctx context.Context) (string, string, error) {
	c, ok := ctx.Value(callerKey{}).(caller)
	if !ok {
		return "", "", errors.New("no credentials came with the request")
	}
	return c.tenant, c.user, nil
}

// rememberer is an assistant keeping its chats in store, whose model says how many earlier
// user turns it was sent beside the user's turn.
func rememberer(store chat.Store) (*assistant.Assistant[string], *llmtest.FuncModel) {
	model := llmtest.NewFunc(func(_ context.Context, req llmtest.Request) llmtest.Reply {
		earlier := -1
		for _, m := range req.Messages {
			if m.Role == llms.ChatMessageTypeHuman {
				earlier++
			}
		}
		return llmtest.Text(fmt.Sprintf("You said: %s (%d earlier)", lastUser(req), earlier))
	})
	return assistant.New[string]("rememberer", assistant.WithModel(model), assistant.WithStore(store),
		assistant.WithInstructions("You remember.")), model
}

// answer gets prompt name under ctx and returns the assistant's message.
func answer(t *testing.T, ctx context.Context, c *client.Client, name string, args map[string]string) string {
	t.Helper()
	var req mcp.GetPromptRequest
	req.Params.Name = name
	req.Params.Arguments = args
	res, err := c.GetPrompt(ctx, req)
	if err != nil {
		t.Fatalf("prompt %s %v: %v", name, args, err)
	}
	if len(res.Messages) != 2 {
		t.Fatalf("prompt %s %v: %d messages, want the user's and the answer", name, args, len(res.Messages))
	}
	return res.Messages[1].Content.(mcp.TextContent).Text
}

type turn struct {
	Role llms.ChatMessageType
	Text string
}

func turns(msgs []llms.MessageContent) []turn {
	var out []turn
	for _, m := range msgs {
		var b strings.Builder
		for _, p := range m.Parts {
			if tc, ok := p.(llms.TextContent); ok {
				b.WriteString(tc.Text)
			}
		}
		out = append(out, turn{m.Role, b.String()})
	}
	return out
}

func TestPromptContinuesAChat(t *testing.T) {
	t.Parallel()
	store := chat.NewMemory()
	a, model := rememberer(store)
	s := newServer()
	if err := mcpbridge.AddPrompt(s, a); err != nil {
		t.Fatal(err)
	}
	c := connect(t, s)
	ctx := testContext(t)
	if got := answer(t, ctx, c, "rememberer", map[string]string{"input": "first", "chat_id": "c1"}); got != "You said: first (0 earlier)" {
		t.Errorf("first answer %q", got)
	}
	if got := answer(t, ctx, c, "rememberer", map[string]string{"input": "second", "chat_id": "c1"}); got != "You said: second (1 earlier)" {
		t.Errorf("second answer %q", got)
	}
	// The second run's model got the first exchange as history, after the system prompt.
	reqs := model.Requests()
	want := []turn{
		{llms.ChatMessageTypeSystem, "You remember."},
		{llms.ChatMessageTypeHuman, "first"},
		{llms.ChatMessageTypeAI, "You said: first (0 earlier)"},
		{llms.ChatMessageTypeHuman, "second"},
	}
	if diff := cmp.Diff(want, turns(reqs[len(reqs)-1].Messages)); diff != "" {
		t.Errorf("the second request (-want +got):\n%s", diff)
	}
	// Without WithIdentity the chat is tenant "" and user "".
	stored, err := store.Load(ctx, chat.ID{Chat: "c1"})
	if err != nil {
		t.Fatal(err)
	}
	if len(stored) != 4 {
		t.Errorf("the store holds %v, want both exchanges", turns(stored))
	}
}

func TestPromptChatsStayWithTheirCaller(t *testing.T) {
	t.Parallel()
	store := chat.NewMemory()
	a, _ := rememberer(store)
	s := newServer()
	if err := mcpbridge.AddPrompt(s, a, mcpbridge.WithIdentity(identify)); err != nil {
		t.Fatal(err)
	}
	c := connect(t, s)
	steps := []struct {
		tenant, user, input, want string
	}{
		{"acme", "ana", "one", "You said: one (0 earlier)"},
		{"globex", "ana", "two", "You said: two (0 earlier)"},   // another tenant, the same chat_id
		{"acme", "bob", "three", "You said: three (0 earlier)"}, // another user of the tenant
		{"acme", "ana", "four", "You said: four (1 earlier)"},
		{"globex", "ana", "five", "You said: five (1 earlier)"},
	}
	for _, st := range steps {
		ctx := as(testContext(t), st.tenant, st.user)
		if got := answer(t, ctx, c, "rememberer", map[string]string{"input": st.input, "chat_id": "shared"}); got != st.want {
			t.Errorf("%s/%s: answer %q, want %q", st.tenant, st.user, got, st.want)
		}
	}
	stored, err := store.Load(testContext(t), chat.ID{Tenant: "acme", User: "ana", Chat: "shared"})
	if err != nil {
		t.Fatal(err)
	}
	wantStored := []turn{
		{llms.ChatMessageTypeHuman, "one"}, {llms.ChatMessageTypeAI, "You said: one (0 earlier)"},
		{llms.ChatMessageTypeHuman, "four"}, {llms.ChatMessageTypeAI, "You said: four (1 earlier)"},
	}
	if diff := cmp.Diff(wantStored, turns(stored)); diff != "" {
		t.Errorf("acme/ana's chat (-want +got):\n%s", diff)
	}
}

func TestPromptWithoutChatIDKeepsNoHistory(t *testing.T) {
	t.Parallel()
	store := chat.NewMemory()
	a, _ := rememberer(store)
	s := newServer()
	if err := mcpbridge.AddPrompt(s, a); err != nil {
		t.Fatal(err)
	}
	c := connect(t, s)
	ctx := testContext(t)
	answer(t, ctx, c, "rememberer", map[string]string{"input": "kept", "chat_id": "c1"})
	gets := []struct {
		name string
		ctx  context.Context
		args map[string]string
	}{
		{"no chat_id", ctx, map[string]string{"input": "a"}},
		{"again", ctx, map[string]string{"input": "b"}},
		{"blank chat_id", ctx, map[string]string{"input": "c", "chat_id": " "}},
		// A context that carries a chat does not put a get without chat_id in it.
		{"a chat in the context", chat.WithID(ctx, chat.ID{Chat: "c1"}), map[string]string{"input": "d"}},
	}
	for _, g := range gets {
		if got, want := answer(t, g.ctx, c, "rememberer", g.args), "You said: "+g.args["input"]+" (0 earlier)"; got != want {
			t.Errorf("%s: answer %q, want %q", g.name, got, want)
		}
	}
	chats, err := store.List(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(chats) != 1 || chats[0].ID.Chat != "c1" || chats[0].Messages != 2 {
		t.Errorf("the store holds %+v, want only chat c1 with its one exchange", chats)
	}
}

// chatTeller is an agent that answers with the chat its run is in.
type chatTeller struct{ calls atomic.Int32 }

func (*chatTeller) Name() string        { return "teller" }
func (*chatTeller) Description() string { return "Tells the chat it runs in." }
func (a *chatTeller) Call(ctx context.Context, _ assistant.Input) (*assistant.Response, error) {
	a.calls.Add(1)
	id, ok := chat.IDFrom(ctx)
	if !ok {
		return &assistant.Response{Text: "no chat"}, nil
	}
	return &assistant.Response{Text: fmt.Sprintf("%q %q %q", id.Tenant, id.User, id.Chat)}, nil
}

func TestPromptRunsInTheCallersChat(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", 257)
	tests := []struct {
		name     string
		identity func(context.Context) (string, string, error)
		ctx      func(context.Context) context.Context
		chatID   string
		want     string   // the answer
		wantErr  []string // or what the error says
	}{
		{name: "no identity", chatID: "c1", want: `"" "" "c1"`},
		{name: "identified", identity: identify, ctx: func(ctx context.Context) context.Context { return as(ctx, "acme", "ana") }, chatID: "c1", want: `"acme" "ana" "c1"`},
		{name: "kept as given", chatID: " c 1 ", want: `"" "" " c 1 "`},
		{name: "no chat_id, not identified", identity: identify, want: "no chat"},
		{name: "not identified", identity: identify, chatID: "c1", wantErr: []string{`prompt "teller": the caller is not identified`, "no credentials came with the request"}},
		{name: "identity fails", identity: func(context.Context) (string, string, error) { return "", "", errors.New("token expired") }, chatID: "c1", wantErr: []string{"not identified", "token expired"}},
		{name: "identity too long", identity: func(context.Context) (string, string, error) { return long, "", nil }, chatID: "c1", wantErr: []string{"the caller's identity cannot name a chat", "longer than 256 bytes"}},
		{name: "chat_id too long", chatID: long, wantErr: []string{`the argument "chat_id"`, "longer than 256 bytes"}},
		{name: "chat_id with NUL", chatID: "c\x001", wantErr: []string{`the argument "chat_id"`, "NUL"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var log errorLog
			agent := &chatTeller{}
			s := newServer()
			if err := mcpbridge.AddPrompt(s, agent, mcpbridge.WithIdentity(tt.identity), mcpbridge.WithErrorHandler(log.handle)); err != nil {
				t.Fatal(err)
			}
			c := connect(t, s)
			ctx := testContext(t)
			if tt.ctx != nil {
				ctx = tt.ctx(ctx)
			}
			args := map[string]string{"input": "hi"}
			if tt.chatID != "" {
				args["chat_id"] = tt.chatID
			}
			if tt.wantErr == nil {
				if got := answer(t, ctx, c, "teller", args); got != tt.want {
					t.Errorf("answer %s, want %s", got, tt.want)
				}
				return
			}
			var req mcp.GetPromptRequest
			req.Params.Name = "teller"
			req.Params.Arguments = args
			_, err := c.GetPrompt(ctx, req)
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tt.wantErr {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
			if n := agent.calls.Load(); n != 0 {
				t.Errorf("the agent ran %d times", n)
			}
			if _, herr := log.last(); herr == nil || !strings.Contains(err.Error(), herr.Error()) {
				t.Errorf("the error handler was told %v, the client %v", herr, err)
			}
		})
	}
}
