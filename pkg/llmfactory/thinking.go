package llmfactory

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"sort"
	"strings"

	"github.com/cadrehq/cadre/pkg/model"
	"github.com/tmc/langchaingo/llms"
)

// Anthropic's extended thinking needs more than langchaingo's anthropic client does (v0.1.14):
// in a tool loop, the last assistant turn must go back with its thinking blocks, unchanged and
// first, or the API rejects the request. The client drops thinking blocks from the messages it
// sends, splits a turn of parallel calls into one message per call, loses the blocks'
// signatures when streaming, and fails on a redacted_thinking block. So, for a model with a
// thinking budget, the factory's client and its transport do that part themselves:
//
//   - the model takes the conversation as cadre keeps it (model.ShapeKeep), Reasoning parts
//     included; the client shapes a copy for langchaingo's client as before (ShapeSafe) and
//     hands the original to the transport through the request's context (thinkingCall);
//   - the transport writes the request's "messages" anew from the original: each turn one
//     assistant message, its thinking blocks first, then its text and tool uses, and one user
//     message with the results. When the turn a tool loop continues has no thinking block
//     (it was answered by another provider of a fallback chain), that one request goes without
//     thinking: the API takes it then, and would not otherwise;
//   - the transport reads the thinking blocks of the answer as they come, streamed or not,
//     with their signatures, and turns a redacted block into an empty thinking block for
//     langchaingo's client (which fails on one); the client hands the blocks as they came to
//     model.Read under model.ReasoningInfo.

// thinkingCall is one model request of a thinking model, between its client and its transport.
type thinkingCall struct {
	msgs   []llms.MessageContent // the conversation as cadre keeps it
	blocks map[int]*model.Reasoning
}

type thinkingKey struct{}

func withThinking(ctx context.Context, c *thinkingCall) context.Context {
	return context.WithValue(ctx, thinkingKey{}, c)
}

func thinkingOf(ctx context.Context) *thinkingCall {
	c, _ := ctx.Value(thinkingKey{}).(*thinkingCall)
	return c
}

// reasoning returns the blocks of the answer in order, nil for none (and for a nil c).
func (c *thinkingCall) reasoning() []model.Reasoning {
	if c == nil || len(c.blocks) == 0 {
		return nil
	}
	idx := make([]int, 0, len(c.blocks))
	for i := range c.blocks {
		idx = append(idx, i)
	}
	sort.Ints(idx)
	out := make([]model.Reasoning, len(idx))
	for i, n := range idx {
		out[i] = *c.blocks[n]
	}
	return out
}

// anBlock is a content block of Anthropic's messages API, as the transport writes and reads
// them.
type anBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text,omitempty"`
	Thinking  *string         `json:"thinking,omitempty"`
	Signature *string         `json:"signature,omitempty"`
	Data      string          `json:"data,omitempty"`
	ID        string          `json:"id,omitempty"`
	Name      string          `json:"name,omitempty"`
	Input     json.RawMessage `json:"input,omitempty"`
	ToolUseID string          `json:"tool_use_id,omitempty"`
	Content   *string         `json:"content,omitempty"`
	Source    *anSource       `json:"source,omitempty"`
}

type anSource struct {
	Type      string `json:"type"`
	MediaType string `json:"media_type,omitempty"`
	Data      string `json:"data,omitempty"`
	URL       string `json:"url,omitempty"`
}

type anMessage struct {
	Role    string    `json:"role"`
	Content []anBlock `json:"content"`
}

// anthropicMessages writes msgs as the "messages" of a request: system messages are left out
// (langchaingo's client puts them in "system"), consecutive messages of one role are one
// message, an assistant turn keeps its parts together with the thinking blocks of provider
// first. continued reports whether the request continues a tool loop whose turn has a
// thinking block.
func anthropicMessages(msgs []llms.MessageContent, provider string) (out []anMessage, continued bool) {
	for _, m := range msgs {
		role := "user"
		switch m.Role {
		case llms.ChatMessageTypeSystem:
			continue
		case llms.ChatMessageTypeAI:
			role = "assistant"
		}
		var blocks []anBlock
		for _, p := range m.Parts {
			if b, ok := anthropicBlock(p, provider); ok {
				blocks = append(blocks, b)
			}
		}
		if len(blocks) == 0 {
			continue
		}
		if n := len(out); n > 0 && out[n-1].Role == role {
			out[n-1].Content = append(out[n-1].Content, blocks...)
			continue
		}
		out = append(out, anMessage{Role: role, Content: blocks})
	}
	// A tool loop goes on when the last message holds results; the turn it continues is the
	// assistant message before it.
	if n := len(out); n >= 2 && out[n-1].Role == "user" && out[n-1].Content[0].Type == "tool_result" {
		first := out[n-2].Content[0].Type
		continued = first == "thinking" || first == "redacted_thinking"
	}
	return out, continued
}

