package durable

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"

	"github.com/cadrehq/cadre/pkg/chat"
	"github.com/dbos-inc/dbos-transact-golang/dbos"
	"github.com/tmc/langchaingo/llms"
)

// Store returns a chat store that keeps chats in s, and makes the calls a durable run makes to
// it steps of the run's workflow, so that a replayed run does not load, append or take a state
// again: give it to assistant.WithStore in place of s for the assistants the engine runs, and
// give a run its chat with Input.Chat. Outside a durable run it is s.
//
// A run whose process stops (DBOS shuts down) does not append its messages: the run's next
// execution does, once. A run whose workflow is cancelled or times out, which has no next
// execution unless someone resumes it, appends what it got to, once: an execution that resumes
// it does not append again. A paused
// state is taken from the chat by a continuation in two steps, a read then a removal, so that a
// continuation taken up after a crash between the two still finds the state it read: Resume
// runs in chats kept this way with Engine.Resume, whose continuations start once, rather than
// with assistant.Assistant.Resume.
func (e *Engine) Store(s chat.Store) chat.Store { return &store{e: e, s: s} }

type store struct {
	e *Engine
	s chat.Store
}

// wireChat is a chat call's outcome, as its step records it.
type wireChat struct {
	Messages json.RawMessage `json:"messages,omitempty"` // chat.MarshalMessages
	State    []byte          `json:"state,omitempty"`
	Err      *wireError      `json:"err,omitempty"`
}

// durable reports whether a call with ctx is a durable run's, to be made a step.
func (st *store) durable(ctx context.Context) bool {
	return ctx.Value(stepKey{}) == nil && st.e.inWorkflow(ctx)
}

// step runs f as the step name of the run of ctx, and returns what it recorded.
func (st *store) step(ctx context.Context, name string, f func(ctx context.Context) wireChat) (wireChat, error) {
	w, err := dbos.RunAsStep(dbos.From(st.e.root, ctx), func(ctx context.Context) (wireChat, error) {
		return f(inStep(ctx)), nil
	}, dbos.WithStepName(name))
	if err != nil {
		return wireChat{}, err
	}
	if w.Err != nil {
		return w, w.Err.rebuild()
	}
	return w, nil
}

func (st *store) Load(ctx context.Context, id chat.ID) ([]llms.MessageContent, error) {
	if !st.durable(ctx) {
		return st.s.Load(ctx, id)
	}
	w, err := st.step(ctx, "chat/load", func(ctx context.Context) wireChat {
		msgs, err := st.s.Load(ctx, id)
		if err != nil {
			return wireChat{Err: recordError(err)}
		}
		b, err := chat.MarshalMessages(msgs)
		return wireChat{Messages: b, Err: recordError(err)}
	})
	if err != nil {
		return nil, err
	}
	return chat.UnmarshalMessages(w.Messages)
}

func (st *store) Append(ctx context.Context, id chat.ID, msgs []llms.MessageContent) error {
	if !st.durable(ctx) {
		return st.s.Append(ctx, id, msgs)
	}
	// The run appends with a context that is never done: the context it started with, in its
	// scope, tells whether DBOS is shutting down (see append.go). That context may be done
	// while the workflow goes on — a workflow of the program's own can give a run a context
	// of its own, and cancel it — so whether the workflow was stopped for good is DBOS's to
	// say, by refusing to record the step.
	s, _ := ctx.Value(scopeKey{}).(*scope)
	stopping := func() bool { return s != nil && st.e.stopping(s.run) }
	if stopping() {
		return nil // the process stops: the workflow's next execution appends
	}
	appended, err := st.appendStep(ctx, id, msgs)
	if !errors.Is(err, dbos.ErrWorkflowCancelled) && !errors.Is(err, dbos.ErrConflictingWorkflowID) {
		return err
	}
	// The workflow was stopped, or taken by another execution: the step was not recorded.
	if stopping() {
		return nil // it stopped during the step
	}
	return st.appendStopped(ctx, id, msgs, appended, s != nil && s.run.Err() != nil)
}

func (st *store) State(ctx context.Context, id chat.ID) ([]byte, error) {
	if !st.durable(ctx) {
		return st.s.State(ctx, id)
	}
	return st.state(ctx, id, "chat/state")
}

func (st *store) state(ctx context.Context, id chat.ID, name string) ([]byte, error) {
	w, err := st.step(ctx, name, func(ctx context.Context) wireChat {
		state, err := st.s.State(ctx, id)
		return wireChat{State: state, Err: recordError(err)}
	})
	return w.State, err
}

func (st *store) SetState(ctx context.Context, id chat.ID, state []byte) error {
	if !st.durable(ctx) {
		return st.s.SetState(ctx, id, state)
	}
	_, err := st.step(ctx, "chat/set_state", func(ctx context.Context) wireChat {
		return wireChat{Err: recordError(st.s.SetState(ctx, id, state))}
	})
	return err
}

// TakeState, in a durable run, reads the state and then removes it, each a step: taking it
// whole in one step would, in an execution that died before recording it, leave the next
// execution nothing to take.
func (st *store) TakeState(ctx context.Context, id chat.ID) ([]byte, error) {
	if !st.durable(ctx) {
		return st.s.TakeState(ctx, id)
	}
	state, err := st.state(ctx, id, "chat/take_state")
	if err != nil || len(state) == 0 {
		return state, err
	}
	_, err = st.step(ctx, "chat/remove_state", func(ctx context.Context) wireChat {
		return wireChat{Err: recordError(st.s.SetState(ctx, id, nil))}
	})
	return state, err
}

// TakeStateIf, in a durable run, reads the state, a step whose record decides the answer, and
// when it is want removes it with the store's TakeStateIf of exactly those bytes, another step:
// a state that is not want is never removed, and a replay answers as the execution that read
// it did. The removal's own answer is not the run's: an execution that died after the store
// removed the state but before the step was recorded runs the removal again, finds no state,
// and must still go on with the state it read. So of several durable runs taking one state at
// once more than one may get true, as with TakeState: a pause in a chat kept this way is
// resumed once because Engine.Resume starts its continuation once.
func (st *store) TakeStateIf(ctx context.Context, id chat.ID, want []byte) (bool, error) {
	if !st.durable(ctx) {
		return st.s.TakeStateIf(ctx, id, want)
	}
	state, err := st.state(ctx, id, "chat/take_state_if")
	if err != nil || len(want) == 0 || !bytes.Equal(state, want) {
		return false, err
	}
	_, err = st.step(ctx, "chat/remove_state_if", func(ctx context.Context) wireChat {
		_, err := st.s.TakeStateIf(ctx, id, state)
		return wireChat{Err: recordError(err)}
	})
	return err == nil, err
}

func (st *store) List(ctx context.Context, tenant string) ([]chat.Info, error) {
	return st.s.List(ctx, tenant)
}

func (st *store) Delete(ctx context.Context, id chat.ID) error { return st.s.Delete(ctx, id) }
