package assistant

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/cadrehq/cadre/pkg/chat"
	"github.com/tmc/langchaingo/llms"
)

// WithStore keeps the assistant's conversations in s: a run under a context that carries a
// chat.ID (chat.WithID) loads the chat's recent history (see WithHistoryWindow) before the
// user's turn, and appends the user's turn and every message the run added when the run ends —
// when it fails too, in a shape the next run's request is valid with. The system prompt is
// never stored. A run without a chat ID does not use the store.
//
// A store that cannot be read fails the run before any request; one that cannot be written
// fails it at its end, with the Result.
func WithStore(s chat.Store) Option {
	return func(c *config) { c.store = s }
}

// WithHistoryWindow sets how much of a chat's history a run loads (default chat.Window{}: the
// last 100 messages and about 32,000 tokens, from a user's message on).
func WithHistoryWindow(w chat.Window) Option {
	return func(c *config) { c.window = w }
}

// chatSession is the chat a run continues, when it is in one.
type chatSession struct {
	id    chat.ID
	on    bool // the run is in a chat kept by the assistant's store
	saved bool // the run's messages were appended to it (or kept in its paused state)
}

// saveTimeout bounds saving a run's messages once the run's own context is done.
const saveTimeout = 10 * time.Second

// loadChat returns the chat's history, all of it, and the part of it the run sends (its
// window, in the assistant's history shape), when the run is in a chat and the assistant keeps
// chats; it notes the chat for saveChat.
func (r *run[O]) loadChat(ctx context.Context) (history, window []llms.MessageContent, err error) {
	id, ok := chat.IDFrom(ctx)
	if !ok || r.p.cfg.store == nil {
		return nil, nil, nil
	}
	history, err = r.p.cfg.store.Load(ctx, id)
	if err != nil && !errors.Is(err, chat.ErrNotFound) {
		return nil, nil, within(r.p.name, err, "loading chat "+id.String(), id.String())
	}
	state, err := r.p.cfg.store.State(ctx, id)
	if err != nil && !errors.Is(err, chat.ErrNotFound) {
		return nil, nil, within(r.p.name, err, "loading chat "+id.String(), id.String())
	}
	if len(state) > 0 {
		return nil, nil, fmt.Errorf("assistant %q: chat %s has a run waiting for a person's decision: Resume it first (Resume(ctx, nil, decisions))", r.p.name, id)
	}
	r.chat.id, r.chat.on = id, true
	window = history
	if r.p.cfg.history == HistoryTextOnly {
		window = chat.TextOnly(window, r.p.out.InCall)
	}
	return history, r.p.cfg.window.Apply(window), nil
}

// saveChat appends the run's messages to its chat, once, even when the run's context is done.
func (r *run[O]) saveChat(ctx context.Context) error {
	if !r.chat.on || r.chat.saved { // r.msgs holds the user's turn at least: there is always something to save
		return nil
	}
	r.chat.saved = true
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), saveTimeout)
	defer cancel()
	if err := r.p.cfg.store.Append(ctx, r.chat.id, r.msgs[r.first:]); err != nil {
		return within(r.p.name, err, "saving the run to chat "+r.chat.id.String(), r.chat.id.String())
	}
	return nil
}
