package mcpbridge

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/cadrehq/cadre/pkg/assistant"
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
// Continuing a conversation by its chat_id needs a chat store, which the bridge does not have
// yet: a get that gives a chat_id fails with an error that says so. A get without input, or
// with an argument the prompt does not have, fails with an error that says what to give. A
// failed run fails the get with the run's error; a panic in a is recovered and fails the get
// with an error that says only that an internal error happened (see WithErrorHandler). The
// server keeps serving either way; the bridge relies on no option of s for it.
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
			mcp.ArgumentDescription("The id of a conversation to continue. Not supported yet: leave it out to start a new conversation.")),
	)
	h := &promptHandler{config: cfg, agent: a}
	return register("prompt", cfg.name, func() { s.AddPrompt(p, h.handle) })
}

// validPromptName checks a prompt name: MCP clients show it and send it back, so it is kept
// to the characters every client handles.
func validPromptName(name string) error {
	if name == "" || len(name) > 128 {
		return fmt.Errorf("prompt name %q must be 1 to 128 characters long", name)
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.' {
			continue
		}
		return fmt.Errorf("prompt name %q has %q at byte %d: use only letters, digits, '_', '-' or '.' (give another name with WithName)", name, c, i)
	}
	return nil
}

type promptHandler struct {
	config
	agent assistant.Agent
}

func (h *promptHandler) handle(ctx context.Context, req mcp.GetPromptRequest) (res *mcp.GetPromptResult, err error) {
	defer func() {
		if v := recover(); v != nil {
			h.recovered(ctx, v)
			res, err = nil, errors.New(internalError("prompt", h.name))
		}
	}()
	input, err := h.input(req.Params.Arguments)
	if err != nil {
		h.report(ctx, err)
		return nil, err
	}
	resp, err := h.agent.Call(ctx, assistant.Input{Prompt: input})
	if err == nil && resp == nil {
		err = errors.New("the agent returned no response")
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

// input checks a get's arguments and returns the user's turn.
func (h *promptHandler) input(args map[string]string) (string, error) {
	var unknown []string
	for k := range args {
		if k != argInput && k != argChatID {
			unknown = append(unknown, fmt.Sprintf("%q", k))
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		return "", fmt.Errorf("prompt %q has no argument %s: give %q (required) and nothing else", h.name, strings.Join(unknown, ", "), argInput)
	}
	if id := strings.TrimSpace(args[argChatID]); id != "" {
		return "", fmt.Errorf("prompt %q: continuing a conversation by %s is not supported yet (it needs a chat store, which this server does not have): leave %s out to start a new conversation", h.name, argChatID, argChatID)
	}
	input := args[argInput]
	if strings.TrimSpace(input) == "" {
		return "", fmt.Errorf("prompt %q: the argument %q is required: give the user's turn, what to ask", h.name, argInput)
	}
	return input, nil
}
