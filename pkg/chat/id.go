package chat

import (
	"context"
	"errors"
	"fmt"
)

// ID identifies a conversation. Tenant and User say whose it is; Chat names it within them.
// Stores keep chats apart by all three.
type ID struct {
	Tenant string // an organisation, a customer; "" for a single-tenant program
	User   string // the person; "" when users are not told apart
	Chat   string // the conversation: required
}

// String is "tenant/user/chat", for logs.
func (id ID) String() string { return id.Tenant + "/" + id.User + "/" + id.Chat }

// Valid reports what is wrong with id, or nil: Chat must be set, and no part may be longer
// than 256 bytes or hold a NUL byte. Stores keep any other byte apart safely.
func (id ID) Valid() error {
	if id.Chat == "" {
		return errors.New("chat: the chat ID is empty")
	}
	for _, p := range [...]string{id.Tenant, id.User, id.Chat} {
		if len(p) > 256 {
			return fmt.Errorf("chat: %q is longer than 256 bytes", p[:32]+"...")
		}
		for i := 0; i < len(p); i++ {
			if p[i] == 0 {
				return errors.New("chat: an ID part holds a NUL byte")
			}
		}
	}
	return nil
}

type idKey struct{}

// WithID returns a context that carries id: runs under it continue that chat. Contexts are
// immutable: deriving a new one is how a program continues another chat, or none (WithID with
// a zero ID).
func WithID(ctx context.Context, id ID) context.Context {
	return context.WithValue(ctx, idKey{}, id)
}

// IDFrom returns the chat ID ctx carries, and whether it carries one (with a non-empty Chat).
func IDFrom(ctx context.Context) (ID, bool) {
	id, _ := ctx.Value(idKey{}).(ID)
	return id, id.Chat != ""
}
