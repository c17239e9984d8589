package otelcadre

import (
	"encoding/json"

	"github.com/cadrehq/cadre/pkg/assistant"
	"github.com/cadrehq/cadre/pkg/model"
	"github.com/tmc/langchaingo/llms"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
	"go.opentelemetry.io/otel/trace"
)

// The messages of a request and of a reply, as the GenAI conventions write them in
// gen_ai.input.messages, gen_ai.output.messages and gen_ai.system_instructions: recorded only
// WithContent.

type message struct {
	Role         string `json:"role"`
	Parts        []part `json:"parts"`
	FinishReason string `json:"finish_reason,omitempty"`
}

type part struct {
	Type      string          `json:"type"` // text, reasoning, tool_call, tool_call_response, blob, uri
	Content   string          `json:"content,omitempty"`
	ID        string          `json:"id,omitempty"`
	Name      string          `json:"name,omitempty"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
	Response  string          `json:"response,omitempty"`
	MIMEType  string          `json:"mime_type,omitempty"`
	URI       string          `json:"uri,omitempty"`
}

// recordInput records the request's system prompt and messages.
func (t *tracer) recordInput(span trace.Span, req *assistant.ModelRequest) {
	var system []part
	msgs := make([]message, 0, len(req.Messages))
	for _, m := range req.Messages {
		parts := partsOf(m.Parts)
		if m.Role == llms.ChatMessageTypeSystem {
			system = append(system, parts...)
			continue
		}
		msgs = append(msgs, message{Role: roleOf(m.Role), Parts: parts})
	}
	if len(system) > 0 {
		span.SetAttributes(semconv.GenAISystemInstructionsKey.String(jsonText(system)))
	}
	span.SetAttributes(semconv.GenAIInputMessagesKey.String(jsonText(msgs)))
}

// recordOutput records the reply.
func (t *tracer) recordOutput(span trace.Span, reply model.Reply) {
	out := message{Role: "assistant", Parts: partsOf(reply.Message().Parts), FinishReason: reply.StopReason}
	span.SetAttributes(semconv.GenAIOutputMessagesKey.String(jsonText([]message{out})))
}

func roleOf(r llms.ChatMessageType) string {
	switch r {
	case llms.ChatMessageTypeAI:
		return "assistant"
	case llms.ChatMessageTypeTool:
		return "tool"
	case llms.ChatMessageTypeHuman:
		return "user"
	}
	return string(r)
}

func partsOf(ps []llms.ContentPart) []part {
	out := make([]part, 0, len(ps))
	for _, p := range ps {
		switch p := p.(type) {
		case model.Reasoning:
			out = append(out, part{Type: "reasoning", Content: p.Text})
		case llms.TextContent:
			out = append(out, part{Type: "text", Content: p.Text})
		case llms.ImageURLContent:
			out = append(out, part{Type: "uri", URI: p.URL})
		case llms.BinaryContent:
			out = append(out, part{Type: "blob", MIMEType: p.MIMEType}) // the bytes stay out
		case llms.ToolCall:
			tc := part{Type: "tool_call", ID: p.ID}
			if p.FunctionCall != nil {
				tc.Name = p.FunctionCall.Name
				if json.Valid([]byte(p.FunctionCall.Arguments)) {
					tc.Arguments = json.RawMessage(p.FunctionCall.Arguments)
				} else {
					tc.Arguments, _ = json.Marshal(p.FunctionCall.Arguments)
				}
			}
			out = append(out, tc)
		case llms.ToolCallResponse:
			out = append(out, part{Type: "tool_call_response", ID: p.ToolCallID, Response: p.Content})
		}
	}
	return out
}

func jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return ""
	}
	return string(b)
}
