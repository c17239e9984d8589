package agui

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/cadrehq/cadre/internal/hostguard"
	"github.com/cadrehq/cadre/pkg/assistant"
	"github.com/cadrehq/cadre/pkg/chat"
	"github.com/cadrehq/cadre/pkg/model"
)

// DefaultMaxBody is the largest request body a handler reads unless WithMaxBody says
// otherwise: 4 MiB.
const DefaultMaxBody = 4 << 20

// MaxMemoryPauses is how many paused runs a handler without a store keeps in memory; making
// one more forgets the oldest, whose thread can then only start again.
const MaxMemoryPauses = 10000

// Option configures a handler made by [NewHandler].
type Option func(*handlerConfig)

type handlerConfig struct {
	maxBody  int64
	store    chat.Store
	identity func(ctx context.Context) (tenant, user string, err error)
	prices   map[string]model.Price
	guard    hostguard.Guard
}

// WithMaxBody sets the largest request body, in bytes, the handler reads; a larger one is
// refused with 400 before the run starts. n <= 0 keeps [DefaultMaxBody].
func WithMaxBody(n int64) Option {
	return func(c *handlerConfig) {
		if n > 0 {
			c.maxBody = n
		}
	}
}

// WithStore keeps each thread in s, as the chat of the caller's identity (see WithIdentity)
// named by the threadId: its messages, which the handler then takes from the store rather
// than from the client, and its paused run, which any process sharing s can resume, exactly
// once. The assistant runs with assistant.WithStore(s).
func WithStore(s chat.Store) Option {
	return func(c *handlerConfig) { c.store = s }
}

// WithIdentity gives each request's thread an owner: f returns the caller's tenant and user,
// from the request's context (mcpauth.ClaimIdentity reads them from the claims of the bearer
// token mcpauth.Authorizer.Protect checked). A thread is then the caller's own: the same
// threadId of another caller is another thread. An error from f refuses the request with 403
// and the error's text, before anything runs.
func WithIdentity(f func(ctx context.Context) (tenant, user string, err error)) Option {
	return func(c *handlerConfig) { c.identity = f }
}

// WithPrices prices the usage of each model request in the CustomUsage events, by model name
// (llmfactory's Factory.Prices gives them).
func WithPrices(prices map[string]model.Price) Option {
	return func(c *handlerConfig) { c.prices = prices }
}

