package mcpbridge

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/cadrehq/cadre/pkg/assistant"
	"github.com/cadrehq/cadre/pkg/chat"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// The arguments of a prompt registered by AddPrompt.
const (
	argInput  = "input"
	argChatID = "chat_id"
)

// AddPrompt registers prompt a.Name() (description a.Description()) on s, with the arguments
// "input" (required) and "chat_id" (optional). Getting it runs a with Prompt = input and
// returns the user's input and a's answer as prompt messages (user, then assistant).
//
// A get that gives a chat_id runs a in that chat: under chat.WithID(ctx, chat.ID{Tenant,
// User, Chat: chat_id}), with the tenant and the user from WithIdentity ("" without it). An
// assistant with a chat store (assistant.WithStore) then loads the chat's history and records
// the exchange, so that the next get with the same chat_id, on this server or on any server
// sharing the store, continues the conversation; an agent without a store answers as if no
// chat_id were given. A get without a chat_id (or with a blank one) runs a in no chat, whatever
// chat the request's context carries. A chat_id longer than 256 bytes or holding a NUL byte,
// and a caller that WithIdentity's function cannot identify, fail the get before a is run.
//
// A get whose _meta carries a progress token gets notifications/progress as a runs: one per
// step of its run and of the runs it delegates to, with the step as the message ("planner:
// running forecast", in the form of callback.NewProgress) and the number of steps so far as the
// progress; the first ten at once, then at most ten a second. The run gets the callback handler
// that sends them through its Input.Options, for that get alone. A get without a token sends
// none. a runs under the request's context, which ends when the client cancels the get
// (notifications/cancelled) or goes away: the run stops then, with every run it delegated to.
//
// A get without input, or with an argument the prompt does not have, fails with an error that
// says what to give. A failed run fails the get with the run's error; a panic in a is recovered
// and fails the get with an error that says only that an internal error happened (see
// WithErrorHandler). The server keeps serving either way; the bridge relies on no option of s
// for it.
//
// AddPrompt returns an error, and registers nothing, when s or a is nil, when the name is not
// 1 to 128 ASCII letters, digits, '_', '-' or '.', or when s already has a prompt of that name.
// It is meant for setting a server up; a is called from the server's goroutines, concurrently,
// and must be safe for that (an *assistant.Assistant is).
func AddPrompt(s *server.MCPServer, a assistant.Agent, opts ...Option) error {
	if s == nil {
		return errors.New("mcpbridge.AddPrompt: the server is nil")
	}
	if a == nil {
		return errors.New("mcpbridge.AddPrompt: the agent is nil")
	}
	cfg := newConfig(a.Name(), a.Description(), opts)
	if err := validPromptName(cfg.name); err != nil {
		return fmt.Errorf("mcpbridge.AddPrompt: %w", err)
	}
	if _, dup := s.ListPrompts()[cfg.name]; dup {
		return fmt.Errorf("mcpbridge.AddPrompt: the server already has a prompt named %q: register this one under another name with WithName", cfg.name)
	}
	p := mcp.NewPrompt(cfg.name,
		mcp.WithPromptTitle(cfg.title),
		mcp.WithPromptDescription(cfg.description),
		mcp.WithArgument(argInput, mcp.RequiredArgument(),
			mcp.ArgumentDescription("What to ask: the user's turn.")),
		mcp.WithArgument(argChatID,
			mcp.ArgumentDescription("The id of a conversation to continue: gets with the same chat_id are one conversation, when the server keeps chats. Leave it out for a one-off question.")),
	)
	h := &promptHandler{config: cfg, srv: s, agent: a}
	return register("prompt", cfg.name, func() { s.AddPrompt(p, h.handle) })
}

