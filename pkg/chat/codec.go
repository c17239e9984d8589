package chat

import (
	"encoding/json"
	"fmt"

	"github.com/cadrehq/cadre/pkg/model"
	"github.com/tmc/langchaingo/llms"
)

// storedMessage and storedPart are the encoding of messages in stores: cadre's own, so that
// stored chats do not change shape with langchaingo's JSON.
type storedMessage struct {
	Role  llms.ChatMessageType `json:"role"`
	Parts []storedPart         `json:"parts"`
}

type storedPart struct {
	Type      string `json:"type"` // text, image_url, binary, tool_call, tool_result, reasoning
	Text      string `json:"text,omitempty"`
	URL       string `json:"url,omitempty"`
	Detail    string `json:"detail,omitempty"`
	MIMEType  string `json:"mime_type,omitempty"`
	Data      []byte `json:"data,omitempty"`
	ID        string `json:"id,omitempty"`        // tool_call: the call's; tool_result: the call it answers
	CallType  string `json:"call_type,omitempty"` // tool_call
	Name      string `json:"name,omitempty"`      // tool_call, tool_result
	Arguments string `json:"arguments,omitempty"` // tool_call: as the model wrote them
	Content   string `json:"content,omitempty"`   // tool_result
	Provider  string `json:"provider,omitempty"`  // reasoning
	Signature string `json:"signature,omitempty"` // reasoning
	Redacted  string `json:"redacted,omitempty"`  // reasoning
}

// MarshalMessages encodes messages for a store, as JSON. Every part type of langchaingo's
// messages is kept, and model.Reasoning; a part of another type is an error.
func MarshalMessages(msgs []llms.MessageContent) ([]byte, error) {
	out := make([]storedMessage, len(msgs))
	for i, m := range msgs {
		out[i].Role = m.Role
		out[i].Parts = make([]storedPart, len(m.Parts))
		for j, p := range m.Parts {
			sp, err := storePart(p)
			if err != nil {
				return nil, fmt.Errorf("chat: message %d, part %d: %w", i, j, err)
			}
			out[i].Parts[j] = sp
		}
	}
	return json.Marshal(out)
}

func storePart(p llms.ContentPart) (storedPart, error) {
	switch p := p.(type) {
	case llms.TextContent:
		return storedPart{Type: "text", Text: p.Text}, nil
	case llms.ImageURLContent:
		return storedPart{Type: "image_url", URL: p.URL, Detail: p.Detail}, nil
	case llms.BinaryContent:
		return storedPart{Type: "binary", MIMEType: p.MIMEType, Data: p.Data}, nil
	case llms.ToolCall:
		sp := storedPart{Type: "tool_call", ID: p.ID, CallType: p.Type}
		if p.FunctionCall != nil {
			sp.Name, sp.Arguments = p.FunctionCall.Name, p.FunctionCall.Arguments
		}
		return sp, nil
	case llms.ToolCallResponse:
		return storedPart{Type: "tool_result", ID: p.ToolCallID, Name: p.Name, Content: p.Content}, nil
	case model.Reasoning:
		return storedPart{Type: "reasoning", Provider: p.Provider, Text: p.Text, Signature: p.Signature, Redacted: p.Redacted}, nil
	}
	return storedPart{}, fmt.Errorf("a part of type %T cannot be stored", p)
}

// UnmarshalMessages decodes what MarshalMessages encoded.
func UnmarshalMessages(data []byte) ([]llms.MessageContent, error) {
	var in []storedMessage
	if err := json.Unmarshal(data, &in); err != nil {
		return nil, fmt.Errorf("chat: stored messages: %w", err)
	}
	msgs := make([]llms.MessageContent, len(in))
	for i, m := range in {
		msgs[i].Role = m.Role
		msgs[i].Parts = make([]llms.ContentPart, len(m.Parts))
		for j, p := range m.Parts {
			part, err := loadPart(p)
			if err != nil {
				return nil, fmt.Errorf("chat: stored message %d, part %d: %w", i, j, err)
			}
			msgs[i].Parts[j] = part
		}
	}
	return msgs, nil
}

func loadPart(p storedPart) (llms.ContentPart, error) {
	switch p.Type {
	case "text":
		return llms.TextContent{Text: p.Text}, nil
	case "image_url":
		return llms.ImageURLContent{URL: p.URL, Detail: p.Detail}, nil
	case "binary":
		// No data is nil, however it was written: encoding/json decodes "data":"" as an empty
		// slice, which MarshalMessages leaves out, so that it would come back nil the next time.
		data := p.Data
		if len(data) == 0 {
			data = nil
		}
		return llms.BinaryContent{MIMEType: p.MIMEType, Data: data}, nil
	case "tool_call":
		return llms.ToolCall{ID: p.ID, Type: p.CallType, FunctionCall: &llms.FunctionCall{Name: p.Name, Arguments: p.Arguments}}, nil
	case "tool_result":
		return llms.ToolCallResponse{ToolCallID: p.ID, Name: p.Name, Content: p.Content}, nil
	case "reasoning":
		return model.Reasoning{TextContent: llms.TextContent{Text: p.Text}, Provider: p.Provider, Signature: p.Signature, Redacted: p.Redacted}, nil
	}
	return nil, fmt.Errorf("unknown part type %q", p.Type)
}
