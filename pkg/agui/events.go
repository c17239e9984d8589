package agui

import "encoding/json"

// The events below follow @ag-ui/core 1.0.0's schemas field for field. A field the protocol
// makes optional is omitted when left at its zero value; a required one is always written.
// SubagentRunID, where an event has it as an optional field, attributes the event to the
// sub-agent invocation SUBAGENT_STARTED opened.

// TextMessageStart opens a streamed text message; TEXT_MESSAGE_CONTENT events follow and
// TEXT_MESSAGE_END closes it.
type TextMessageStart struct {
	Base
	SubagentRunID string `json:"subagentRunId,omitempty"`
	MessageID     string `json:"messageId"`
	// Role is one of developer, system, assistant or user; empty omits it (read as assistant).
	Role Role   `json:"role,omitempty"`
	Name string `json:"name,omitempty"`
}

// TextMessageContent appends Delta to a streamed text message.
type TextMessageContent struct {
	Base
	SubagentRunID string `json:"subagentRunId,omitempty"`
	MessageID     string `json:"messageId"`
	Delta         string `json:"delta"`
}

// TextMessageEnd closes a streamed text message.
type TextMessageEnd struct {
	Base
	SubagentRunID string `json:"subagentRunId,omitempty"`
	MessageID     string `json:"messageId"`
}

// TextMessageChunk stands for a start, content and end sequence; every field is optional.
type TextMessageChunk struct {
	Base
	SubagentRunID string `json:"subagentRunId,omitempty"`
	MessageID     string `json:"messageId,omitempty"`
	Role          Role   `json:"role,omitempty"`
	Delta         string `json:"delta,omitempty"`
	Name          string `json:"name,omitempty"`
}

// ToolCallStart opens a tool call; TOOL_CALL_ARGS events carry its arguments and
// TOOL_CALL_END closes it.
type ToolCallStart struct {
	Base
	SubagentRunID   string `json:"subagentRunId,omitempty"`
	ToolCallID      string `json:"toolCallId"`
	ToolCallName    string `json:"toolCallName"`
	ParentMessageID string `json:"parentMessageId,omitempty"`
}

// ToolCallArgs appends Delta, a fragment of the call's JSON arguments.
type ToolCallArgs struct {
	Base
	SubagentRunID string `json:"subagentRunId,omitempty"`
	ToolCallID    string `json:"toolCallId"`
	Delta         string `json:"delta"`
}

// ToolCallEnd closes a tool call: its arguments are complete.
type ToolCallEnd struct {
	Base
	SubagentRunID string `json:"subagentRunId,omitempty"`
	ToolCallID    string `json:"toolCallId"`
}

// ToolCallChunk stands for a tool call's start, args and end sequence; every field is optional.
type ToolCallChunk struct {
	Base
	SubagentRunID   string `json:"subagentRunId,omitempty"`
	ToolCallID      string `json:"toolCallId,omitempty"`
	ToolCallName    string `json:"toolCallName,omitempty"`
	ParentMessageID string `json:"parentMessageId,omitempty"`
	Delta           string `json:"delta,omitempty"`
}

// ToolCallResult carries what a tool returned, as a new tool message with its own MessageID.
type ToolCallResult struct {
	Base
	SubagentRunID string `json:"subagentRunId,omitempty"`
	MessageID     string `json:"messageId"`
	ToolCallID    string `json:"toolCallId"`
	// Content is a string or, with Parts, a list of content parts.
	Content Content `json:"content"`
	// Role is "tool" or empty, which omits it.
	Role Role `json:"role,omitempty"`
}

// StateSnapshot replaces the agent state wholesale. Snapshot is any JSON value; nil is null.
type StateSnapshot struct {
	Base
	SubagentRunID string `json:"subagentRunId,omitempty"`
	Snapshot      any    `json:"snapshot"`
}

// StateDelta changes the agent state by a JSON Patch (RFC 6902).
type StateDelta struct {
	Base
	SubagentRunID string    `json:"subagentRunId,omitempty"`
	Delta         []PatchOp `json:"delta"`
}

// MessagesSnapshot is every message the producer owns, in order. It is conversation-wide and
// has no sub-agent attribution of its own.
type MessagesSnapshot struct {
	Base
	Messages []Message `json:"messages"`
}

// ActivitySnapshot reports structured progress that is not conversation content, as an
// activity message with MessageID.
type ActivitySnapshot struct {
	Base
	SubagentRunID string         `json:"subagentRunId,omitempty"`
	MessageID     string         `json:"messageId"`
	ActivityType  string         `json:"activityType"`
	Content       map[string]any `json:"content"`
	// Replace, when set, says whether the snapshot replaces an existing activity message
	// (the protocol reads an absent Replace as true).
	Replace *bool `json:"replace,omitempty"`
}

