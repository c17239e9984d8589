package assistant

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/cadrehq/cadre/pkg/chat"
)

// Resumer is a Runner that continues its paused runs: *Assistant[O] is one. AsTool resumes a
// delegated run that paused through it, so that a hand-written Runner that pauses can be
// resumed too.
type Resumer[O any] interface {
	Runner[O]
	Resume(ctx context.Context, p *Paused, decisions map[string]Decision, opts ...Option) (*Result[O], error)
}

var _ Resumer[string] = (*Assistant[string])(nil)

// Resume continues a paused run (Response.Paused of a run that ended with StopPending) with
// decisions on its waiting calls, by call ID — the calls of runs it delegated to included (see
// Paused.Waiting). It runs the approved calls and the rest of the paused turn, answers denied
// ones with their reason, and goes on; its usage continues the paused run's. The arguments of
// every call that runs are checked again against the tool's schema. A call left without a
// decision (or with VerdictPending) pauses the run again.
//
// With p nil, the paused state is read from the chat of ctx (see WithStore), where a paused
// run in a chat keeps it. An assistant value other than the one that paused may resume it, in
// another process: it must have the same name and the tools of the paused turn.
//
// A paused run kept with a chat, read from it or given as p, is taken from the store in one
// atomic step (chat.Store.TakeStateIf) before any call runs: of any number of Resumes of one
// pause at the same instant, in any number of processes, exactly one goes on, and the others
// return an error wrapping ErrNotPaused. A Paused that is not the chat's pause any more (an
// earlier one, resumed already) fails with ErrNotPaused too, and leaves the chat's pause as it
// is, for its own Resume. A Paused kept outside any chat is the caller's to resume once.
//
// The paused run's per-run options (Input.Options) are not part of its state: give them again
// in opts — an approver given for one run, above all.
func (a *Assistant[O]) Resume(ctx context.Context, p *Paused, decisions map[string]Decision, opts ...Option) (*Result[O], error) {
	if p == nil {
		var err error
		if p, err = a.pausedInChat(ctx); err != nil {
			return nil, err
		}
	}
	if p.Assistant != a.name {
		return nil, fmt.Errorf("assistant %q: the paused run is assistant %q's: resume it with that assistant", a.name, p.Assistant)
	}
	waiting := p.Waiting()
	for id, d := range decisions {
		if !slices.ContainsFunc(waiting, func(c ToolCall) bool { return c.ID == id }) {
			ids := make([]string, len(waiting))
			for i, c := range waiting {
				ids[i] = c.ID
			}
			return nil, fmt.Errorf("assistant %q: no call %q waits for a decision (waiting: %s)", a.name, id, strings.Join(ids, ", "))
		}
		if !d.valid() {
			return nil, fmt.Errorf("assistant %q: the decision for call %q has no verdict (use Approved, Denied, Answered or Pending)", a.name, id)
		}
	}
	plan, err := a.planFor(ctx, opts)
	if err != nil {
		return nil, err
	}
	return plan.resume(ctx, p, decisions)
}

// pausedInChat reads the paused state kept with the chat of ctx; Resume claims it later, once
// the decisions are checked (see plan.claim).
func (a *Assistant[O]) pausedInChat(ctx context.Context) (*Paused, error) {
	id, ok := chat.IDFrom(ctx)
	if !ok || a.plan.cfg.store == nil {
		return nil, fmt.Errorf("assistant %q: nothing to resume: give the paused state, or resume in the chat it paused in (with WithStore)", a.name)
	}
	b, err := a.plan.cfg.store.State(ctx, id)
	if err != nil && !errors.Is(err, chat.ErrNotFound) {
		return nil, within(a.name, err, "reading chat "+id.String(), id.String())
	}
	if len(b) == 0 {
		return nil, fmt.Errorf("assistant %q: chat %s: %w", a.name, id, ErrNotPaused)
	}
	var p Paused
	if err := json.Unmarshal(b, &p); err != nil {
		return nil, fmt.Errorf("assistant %q: the paused run kept with chat %s is damaged: %w", a.name, id, err)
	}
	return &p, nil
}

