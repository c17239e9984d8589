// Package agui holds the types of the AG-UI protocol 1.0 (docs.ag-ui.com), as @ag-ui/core
// 1.0.0 defines them, for serving cadre's runs to web front ends.
//
// What exists now: [RunAgentInput], the request that starts a run, with its [Message] (every
// role of 1.0: developer, system, assistant with [ToolCall], user, tool, activity,
// reasoning), [Tool], [Context] and the [ResumeEntry] answering an [Interrupt];
// [DecodeInput], which reads a request and refuses a malformed one with an error wrapping
// [ErrInvalidInput], for a 400 before the stream starts; an [Event] struct for each of the 31
// event types of 1.0, whose JSON is what @ag-ui/core's schemas accept ("type" first, optional
// fields omitted when zero), and [ParseEvent] to read one back; and [Writer], which streams
// events as server-sent events the way HttpAgent parses them.
//
// The events follow the protocol, not cadre: a run opens with [RunStarted] and closes with
// [RunFinished] (its [Outcome]: success, possibly with pending frontend tool calls; interrupt,
// with the interrupts the next request resumes; cancelled) or [RunError]; a delegated run is a
// sub-agent, [SubagentStarted] to [SubagentFinished] or [SubagentError], whose events carry its
// SubagentRunID. The order rules (a run's first event is RUN_STARTED, every opened message, tool
// call, step and sub-agent is closed before RUN_FINISHED) are the producer's to keep; HttpAgent
// checks them.
//
// [NewHandler] serves an assistant as an AG-UI endpoint: it takes a POSTed RunAgentInput
// (400 before any event for one it cannot use, 405 for another method), runs the assistant on
// the last user message with the messages before it as history, and streams RUN_STARTED, the
// text of each model request as a text message, each tool call with its result, and
// RUN_FINISHED with the typed output or RUN_ERROR. The request's context is the run's. The
// interop tests (package interop) validate every event type as this package writes it
// against @ag-ui/core's own zod schemas, and decode with [DecodeInput] an input that
// @ag-ui/core accepts.
//
// What comes next: approvals as interrupts and resuming them (Resume), the events of delegated
// runs as sub-agents, the client's frontend tools (Tools, answered by pending tool calls),
// thread stores that keep a conversation between requests, State and Context, and the checks
// of Host and Origin and the bearer tokens that protect the endpoint. Until those, the handler
// checks no caller: put it behind your own authentication, and not on a port a browser page
// of another site can reach, since any request it takes runs the assistant at your cost.
package agui
