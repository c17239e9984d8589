package agui

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/cadrehq/cadre/internal/answer"
	"github.com/cadrehq/cadre/pkg/assistant"
	"github.com/cadrehq/cadre/pkg/model"
	"github.com/cadrehq/cadre/pkg/tool"
	"github.com/cadrehq/cadre/pkg/usage"
	"github.com/tmc/langchaingo/llms"
)

// The names of the CUSTOM events a handler writes, so that a front end can draw a run's tree
// with its requests and their cost. Each event's SubagentRunID names the delegated run it
// belongs to ("" for the top run); its Value is a JSON object:
//
//   - CustomRequest, before each model request: runId, assistant, model (its llm.yaml name),
//     provider, attempt (1 for the run's first request), and, when the request asks again,
//     correction (why the last answer could not be used).
//   - CustomUsage, after each model request: runId, assistant, model, provider, durationMs,
//     inputTokens, outputTokens, cacheReadTokens, cacheWriteTokens, reasoningTokens, cost
//     (with WithPrices, in the prices' currency) and error (the request's error text).
//   - CustomFallback, when a request goes to another model, or to the same model in another
//     output form, after one failed: runId, assistant, model (the one asked now), kind
//     ("model", or "output" for a schema the provider refused in native form) and error.
//   - CustomCorrection, when the run asks the model again for an answer it could use: runId,
//     assistant, model, reason.
const (
	CustomRequest    = "cadre.request"
	CustomUsage      = "cadre.usage"
	CustomFallback   = "cadre.fallback"
	CustomCorrection = "cadre.correction"
)

// stream writes one request's events; its methods are safe for concurrent use. Nothing is
// written before start: an error before the run starts can still get an HTTP status.
type stream struct {
	mu      sync.Mutex
	hw      http.ResponseWriter
	w       *Writer
	started bool
	err     error   // the first write error: the client is gone, and nothing more is written
	begin   Event   // RUN_STARTED, written by start
	pre     []Event // written after RUN_STARTED: the results of calls refused at resume

	prices  map[string]model.Price
	top     string            // the top run's id, once it started
	text    map[string]string // run id -> the text message open in it
	texted  map[string]bool   // run id -> its last request wrote text
	given   map[string]bool   // run id -> its last request's text was written from its reply
	subs    map[string]bool   // the delegated runs started in this stream
	callRun map[string]string // tool call id -> the run that made it, for the calls of this stream
	models  map[string]string // model name -> provider, for RUN_FINISHED's usage
	results map[callKey]bool  // the calls whose result was written
	paused  map[callKey]bool  // the calls whose delegated run paused: their result comes at resume
}

func newStream(w http.ResponseWriter, begin Event, prices map[string]model.Price) *stream {
	return &stream{hw: w, begin: begin, prices: prices,
		text: map[string]string{}, texted: map[string]bool{}, given: map[string]bool{}, subs: map[string]bool{},
		callRun: map[string]string{}, models: map[string]string{}, results: map[callKey]bool{}, paused: map[callKey]bool{}}
}

// start writes the stream's headers and RUN_STARTED, once; s.mu is held.
func (s *stream) start() {
	if s.started {
		return
	}
	s.started = true
	s.w = NewWriter(s.hw)
	s.hw.WriteHeader(http.StatusOK)
	s.writeLocked(s.begin)
	for _, e := range s.pre {
		s.writeLocked(e)
	}
}

func (s *stream) writeLocked(e Event) {
	s.start()
	if s.err == nil {
		s.err = s.w.Write(e)
	}
}

// sub is the SubagentRunID of run's events: "" for the top run.
func (s *stream) sub(run string) string {
	if run == s.top {
		return ""
	}
	return run
}

// closeText ends the text message open in run, if any; s.mu is held.
func (s *stream) closeText(run string) {
	if id := s.text[run]; id != "" {
		s.writeLocked(TextMessageEnd{SubagentRunID: s.sub(run), MessageID: id})
		delete(s.text, run)
	}
}

