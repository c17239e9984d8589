// Package assistant runs typed LLM assistants: an [Assistant] is a model with instructions,
// tools and an output type O, and a run of it sends the user's turn, runs the tools the model
// asks for (the calls of a turn in parallel), and parses the model's answer into O, asking the
// model once to correct an answer that cannot be used.
//
// # A run
//
// [New] prepares everything that does not depend on a run, once, and panics on what it can
// see is wrong (a template that does not parse, a duplicate tool, an O without a JSON Schema).
// [Assistant.Run] then renders the instructions with the vars, resolves the model chain
// ([WithModel], or [WithModels] with an llm.yaml factory), and loops: one request to the
// chain's models (the next model of the chain is tried only on an error another model could
// fix), the model's usage recorded, its tool calls run, until it answers. Every error after
// the first request comes with the Result so far, so that what was paid for is never lost.
//
// Tools are fixed by New ([WithTools]), or read at the start of each run from a [ToolSet]
// ([WithToolSet]): tools that change while the assistant lives, such as an MCP server's kept
// current by mcpbridge.Connect.
//
// # Delegation, limits and usage
//
// [AsTool] wraps any [Runner] as a tool, so that a supervisor's model delegates to it. The
// runs of one tree share one usage ledger, one set of limits ([WithLimits]), one cancellation
// and one depth limit; their events reach the handlers of every run above them
// ([WithCallback]), and their text the streams ([WithStream]). Response.Usage of the top run
// is the whole tree's cost.
//
// # Approval and resume
//
// [WithApproval] makes calls of some tools wait for a person: a pending decision pauses the
// whole tree, and the run returns a [Paused] state that serializes to JSON. [Assistant.Resume]
// continues it, in another process if need be, with the decisions. A paused run kept with a
// chat ([WithStore]) is taken from its store atomically, so that an approved call runs once
// however many resumes start at the same instant. A hand-written [Runner] that pauses is
// resumed through the [Resumer] interface.
//
// # Middleware
//
// [Middleware], given with [WithMiddleware], wraps every run, model request, tool turn and
// tool call of an assistant and of the runs it delegates to: it may pass on another context,
// answer without calling next, and sees every result. Tracing, durable runs and rate limits
// are built on it, outside the loop. Every run takes the same chain, its events outermost; a run
// without middleware allocates nothing more for it.
package assistant
