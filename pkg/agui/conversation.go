package agui

import (
	"fmt"
	"slices"
	"strings"

	"github.com/tmc/langchaingo/llms"
)

// turn is what one request brings to its thread.
type turn struct {
	prompt  string                // the new user messages' text; "" when there is none
	history []llms.MessageContent // the conversation before them, in cadre's shape
	results map[string]string     // tool call id -> result, of the tool messages after the last assistant message
}

// readTurn reads a request's messages. The new part of the conversation is what follows its
// last assistant message: its user messages are the run's prompt (the last one, the ones
// before it history; joined into the prompt when the thread's history is kept elsewhere,
// keep), and its tool messages answer frontend tool calls. Messages of sub-agents
// (SubagentRunID set) belong to the runs they came from, not to this conversation, and are
// left out.
func readTurn(msgs []Message, kept bool) (turn, error) {
	var own []Message
	for _, m := range msgs {
		if m.SubagentRunID == "" {
			own = append(own, m)
		}
	}
	last := -1
	for i, m := range own {
		if m.Role == RoleAssistant {
			last = i
		}
	}
	t := turn{results: map[string]string{}}
	before := slices.Clone(own[:last+1])
	suffix := own[last+1:]
	lastUser := -1
	for i, m := range suffix {
		if m.Role == RoleUser {
			lastUser = i
		}
	}
	var texts []string
	for i, m := range suffix {
		switch {
		case m.Role == RoleTool:
			content, err := text(m)
			if err != nil {
				return turn{}, err
			}
			t.results[m.ToolCallID] = content
			before = append(before, m)
		case m.Role == RoleUser && (kept || i == lastUser):
			s, err := text(m)
			if err != nil {
				return turn{}, err
			}
			texts = append(texts, s)
		default:
			before = append(before, m)
		}
	}
	t.prompt = strings.Join(texts, "\n\n")
	if kept {
		return t, nil
	}
	var err error
	t.history, err = history(before)
	return t, err
}

// history converts messages to cadre's shape: a user message as a human turn, an assistant
// message as one AI turn holding its text and its tool calls, a tool message as one tool turn
// answering its call, a system or developer message as a system turn; reasoning and activity
// messages are not sent.
func history(msgs []Message) ([]llms.MessageContent, error) {
	names := map[string]string{} // tool call id -> tool name, for the tool messages
	var out []llms.MessageContent
	for _, m := range msgs {
		switch m.Role {
		case RoleUser:
			t, err := text(m)
			if err != nil {
				return nil, err
			}
			out = append(out, llms.TextParts(llms.ChatMessageTypeHuman, t))
		case RoleSystem, RoleDeveloper:
			out = append(out, llms.TextParts(llms.ChatMessageTypeSystem, m.Content.Text))
		case RoleAssistant:
			ai := llms.MessageContent{Role: llms.ChatMessageTypeAI}
			if m.Content.Text != "" {
				ai.Parts = append(ai.Parts, llms.TextContent{Text: m.Content.Text})
			}
			for _, c := range m.ToolCalls {
				names[c.ID] = c.Function.Name
				ai.Parts = append(ai.Parts, llms.ToolCall{ID: c.ID, Type: "function",
					FunctionCall: &llms.FunctionCall{Name: c.Function.Name, Arguments: c.Function.Arguments}})
			}
			if len(ai.Parts) > 0 {
				out = append(out, ai)
			}
		case RoleTool:
			t, err := text(m)
			if err != nil {
				return nil, err
			}
			out = append(out, llms.MessageContent{Role: llms.ChatMessageTypeTool, Parts: []llms.ContentPart{
				llms.ToolCallResponse{ToolCallID: m.ToolCallID, Name: names[m.ToolCallID], Content: t},
			}})
		}
	}
	return out, nil
}

// text is the text of a user or tool message: its string, or its text parts joined by
// newlines. A media part is refused for now.
func text(m Message) (string, error) {
	if m.Content.Parts == nil {
		return m.Content.Text, nil
	}
	texts := make([]string, 0, len(m.Content.Parts))
	for _, p := range m.Content.Parts {
		if p.Type != PartText {
			return "", fmt.Errorf("%w: message %q: %s parts are not supported yet", ErrInvalidInput, m.ID, p.Type)
		}
		texts = append(texts, p.Text)
	}
	return strings.Join(texts, "\n"), nil
}

// Messages converts a conversation in cadre's shape (a chat's messages, as a store keeps them)
// to AG-UI messages, for a front end reopening a thread: a human turn is a user message, an AI
// turn an assistant message with its text and its tool calls, a tool turn a tool message per
// result; system turns, reasoning and media parts are left out. Message ids are made from
// prefix and the place of the message, so that the same conversation gets the same ids.
func Messages(prefix string, msgs []llms.MessageContent) []Message {
	var out []Message
	id := func() string { return fmt.Sprintf("%s-%d", prefix, len(out)) }
	for _, m := range msgs {
		switch m.Role {
		case llms.ChatMessageTypeHuman:
			var texts []string
			for _, p := range m.Parts {
				if t, ok := p.(llms.TextContent); ok {
					texts = append(texts, t.Text)
				}
			}
			out = append(out, Message{ID: id(), Role: RoleUser, Content: Content{Text: strings.Join(texts, "\n")}})
		case llms.ChatMessageTypeAI:
			a := Message{ID: id(), Role: RoleAssistant}
			var texts []string
			for _, p := range m.Parts {
				switch p := p.(type) {
				case llms.TextContent:
					texts = append(texts, p.Text)
				case llms.ToolCall:
					if p.FunctionCall != nil {
						a.ToolCalls = append(a.ToolCalls, ToolCall{ID: p.ID,
							Function: FunctionCall{Name: p.FunctionCall.Name, Arguments: p.FunctionCall.Arguments}})
					}
				}
			}
			a.Content = Content{Text: strings.Join(texts, "\n")}
			if a.Content.Text != "" || len(a.ToolCalls) > 0 {
				out = append(out, a)
			}
		case llms.ChatMessageTypeTool:
			for _, p := range m.Parts {
				if r, ok := p.(llms.ToolCallResponse); ok {
					out = append(out, Message{ID: id(), Role: RoleTool, ToolCallID: r.ToolCallID, Content: Content{Text: r.Content}})
				}
			}
		}
	}
	return out
}