// chunk writes a piece of a run's text, opening a message on the first of a request. A write
// error is not returned: the client is gone, and the request's context ends the run.
func (s *stream) chunk(_ context.Context, c assistant.Chunk) error {
	if c.Text == "" {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if c.ParentRunID != "" && !s.subs[c.RunID] {
		return nil // a run this stream did not see start
	}
	if s.given[c.RunID] {
		return nil // the text of a request that streamed none, written already with its tool calls (turnMessage)
	}
	id := s.text[c.RunID]
	if id == "" {
		id = newID("msg")
		s.text[c.RunID] = id
		s.texted[c.RunID] = true
		s.writeLocked(TextMessageStart{SubagentRunID: s.sub(c.RunID), MessageID: id, Role: RoleAssistant})
	}
	s.writeLocked(TextMessageContent{SubagentRunID: s.sub(c.RunID), MessageID: id, Delta: c.Text})
	return nil
}

// answerText writes the top run's answer as a text message when its last request streamed no
// text — an answer given with final_result — so that the client's conversation holds it.
func (s *stream) answerText(text string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if text == "" || s.texted[s.top] {
		return
	}
	id := newID("msg")
	s.writeLocked(TextMessageStart{MessageID: id, Role: RoleAssistant})
	s.writeLocked(TextMessageContent{MessageID: id, Delta: text})
	s.writeLocked(TextMessageEnd{MessageID: id})
}

// middleware writes what the runs of the tree do: a delegated run as a sub-agent, each model
// request's tool calls once it returned, each tool call's result once it ran, and the CUSTOM
// events of requests.
func (s *stream) middleware() assistant.Middleware {
	return assistant.Middleware{
		Run: func(ctx context.Context, run assistant.RunInfo, next assistant.RunNext) (*assistant.Response, error) {
			if run.Depth == 0 {
				s.mu.Lock()
				s.top = run.RunID
				s.start()
				s.mu.Unlock()
				return next(ctx)
			}
			return s.subagent(ctx, run, next)
		},
		Request:  s.request,
		ToolCall: s.toolCall,
	}
}

// subagent writes a delegated run as a sub-agent: SUBAGENT_STARTED with the tool call that
// delegated to it, and SUBAGENT_FINISHED (suspended when it paused) or SUBAGENT_ERROR.
func (s *stream) subagent(ctx context.Context, run assistant.RunInfo, next assistant.RunNext) (*assistant.Response, error) {
	started := SubagentStarted{SubagentRunID: run.RunID, Name: run.Assistant}
	if c, ok := tool.CallOf(ctx); ok {
		started.ParentToolCallID = c.ID
	}
	s.mu.Lock()
	if s.subs[run.ParentRunID] {
		started.ParentSubagentRunID = run.ParentRunID
	}
	if run.ParentRunID != s.top && !s.subs[run.ParentRunID] {
		s.mu.Unlock()
		return next(ctx) // under a run this stream does not show
	}
	s.subs[run.RunID] = true
	s.writeLocked(started)
	s.mu.Unlock()

	resp, err := next(ctx)

	s.mu.Lock()
	defer s.mu.Unlock()
	s.closeText(run.RunID)
	switch {
	case err != nil:
		s.writeLocked(SubagentError{SubagentRunID: run.RunID, Message: err.Error()})
	case resp.Stop == assistant.StopPending && resp.Paused != nil:
		if started.ParentToolCallID != "" {
			s.paused[callKey{run.ParentRunID, started.ParentToolCallID}] = true
		}
		var ids []string
		for _, c := range resp.Paused.Waiting() {
			ids = append(ids, c.ID)
		}
		s.writeLocked(SubagentFinished{SubagentRunID: run.RunID, Outcome: &SubagentOutcome{Type: SubagentSuspended, InterruptIDs: ids}})
	default:
		s.writeLocked(SubagentFinished{SubagentRunID: run.RunID, Result: jsonOrText(resp.Text), Outcome: &SubagentOutcome{Type: SubagentSuccess}})
	}
	return resp, err
}

// request writes CUSTOM events around one model request and, once it returned, closes the
// run's text message and writes the reply's tool calls (final_result is the run's answer, not
// a tool the client knows, and is left out).
func (s *stream) request(ctx context.Context, req *assistant.ModelRequest, next assistant.RequestNext) (model.Reply, error) {
	s.mu.Lock()
	shown := req.RunID == s.top || s.subs[req.RunID]
	sub := s.sub(req.RunID)
	if shown {
		s.closeText(req.RunID)
		s.texted[req.RunID], s.given[req.RunID] = false, false
		s.models[req.Model.Name] = req.Model.Provider
		base := map[string]any{"runId": req.RunID, "assistant": req.Assistant, "model": req.Model.Name}
		if req.Fallback != nil {
			kind := "model"
			if errors.Is(req.Fallback, model.ErrOutputSchema) {
				kind = "output"
			}
			s.writeLocked(Custom{SubagentRunID: sub, Name: CustomFallback, Value: with(base, "kind", kind, "error", req.Fallback.Error())})
		}
		if req.Correction != nil {
			s.writeLocked(Custom{SubagentRunID: sub, Name: CustomCorrection, Value: with(base, "reason", req.Correction.Error())})
		}
		v := with(base, "provider", req.Model.Provider, "attempt", req.Attempt)
		if req.Correction != nil {
			v["correction"] = req.Correction.Error()
		}
		s.writeLocked(Custom{SubagentRunID: sub, Name: CustomRequest, Value: v})
	}
	s.mu.Unlock()
	if !shown {
		return next(ctx, req)
	}

	began := time.Now()
	reply, err := next(ctx, req)

	s.mu.Lock()
	defer s.mu.Unlock()
	u := reply.Usage
	v := map[string]any{"runId": req.RunID, "assistant": req.Assistant, "model": req.Model.Name, "provider": req.Model.Provider,
		"durationMs":  time.Since(began).Milliseconds(),
		"inputTokens": u.InputTokens, "outputTokens": u.OutputTokens, "cacheReadTokens": u.CacheReadTokens,
		"cacheWriteTokens": u.CacheWriteTokens, "reasoningTokens": u.ReasoningTokens}
	if p, ok := s.prices[req.Model.Name]; ok {
		v["cost"] = p.Cost(u)
	}
	if err != nil {
		v["error"] = err.Error()
	}
	s.writeLocked(Custom{SubagentRunID: sub, Name: CustomUsage, Value: v})
	if err != nil {
		return reply, err
	}
	parent := s.text[req.RunID]
	s.closeText(req.RunID)
	calls := slices.DeleteFunc(slices.Clone(reply.ToolCalls), func(c llms.ToolCall) bool {
		return c.FunctionCall == nil || c.FunctionCall.Name == answer.Tool
	})
	if len(calls) > 0 && parent == "" {
		parent = s.turnMessage(req.RunID, reply.Text)
	}
	for _, c := range calls {
		s.callRun[c.ID] = req.RunID
		s.writeLocked(ToolCallStart{SubagentRunID: sub, ToolCallID: c.ID, ToolCallName: c.FunctionCall.Name, ParentMessageID: parent})
		if c.FunctionCall.Arguments != "" {
			s.writeLocked(ToolCallArgs{SubagentRunID: sub, ToolCallID: c.ID, Delta: c.FunctionCall.Arguments})
		}
		s.writeLocked(ToolCallEnd{SubagentRunID: sub, ToolCallID: c.ID})
	}
	return reply, nil
}

// turnMessage returns a message id for the tool calls of a request of run that streamed no
// text to name as their parentMessageId; s.mu is held. HttpAgent keeps the calls naming one
// parentMessageId in one assistant message, and puts a call naming none in a message of its
// own: the calls of one turn would come back in the next request's history as several turns.
// When the reply has text, which a model client that does not stream gives whole only after
// the request, the text is written now as that message, before its calls, and its chunk is
// dropped.
func (s *stream) turnMessage(run, text string) string {
	id := newID("msg")
	if text == "" {
		return id
	}
	sub := s.sub(run)
	s.writeLocked(TextMessageStart{SubagentRunID: sub, MessageID: id, Role: RoleAssistant})
	s.writeLocked(TextMessageContent{SubagentRunID: sub, MessageID: id, Delta: text})
	s.writeLocked(TextMessageEnd{SubagentRunID: sub, MessageID: id})
	s.texted[run], s.given[run] = true, true
	return id
}

// toolCall writes a call's result once it ran: its text, or "error: " and the error's text,
// as the model is sent it.
func (s *stream) toolCall(ctx context.Context, call assistant.ToolCall, next assistant.ToolCallNext) (string, error) {
	out, err := next(ctx, call)
	content := out
	if err != nil {
		content = "error: " + err.Error()
	}
	s.result(call.RunID, call.ID, content)
	return out, err
}

// result writes TOOL_CALL_RESULT for a call of run, once per call, and none for a call whose
// delegated run paused: the run's resume writes its result.
func (s *stream) result(run, callID, content string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := callKey{run, callID}
	if s.results[k] || s.paused[k] || (run != s.top && !s.subs[run]) {
		return
	}
	s.results[k] = true
	s.writeLocked(ToolCallResult{SubagentRunID: s.sub(run), MessageID: newID("tool"), ToolCallID: callID, Content: Content{Text: content}, Role: RoleTool})
}

// callKey is a call of a run: models name their calls, and two models of a tree may give
// two calls one id.
type callKey struct{ run, call string }

// tokenUsage is a run's usage by model, as RUN_FINISHED and RUN_ERROR carry it.
func (s *stream) tokenUsage(r usage.Report) []TokenUsage {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []TokenUsage
	for _, name := range sortedKeys(r.ByModel) {
		u := r.ByModel[name]
		out = append(out, TokenUsage{Provider: s.models[name], Model: name,
			InputTokens: int64(u.InputTokens), OutputTokens: int64(u.OutputTokens), TotalTokens: int64(u.TotalTokens()),
			ReasoningTokens: int64(u.ReasoningTokens), CachedInputTokens: int64(u.CacheReadTokens), CacheWriteInputTokens: int64(u.CacheWriteTokens)})
	}
	return out
}

// with returns a copy of m with the given keys and values added.
func with(m map[string]any, kv ...any) map[string]any {
	out := make(map[string]any, len(m)+len(kv)/2)
	for k, v := range m {
		out[k] = v
	}
	for i := 0; i+1 < len(kv); i += 2 {
		out[kv[i].(string)] = kv[i+1]
	}
	return out
}

// jsonOrText is text as a JSON value when it is one, and as a string otherwise.
func jsonOrText(text string) any {
	if json.Valid([]byte(text)) {
		return json.RawMessage(text)
	}
	return text
}

// newID returns a fresh id with the given prefix.
func newID(prefix string) string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return prefix + "_" + hex.EncodeToString(b[:])
}
