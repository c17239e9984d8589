package agui

// Type, event and MarshalJSON of each event struct in events.go.

// Type returns [TypeTextMessageStart].
func (TextMessageStart) Type() EventType { return TypeTextMessageStart }

func (TextMessageStart) event() {}

// MarshalJSON writes the event with "type" first.
func (e TextMessageStart) MarshalJSON() ([]byte, error) {
	type plain TextMessageStart
	return marshalEvent(TypeTextMessageStart, plain(e))
}

// Type returns [TypeTextMessageContent].
func (TextMessageContent) Type() EventType { return TypeTextMessageContent }

func (TextMessageContent) event() {}

// MarshalJSON writes the event with "type" first.
func (e TextMessageContent) MarshalJSON() ([]byte, error) {
	type plain TextMessageContent
	return marshalEvent(TypeTextMessageContent, plain(e))
}

// Type returns [TypeTextMessageEnd].
func (TextMessageEnd) Type() EventType { return TypeTextMessageEnd }

func (TextMessageEnd) event() {}

// MarshalJSON writes the event with "type" first.
func (e TextMessageEnd) MarshalJSON() ([]byte, error) {
	type plain TextMessageEnd
	return marshalEvent(TypeTextMessageEnd, plain(e))
}

// Type returns [TypeTextMessageChunk].
func (TextMessageChunk) Type() EventType { return TypeTextMessageChunk }

func (TextMessageChunk) event() {}

// MarshalJSON writes the event with "type" first.
func (e TextMessageChunk) MarshalJSON() ([]byte, error) {
	type plain TextMessageChunk
	return marshalEvent(TypeTextMessageChunk, plain(e))
}

// Type returns [TypeToolCallStart].
func (ToolCallStart) Type() EventType { return TypeToolCallStart }

func (ToolCallStart) event() {}

// MarshalJSON writes the event with "type" first.
func (e ToolCallStart) MarshalJSON() ([]byte, error) {
	type plain ToolCallStart
	return marshalEvent(TypeToolCallStart, plain(e))
}

// Type returns [TypeToolCallArgs].
func (ToolCallArgs) Type() EventType { return TypeToolCallArgs }

func (ToolCallArgs) event() {}

// MarshalJSON writes the event with "type" first.
func (e ToolCallArgs) MarshalJSON() ([]byte, error) {
	type plain ToolCallArgs
	return marshalEvent(TypeToolCallArgs, plain(e))
}

// Type returns [TypeToolCallEnd].
func (ToolCallEnd) Type() EventType { return TypeToolCallEnd }

func (ToolCallEnd) event() {}

// MarshalJSON writes the event with "type" first.
func (e ToolCallEnd) MarshalJSON() ([]byte, error) {
	type plain ToolCallEnd
	return marshalEvent(TypeToolCallEnd, plain(e))
}

// Type returns [TypeToolCallChunk].
func (ToolCallChunk) Type() EventType { return TypeToolCallChunk }

func (ToolCallChunk) event() {}

// MarshalJSON writes the event with "type" first.
func (e ToolCallChunk) MarshalJSON() ([]byte, error) {
	type plain ToolCallChunk
	return marshalEvent(TypeToolCallChunk, plain(e))
}

// Type returns [TypeToolCallResult].
func (ToolCallResult) Type() EventType { return TypeToolCallResult }

func (ToolCallResult) event() {}

// MarshalJSON writes the event with "type" first.
func (e ToolCallResult) MarshalJSON() ([]byte, error) {
	type plain ToolCallResult
	return marshalEvent(TypeToolCallResult, plain(e))
}

// Type returns [TypeStateSnapshot].
func (StateSnapshot) Type() EventType { return TypeStateSnapshot }

func (StateSnapshot) event() {}

// MarshalJSON writes the event with "type" first.
func (e StateSnapshot) MarshalJSON() ([]byte, error) {
	type plain StateSnapshot
	return marshalEvent(TypeStateSnapshot, plain(e))
}

