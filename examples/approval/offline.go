package main

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/cadrehq/cadre/pkg/llmtest"
	"github.com/cadrehq/cadre/pkg/usage"
	"github.com/tmc/langchaingo/llms"
)

// offlineModel plays the model's part, deciding each reply from the conversation so far: it
// looks Ana up, says what it will do and calls send_email, then reports what happened — the
// mail sent, or the denial with the reason the person gave, as send_email's result tells it.
func offlineModel() llms.Model {
	return llmtest.NewFunc(func(_ context.Context, req llmtest.Request) llmtest.Reply {
		last := req.Messages[len(req.Messages)-1]
		result, ok := last.Parts[0].(llms.ToolCallResponse)
		switch {
		case !ok || last.Role != llms.ChatMessageTypeTool:
			return llmtest.Reply{
				ToolCalls: []llms.ToolCall{llmtest.Call("find_contact", `{"name":"Ana"}`)},
				Usage:     usage.Usage{InputTokens: 240, OutputTokens: 16},
			}
		case result.Name == "find_contact":
			var c Contact
			if json.Unmarshal([]byte(result.Content), &c) != nil || c.Email == "" {
				return llmtest.Reply{Text: "I could not find Ana's address: " + result.Content}
			}
			mail, _ := json.Marshal(Email{
				To:      c.Email,
				Subject: "Quarterly report ready for review",
				Body:    "Hi Ana,\n\nThe quarterly report is ready for your review.\n\nBest regards",
			})
			return llmtest.Reply{
				Text:      "I found Ana's address (" + c.Email + "). I'll send her a short note.",
				ToolCalls: []llms.ToolCall{llmtest.Call("send_email", string(mail))},
				Usage:     usage.Usage{InputTokens: 290, OutputTokens: 58},
			}
		case strings.HasPrefix(result.Content, "denied"):
			return llmtest.Reply{
				Text:  "I did not send the mail to Ana: send_email answered \"" + result.Content + "\".",
				Usage: usage.Usage{InputTokens: 372, OutputTokens: 30},
			}
		default:
			var s Sent
			_ = json.Unmarshal([]byte(result.Content), &s)
			return llmtest.Reply{
				Text:  "Done: I mailed Ana at " + s.To + " that the quarterly report is ready for her review (message " + s.MessageID + ").",
				Usage: usage.Usage{InputTokens: 368, OutputTokens: 27},
			}
		}
	})
}