// ActivityDelta changes an activity message's content by a JSON Patch.
type ActivityDelta struct {
	Base
	SubagentRunID string    `json:"subagentRunId,omitempty"`
	MessageID     string    `json:"messageId"`
	ActivityType  string    `json:"activityType"`
	Patch         []PatchOp `json:"patch"`
}

// Raw passes a provider's event through untranslated. Event is any JSON value; nil is null.
type Raw struct {
	Base
	SubagentRunID string `json:"subagentRunId,omitempty"`
	Event         any    `json:"event"`
	Source        string `json:"source,omitempty"`
}

// Custom is an application's own event, named by Name. Value is any JSON value; nil is null.
type Custom struct {
	Base
	SubagentRunID string `json:"subagentRunId,omitempty"`
	Name          string `json:"name"`
	Value         any    `json:"value"`
}

// RunStarted opens a run. Input, when set, echoes the request that started it.
type RunStarted struct {
	Base
	ThreadID        string         `json:"threadId"`
	RunID           string         `json:"runId"`
	ProtocolVersion string         `json:"protocolVersion,omitempty"`
	ParentRunID     string         `json:"parentRunId,omitempty"`
	Input           *RunAgentInput `json:"input,omitempty"`
}

// RunFinished closes a run that did not fail. Result is the run's output (nil omits it);
// Outcome says why the run ended (nil reads as success).
type RunFinished struct {
	Base
	ThreadID string       `json:"threadId"`
	RunID    string       `json:"runId"`
	Result   any          `json:"result,omitempty"`
	Outcome  *Outcome     `json:"outcome,omitempty"`
	Usage    []TokenUsage `json:"usage,omitempty"`
}

// RunError ends a run that failed.
type RunError struct {
	Base
	Message string       `json:"message"`
	Code    string       `json:"code,omitempty"`
	Usage   []TokenUsage `json:"usage,omitempty"`
}

// StepStarted opens a named step of a run.
type StepStarted struct {
	Base
	SubagentRunID string `json:"subagentRunId,omitempty"`
	StepName      string `json:"stepName"`
}

// StepFinished closes a named step; the same attribution as its StepStarted must close it.
type StepFinished struct {
	Base
	SubagentRunID string `json:"subagentRunId,omitempty"`
	StepName      string `json:"stepName"`
}

// ReasoningStart opens a span of reasoning, which may hold several reasoning messages.
type ReasoningStart struct {
	Base
	SubagentRunID string `json:"subagentRunId,omitempty"`
	MessageID     string `json:"messageId"`
}

// ReasoningMessageStart opens a streamed reasoning message; its role is always "reasoning".
type ReasoningMessageStart struct {
	Base
	SubagentRunID string `json:"subagentRunId,omitempty"`
	MessageID     string `json:"messageId"`
}

// ReasoningMessageContent appends Delta to a streamed reasoning message.
type ReasoningMessageContent struct {
	Base
	SubagentRunID string `json:"subagentRunId,omitempty"`
	MessageID     string `json:"messageId"`
	Delta         string `json:"delta"`
}

// ReasoningMessageEnd closes a streamed reasoning message.
type ReasoningMessageEnd struct {
	Base
	SubagentRunID string `json:"subagentRunId,omitempty"`
	MessageID     string `json:"messageId"`
}

// ReasoningMessageChunk stands for a reasoning message's start, content and end sequence.
type ReasoningMessageChunk struct {
	Base
	SubagentRunID string `json:"subagentRunId,omitempty"`
	MessageID     string `json:"messageId,omitempty"`
	Delta         string `json:"delta,omitempty"`
}

// ReasoningEnd closes a span of reasoning.
type ReasoningEnd struct {
	Base
	SubagentRunID string `json:"subagentRunId,omitempty"`
	MessageID     string `json:"messageId"`
}

// ReasoningEncryptedValue carries a provider's opaque reasoning artefact for the message or
// tool call EntityID names. Subtype is "message" or "tool-call".
type ReasoningEncryptedValue struct {
	Base
	SubagentRunID  string `json:"subagentRunId,omitempty"`
	Subtype        string `json:"subtype"`
	EntityID       string `json:"entityId"`
	EncryptedValue string `json:"encryptedValue"`
}

// SubagentStarted opens a sub-agent invocation. SubagentRunID identifies the invocation (not
// a reusable name); events it produces carry it. ParentToolCallID names the tool call that
// delegated to it; ParentSubagentRunID the enclosing invocation, when nested.
type SubagentStarted struct {
	Base
	SubagentRunID       string `json:"subagentRunId"`
	Name                string `json:"name"`
	Description         string `json:"description,omitempty"`
	ParentSubagentRunID string `json:"parentSubagentRunId,omitempty"`
	ParentToolCallID    string `json:"parentToolCallId,omitempty"`
	ParentMessageID     string `json:"parentMessageId,omitempty"`
}

