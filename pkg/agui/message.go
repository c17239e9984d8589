package agui

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// Role is who a message is from.
type Role string

// The roles of AG-UI 1.0's messages. A streamed text message (TEXT_MESSAGE_START) takes one of
// the first four.
const (
	RoleDeveloper Role = "developer"
	RoleSystem    Role = "system"
	RoleAssistant Role = "assistant"
	RoleUser      Role = "user"
	RoleTool      Role = "tool"
	RoleActivity  Role = "activity"
	RoleReasoning Role = "reasoning"
)

// Message is one message of a conversation, of any role. Which fields a role uses:
//
//   - developer, system: Content.Text (required), Name.
//   - assistant: Content.Text (optional: a turn may be only tool calls), ToolCalls, Name.
//   - user: Content, text or parts (required), Name.
//   - tool: Content, text or parts (required), ToolCallID (required), Error.
//   - activity: ActivityType and Activity (both required).
//   - reasoning: Content.Text (required).
//
// Every role has ID (required), SubagentRunID and Metadata; all but activity have
// EncryptedValue. MarshalJSON writes only the fields of the message's role; UnmarshalJSON
// refuses an unknown role, a missing id and content of the wrong shape for its role.
type Message struct {
	ID             string
	Role           Role
	Content        Content
	Name           string
	ToolCalls      []ToolCall
	ToolCallID     string
	Error          string
	ActivityType   string
	Activity       map[string]any
	EncryptedValue string
	SubagentRunID  string
	Metadata       map[string]any
}

// messageWire is a message as JSON, for every role.
type messageWire struct {
	ID             string          `json:"id"`
	Role           Role            `json:"role"`
	SubagentRunID  string          `json:"subagentRunId,omitempty"`
	Name           string          `json:"name,omitempty"`
	Content        json.RawMessage `json:"content,omitempty"`
	ToolCalls      []ToolCall      `json:"toolCalls,omitempty"`
	ToolCallID     string          `json:"toolCallId,omitempty"`
	Error          string          `json:"error,omitempty"`
	ActivityType   string          `json:"activityType,omitempty"`
	EncryptedValue string          `json:"encryptedValue,omitempty"`
	Metadata       map[string]any  `json:"metadata,omitempty"`
}

// MarshalJSON writes the message with the fields of its role.
func (m Message) MarshalJSON() ([]byte, error) {
	w := messageWire{ID: m.ID, Role: m.Role, SubagentRunID: m.SubagentRunID, EncryptedValue: m.EncryptedValue, Metadata: m.Metadata}
	var content any
	switch m.Role {
	case RoleDeveloper, RoleSystem:
		w.Name, content = m.Name, m.Content.Text
	case RoleAssistant:
		w.Name, w.ToolCalls = m.Name, m.ToolCalls
		if m.Content.Text != "" {
			content = m.Content.Text
		}
	case RoleUser:
		w.Name, content = m.Name, m.Content
	case RoleTool:
		w.ToolCallID, w.Error, content = m.ToolCallID, m.Error, m.Content
	case RoleActivity:
		w.ActivityType, w.EncryptedValue = m.ActivityType, ""
		if content = m.Activity; m.Activity == nil {
			content = map[string]any{}
		}
	case RoleReasoning:
		content = m.Content.Text
	default:
		return nil, fmt.Errorf("agui: message %q: unknown role %q", m.ID, m.Role)
	}
	if content != nil {
		c, err := json.Marshal(content)
		if err != nil {
			return nil, fmt.Errorf("agui: message %q: content: %w", m.ID, err)
		}
		w.Content = c
	}
	return json.Marshal(w)
}

// UnmarshalJSON reads a message of any role, refusing what AG-UI 1.0's schema refuses: an
// unknown role, a missing id, a missing or ill-shaped content, a tool message without its
// tool call's id.
func (m *Message) UnmarshalJSON(data []byte) error {
	var w messageWire
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	if w.ID == "" {
		return errors.New("the message has no id")
	}
	*m = Message{
		ID: w.ID, Role: w.Role, Name: w.Name, ToolCalls: w.ToolCalls, ToolCallID: w.ToolCallID,
		Error: w.Error, ActivityType: w.ActivityType, EncryptedValue: w.EncryptedValue,
		SubagentRunID: w.SubagentRunID, Metadata: w.Metadata,
	}
	hasContent := len(w.Content) > 0 && !bytes.Equal(w.Content, []byte("null"))
	switch w.Role {
	case RoleDeveloper, RoleSystem, RoleReasoning:
		if !hasContent {
			return fmt.Errorf("message %q: a %s message needs content", w.ID, w.Role)
		}
		return m.textContent(w.Content)
	case RoleAssistant:
		if !hasContent {
			return nil
		}
		return m.textContent(w.Content)
	case RoleUser, RoleTool:
		if !hasContent {
			return fmt.Errorf("message %q: a %s message needs content", w.ID, w.Role)
		}
		if w.Role == RoleTool && w.ToolCallID == "" {
			return fmt.Errorf("message %q: a tool message needs the toolCallId it answers", w.ID)
		}
		if err := json.Unmarshal(w.Content, &m.Content); err != nil {
			return fmt.Errorf("message %q: content: %w", w.ID, err)
		}
		return nil
	case RoleActivity:
		if w.ActivityType == "" {
			return fmt.Errorf("message %q: an activity message needs an activityType", w.ID)
		}
		if !hasContent || w.Content[0] != '{' {
			return fmt.Errorf("message %q: an activity message's content is an object", w.ID)
		}
		return json.Unmarshal(w.Content, &m.Activity)
	case "":
		return fmt.Errorf("message %q has no role", w.ID)
	}
	return fmt.Errorf("message %q: unknown role %q (AG-UI 1.0 has developer, system, assistant, user, tool, activity and reasoning)", w.ID, w.Role)
}

