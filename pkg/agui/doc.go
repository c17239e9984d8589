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
// [NewHandler] serves an assistant as an AG-UI endpoint. It takes a POSTed RunAgentInput and
// streams the run: its text, every tool call with its result, each delegated run as a
// sub-agent, CUSTOM events for each model request with its usage and cost ([CustomRequest]),
// and RUN_FINISHED with the typed output, or RUN_ERROR. A tool call waiting for a person
// (assistant.WithApproval with a pending decision) ends the run with an interrupt, which the
// next request's resume entry decides ([ApprovalSchema]); a call of a tool the client
// declared ends it with the call pending, which the next request's tool message answers
// (assistant.Answered). The paused run resumes once, in memory or, with [WithStore], from a
// store shared by any number of processes, where threads keep their history too. Bad input
// gets 400 before any event, a second run on a thread 409, a request from another host or
// origin 403 ([WithAllowedHosts], [WithAllowedOrigins]); beyond loopback, put the handler
// behind mcpauth.Authorizer.Protect and give [WithIdentity]. The request's context is the
// run's: a client that goes away cancels the run's tree.
//
// The interop tests (package interop) validate every event type as this package writes it
// against @ag-ui/core's own zod schemas, and drive the handler with @ag-ui/client's HttpAgent.
// docs/ag-ui.md is the guide.
package agui