// NewHandler returns an http.Handler that serves a as an AG-UI endpoint: it runs a for each
// RunAgentInput POSTed to it and answers with the run's events as server-sent events.
//
// # Requests
//
// Only a request whose Host is a loopback name, or one WithAllowedHosts names, is served, and
// only from a page of a loopback origin or one WithAllowedOrigins names (a request without an
// Origin, from a program, passes): others get 403, so that a page of another site, or one
// reached through DNS rebinding, cannot run the assistant or approve its calls. An allowed
// origin gets the CORS headers, and its preflight (OPTIONS) 204. Beyond loopback the handler
// checks no caller: put it behind mcpauth.Authorizer.Protect, with WithIdentity.
//
// A request that is not a POST gets 405. A body that [DecodeInput] refuses, or that the
// thread cannot take (no new user message, media parts, a resume of an interrupt the thread
// does not wait for: see [ErrUnknownInterrupt]), gets 400 with the error's text as text/plain,
// before any event; a second request on a thread while a run of it goes on in this handler
// gets 409, and so does a resume another process took first.
//
// # The conversation
//
// The new part of the client's conversation is what follows its last assistant message:
// its last user message is the run's prompt, and its tool messages answer the calls of the
// client's tools. Without a store, the messages before the prompt are the run's history.
// With one (WithStore), a thread the store holds is continued from the store, and the
// client's older messages are not read (new user messages are joined into the prompt); a
// thread it does not hold yet starts with the client's messages, which are kept. Messages of
// sub-agents (SubagentRunID set) are not part of the conversation.
//
// The client's tools (RunAgentInput.Tools) are offered to the assistant's model for the run,
// beside its own. A call of one does not run here: the run ends with a success outcome
// listing the call among its PendingToolCallIDs, and the next request's tool message
// answering it resumes the run with its content as the call's result.
//
// # The stream
//
// The stream is RUN_STARTED; then, in the order they happen, the text of each model request
// as a text message; each tool call the model makes (final_result aside) as TOOL_CALL_START,
// ARGS (the whole arguments) and END once its request returned, the calls of one request
// naming one parentMessageId, the request's text message (so that the client holds the turn
// as one assistant message), and TOOL_CALL_RESULT once it ran (an error's result is "error: "
// and its text, as the model is sent it; a call whose delegated run paused gets its result
// when the run resumes); each run a
// delegates to as a sub-agent, SUBAGENT_STARTED with the call that delegated to it to
// SUBAGENT_FINISHED with its result (suspended, naming the calls it waits for, when it
// paused) or SUBAGENT_ERROR, its events carrying its SubagentRunID; CUSTOM events for each
// model request and its usage, fallbacks and corrections (see [CustomRequest]); and last
// RUN_FINISHED or RUN_ERROR, both with the usage of the run's tree by model. An answer given
// as a final_result call rather than as text is written as a text message before RUN_FINISHED,
// so that the client's conversation holds it. RUN_FINISHED carries the run's output as its
// result and a success outcome; when the run paused, an interrupt outcome with an interrupt
// for each call waiting for a person (its ID and ToolCallID the call's ID, Reason
// [ReasonApproval], ResponseSchema [ApprovalSchema]), or, when only the client's tools wait, a
// success outcome with their pending call ids.
//
// A paused run is kept with its thread: in the store, or without one in memory (at most
// [MaxMemoryPauses], lost when the process ends). The next request's resume entries decide
// its interrupts — resolved with {"approved": true} runs the call, {"approved": false,
// "reason": "..."} or cancelled refuses it — and its tool messages answer the client's calls;
// the run resumes once (assistant.Resume), and what still waits pauses it again.
//
// The run's context is the request's: a client that goes away cancels the run and the runs
// it delegated to. It holds the request's RunAgentInput ([InputFrom]), whose State, Context
// and ForwardedProps the handler leaves to the assistant's tools and vars function.
func NewHandler[O any](a *assistant.Assistant[O], opts ...Option) http.Handler {
	cfg := handlerConfig{maxBody: DefaultMaxBody, guard: hostguard.Guard{Methods: "POST"}}
	for _, o := range opts {
		if o != nil {
			o(&cfg)
		}
	}
	return &handler[O]{a: a, cfg: cfg, running: map[string]bool{}, pauses: map[string]*assistant.Paused{}}
}

type handler[O any] struct {
	a   *assistant.Assistant[O]
	cfg handlerConfig

	mu      sync.Mutex
	running map[string]bool              // threads with a run in progress
	pauses  map[string]*assistant.Paused // without a store: the threads' paused runs
	order   []string                     // the keys of pauses, oldest first
}

func (h *handler[O]) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !h.cfg.check(w, r) {
		return
	}
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", "POST, OPTIONS")
		http.Error(w, "agui: method "+r.Method+" is not allowed; POST a RunAgentInput", http.StatusMethodNotAllowed)
		return
	}
	in, err := DecodeInput(http.MaxBytesReader(w, r.Body, h.cfg.maxBody))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			err = fmt.Errorf("%w: the body is larger than %d bytes", ErrInvalidInput, tooBig.Limit)
		}
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	ctx := withInput(r.Context(), in)
	id := chat.ID{Chat: in.ThreadID}
	if h.cfg.identity != nil {
		id.Tenant, id.User, err = h.cfg.identity(ctx)
		if err != nil {
			http.Error(w, "agui: the caller's identity: "+err.Error(), http.StatusForbidden)
			return
		}
	}
	key := id.String()
	if !h.lock(key) {
		http.Error(w, fmt.Sprintf("agui: thread %q has a run in progress: wait for its RUN_FINISHED", in.ThreadID), http.StatusConflict)
		return
	}
	release := sync.OnceFunc(func() { h.unlock(key) })
	defer release()

	tools, names, err := frontendTools(in.Tools)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	s := newStream(w, RunStarted{ThreadID: in.ThreadID, RunID: in.RunID, ParentRunID: in.ParentRunID}, h.cfg.prices)
	opts := []assistant.Option{assistant.WithStream(s.chunk), assistant.WithMiddleware(s.middleware())}
	if len(tools) > 0 {
		opts = append(opts, assistant.WithTools(tools...), assistant.WithApproval(pending, names...))
	}
	if h.cfg.store != nil {
		opts = append(opts, assistant.WithStore(h.cfg.store))
		ctx = chat.WithID(ctx, id)
	}

	paused, err := h.paused(ctx, id, key)
	if err != nil {
		http.Error(w, err.Error(), http.StatusServiceUnavailable)
		return
	}
	var res *assistant.Result[O]
	if paused != nil {
		res, err = h.resume(ctx, w, s, in, key, paused, names, opts)
	} else {
		res, err = h.run(ctx, w, in, id, opts)
	}
	if errors.Is(err, errAnswered) {
		return
	}
	h.finish(s, in, key, names, res, err, release)
}

