package llmtest

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/tmc/langchaingo/llms"
)

// ErrExhausted is returned, wrapped, by a [Scripted] model that has answered all its replies
// and was not built to Cycle.
var ErrExhausted = errors.New("llmtest: the scripted model has no reply left")

// Scripted is a model that answers each request with the next reply of its script, in the
// order the requests arrive. When the script is exhausted, each further request fails with an
// error wrapping [ErrExhausted], unless the model was built with [Scripted.Cycle].
//
// Configure a Scripted (Cycle, WithoutTools, NoRecord) right after NewScripted, before its
// first use; after that it is safe for concurrent use.
type Scripted struct {
	model
	replies []Reply
	infos   []usageInfo // of replies
	cycle   bool
}

var _ llms.Model = (*Scripted)(nil)

// NewScripted returns a model that answers with replies, in order. It copies the slice.
func NewScripted(replies ...Reply) *Scripted {
	m := &Scripted{replies: slices.Clone(replies), infos: make([]usageInfo, len(replies))}
	for i, r := range replies {
		m.infos[i] = newUsageInfo(r.Usage)
	}
	return m
}

// Cycle makes m start its script again after its last reply, forever. It returns m.
func (m *Scripted) Cycle() *Scripted {
	m.cycle = true
	return m
}

// ModelName names the model by its kind, "scripted": an assistant given it with WithModel
// reports its usage under that name (see model.Namer).
func (m *Scripted) ModelName() string { return "scripted" }

// WithoutTools makes m a model that cannot take tools: its SupportsTools reports false. It
// returns m.
func (m *Scripted) WithoutTools() *Scripted {
	m.noTools = true
	return m
}

// NoRecord makes m keep no record of requests, so that it costs nothing but its responses
// (for benchmarks); Requests returns nil. It returns m.
func (m *Scripted) NoRecord() *Scripted {
	m.noRecord = true
	return m
}

// GenerateContent answers with the next reply of the script (see [Reply]). Every request takes
// a reply, also one that fails because ctx is done, so the i-th recorded request (from 0) got
// reply i, or i modulo the script's length when cycling.
func (m *Scripted) GenerateContent(ctx context.Context, msgs []llms.MessageContent, opts ...llms.CallOption) (*llms.ContentResponse, error) {
	var req Request
	if !m.noRecord {
		req = newRequest(msgs, opts)
	}
	n := m.arrive(&req)
	if n >= len(m.replies) {
		if !m.cycle || len(m.replies) == 0 {
			return nil, fmt.Errorf("%w: request %d arrived, but the script has %d replies; add replies or build the model with Cycle",
				ErrExhausted, n+1, len(m.replies))
		}
		n %= len(m.replies)
	}
	return m.respond(ctx, &m.replies[n], &m.infos[n])
}

// Call sends prompt as one user message and returns the text of the answer.
func (m *Scripted) Call(ctx context.Context, prompt string, opts ...llms.CallOption) (string, error) {
	return llms.GenerateFromSinglePrompt(ctx, m, prompt, opts...)
}