// anthropicBlock writes one part; ok is false for a part that has nothing to send.
func anthropicBlock(p llms.ContentPart, provider string) (anBlock, bool) {
	switch p := p.(type) {
	case model.Reasoning:
		if p.Provider != provider {
			return anBlock{}, false
		}
		if p.Redacted != "" {
			return anBlock{Type: "redacted_thinking", Data: p.Redacted}, true
		}
		return anBlock{Type: "thinking", Thinking: &p.Text, Signature: &p.Signature}, true
	case llms.TextContent:
		return anBlock{Type: "text", Text: p.Text}, p.Text != ""
	case llms.BinaryContent:
		return anBlock{Type: "image", Source: &anSource{Type: "base64", MediaType: p.MIMEType, Data: base64.StdEncoding.EncodeToString(p.Data)}}, true
	case llms.ImageURLContent:
		return anBlock{Type: "image", Source: &anSource{Type: "url", URL: p.URL}}, true
	case llms.ToolCall:
		b := anBlock{Type: "tool_use", ID: p.ID, Input: json.RawMessage("{}")}
		if p.FunctionCall != nil {
			b.Name = p.FunctionCall.Name
			// Arguments that are not a JSON object go as {}: the API fails a request on them.
			var obj map[string]json.RawMessage
			if json.Unmarshal([]byte(p.FunctionCall.Arguments), &obj) == nil && obj != nil {
				b.Input = json.RawMessage(p.FunctionCall.Arguments)
			}
		}
		return b, true
	case llms.ToolCallResponse:
		return anBlock{Type: "tool_result", ToolUseID: p.ToolCallID, Content: &p.Content}, true
	}
	return anBlock{}, false
}

// loopGoesOn reports whether msgs end with results of a tool loop.
func loopGoesOn(msgs []anMessage) bool {
	n := len(msgs)
	return n > 0 && msgs[n-1].Role == "user" && msgs[n-1].Content[0].Type == "tool_result"
}

// thinkingResponse has the thinking blocks of a successful answer to c read into c as
// langchaingo's client reads the answer, and has the client read redacted blocks as empty
// thinking blocks.
func thinkingResponse(resp *http.Response, c *thinkingCall) {
	c.blocks = map[int]*model.Reasoning{}
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		resp.Body = newLineStream(resp.Body, func(line []byte) []byte { return thinkingLine(c, line) })
		return
	}
	rewrite(resp, func(body []byte) []byte { return readThinking(body, c) })
}

type errReader struct{ err error }

func (r errReader) Read([]byte) (int, error) { return 0, r.err }

// readThinking takes the thinking blocks of a whole answer, and returns it with its redacted
// blocks as empty thinking blocks.
func readThinking(body []byte, c *thinkingCall) []byte {
	var resp map[string]json.RawMessage
	if json.Unmarshal(body, &resp) != nil {
		return body // langchaingo's client says what is wrong with it
	}
	var blocks []json.RawMessage
	if json.Unmarshal(resp["content"], &blocks) != nil {
		return body
	}
	redacted := false
	for i, raw := range blocks {
		var b anBlock
		if json.Unmarshal(raw, &b) != nil {
			continue
		}
		if r, ok := reasoningOf(b); ok {
			c.blocks[i] = r
		}
		if b.Type == "redacted_thinking" {
			blocks[i], redacted = emptyThinking, true
		}
	}
	if !redacted {
		return body
	}
	resp["content"], _ = json.Marshal(blocks)
	out, err := json.Marshal(resp)
	if err != nil {
		return body
	}
	return out
}

// emptyThinking stands for a redacted block in what langchaingo's client reads.
var emptyThinking = json.RawMessage(`{"type":"thinking","thinking":"","signature":""}`)

func reasoningOf(b anBlock) (*model.Reasoning, bool) {
	switch b.Type {
	case "thinking":
		r := &model.Reasoning{Provider: "anthropic"}
		if b.Thinking != nil {
			r.Text = *b.Thinking
		}
		if b.Signature != nil {
			r.Signature = *b.Signature
		}
		return r, true
	case "redacted_thinking":
		return &model.Reasoning{Provider: "anthropic", Redacted: b.Data}, true
	}
	return nil, false
}

// thinkingLine notes what one line of a streamed answer says of thinking in c, and returns
// it as the client is to read it: the start of a redacted block as the start of an empty
// thinking block.
func thinkingLine(c *thinkingCall, line []byte) []byte {
	data, ok := bytes.CutPrefix(line, []byte("data:"))
	if !ok {
		return line
	}
	var ev struct {
		Type         string  `json:"type"`
		Index        int     `json:"index"`
		ContentBlock anBlock `json:"content_block"`
		Delta        struct {
			Type      string `json:"type"`
			Thinking  string `json:"thinking"`
			Signature string `json:"signature"`
		} `json:"delta"`
	}
	if json.Unmarshal(bytes.TrimSpace(data), &ev) != nil {
		return line
	}
	switch ev.Type {
	case "content_block_start":
		if r, ok := reasoningOf(ev.ContentBlock); ok {
			c.blocks[ev.Index] = r
		}
		if ev.ContentBlock.Type == "redacted_thinking" {
			start, _ := json.Marshal(map[string]any{"type": "content_block_start", "index": ev.Index, "content_block": emptyThinking})
			return append(append([]byte("data: "), start...), '\n')
		}
	case "content_block_delta":
		if r := c.blocks[ev.Index]; r != nil {
			switch ev.Delta.Type {
			case "thinking_delta":
				r.Text += ev.Delta.Thinking
			case "signature_delta":
				r.Signature += ev.Delta.Signature
			}
		}
	}
	return line
}