// SubagentFinished ends a sub-agent invocation's part of this run, done or suspended.
type SubagentFinished struct {
	Base
	SubagentRunID string           `json:"subagentRunId"`
	Result        any              `json:"result,omitempty"`
	Outcome       *SubagentOutcome `json:"outcome,omitempty"`
}

// SubagentError reports that a sub-agent invocation failed; the run may go on.
type SubagentError struct {
	Base
	SubagentRunID string `json:"subagentRunId"`
	Message       string `json:"message"`
	Code          string `json:"code,omitempty"`
}

// OutcomeType says why a run ended.
type OutcomeType string

// The outcomes of RUN_FINISHED.
const (
	OutcomeSuccess   OutcomeType = "success"
	OutcomeInterrupt OutcomeType = "interrupt"
	OutcomeCancelled OutcomeType = "cancelled"
)

// Outcome is RUN_FINISHED's outcome. A success may list PendingToolCallIDs, frontend tool
// calls the client is to answer; an interrupt carries at least one Interrupt; a cancelled run
// carries neither.
type Outcome struct {
	Type               OutcomeType `json:"type"`
	PendingToolCallIDs []string    `json:"pendingToolCallIds,omitempty"`
	Interrupts         []Interrupt `json:"interrupts,omitempty"`
}

// Interrupt is something a run needs from outside before it can go on, such as an approval.
// The next run answers it with a [ResumeEntry] naming ID.
type Interrupt struct {
	SubagentRunID string `json:"subagentRunId,omitempty"`
	ID            string `json:"id"`
	// Reason is required by the protocol, a short machine-readable cause.
	Reason     string `json:"reason"`
	Message    string `json:"message,omitempty"`
	ToolCallID string `json:"toolCallId,omitempty"`
	// ResponseSchema is the JSON Schema (an object) of the payload that answers the interrupt.
	ResponseSchema map[string]any `json:"responseSchema,omitempty"`
	// ExpiresAt is a time as a string; the protocol does not fix its format.
	ExpiresAt string         `json:"expiresAt,omitempty"`
	Metadata  map[string]any `json:"metadata,omitempty"`
}

// SubagentOutcomeType says why a sub-agent's part of a run ended.
type SubagentOutcomeType string

// The outcomes of SUBAGENT_FINISHED.
const (
	SubagentSuccess   SubagentOutcomeType = "success"
	SubagentSuspended SubagentOutcomeType = "suspended"
)

// SubagentOutcome is SUBAGENT_FINISHED's outcome; a suspended one may name the interrupts it
// waits for.
type SubagentOutcome struct {
	Type         SubagentOutcomeType `json:"type"`
	InterruptIDs []string            `json:"interruptIds,omitempty"`
}

// TokenUsage is the tokens one provider and model used. InputTokens and OutputTokens are
// totals; ReasoningTokens, CachedInputTokens and CacheWriteInputTokens are parts of them.
// A zero count is omitted.
type TokenUsage struct {
	Provider              string `json:"provider,omitempty"`
	Model                 string `json:"model,omitempty"`
	InputTokens           int64  `json:"inputTokens,omitempty"`
	OutputTokens          int64  `json:"outputTokens,omitempty"`
	TotalTokens           int64  `json:"totalTokens,omitempty"`
	ReasoningTokens       int64  `json:"reasoningTokens,omitempty"`
	CachedInputTokens     int64  `json:"cachedInputTokens,omitempty"`
	CacheWriteInputTokens int64  `json:"cacheWriteInputTokens,omitempty"`
}

// PatchOp is one JSON Patch operation (RFC 6902): Op is add, remove, replace, move, copy or
// test; From is for move and copy; Value for add, replace and test, where nil is written as
// null.
type PatchOp struct {
	Op    string `json:"op"`
	Path  string `json:"path"`
	From  string `json:"from,omitempty"`
	Value any    `json:"value,omitempty"`
}

// MarshalJSON writes the operation, with "value" (null when nil) for add, replace and test
// and without it otherwise.
func (p PatchOp) MarshalJSON() ([]byte, error) {
	type plain PatchOp
	switch p.Op {
	case "add", "replace", "test":
		return json.Marshal(struct {
			Op    string `json:"op"`
			Path  string `json:"path"`
			From  string `json:"from,omitempty"`
			Value any    `json:"value"`
		}{p.Op, p.Path, p.From, p.Value})
	}
	p.Value = nil
	return json.Marshal(plain(p))
}
