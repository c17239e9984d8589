package mcpbridge

import (
	"context"
	"log/slog"
)

// Option configures how AddPrompt or AddTool registers a prompt or a tool.
type Option func(*config)

type config struct {
	name, title, description string
	onError                  func(ctx context.Context, name string, err error)
	identity                 func(ctx context.Context) (tenant, user string, err error)
}

// WithName registers the prompt or tool under name instead of the agent's or tool's own name.
// A tool's name must still be valid for model APIs (see tool.ValidName), since MCP clients
// hand tools to models.
func WithName(name string) Option { return func(c *config) { c.name = name } }

// WithTitle gives the prompt or tool a title: a human-readable name that clients show
// instead of the name.
func WithTitle(title string) Option { return func(c *config) { c.title = title } }

// WithDescription describes the prompt or tool to MCP clients instead of the agent's or
// tool's own description.
func WithDescription(text string) Option { return func(c *config) { c.description = text } }

// WithErrorHandler has h told of every prompt get and tool call that fails: bad arguments,
// an agent's or tool's error, a panic. name is the prompt's or tool's registered name; err is
// what the client was told, except for a panic, which h receives as a *PanicError (value and
// stack) while the client is told only that an internal error happened. h is called on the
// request's goroutine, possibly from many at once, and must return promptly.
//
// Without a handler, panics are logged with slog.Default() and other failures only go back to
// the client.
func WithErrorHandler(h func(ctx context.Context, name string, err error)) Option {
	return func(c *config) { c.onError = h }
}

// WithIdentity has AddPrompt take the tenant and the user of a chat from f: a get that gives a
// chat_id runs the agent in the chat chat.ID{Tenant: tenant, User: user, Chat: chat_id}, so
// that each tenant's and user's chats stay theirs whatever chat_id a client sends. f reads the
// request's context, where the server's transport put who is calling: over streamable HTTP,
// server.WithHTTPContextFunc copies an authenticated request's identity into it. f is called
// on the request's goroutine, possibly from many at once, and only for gets that give a
// chat_id. An error from f fails the get, and the agent is not run: the client is told that
// the caller is not identified, f's error, and that the get can leave out chat_id (`prompt
// "guide": the caller is not identified (f's error), so chat "trip" cannot be continued: leave
// out "chat_id" to ask without a chat`). Make f's error say what is missing, as
// mcpauth.ClaimIdentity's does; it must not hold a secret. mcp-go (v1.2.1) sends every error of
// a prompt get with JSON-RPC code -32603, which clients label an internal error (mcp-go's
// client: "internal error: prompt ..."): the message after the label says what is wrong.
//
// Without WithIdentity every chat belongs to tenant "" and user "": any client that knows a
// chat_id can continue that chat. AddTool ignores this option.
func WithIdentity(f func(ctx context.Context) (tenant, user string, err error)) Option {
	return func(c *config) { c.identity = f }
}

func newConfig(name, description string, opts []Option) config {
	c := config{name: name, description: description}
	for _, o := range opts {
		if o != nil {
			o(&c)
		}
	}
	return c
}

// report tells the error handler of a failure, or logs a panic when there is none.
func (c *config) report(ctx context.Context, err error) {
	if c.onError != nil {
		c.onError(ctx, c.name, err)
		return
	}
	if p, ok := err.(*PanicError); ok {
		slog.Default().ErrorContext(ctx, "mcpbridge: recovered a panic", "name", p.Name, "panic", p.Value, "stack", string(p.Stack))
	}
}