func (m *Message) textContent(raw json.RawMessage) error {
	if err := json.Unmarshal(raw, &m.Content.Text); err != nil {
		return fmt.Errorf("message %q: a %s message's content is a string", m.ID, m.Role)
	}
	return nil
}

// ToolCall is a call an assistant message made. Its JSON has "type": "function", which
// MarshalJSON writes.
type ToolCall struct {
	ID             string         `json:"id"`
	Function       FunctionCall   `json:"function"`
	EncryptedValue string         `json:"encryptedValue,omitempty"`
	Metadata       map[string]any `json:"metadata,omitempty"`
}

// FunctionCall is the name and the JSON arguments, as a string, of a tool call.
type FunctionCall struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// MarshalJSON writes the call with "type": "function".
func (c ToolCall) MarshalJSON() ([]byte, error) {
	type plain ToolCall
	return json.Marshal(struct {
		Type string `json:"type"`
		plain
	}{"function", plain(c)})
}

// Content is a message's body: text, or, when Parts is not nil, a list of parts (user and
// tool messages and TOOL_CALL_RESULT only).
type Content struct {
	Text  string
	Parts []Part
}

// MarshalJSON writes Parts as an array when it is not nil, else Text as a string.
func (c Content) MarshalJSON() ([]byte, error) {
	if c.Parts != nil {
		return json.Marshal(c.Parts)
	}
	return json.Marshal(c.Text)
}

// UnmarshalJSON reads a string into Text or an array into Parts.
func (c *Content) UnmarshalJSON(data []byte) error {
	*c = Content{}
	if len(data) > 0 && data[0] == '[' {
		parts := []Part{}
		if err := json.Unmarshal(data, &parts); err != nil {
			return err
		}
		c.Parts = parts
		return nil
	}
	if err := json.Unmarshal(data, &c.Text); err != nil {
		return errors.New("content is a string or an array of parts")
	}
	return nil
}

// PartType is the kind of a content part.
type PartType string

// The content parts of AG-UI 1.0.
const (
	PartText     PartType = "text"
	PartImage    PartType = "image"
	PartAudio    PartType = "audio"
	PartVideo    PartType = "video"
	PartDocument PartType = "document"
)

// Part is one part of a message's content: Text for a text part, Source for the media parts.
type Part struct {
	Type     PartType `json:"type"`
	ID       string   `json:"id,omitempty"`
	Text     string   `json:"text"`
	Source   *Source  `json:"source,omitempty"`
	Metadata any      `json:"metadata,omitempty"`
}

// MarshalJSON writes a text part with its text and a media part with its source.
func (p Part) MarshalJSON() ([]byte, error) {
	if p.Type == PartText {
		p.Source = nil
		type plain Part
		return json.Marshal(plain(p))
	}
	return json.Marshal(struct {
		Type     PartType `json:"type"`
		ID       string   `json:"id,omitempty"`
		Source   *Source  `json:"source"`
		Metadata any      `json:"metadata,omitempty"`
	}{p.Type, p.ID, p.Source, p.Metadata})
}

// UnmarshalJSON reads a part, refusing a type AG-UI 1.0 does not define and a media part
// without a source.
func (p *Part) UnmarshalJSON(data []byte) error {
	type plain Part
	var q plain
	if err := json.Unmarshal(data, &q); err != nil {
		return err
	}
	switch q.Type {
	case PartText:
	case PartImage, PartAudio, PartVideo, PartDocument:
		if q.Source == nil {
			return fmt.Errorf("a %s part needs a source", q.Type)
		}
	default:
		return fmt.Errorf("unknown content part type %q", q.Type)
	}
	*p = Part(q)
	return nil
}

// Source is where a media part's bytes are: Type "data" (Value is the bytes in base64;
// MimeType required), "url" (Value is the URL) or "file" (Value is a handle the Provider
// issued).
type Source struct {
	Type     string `json:"type"`
	Value    string `json:"value"`
	MimeType string `json:"mimeType,omitempty"`
	Provider string `json:"provider,omitempty"`
}