// errAnswered: the request was answered with an HTTP error before the stream.
var errAnswered = errors.New("answered")

// run starts a run on the thread's new user message.
func (h *handler[O]) run(ctx context.Context, w http.ResponseWriter, in *RunAgentInput, id chat.ID, opts []assistant.Option) (*assistant.Result[O], error) {
	if len(in.Resume) > 0 {
		http.Error(w, fmt.Sprintf("%v: resume[0] answers interrupt %q, but thread %q has no run waiting", ErrUnknownInterrupt, in.Resume[0].InterruptID, in.ThreadID), http.StatusBadRequest)
		return nil, errAnswered
	}
	kept := false
	if h.cfg.store != nil {
		msgs, err := h.cfg.store.Load(ctx, id)
		if err != nil && !errors.Is(err, chat.ErrNotFound) {
			http.Error(w, fmt.Sprintf("agui: reading thread %q: %v", in.ThreadID, err), http.StatusServiceUnavailable)
			return nil, errAnswered
		}
		kept = len(msgs) > 0
	}
	t, err := readTurn(in.Messages, kept)
	if err == nil && t.prompt == "" {
		err = invalid("no new user message: the messages after the last assistant message hold none")
	}
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return nil, errAnswered
	}
	if h.cfg.store != nil && !kept && len(t.history) > 0 {
		if err := h.cfg.store.Append(ctx, id, t.history); err != nil {
			http.Error(w, fmt.Sprintf("agui: keeping thread %q: %v", in.ThreadID, err), http.StatusServiceUnavailable)
			return nil, errAnswered
		}
		t.history = nil
	}
	return h.a.Run(ctx, assistant.Input{Prompt: t.prompt, History: t.history, Options: opts})
}

// resume continues the thread's paused run with the request's decisions.
func (h *handler[O]) resume(ctx context.Context, w http.ResponseWriter, s *stream, in *RunAgentInput, key string, p *assistant.Paused, names []string, opts []assistant.Option) (*assistant.Result[O], error) {
	t, err := readTurn(in.Messages, true)
	if err == nil && t.prompt != "" {
		err = invalid("thread %q waits for %s: answer it before a new user message", in.ThreadID, waitingFor(p))
	}
	var decisions map[string]assistant.Decision
	if err == nil {
		decisions, err = decide(p, p.Assistant, names, in.Resume, t.results)
	}
	if err == nil && len(decisions) == 0 {
		err = invalid("thread %q waits for %s: resume its interrupts, or answer its tool calls with tool messages", in.ThreadID, waitingFor(p))
	}
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return nil, errAnswered
	}
	if h.cfg.store == nil && !h.take(key, p) {
		http.Error(w, fmt.Sprintf("agui: thread %q: %v", in.ThreadID, assistant.ErrNotPaused), http.StatusConflict)
		return nil, errAnswered
	}
	for id, d := range decisions {
		if d.Verdict == assistant.VerdictDeny {
			s.pre = append(s.pre, ToolCallResult{MessageID: newID("tool"), ToolCallID: id, Content: Content{Text: d.Told()}, Role: RoleTool})
		}
	}
	return h.a.Resume(ctx, p, decisions, opts...)
}

