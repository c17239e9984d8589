package model

import (
	"bytes"
	"encoding/json"

	"github.com/tmc/langchaingo/llms"
)

// Shape is how a conversation goes out on the wire to a provider. cadre keeps every
// conversation in one shape (an assistant message with a turn's text and all its tool calls,
// then one tool message per result); a Shape reshapes a copy just before a request.
type Shape int

const (
	// ShapeSafe is accepted by every provider, and is what langchaingo's anthropic and googleai
	// clients need: one part per assistant message, each tool call followed by its result,
	// arguments that are not a JSON object sent as {} (anthropic fails a whole request on them,
	// and googleai's client cannot convert them), and one result per tool message.
	ShapeSafe Shape = iota
	// ShapeOpenAI sends assistant turns as they are and one result per tool message, which is
	// what OpenAI's API (and the servers that copy it) require.
	ShapeOpenAI
	// ShapeKeep hands the conversation over as cadre keeps it, Reasoning parts included, to a
	// client that shapes it for its provider itself: the llm.yaml factory's anthropic client,
	// which sends thinking blocks back.
	ShapeKeep
)

// ToolCallChunk reports whether chunk, which a client of shape s gave its streaming function,
// is not text but the JSON of the tool calls so far — an array of objects with a function — as
// the openai client streams them through the same function.
func (s Shape) ToolCallChunk(b []byte) bool {
	if s != ShapeOpenAI || !bytes.HasPrefix(b, []byte(`[{"`)) || !json.Valid(b) {
		return false
	}
	var calls []struct {
		Function *struct {
			Name string `json:"name"`
		} `json:"function"`
	}
	if json.Unmarshal(b, &calls) != nil || len(calls) == 0 {
		return false
	}
	for _, c := range calls {
		if c.Function == nil {
			return false
		}
	}
	return true
}

// Wire returns msgs in shape s. Every tool call gets the type "function", empty text parts
// and Reasoning parts of assistant messages are dropped, and tool messages holding several
// results are split. ShapeKeep changes nothing. msgs is never modified; when nothing needs to
// change, msgs itself is returned.
func (s Shape) Wire(msgs []llms.MessageContent) []llms.MessageContent {
	if s == ShapeKeep || !s.needsChange(msgs) {
		return msgs
	}
	out := make([]llms.MessageContent, 0, len(msgs)+4)
	for i := 0; i < len(msgs); i++ {
		m := msgs[i]
		switch {
		case m.Role == llms.ChatMessageTypeTool:
			out = appendResults(out, m.Parts)
		case m.Role == llms.ChatMessageTypeAI && isEmpty(m):
			// A model's empty answer: no provider takes an assistant message without content
			// (anthropic's client even indexes its first part).
		case m.Role == llms.ChatMessageTypeAI && s == ShapeSafe:
			// The results of this turn's calls follow it; each goes right after its call.
			j := i + 1
			for j < len(msgs) && msgs[j].Role == llms.ChatMessageTypeTool {
				j++
			}
			out = appendTurnSafe(out, m, msgs[i+1:j])
			i = j - 1
		case m.Role == llms.ChatMessageTypeAI:
			out = append(out, llms.MessageContent{Role: m.Role, Parts: openAIParts(m.Parts)})
		default:
			out = append(out, m)
		}
	}
	return out
}

// needsChange reports whether any message is not already in shape s.
func (s Shape) needsChange(msgs []llms.MessageContent) bool {
	for _, m := range msgs {
		switch m.Role {
		case llms.ChatMessageTypeTool:
			if len(m.Parts) != 1 {
				return true
			}
		case llms.ChatMessageTypeAI:
			if s == ShapeSafe && len(m.Parts) > 1 || isEmpty(m) {
				return true
			}
			for _, p := range m.Parts {
				switch p := p.(type) {
				case Reasoning:
					return true
				case llms.TextContent:
					if p.Text == "" {
						return true
					}
				case llms.ToolCall:
					if p.Type != "function" || p.FunctionCall == nil || s == ShapeSafe && !isJSONObject(p.FunctionCall.Arguments) {
						return true
					}
				}
			}
		}
	}
	return false
}

