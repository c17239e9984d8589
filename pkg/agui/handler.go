package agui

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"

	"github.com/cadrehq/cadre/pkg/assistant"
	"github.com/cadrehq/cadre/pkg/model"
	"github.com/tmc/langchaingo/llms"
)

// DefaultMaxBody is the largest request body a handler reads unless WithMaxBody says
// otherwise: 4 MiB.
const DefaultMaxBody = 4 << 20

// Option configures a handler made by [NewHandler].
type Option func(*handlerConfig)

type handlerConfig struct {
	maxBody int64
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

// NewHandler returns an http.Handler that runs a for each RunAgentInput POSTed to it and
// answers with the run's events as server-sent events.
//
// A request that is not a POST gets 405. A body that [DecodeInput] refuses, or whose
// conversation cannot be given to the assistant (it does not end with a user message, or a
// message holds media parts), gets 400 with the error's text as text/plain, before any event.
// Otherwise the last user message's text is the run's prompt and the messages before it its
// history: a user message as a human turn, an assistant message as one AI turn holding its
// text and its tool calls, a tool message as one tool turn answering its call, a system or
// developer message as a system turn; reasoning and activity messages are not sent.
//
// The stream is RUN_STARTED; then, in the order they happen, the text of each model request
// of the run as one TEXT_MESSAGE_START, CONTENT..., END message, and each tool call the run
// makes as TOOL_CALL_START, TOOL_CALL_ARGS (the whole arguments) and TOOL_CALL_END before the
// tool runs and TOOL_CALL_RESULT once it returned (an error's result is "error: " and its
// text, as the model is sent); and last RUN_FINISHED with the run's output as its result and
// a success outcome, or RUN_ERROR with the error's text when the run fails. The events of
// the runs a delegates to are not written yet. The run's context is the request's: a client
// that goes away cancels the run.
func NewHandler[O any](a *assistant.Assistant[O], opts ...Option) http.Handler {
	cfg := handlerConfig{maxBody: DefaultMaxBody}
	for _, o := range opts {
		if o != nil {
			o(&cfg)
		}
	}
	return &handler[O]{a: a, cfg: cfg}
}

type handler[O any] struct {
	a   *assistant.Assistant[O]
	cfg handlerConfig
}

func (h *handler[O]) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
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
	prompt, history, err := conversation(in.Messages)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	s := &stream{w: NewWriter(w)}
	s.write(RunStarted{ThreadID: in.ThreadID, RunID: in.RunID, ParentRunID: in.ParentRunID})
	res, err := h.a.Run(r.Context(), assistant.Input{
		Prompt:  prompt,
		History: history,
		Options: []assistant.Option{assistant.WithStream(s.chunk), assistant.WithMiddleware(s.middleware())},
	})
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closeText()
	if err != nil {
		s.writeLocked(RunError{Message: err.Error()})
		return
	}
	s.writeLocked(RunFinished{ThreadID: in.ThreadID, RunID: in.RunID, Result: res.Output, Outcome: &Outcome{Type: OutcomeSuccess}})
}

// stream writes one run's events; its methods are safe for concurrent use.
type stream struct {
	mu    sync.Mutex
	w     *Writer
	err   error  // the first write error: the client is gone, and nothing more is written
	top   string // the top run's id, once it started
	msgID string // the text message open, "" for none
}

func (s *stream) write(e Event) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.writeLocked(e)
}

func (s *stream) writeLocked(e Event) {
	if s.err == nil {
		s.err = s.w.Write(e)
	}
}

// closeText ends the open text message, if any; s.mu is held.
func (s *stream) closeText() {
	if s.msgID != "" {
		s.writeLocked(TextMessageEnd{MessageID: s.msgID})
		s.msgID = ""
	}
}

