package console

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/cadrehq/cadre/pkg/agui"
	"github.com/cadrehq/cadre/pkg/assistant"
	"github.com/cadrehq/cadre/pkg/chat"
	"github.com/tmc/langchaingo/llms"
)

// threadSep parts a thread id the page makes: the assistant's name, then a random part.
const threadSep = "~"

// maxListed is how many chats api/chats lists, the most recent.
const maxListed = 50

// chatInfo is a chat as api/chats lists it.
type chatInfo struct {
	ThreadID  string    `json:"threadId"`
	Assistant string    `json:"assistant"`
	Title     string    `json:"title"`
	Messages  int       `json:"messages"`
	Updated   time.Time `json:"updated"`
}

// caller is the chat ID of thread for the request's caller.
func (c *Console) caller(r *http.Request, thread string) (chat.ID, error) {
	id := chat.ID{Chat: thread}
	if c.identity != nil {
		var err error
		if id.Tenant, id.User, err = c.identity(r.Context()); err != nil {
			return id, err
		}
	}
	return id, nil
}

// chats lists the caller's chats with an assistant (all of theirs without ?assistant=),
// newest first, each titled by its first user message.
func (c *Console) chats(w http.ResponseWriter, r *http.Request) {
	if c.store == nil {
		http.Error(w, "console: no chats are kept: give the console a store (console.WithStore)", http.StatusNotFound)
		return
	}
	me, err := c.caller(r, "")
	if err != nil {
		http.Error(w, "console: the caller's identity: "+err.Error(), http.StatusForbidden)
		return
	}
	infos, err := c.store.List(r.Context(), me.Tenant)
	if err != nil {
		http.Error(w, "console: listing chats: "+err.Error(), http.StatusServiceUnavailable)
		return
	}
	want := r.URL.Query().Get("assistant")
	out := []chatInfo{}
	for _, in := range infos {
		name, _, ok := strings.Cut(in.ID.Chat, threadSep)
		if in.ID.User != me.User || !ok || c.byName[name] == nil || (want != "" && name != want) {
			continue
		}
		out = append(out, chatInfo{ThreadID: in.ID.Chat, Assistant: name, Messages: in.Messages, Updated: in.Updated.UTC()})
		if len(out) == maxListed {
			break
		}
	}
	for i := range out { // the listed chats only are read, for their titles
		id := chat.ID{Tenant: me.Tenant, User: me.User, Chat: out[i].ThreadID}
		if msgs, _, err := c.thread(r.Context(), id); err == nil {
			out[i].Title = title(msgs)
		}
		if out[i].Title == "" {
			out[i].Title = "(untitled)"
		}
	}
	writeJSON(w, struct {
		Chats []chatInfo `json:"chats"`
	}{out})
}

// title is the text of a chat's first user message, cut to a line.
func title(msgs []llms.MessageContent) string {
	for _, m := range msgs {
		if m.Role != llms.ChatMessageTypeHuman {
			continue
		}
		for _, p := range m.Parts {
			if t, ok := p.(llms.TextContent); ok {
				s := strings.Join(strings.Fields(t.Text), " ")
				if r := []rune(s); len(r) > 60 {
					s = string(r[:59]) + "…"
				}
				return s
			}
		}
	}
	return ""
}

// chat returns one of the caller's chats as AG-UI messages, with what its paused run waits
// for, so that the page can show it again and go on.
func (c *Console) chat(w http.ResponseWriter, r *http.Request) {
	if c.store == nil {
		http.Error(w, "console: no chats are kept: give the console a store (console.WithStore)", http.StatusNotFound)
		return
	}
	thread := r.PathValue("thread")
	name, _, _ := strings.Cut(thread, threadSep)
	if c.byName[name] == nil {
		http.Error(w, fmt.Sprintf("console: thread %q is not a chat with an assistant of this console", thread), http.StatusNotFound)
		return
	}
	id, err := c.caller(r, thread)
	if err != nil {
		http.Error(w, "console: the caller's identity: "+err.Error(), http.StatusForbidden)
		return
	}
	msgs, paused, err := c.thread(r.Context(), id)
	if errors.Is(err, chat.ErrNotFound) {
		http.Error(w, fmt.Sprintf("console: no chat %q", thread), http.StatusNotFound)
		return
	}
	if err != nil {
		http.Error(w, "console: reading the chat: "+err.Error(), http.StatusServiceUnavailable)
		return
	}
	out := struct {
		ThreadID           string           `json:"threadId"`
		Assistant          string           `json:"assistant"`
		Messages           []agui.Message   `json:"messages"`
		Interrupts         []agui.Interrupt `json:"interrupts"`
		PendingToolCallIDs []string         `json:"pendingToolCallIds"`
	}{ThreadID: thread, Assistant: name, Interrupts: []agui.Interrupt{}, PendingToolCallIDs: []string{}}
	if paused != nil {
		names := make([]string, 0, len(c.clientTools))
		for _, t := range c.clientTools {
			names = append(names, t.Name)
		}
		out.Interrupts, out.PendingToolCallIDs = agui.Waiting(paused, names)
	}
	out.Messages = agui.Messages(thread, msgs)
	if out.Messages == nil {
		out.Messages = []agui.Message{}
	}
	if out.PendingToolCallIDs == nil {
		out.PendingToolCallIDs = []string{}
	}
	writeJSON(w, out)
}

// thread returns a chat's messages and its paused run, nil when none waits: a paused run's
// messages are kept in its state until it ends, and follow the chat's.
func (c *Console) thread(ctx context.Context, id chat.ID) ([]llms.MessageContent, *assistant.Paused, error) {
	msgs, err := c.store.Load(ctx, id)
	if err != nil {
		return nil, nil, err
	}
	state, err := c.store.State(ctx, id)
	if err != nil || len(state) == 0 {
		return msgs, nil, err
	}
	var p assistant.Paused
	if err := json.Unmarshal(state, &p); err != nil {
		return nil, nil, fmt.Errorf("the paused run of chat %s is damaged: %w", id.Chat, err)
	}
	if run, err := chat.UnmarshalMessages(p.Messages); err == nil && p.First <= len(run) {
		msgs = append(msgs, run[p.First:]...)
	}
	return msgs, &p, nil
}