// validPromptName checks a prompt name: MCP clients show it and send it back, so it is kept
// to the characters every client handles.
func validPromptName(name string) error {
	if name == "" || len(name) > 128 {
		return fmt.Errorf("prompt name %q must be 1 to 128 characters long", name)
	}
	for i, c := range name {
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.' {
			continue
		}
		return fmt.Errorf("prompt name %q has %q at byte %d: use only ASCII letters, digits, '_', '-' or '.' (give another name with WithName)", name, c, i)
	}
	return nil
}

type promptHandler struct {
	config
	srv   *server.MCPServer
	agent assistant.Agent
}

func (h *promptHandler) handle(ctx context.Context, req mcp.GetPromptRequest) (res *mcp.GetPromptResult, err error) {
	defer func() {
		if v := recover(); v != nil {
			h.recovered(ctx, v)
			res, err = nil, errors.New(internalError("prompt", h.name))
		}
	}()
	input, chatID, err := h.arguments(req.Params.Arguments)
	var runCtx context.Context
	if err == nil {
		runCtx, err = h.inChat(ctx, chatID)
	}
	if err != nil {
		h.report(ctx, err)
		return nil, err
	}
	progress := newProgress(ctx, h.srv, req.Params.Meta)
	resp, err := h.agent.Call(runCtx, assistant.Input{Prompt: input, Options: progress.options()})
	progress.flush()
	if err == nil && resp == nil {
		err = errors.New("the agent returned no response")
	}
	if err == nil && resp.Stop == assistant.StopPending {
		// An MCP prompt cannot wait for a person: the paused state has nowhere to go.
		err = errors.New("the agent paused for a person's approval of a tool call, which an MCP prompt cannot wait for: serve an agent without WithApproval")
	}
	if err != nil {
		err = fmt.Errorf("prompt %q: %w", h.name, err)
		h.report(ctx, err)
		return nil, err
	}
	return &mcp.GetPromptResult{
		Description: h.description,
		Messages: []mcp.PromptMessage{
			mcp.NewPromptMessage(mcp.RoleUser, mcp.NewTextContent(input)),
			mcp.NewPromptMessage(mcp.RoleAssistant, mcp.NewTextContent(resp.Text)),
		},
	}, nil
}

// arguments checks a get's arguments and returns the user's turn and the chat's id ("" for
// none).
func (h *promptHandler) arguments(args map[string]string) (input, chatID string, err error) {
	var unknown []string
	for k := range args {
		if k != argInput && k != argChatID {
			unknown = append(unknown, fmt.Sprintf("%q", k))
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		return "", "", fmt.Errorf("prompt %q has no argument %s: give %q (required) and %q (optional) and nothing else", h.name, strings.Join(unknown, ", "), argInput, argChatID)
	}
	input = args[argInput]
	if strings.TrimSpace(input) == "" {
		return "", "", fmt.Errorf("prompt %q: the argument %q is required: give the user's turn, what to ask", h.name, argInput)
	}
	if chatID = args[argChatID]; strings.TrimSpace(chatID) == "" {
		chatID = ""
	}
	return input, chatID, nil
}

// inChat returns the context to run the agent under: in the caller's chat chatID, or in no
// chat when chatID is "".
func (h *promptHandler) inChat(ctx context.Context, chatID string) (context.Context, error) {
	if chatID == "" {
		return chat.WithID(ctx, chat.ID{}), nil
	}
	id := chat.ID{Chat: chatID}
	if err := id.Valid(); err != nil {
		return nil, fmt.Errorf("prompt %q: the argument %q: %w: give at most 256 bytes, without NUL bytes", h.name, argChatID, err)
	}
	if h.identity != nil {
		var err error
		if id.Tenant, id.User, err = h.identity(ctx); err != nil {
			return nil, fmt.Errorf("prompt %q: the caller is not identified (%w), so chat %q cannot be continued: leave out %q to ask without a chat", h.name, err, chatID, argChatID)
		}
		if err := id.Valid(); err != nil {
			return nil, fmt.Errorf("prompt %q: the caller's identity cannot name a chat: %w", h.name, err)
		}
	}
	return chat.WithID(ctx, id), nil
}