// claim takes the paused state kept with paused's chat from the store, atomically, so that of
// any number of resumes of one pause exactly one goes on; the others fail with ErrNotPaused.
// It reads the chat's state, checks it is paused's, and takes exactly the bytes it read
// (chat.Store.TakeStateIf): a state of another pause of the chat is never moved, so that a
// resume of that pause, at the same instant, still finds it.
func (p *plan[O]) claim(ctx context.Context, paused *Paused) error {
	id := *paused.Chat
	store := p.cfg.store
	if store == nil {
		return fmt.Errorf("assistant %q: the paused run is kept with chat %s: resume it with an assistant that keeps chats in the same store (WithStore)", p.name, id)
	}
	b, err := store.State(ctx, id)
	if err != nil && !errors.Is(err, chat.ErrNotFound) {
		return fmt.Errorf("assistant %q: reading the paused run of chat %s: %w", p.name, id, err)
	}
	if len(b) == 0 {
		return fmt.Errorf("assistant %q: chat %s: %w", p.name, id, ErrNotPaused)
	}
	var kept Paused
	if err := json.Unmarshal(b, &kept); err != nil || !kept.same(paused) {
		return fmt.Errorf("assistant %q: chat %s: %w: the chat holds another paused run than the one given (resume with Resume(ctx, nil, decisions) to take the chat's)", p.name, id, ErrNotPaused)
	}
	taken, err := store.TakeStateIf(ctx, id, b)
	if err != nil && !errors.Is(err, chat.ErrNotFound) {
		return fmt.Errorf("assistant %q: taking the paused run from chat %s: %w", p.name, id, err)
	}
	if !taken {
		return fmt.Errorf("assistant %q: chat %s: %w", p.name, id, ErrNotPaused)
	}
	return nil
}

// same reports whether p and q are the same pause: of one assistant, at the same turn, with
// the same calls.
func (p *Paused) same(q *Paused) bool {
	if p.Assistant != q.Assistant || p.First != q.First || len(p.Calls) != len(q.Calls) {
		return false
	}
	for i := range p.Calls {
		if p.Calls[i].ID != q.Calls[i].ID || p.Calls[i].Tool != q.Calls[i].Tool {
			return false
		}
	}
	return true
}

// resume continues p: it rebuilds the run, answers the paused turn, and goes on.
func (p *plan[O]) resume(ctx context.Context, paused *Paused, decisions map[string]Decision) (*Result[O], error) {
	msgs, err := chat.UnmarshalMessages(paused.Messages)
	if err == nil && (paused.First < 0 || paused.First >= len(msgs)) {
		err = fmt.Errorf("its user's turn is at %d, out of its %d messages", paused.First, len(msgs))
	}
	if err == nil {
		err = paused.check()
	}
	if err != nil {
		return nil, fmt.Errorf("assistant %q: the paused state is damaged: %w", p.name, err)
	}
	r, err := p.newRun(ctx)
	if err != nil {
		return nil, err
	}
	if paused.Chat != nil {
		if err := p.claim(ctx, paused); err != nil {
			return nil, err
		}
	}
	// A delegated run resumed by its caller: the caller carried the whole paused tree's usage,
	// this run's included, so that it is kept whether or not this run resumes.
	info := resumeFrom(ctx)
	adopted := info != nil && info.paused == paused
	r.msgs, r.first, r.requested = msgs, paused.First, true
	if ctx, err = r.open(ctx); err != nil {
		return nil, err
	}
	defer r.closeTree()
	if adopted {
		r.state.account.Adopt(paused.Usage)
	} else {
		r.state.account.Carry(paused.Usage)
	}
	r.res.Model = paused.Model
	for range paused.Failures {
		r.answers.failures = append(r.answers.failures, errors.New("an earlier answer could not be used"))
	}
	if paused.Chat != nil {
		r.chat.id, r.chat.on = *paused.Chat, true // a new pause keeps a new state
	}
	for i, m := range r.models.chain {
		if slices.Contains(paused.SchemaRefused, m.Name) && r.form(i) == OutputNative {
			if _, err := r.ask(i, p.toolForm(m)); err != nil {
				return nil, err
			}
		}
	}
	r.turn = resumedTurn(paused.Calls, decisions)
	return r.around(ctx, RunInfo{Resumed: true})
}

// check reports what makes a paused state one that cannot be resumed, in it or in the states
// of the delegated runs it holds (their messages are read when they resume).
func (p *Paused) check() error {
	if !p.Usage.AddsUp() {
		return fmt.Errorf("assistant %q: its usage by agent and by model does not add up to its total", p.Assistant)
	}
	for _, c := range p.Calls {
		switch c.State {
		case callWaiting, callApproved, callDenied, callAnswered, callQueued, callDone:
		case callNested:
			if c.Nested == nil {
				return fmt.Errorf("call %q: a paused delegated run without its state", c.ID)
			}
			if err := c.Nested.check(); err != nil {
				return fmt.Errorf("call %q: %w", c.ID, err)
			}
		default:
			return fmt.Errorf("call %q: unknown state %q", c.ID, c.State)
		}
	}
	return nil
}

// resumeTurn answers the paused turn with the decisions, then goes on with the run.
func (r *run[O]) resumeTurn(ctx context.Context) (*Result[O], error) {
	if r.turn.decide() {
		return r.pause(ctx)
	}
	ctx = r.treeContext(ctx)
	out, err := r.runCalls(ctx, r.turn)
	return r.after(ctx, out, err)
}