// Type returns [TypeStateDelta].
func (StateDelta) Type() EventType { return TypeStateDelta }

func (StateDelta) event() {}

// MarshalJSON writes the event with "type" first.
func (e StateDelta) MarshalJSON() ([]byte, error) {
	type plain StateDelta
	return marshalEvent(TypeStateDelta, plain(e))
}

// Type returns [TypeMessagesSnapshot].
func (MessagesSnapshot) Type() EventType { return TypeMessagesSnapshot }

func (MessagesSnapshot) event() {}

// MarshalJSON writes the event with "type" first.
func (e MessagesSnapshot) MarshalJSON() ([]byte, error) {
	type plain MessagesSnapshot
	return marshalEvent(TypeMessagesSnapshot, plain(e))
}

// Type returns [TypeActivitySnapshot].
func (ActivitySnapshot) Type() EventType { return TypeActivitySnapshot }

func (ActivitySnapshot) event() {}

// MarshalJSON writes the event with "type" first.
func (e ActivitySnapshot) MarshalJSON() ([]byte, error) {
	type plain ActivitySnapshot
	return marshalEvent(TypeActivitySnapshot, plain(e))
}

// Type returns [TypeActivityDelta].
func (ActivityDelta) Type() EventType { return TypeActivityDelta }

func (ActivityDelta) event() {}

// MarshalJSON writes the event with "type" first.
func (e ActivityDelta) MarshalJSON() ([]byte, error) {
	type plain ActivityDelta
	return marshalEvent(TypeActivityDelta, plain(e))
}

// Type returns [TypeRaw].
func (Raw) Type() EventType { return TypeRaw }

func (Raw) event() {}

// MarshalJSON writes the event with "type" first.
func (e Raw) MarshalJSON() ([]byte, error) {
	type plain Raw
	return marshalEvent(TypeRaw, plain(e))
}

// Type returns [TypeCustom].
func (Custom) Type() EventType { return TypeCustom }

func (Custom) event() {}

// MarshalJSON writes the event with "type" first.
func (e Custom) MarshalJSON() ([]byte, error) {
	type plain Custom
	return marshalEvent(TypeCustom, plain(e))
}

// Type returns [TypeRunStarted].
func (RunStarted) Type() EventType { return TypeRunStarted }

func (RunStarted) event() {}

// MarshalJSON writes the event with "type" first.
func (e RunStarted) MarshalJSON() ([]byte, error) {
	type plain RunStarted
	return marshalEvent(TypeRunStarted, plain(e))
}

// Type returns [TypeRunFinished].
func (RunFinished) Type() EventType { return TypeRunFinished }

func (RunFinished) event() {}

// MarshalJSON writes the event with "type" first.
func (e RunFinished) MarshalJSON() ([]byte, error) {
	type plain RunFinished
	return marshalEvent(TypeRunFinished, plain(e))
}

// Type returns [TypeRunError].
func (RunError) Type() EventType { return TypeRunError }

func (RunError) event() {}

// MarshalJSON writes the event with "type" first.
func (e RunError) MarshalJSON() ([]byte, error) {
	type plain RunError
	return marshalEvent(TypeRunError, plain(e))
}

// Type returns [TypeStepStarted].
func (StepStarted) Type() EventType { return TypeStepStarted }

func (StepStarted) event() {}

// MarshalJSON writes the event with "type" first.
func (e StepStarted) MarshalJSON() ([]byte, error) {
	type plain StepStarted
	return marshalEvent(TypeStepStarted, plain(e))
}

// Type returns [TypeStepFinished].
func (StepFinished) Type() EventType { return TypeStepFinished }

func (StepFinished) event() {}

// MarshalJSON writes the event with "type" first.
func (e StepFinished) MarshalJSON() ([]byte, error) {
	type plain StepFinished
	return marshalEvent(TypeStepFinished, plain(e))
}

// Type returns [TypeReasoningStart].
func (ReasoningStart) Type() EventType { return TypeReasoningStart }

func (ReasoningStart) event() {}

