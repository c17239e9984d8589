package assistant

import (
	"encoding/json"
	"strings"

	"github.com/cadrehq/cadre/internal/argshape"
	"github.com/tmc/langchaingo/llms"
)

// HistoryShape is how much of a chat's history a run loads (see WithHistoryShape).
type HistoryShape int

const (
	// HistoryFull loads the history as stored: tool calls and their results included.
	HistoryFull HistoryShape = iota
	// HistoryTextOnly loads the users' turns and the assistant's text: tool calls and their
	// results are left out together, never one without the other, and a final_result call
	// becomes assistant text holding the answer's JSON, so that answers given in tool mode
	// stay in the history. It costs fewer tokens, and the model no longer sees what its tools
	// said in earlier runs.
	HistoryTextOnly
)

// WithHistoryShape sets how much of a chat's history a run of the assistant loads (default
// HistoryFull). The chat's store keeps every message either way; the shape only changes what
// is loaded, before the history window (WithHistoryWindow) is applied.
func WithHistoryShape(s HistoryShape) Option {
	return func(c *config) { c.history = s }
}

// textOnly returns msgs as HistoryTextOnly says, in new messages (msgs are not changed). The
// assistant's texts between two users' turns become one message of one text, paragraphs
// apart.
func (p *plan[O]) textOnly(msgs []llms.MessageContent) []llms.MessageContent {
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
				if part.FunctionCall != nil && part.FunctionCall.Name == finalResult {
					texts = append(texts, p.answerOf(part.FunctionCall.Arguments))
				}
			}
		}
	}
	flush()
	return out
}

// answerOf returns the answer that final_result arguments hold: the arguments themselves, or
// what they wrap for an output type that is not an object.
func (p *plan[O]) answerOf(args string) string {
	if !p.out.wrapped {
		return args
	}
	var w argshape.Output[json.RawMessage]
	if json.Unmarshal([]byte(args), &w) != nil || w.Output == nil {
		return args
	}
	return string(w.Output)
}
