package agui

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// EventType is the discriminator every event carries in its "type" field.
type EventType string

// The event types of AG-UI 1.0, as @ag-ui/core 1.0.0 enumerates them.
const (
	TypeTextMessageStart        EventType = "TEXT_MESSAGE_START"
	TypeTextMessageContent      EventType = "TEXT_MESSAGE_CONTENT"
	TypeTextMessageEnd          EventType = "TEXT_MESSAGE_END"
	TypeTextMessageChunk        EventType = "TEXT_MESSAGE_CHUNK"
	TypeToolCallStart           EventType = "TOOL_CALL_START"
	TypeToolCallArgs            EventType = "TOOL_CALL_ARGS"
	TypeToolCallEnd             EventType = "TOOL_CALL_END"
	TypeToolCallChunk           EventType = "TOOL_CALL_CHUNK"
	TypeToolCallResult          EventType = "TOOL_CALL_RESULT"
	TypeStateSnapshot           EventType = "STATE_SNAPSHOT"
	TypeStateDelta              EventType = "STATE_DELTA"
	TypeMessagesSnapshot        EventType = "MESSAGES_SNAPSHOT"
	TypeActivitySnapshot        EventType = "ACTIVITY_SNAPSHOT"
	TypeActivityDelta           EventType = "ACTIVITY_DELTA"
	TypeRaw                     EventType = "RAW"
	TypeCustom                  EventType = "CUSTOM"
	TypeRunStarted              EventType = "RUN_STARTED"
	TypeRunFinished             EventType = "RUN_FINISHED"
	TypeRunError                EventType = "RUN_ERROR"
	TypeStepStarted             EventType = "STEP_STARTED"
	TypeStepFinished            EventType = "STEP_FINISHED"
	TypeReasoningStart          EventType = "REASONING_START"
	TypeReasoningMessageStart   EventType = "REASONING_MESSAGE_START"
	TypeReasoningMessageContent EventType = "REASONING_MESSAGE_CONTENT"
	TypeReasoningMessageEnd     EventType = "REASONING_MESSAGE_END"
	TypeReasoningMessageChunk   EventType = "REASONING_MESSAGE_CHUNK"
	TypeReasoningEnd            EventType = "REASONING_END"
	TypeReasoningEncryptedValue EventType = "REASONING_ENCRYPTED_VALUE"
	TypeSubagentStarted         EventType = "SUBAGENT_STARTED"
	TypeSubagentFinished        EventType = "SUBAGENT_FINISHED"
	TypeSubagentError           EventType = "SUBAGENT_ERROR"
)

// Event is one AG-UI event. The set is closed: the implementations are the event structs of
// this package, one per [EventType], each a value whose MarshalJSON writes "type" first and
// then its fields, omitting the optional ones left at their zero value.
type Event interface {
	// Type returns the event's discriminator.
	Type() EventType
	event()
}

// Base holds the fields every event may carry. All are optional.
type Base struct {
	// Timestamp is when the event happened, in milliseconds since the Unix epoch; zero omits it.
	Timestamp int64 `json:"timestamp,omitempty"`
	// RawEvent is the provider's event this one was translated from; nil omits it.
	RawEvent any `json:"rawEvent,omitempty"`
	// Metadata is open by key; the key "ag-ui" is reserved for the protocol. Nil or empty omits it.
	Metadata map[string]any `json:"metadata,omitempty"`
}

// marshalEvent writes v, a struct without methods, as a JSON object whose first member is
// "type": t.
func marshalEvent(t EventType, v any) ([]byte, error) {
	body, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("agui: %s: %w", t, err)
	}
	var b bytes.Buffer
	b.Grow(len(body) + len(t) + 12)
	b.WriteString(`{"type":"`)
	b.WriteString(string(t))
	b.WriteByte('"')
	if len(body) > 2 {
		b.WriteByte(',')
	}
	b.Write(body[1:])
	return b.Bytes(), nil
}

// ErrUnknownEvent is returned by [ParseEvent] for an event whose type AG-UI 1.0 does not
// define.
var ErrUnknownEvent = errors.New("agui: unknown event type")

// ParseEvent decodes one event as written by an event's MarshalJSON (or any AG-UI 1.0
// producer) into the event struct its "type" names. Members the struct does not know are
// ignored, as the protocol's objects are open.
func ParseEvent(data []byte) (Event, error) {
	var head struct {
		Type EventType `json:"type"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return nil, fmt.Errorf("agui: event: %w", err)
	}
	switch head.Type {
	case TypeTextMessageStart:
		return parse[TextMessageStart](data)
	case TypeTextMessageContent:
		return parse[TextMessageContent](data)
	case TypeTextMessageEnd:
		return parse[TextMessageEnd](data)
	case TypeTextMessageChunk:
		return parse[TextMessageChunk](data)
	case TypeToolCallStart:
		return parse[ToolCallStart](data)
	case TypeToolCallArgs:
		return parse[ToolCallArgs](data)
	case TypeToolCallEnd:
		return parse[ToolCallEnd](data)
	case TypeToolCallChunk:
		return parse[ToolCallChunk](data)
	case TypeToolCallResult:
		return parse[ToolCallResult](data)
	case TypeStateSnapshot:
		return parse[StateSnapshot](data)
	case TypeStateDelta:
		return parse[StateDelta](data)
	case TypeMessagesSnapshot:
		return parse[MessagesSnapshot](data)
	case TypeActivitySnapshot:
		return parse[ActivitySnapshot](data)
	case TypeActivityDelta:
		return parse[ActivityDelta](data)
	case TypeRaw:
		return parse[Raw](data)
	case TypeCustom:
		return parse[Custom](data)
	case TypeRunStarted:
		return parse[RunStarted](data)
	case TypeRunFinished:
		return parse[RunFinished](data)
	case TypeRunError:
		return parse[RunError](data)
	case TypeStepStarted:
		return parse[StepStarted](data)
	case TypeStepFinished:
		return parse[StepFinished](data)
	case TypeReasoningStart:
		return parse[ReasoningStart](data)
	case TypeReasoningMessageStart:
		return parse[ReasoningMessageStart](data)
	case TypeReasoningMessageContent:
		return parse[ReasoningMessageContent](data)
	case TypeReasoningMessageEnd:
		return parse[ReasoningMessageEnd](data)
	case TypeReasoningMessageChunk:
		return parse[ReasoningMessageChunk](data)
	case TypeReasoningEnd:
		return parse[ReasoningEnd](data)
	case TypeReasoningEncryptedValue:
		return parse[ReasoningEncryptedValue](data)
	case TypeSubagentStarted:
		return parse[SubagentStarted](data)
	case TypeSubagentFinished:
		return parse[SubagentFinished](data)
	case TypeSubagentError:
		return parse[SubagentError](data)
	}
	return nil, fmt.Errorf("%w %q", ErrUnknownEvent, head.Type)
}

func parse[E Event](data []byte) (Event, error) {
	var e E
	if err := json.Unmarshal(data, &e); err != nil {
		return nil, fmt.Errorf("agui: %s: %w", e.Type(), err)
	}
	return e, nil
}