func appendResults(out []llms.MessageContent, parts []llms.ContentPart) []llms.MessageContent {
	for i := range parts {
		out = append(out, llms.MessageContent{Role: llms.ChatMessageTypeTool, Parts: parts[i : i+1 : i+1]})
	}
	return out
}

// appendTurnSafe appends an assistant turn one part per message, each call followed by its
// result from results (the tool messages after the turn). Results that answer no call of
// the turn follow at the end, as they were. The new assistant messages share one array of
// parts, and the results keep their own: a turn costs one allocation, not one per part.
func appendTurnSafe(out []llms.MessageContent, turn llms.MessageContent, results []llms.MessageContent) []llms.MessageContent {
	parts := make([]llms.ContentPart, 0, len(turn.Parts))
	var used []bool // by result part, across results: each answers one call
	for _, p := range turn.Parts {
		switch q := p.(type) {
		case Reasoning:
			continue
		case llms.TextContent:
			if q.Text == "" {
				continue
			}
		case llms.ToolCall:
			if !isSafeCall(q) {
				p = safeCall(q)
			}
		}
		parts = append(parts, p)
		out = append(out, llms.MessageContent{Role: llms.ChatMessageTypeAI, Parts: parts[len(parts)-1 : len(parts) : len(parts)]})
		if c, ok := p.(llms.ToolCall); ok {
			out, used = appendResultOf(out, c.ID, results, used)
		}
	}
	n := 0
	for _, m := range results {
		for i := range m.Parts {
			if used == nil || !used[n] {
				out = appendResults(out, m.Parts[i:i+1])
			}
			n++
		}
	}
	return out
}

// appendResultOf appends the first result of results that answers call id and is not used yet,
// and marks it used.
func appendResultOf(out []llms.MessageContent, id string, results []llms.MessageContent, used []bool) ([]llms.MessageContent, []bool) {
	n := 0
	for _, m := range results {
		for i, p := range m.Parts {
			if r, ok := p.(llms.ToolCallResponse); ok && r.ToolCallID == id && (used == nil || !used[n]) {
				if used == nil {
					total := 0
					for _, m := range results {
						total += len(m.Parts)
					}
					used = make([]bool, total)
				}
				used[n] = true
				return append(out, llms.MessageContent{Role: llms.ChatMessageTypeTool, Parts: m.Parts[i : i+1 : i+1]}), used
			}
			n++
		}
	}
	return out, used
}

// isSafeCall reports whether c goes out in the safe shape as it is.
func isSafeCall(c llms.ToolCall) bool {
	return c.Type == "function" && c.FunctionCall != nil && isJSONObject(c.FunctionCall.Arguments)
}

func safeCall(c llms.ToolCall) llms.ToolCall {
	c.Type = "function"
	fc := llms.FunctionCall{}
	if c.FunctionCall != nil {
		fc = *c.FunctionCall
	}
	if !isJSONObject(fc.Arguments) {
		fc.Arguments = "{}"
	}
	c.FunctionCall = &fc
	return c
}

func openAIParts(parts []llms.ContentPart) []llms.ContentPart {
	out := make([]llms.ContentPart, 0, len(parts))
	for _, p := range parts {
		switch q := p.(type) {
		case Reasoning:
			continue
		case llms.TextContent:
			if q.Text == "" {
				continue
			}
		case llms.ToolCall:
			if q.Type != "function" || q.FunctionCall == nil {
				q.Type = "function"
				if q.FunctionCall == nil {
					q.FunctionCall = &llms.FunctionCall{Arguments: "{}"}
				}
				p = q
			}
		}
		out = append(out, p)
	}
	return out
}

// isJSONObject reports whether s is a JSON object, cheaply for the common case.
func isJSONObject(s string) bool {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case ' ', '\t', '\n', '\r':
			continue
		case '{':
			return json.Valid([]byte(s))
		}
		return false
	}
	return false
}

// isEmpty reports whether m has nothing to send: no part, or only empty text and reasoning.
func isEmpty(m llms.MessageContent) bool {
	for _, p := range m.Parts {
		switch p := p.(type) {
		case Reasoning:
		case llms.TextContent:
			if p.Text != "" {
				return false
			}
		default:
			return false
		}
	}
	return true
}
