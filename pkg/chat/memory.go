package chat

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/tmc/langchaingo/llms"
)

// Memory is a Store in the process's memory: the default, for tests and for programs whose
// chats may end with the process. The zero value is not usable; use NewMemory.
type Memory struct {
	mu    sync.Mutex
	chats map[ID]*memoryChat
	now   func() time.Time
}

type memoryChat struct {
	msgs    []llms.MessageContent
	state   []byte
	updated time.Time
}

// NewMemory returns an empty in-memory store.
func NewMemory() *Memory {
	return &Memory{chats: map[ID]*memoryChat{}, now: time.Now}
}

// Load implements Store. The messages returned are copies, down to their parts.
func (m *Memory) Load(ctx context.Context, id ID) ([]llms.MessageContent, error) {
	if err := check(ctx, id); err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	c, ok := m.chats[id]
	if !ok {
		return nil, notFound(id)
	}
	return cloneMessages(c.msgs), nil
}

// Append implements Store. It keeps copies of msgs, down to their parts.
func (m *Memory) Append(ctx context.Context, id ID, msgs []llms.MessageContent) error {
	if err := check(ctx, id); err != nil {
		return err
	}
	// Encoding checks the parts can be kept, as a persistent store would.
	if _, err := MarshalMessages(msgs); err != nil {
		return err
	}
	msgs = cloneMessages(msgs)
	m.mu.Lock()
	defer m.mu.Unlock()
	c := m.chat(id)
	c.msgs = append(c.msgs, msgs...)
	return nil
}

// cloneMessages copies msgs so that no change to the copy reaches msgs, nor the reverse, as
// a store that encodes them would: the parts, a tool call's function call, binary data. The
// other part types MarshalMessages accepts hold only strings.
func cloneMessages(msgs []llms.MessageContent) []llms.MessageContent {
	out := slices.Clone(msgs)
	for i := range out {
		out[i].Parts = slices.Clone(out[i].Parts)
		for j, p := range out[i].Parts {
			switch p := p.(type) {
			case llms.BinaryContent:
				p.Data = slices.Clone(p.Data)
				out[i].Parts[j] = p
			case llms.ToolCall:
				if p.FunctionCall != nil {
					fc := *p.FunctionCall
					p.FunctionCall = &fc
					out[i].Parts[j] = p
				}
			}
		}
	}
	return out
}

// List implements Store.
func (m *Memory) List(ctx context.Context, tenant string) ([]Info, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []Info
	for id, c := range m.chats {
		if id.Tenant == tenant {
			out = append(out, Info{ID: id, Messages: len(c.msgs), Updated: c.updated})
		}
	}
	slices.SortFunc(out, func(a, b Info) int { return b.Updated.Compare(a.Updated) })
	return out, nil
}

// Delete implements Store.
func (m *Memory) Delete(ctx context.Context, id ID) error {
	if err := check(ctx, id); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.chats[id]; !ok {
		return notFound(id)
	}
	delete(m.chats, id)
	return nil
}

// State implements Store.
func (m *Memory) State(ctx context.Context, id ID) ([]byte, error) {
	if err := check(ctx, id); err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	c, ok := m.chats[id]
	if !ok {
		return nil, notFound(id)
	}
	return slices.Clone(c.state), nil
}

// SetState implements Store.
func (m *Memory) SetState(ctx context.Context, id ID, state []byte) error {
	if err := check(ctx, id); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.chat(id).state = slices.Clone(state)
	return nil
}

// TakeState implements Store.
func (m *Memory) TakeState(ctx context.Context, id ID) ([]byte, error) {
	if err := check(ctx, id); err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	c, ok := m.chats[id]
	if !ok {
		return nil, notFound(id)
	}
	state := c.state
	if state != nil {
		m.chat(id).state = nil
	}
	return state, nil
}

// TakeStateIf implements Store.
func (m *Memory) TakeStateIf(ctx context.Context, id ID, want []byte) (bool, error) {
	if err := check(ctx, id); err != nil {
		return false, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	c, ok := m.chats[id]
	if !ok {
		return false, notFound(id)
	}
	if len(want) == 0 || !bytes.Equal(c.state, want) {
		return false, nil
	}
	m.chat(id).state = nil
	return true, nil
}

// chat returns the chat id, created when missing, and marks it changed. m.mu is held.
func (m *Memory) chat(id ID) *memoryChat {
	c, ok := m.chats[id]
	if !ok {
		c = &memoryChat{}
		m.chats[id] = c
	}
	c.updated = m.now()
	return c
}

// check returns the error for a call on id under ctx, before any work.
func check(ctx context.Context, id ID) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return id.Valid()
}

func notFound(id ID) error {
	return fmt.Errorf("%w: chat %q of user %q of tenant %q", ErrNotFound, id.Chat, id.User, id.Tenant)
}

var _ Store = (*Memory)(nil)