// chunk writes a piece of the top run's text, opening a message on the first of a request.
// A write error is not returned: the client is gone, and the request's context ends the run.
func (s *stream) chunk(_ context.Context, c assistant.Chunk) error {
	if c.ParentRunID != "" || c.Text == "" {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.msgID == "" {
		s.msgID = newID("msg")
		s.writeLocked(TextMessageStart{MessageID: s.msgID, Role: RoleAssistant})
	}
	s.writeLocked(TextMessageContent{MessageID: s.msgID, Delta: c.Text})
	return nil
}

// middleware observes the top run: a request closes the text message of the one before (a
// client that does not stream gives its text after its request returns), and a tool call is
// written before it runs and its result after.
func (s *stream) middleware() assistant.Middleware {
	return assistant.Middleware{
		Run: func(ctx context.Context, run assistant.RunInfo, next assistant.RunNext) (*assistant.Response, error) {
			if run.Depth == 0 {
				s.mu.Lock()
				s.top = run.RunID
				s.mu.Unlock()
			}
			return next(ctx)
		},
		Request: func(ctx context.Context, req *assistant.ModelRequest, next assistant.RequestNext) (model.Reply, error) {
			s.mu.Lock()
			if req.RunID == s.top {
				s.closeText()
			}
			s.mu.Unlock()
			return next(ctx, req)
		},
		ToolCall: func(ctx context.Context, call assistant.ToolCall, next assistant.ToolCallNext) (string, error) {
			s.mu.Lock()
			top := call.RunID == s.top
			if top {
				s.closeText()
				s.writeLocked(ToolCallStart{ToolCallID: call.ID, ToolCallName: call.Tool})
				s.writeLocked(ToolCallArgs{ToolCallID: call.ID, Delta: call.Arguments})
				s.writeLocked(ToolCallEnd{ToolCallID: call.ID})
			}
			s.mu.Unlock()
			out, err := next(ctx, call)
			if top {
				content := out
				if err != nil {
					content = "error: " + err.Error()
				}
				s.write(ToolCallResult{MessageID: newID("tool"), ToolCallID: call.ID, Content: Content{Text: content}, Role: RoleTool})
			}
			return out, err
		},
	}
}

// newID returns a fresh id with the given prefix.
func newID(prefix string) string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return prefix + "_" + hex.EncodeToString(b[:])
}

// conversation splits msgs into the prompt, the last user message's text, and the history
// before it, in cadre's shape.
func conversation(msgs []Message) (string, []llms.MessageContent, error) {
	last := len(msgs) - 1
	if last < 0 || msgs[last].Role != RoleUser {
		return "", nil, fmt.Errorf("%w: the conversation does not end with a user message", ErrInvalidInput)
	}
	prompt, err := text(msgs[last])
	if err != nil {
		return "", nil, err
	}
	names := map[string]string{} // tool call id -> tool name, for the tool messages
	var history []llms.MessageContent
	for _, m := range msgs[:last] {
		switch m.Role {
		case RoleUser:
			t, err := text(m)
			if err != nil {
				return "", nil, err
			}
			history = append(history, llms.TextParts(llms.ChatMessageTypeHuman, t))
		case RoleSystem, RoleDeveloper:
			history = append(history, llms.TextParts(llms.ChatMessageTypeSystem, m.Content.Text))
		case RoleAssistant:
			ai := llms.MessageContent{Role: llms.ChatMessageTypeAI}
			if m.Content.Text != "" {
				ai.Parts = append(ai.Parts, llms.TextContent{Text: m.Content.Text})
			}
			for _, c := range m.ToolCalls {
				names[c.ID] = c.Function.Name
				ai.Parts = append(ai.Parts, llms.ToolCall{ID: c.ID, Type: "function",
					FunctionCall: &llms.FunctionCall{Name: c.Function.Name, Arguments: c.Function.Arguments}})
			}
			if len(ai.Parts) > 0 {
				history = append(history, ai)
			}
		case RoleTool:
			t, err := text(m)
			if err != nil {
				return "", nil, err
			}
			history = append(history, llms.MessageContent{Role: llms.ChatMessageTypeTool, Parts: []llms.ContentPart{
				llms.ToolCallResponse{ToolCallID: m.ToolCallID, Name: names[m.ToolCallID], Content: t},
			}})
		}
	}
	return prompt, history, nil
}

// text is the text of a user or tool message: its string, or its text parts joined by
// newlines. A media part is refused for now.
func text(m Message) (string, error) {
	if m.Content.Parts == nil {
		return m.Content.Text, nil
	}
	texts := make([]string, 0, len(m.Content.Parts))
	for _, p := range m.Content.Parts {
		if p.Type != PartText {
			return "", fmt.Errorf("%w: message %q: %s parts are not supported yet", ErrInvalidInput, m.ID, p.Type)
		}
		texts = append(texts, p.Text)
	}
	return strings.Join(texts, "\n"), nil
}
