package chat

import (
	"strings"

	"github.com/cadrehq/cadre/pkg/model"
	"github.com/tmc/langchaingo/llms"
)

// Window is how much of a chat's history a run loads: the most recent messages, starting at a
// user's message, within MaxMessages and MaxTokens (estimated at 4 bytes a token). It never
// separates a tool call from its result, since it only cuts before a user's message. When even
// the last user turn is over the limits, that turn is loaded whole: a chat's last exchange is
// never dropped. A zero field takes its default; a negative one means no limit.
type Window struct {
	MaxMessages int // default 100
	MaxTokens   int // default 32,000
}

// Defaults of Window.
const (
	DefaultWindowMessages = 100
	DefaultWindowTokens   = 32_000
)

// Apply returns the part of msgs the window holds (a subslice of msgs).
func (w Window) Apply(msgs []llms.MessageContent) []llms.MessageContent {
	maxMsgs, maxTokens := limit(w.MaxMessages, DefaultWindowMessages), limit(w.MaxTokens, DefaultWindowTokens)
	start, tokens := len(msgs), 0
	for i := len(msgs) - 1; i >= 0; i-- {
		tokens += EstimateTokens(msgs[i])
		if msgs[i].Role != llms.ChatMessageTypeHuman {
			continue
		}
		if start < len(msgs) && (len(msgs)-i > maxMsgs || tokens > maxTokens) {
			break
		}
		start = i
		if len(msgs)-i > maxMsgs || tokens > maxTokens {
			break
		}
	}
	return msgs[start:]
}

func limit(v, def int) int {
	switch {
	case v == 0:
		return def
	case v < 0:
		return int(^uint(0) >> 1)
	}
	return v
}

// EstimateTokens estimates the tokens of a message: 4 bytes of text a token, and a fixed cost
// for each part that is not text.
func EstimateTokens(m llms.MessageContent) int {
	n := 4 // the message's own overhead
	for _, p := range m.Parts {
		switch p := p.(type) {
		case llms.TextContent:
			n += len(p.Text) / 4
		case llms.ToolCall:
			if p.FunctionCall != nil {
				n += (len(p.FunctionCall.Name) + len(p.FunctionCall.Arguments)) / 4
			}
		case llms.ToolCallResponse:
			n += len(p.Content) / 4
		case model.Reasoning:
			n += (len(p.Text) + len(p.Redacted)) / 4
		default:
			n += 256 // an image or a file
		}
	}
	return n
}

// TextOnly returns the users' turns of msgs and the assistant's text, in new messages (msgs are
// not changed): the texts of the assistant between two users' turns become one message of one
// text, paragraphs apart; tool calls and their results are left out together, but for the
// calls keep turns into text (an answer given as a call's arguments, say). keep may be nil.
func TextOnly(msgs []llms.MessageContent, keep func(llms.FunctionCall) (string, bool)) []llms.MessageContent {
	out := make([]llms.MessageContent, 0, len(msgs))
	var texts []string // the assistant's, since the last user's turn
	flush := func() {
		if len(texts) > 0 {
			out = append(out, llms.TextParts(llms.ChatMessageTypeAI, strings.Join(texts, "\n\n")))
			texts = texts[:0]
		}
	}
	for _, m := range msgs {
		switch m.Role {
		case llms.ChatMessageTypeTool:
			continue
		case llms.ChatMessageTypeAI:
		default:
			flush()
			out = append(out, m)
			continue
		}
		for _, part := range m.Parts {
			switch part := part.(type) {
			case llms.TextContent:
				if strings.TrimSpace(part.Text) != "" {
					texts = append(texts, part.Text)
				}
			case llms.ToolCall:
				if part.FunctionCall == nil || keep == nil {
					continue
				}
				if text, ok := keep(*part.FunctionCall); ok {
					texts = append(texts, text)
				}
			}
		}
	}
	flush()
	return out
}
