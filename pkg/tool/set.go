package tool

import (
	"context"

	"github.com/tmc/langchaingo/llms"
)

// Set is tools that go together, and that may change while an assistant lives: an MCP
// server's, kept current by mcpbridge.Connect; the skill tools of package skill; any other
// list that a program updates. An assistant takes one with assistant.WithToolSet.
//
// Tools returns the set's tools as they are now. An assistant calls it at the start of every
// run and every resume, from the run's goroutine; runs of one assistant call it concurrently,
// and a set shared by several assistants is called by all of them. The assistant prepares what
// it needs of the tools (their compiled argument schemas, their definitions for the model) once
// for as long as Tools returns the same tools — the same pointers, in the same order — so a set
// returns the tools it keeps, not new values each time. An error fails the run before any
// request.
type Set interface {
	Tools(ctx context.Context) ([]Tool, error)
}

// FixedSet is a Set whose tools never change. An assistant takes them once, when it is made,
// as it takes its own tools, and never calls Tools: assistant.New panics on the error of
// FixedTools, and on one of the tools named like another of the assistant's.
type FixedSet interface {
	Set
	FixedTools() ([]Tool, error)
}

// Prompter is a Set that writes a part of the system prompt of each run: what the model should
// know to use the set's tools, which may depend on the conversation so far — a catalog of what
// the tools offer, the state of what they did in earlier runs of a chat.
//
// An assistant calls Prompt at the start of each run, after Tools, from the run's goroutine,
// and not when a paused run resumes: a paused run keeps its system prompt. history is the
// chat's history as its store keeps it, all of it (nil for a run outside a chat); msgs are the
// messages the run sends after its system prompt: its examples, the part of the history that
// the assistant's history window and shape keep, the caller's Input.History, and the user's
// turn. Neither may be modified. The text, when not empty, is a paragraph of the run's system
// message, after the assistant's instructions. An error fails the run before any request.
type Prompter interface {
	Set
	Prompt(ctx context.Context, history, msgs []llms.MessageContent) (string, error)
}

// Call is what the context of a tool call holds of the call: the model's id for it, and the
// conversation it is part of. An assistant puts it in the context of every tool call it makes,
// for the tool and for the tool-call middleware.
type Call struct {
	ID string
	// Messages are the run's messages so far, as its model was sent them, system prompt first,
	// up to and including the model's turn that made the call: the other calls of that turn
	// are in it, and no result of any of them. They are the run's: a tool reads them while it
	// runs, and never modifies them.
	Messages []llms.MessageContent
}

type callKey struct{}

// WithCall returns ctx as the context of call c: for a program that calls tools itself, and
// for tests. c must not change while the call runs.
func WithCall(ctx context.Context, c *Call) context.Context {
	return context.WithValue(ctx, callKey{}, c)
}

// CallOf returns the call whose context ctx is, or false when ctx is not a tool call's.
func CallOf(ctx context.Context) (Call, bool) {
	c, _ := ctx.Value(callKey{}).(*Call)
	if c == nil {
		return Call{}, false
	}
	return *c, true
}

// Messages returns the messages so far of the run whose tool call ctx is the context of (see
// Call.Messages), or nil when ctx is not a tool call's.
func Messages(ctx context.Context) []llms.MessageContent {
	c, _ := CallOf(ctx)
	return c.Messages
}
