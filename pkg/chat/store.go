package chat

import (
	"context"
	"errors"
	"time"

	"github.com/tmc/langchaingo/llms"
)

// Store keeps chats: their messages, oldest first, and an opaque state beside them.
//
// Implementations are safe for concurrent use, keep chats of different tenants and users
// apart (an ID of another tenant or user is not found, whatever its Chat), and return an error
// when they cannot answer: a store that is down is an error, never an empty history. Every
// part type of langchaingo's messages (text, tool call, tool result, image URL, binary)
// survives a round trip; MarshalMessages and UnmarshalMessages give stores one encoding.
type Store interface {
	// Load returns the chat's messages, oldest first, or an error wrapping ErrNotFound when
	// the chat does not exist. They are the caller's: changing them, or their parts, does not
	// change the chat.
	Load(ctx context.Context, id ID) ([]llms.MessageContent, error)
	// Append adds msgs at the end of the chat, creating it. The messages of one call are
	// never interleaved with those of another call on the same chat. Changing msgs, or their
	// parts, once Append has returned does not change the chat.
	Append(ctx context.Context, id ID, msgs []llms.MessageContent) error
	// List returns the tenant's chats, of every user, most recently changed first.
	List(ctx context.Context, tenant string) ([]Info, error)
	// Delete removes the chat, its messages and its state, or returns an error wrapping
	// ErrNotFound when the chat does not exist.
	Delete(ctx context.Context, id ID) error
	// State returns the state kept beside the chat's messages (nil when none is), or an error
	// wrapping ErrNotFound when the chat does not exist.
	State(ctx context.Context, id ID) ([]byte, error)
	// SetState keeps state beside the chat's messages, creating the chat; nil removes it.
	SetState(ctx context.Context, id ID, state []byte) error
	// TakeState returns the state kept beside the chat's messages and removes it, in one
	// atomic step: of any number of TakeStates of one chat at the same instant, in one
	// process or in several sharing the store, exactly one returns a state SetState kept; the
	// others return nil, as TakeState does when the chat has no state. It returns an error
	// wrapping ErrNotFound when the chat does not exist. A paused run is resumed once because
	// its state is taken this way: a store that can only read and then remove would let two
	// resumes both run its approved calls.
	TakeState(ctx context.Context, id ID) ([]byte, error)
	// TakeStateIf removes the state kept beside the chat's messages when it is want, byte for
	// byte, and reports whether it did, in one atomic step: of any number of TakeStateIfs of
	// one chat with the same want at the same instant, in one process or in several sharing
	// the store, exactly one returns true. A state that is not want — another one, or none —
	// is left as it is, and TakeStateIf returns false; an empty want matches no state. It
	// returns an error wrapping ErrNotFound when the chat does not exist. A paused run is
	// resumed this way: its state is read with State and checked, then taken only if it is
	// still the state read, so that a resume of another pause never moves the chat's state,
	// not even for an instant in which a resume of the chat's own pause would find none.
	TakeStateIf(ctx context.Context, id ID, want []byte) (bool, error)
}

// Info describes a chat, as List returns it.
type Info struct {
	ID       ID
	Messages int       // how many messages it holds
	Updated  time.Time // when it last changed
}

// ErrNotFound is returned (wrapped) for a chat that does not exist — for this tenant and user.
var ErrNotFound = errors.New("chat: not found")