// MarshalJSON writes the event with "type" first.
func (e ReasoningStart) MarshalJSON() ([]byte, error) {
	type plain ReasoningStart
	return marshalEvent(TypeReasoningStart, plain(e))
}

// Type returns [TypeReasoningMessageStart].
func (ReasoningMessageStart) Type() EventType { return TypeReasoningMessageStart }

func (ReasoningMessageStart) event() {}

// MarshalJSON writes the event with "type" first.
// The role, a constant the protocol requires, is written after the fields.
func (e ReasoningMessageStart) MarshalJSON() ([]byte, error) {
	type plain ReasoningMessageStart
	return marshalEvent(TypeReasoningMessageStart, struct {
		plain
		Role Role `json:"role"`
	}{plain(e), RoleReasoning})
}

// Type returns [TypeReasoningMessageContent].
func (ReasoningMessageContent) Type() EventType { return TypeReasoningMessageContent }

func (ReasoningMessageContent) event() {}

// MarshalJSON writes the event with "type" first.
func (e ReasoningMessageContent) MarshalJSON() ([]byte, error) {
	type plain ReasoningMessageContent
	return marshalEvent(TypeReasoningMessageContent, plain(e))
}

// Type returns [TypeReasoningMessageEnd].
func (ReasoningMessageEnd) Type() EventType { return TypeReasoningMessageEnd }

func (ReasoningMessageEnd) event() {}

// MarshalJSON writes the event with "type" first.
func (e ReasoningMessageEnd) MarshalJSON() ([]byte, error) {
	type plain ReasoningMessageEnd
	return marshalEvent(TypeReasoningMessageEnd, plain(e))
}

// Type returns [TypeReasoningMessageChunk].
func (ReasoningMessageChunk) Type() EventType { return TypeReasoningMessageChunk }

func (ReasoningMessageChunk) event() {}

// MarshalJSON writes the event with "type" first.
func (e ReasoningMessageChunk) MarshalJSON() ([]byte, error) {
	type plain ReasoningMessageChunk
	return marshalEvent(TypeReasoningMessageChunk, plain(e))
}

// Type returns [TypeReasoningEnd].
func (ReasoningEnd) Type() EventType { return TypeReasoningEnd }

func (ReasoningEnd) event() {}

// MarshalJSON writes the event with "type" first.
func (e ReasoningEnd) MarshalJSON() ([]byte, error) {
	type plain ReasoningEnd
	return marshalEvent(TypeReasoningEnd, plain(e))
}

// Type returns [TypeReasoningEncryptedValue].
func (ReasoningEncryptedValue) Type() EventType { return TypeReasoningEncryptedValue }

func (ReasoningEncryptedValue) event() {}

// MarshalJSON writes the event with "type" first.
func (e ReasoningEncryptedValue) MarshalJSON() ([]byte, error) {
	type plain ReasoningEncryptedValue
	return marshalEvent(TypeReasoningEncryptedValue, plain(e))
}

// Type returns [TypeSubagentStarted].
func (SubagentStarted) Type() EventType { return TypeSubagentStarted }

func (SubagentStarted) event() {}

// MarshalJSON writes the event with "type" first.
func (e SubagentStarted) MarshalJSON() ([]byte, error) {
	type plain SubagentStarted
	return marshalEvent(TypeSubagentStarted, plain(e))
}

// Type returns [TypeSubagentFinished].
func (SubagentFinished) Type() EventType { return TypeSubagentFinished }

func (SubagentFinished) event() {}

// MarshalJSON writes the event with "type" first.
func (e SubagentFinished) MarshalJSON() ([]byte, error) {
	type plain SubagentFinished
	return marshalEvent(TypeSubagentFinished, plain(e))
}

// Type returns [TypeSubagentError].
func (SubagentError) Type() EventType { return TypeSubagentError }

func (SubagentError) event() {}

// MarshalJSON writes the event with "type" first.
func (e SubagentError) MarshalJSON() ([]byte, error) {
	type plain SubagentError
	return marshalEvent(TypeSubagentError, plain(e))
}