// finish writes the end of the stream: RUN_ERROR, or RUN_FINISHED with the run's outcome.
// The thread is released (release) before the last event, so that a client sending its next
// request as soon as it reads RUN_FINISHED finds the thread free.
func (h *handler[O]) finish(s *stream, in *RunAgentInput, key string, names []string, res *assistant.Result[O], err error, release func()) {
	s.mu.Lock()
	started := s.started
	s.mu.Unlock()
	if err != nil && !started && errors.Is(err, assistant.ErrNotPaused) {
		http.Error(s.hw, fmt.Sprintf("agui: thread %q: %v", in.ThreadID, err), http.StatusConflict)
		return
	}
	var u []TokenUsage
	if res != nil {
		u = s.tokenUsage(res.Usage)
	}
	if err == nil && res.Stop != assistant.StopPending {
		s.answerText(res.Text)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, run := range sortedKeys(s.text) {
		s.closeText(run)
	}
	if err != nil {
		release()
		s.writeLocked(RunError{Message: err.Error(), Usage: u})
		return
	}
	done := RunFinished{ThreadID: in.ThreadID, RunID: in.RunID, Usage: u, Outcome: &Outcome{Type: OutcomeSuccess}}
	if res.Stop != assistant.StopPending {
		done.Result = res.Output
		release()
		s.writeLocked(done)
		return
	}
	if h.cfg.store == nil {
		h.keep(key, res.Paused)
	}
	clientCalls, waiting := split(res.Paused, res.Paused.Assistant, names)
	if len(waiting) > 0 {
		done.Outcome = &Outcome{Type: OutcomeInterrupt, Interrupts: interruptsOf(waiting, func(id string) string { return s.sub(s.callRun[id]) })}
	} else {
		for _, c := range clientCalls {
			done.Outcome.PendingToolCallIDs = append(done.Outcome.PendingToolCallIDs, c.ID)
		}
	}
	release()
	s.writeLocked(done)
}

// paused returns the thread's paused run, nil when none waits.
func (h *handler[O]) paused(ctx context.Context, id chat.ID, key string) (*assistant.Paused, error) {
	if h.cfg.store == nil {
		h.mu.Lock()
		defer h.mu.Unlock()
		return h.pauses[key], nil
	}
	b, err := h.cfg.store.State(ctx, id)
	if err != nil && !errors.Is(err, chat.ErrNotFound) {
		return nil, fmt.Errorf("agui: reading thread %q: %w", id.Chat, err)
	}
	if len(b) == 0 {
		return nil, nil
	}
	var p assistant.Paused
	if err := json.Unmarshal(b, &p); err != nil {
		return nil, fmt.Errorf("agui: the paused run of thread %q is damaged: %w", id.Chat, err)
	}
	return &p, nil
}

// keep keeps a paused run in memory, forgetting the oldest beyond MaxMemoryPauses.
func (h *handler[O]) keep(key string, p *assistant.Paused) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if _, ok := h.pauses[key]; !ok {
		h.order = append(h.order, key)
	}
	h.pauses[key] = p
	for len(h.order) > MaxMemoryPauses {
		delete(h.pauses, h.order[0])
		h.order = h.order[1:]
	}
}

// take removes the thread's paused run from memory if it is still p, and reports whether it
// did: one resume of a pause goes on.
func (h *handler[O]) take(key string, p *assistant.Paused) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.pauses[key] != p {
		return false
	}
	delete(h.pauses, key)
	h.order = slices.DeleteFunc(h.order, func(k string) bool { return k == key })
	return true
}

func (h *handler[O]) lock(key string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.running[key] {
		return false
	}
	h.running[key] = true
	return true
}

func (h *handler[O]) unlock(key string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	delete(h.running, key)
}

// waitingFor names the calls p waits for.
func waitingFor(p *assistant.Paused) string {
	var calls []string
	for _, c := range p.Waiting() {
		calls = append(calls, fmt.Sprintf("%s (%s)", c.ID, c.Tool))
	}
	if len(calls) == 1 {
		return "call " + calls[0]
	}
	return "calls " + strings.Join(calls, ", ")
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
