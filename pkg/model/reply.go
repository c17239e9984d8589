package model

import (
	"crypto/rand"
	"errors"
	"strings"

	"github.com/cadrehq/cadre/pkg/usage"
	"github.com/tmc/langchaingo/llms"
)

// Reply is one model response as one assistant turn: the text and tool calls of all its
// choices, in order, and its usage counted once.
type Reply struct {
	Text      string
	ToolCalls []llms.ToolCall // Type is always "function"
	// StopReason is the provider's own word for why the model stopped ("stop", "length",
	// "max_tokens", "refusal", ...); see Finish.
	StopReason string
	// Usage is this response's usage, Requests 1.
	Usage usage.Usage
	// Reasoning is the reasoning the provider returned to be sent back with this turn
	// (Anthropic's thinking blocks), in order; nil for most providers.
	Reasoning []Reasoning
	// Refusal is the model's refusal in its own words, where its API gives them apart from
	// the answer (OpenAI's message.refusal, which langchaingo's client drops: the llm.yaml
	// factory's client hands it on under RefusalInfo); "" otherwise. A reply with a refusal
	// finishes with FinishRefusal.
	Refusal string
}

// RefusalInfo is the key of a choice's GenerationInfo under which a client gives the model's
// refusal, a string (see Reply.Refusal).
const RefusalInfo = "cadre.refusal"

// ErrEmptyResponse is returned for a response without any choice.
var ErrEmptyResponse = errors.New("the model returned a response without any choice")

// Read merges resp's choices into one Reply. Providers differ: anthropic's client answers with
// one choice per content block (text, tool use, thinking) and copies the response's usage into
// each of them, so usage is read once, from the first choice that carries it.
func Read(resp *llms.ContentResponse) (Reply, error) {
	if resp == nil || len(resp.Choices) == 0 {
		return Reply{}, ErrEmptyResponse
	}
	if len(resp.Choices) == 1 { // the common case, without copies
		c := resp.Choices[0]
		if c == nil {
			return Reply{}, ErrEmptyResponse
		}
		r := Reply{Text: c.Content, ToolCalls: normalizeCalls(c.ToolCalls), StopReason: c.StopReason, Usage: UsageOf(c.GenerationInfo)}
		r.Usage.Requests = 1
		r.Reasoning = reasoningOf(c.GenerationInfo)
		r.Refusal, _ = c.GenerationInfo[RefusalInfo].(string)
		return r, nil
	}
	var r Reply
	var text strings.Builder
	usageRead, given := false, false
	for _, c := range resp.Choices {
		if c == nil {
			continue
		}
		// The client's own list of the reasoning, when it gives one, stands for the thinking
		// choices it also left in the response.
		if rs, ok := c.GenerationInfo[ReasoningInfo].([]Reasoning); ok {
			r.Reasoning, given = rs, true
		} else if !given {
			r.Reasoning = append(r.Reasoning, reasoningOf(c.GenerationInfo)...)
		}
		if s, ok := c.GenerationInfo[RefusalInfo].(string); ok && r.Refusal == "" {
			r.Refusal = s
		}
		text.WriteString(c.Content)
		r.ToolCalls = append(r.ToolCalls, c.ToolCalls...)
		if r.StopReason == "" {
			r.StopReason = c.StopReason
		}
		if !usageRead && hasUsage(c.GenerationInfo) {
			r.Usage, usageRead = UsageOf(c.GenerationInfo), true
		}
	}
	r.Text = text.String()
	r.ToolCalls = normalizeCalls(r.ToolCalls)
	r.Usage.Requests = 1
	return r, nil
}

// normalizeCalls gives every call the type "function" (anthropic's client leaves it empty and
// openai's sends it as given, and a fallback chain may hand one's calls to the other) and an
// ID (googleai's client sets none, and results are matched to calls by ID). It copies calls
// before changing any, since a response may be shared.
func normalizeCalls(calls []llms.ToolCall) []llms.ToolCall {
	copied := false
	for i := range calls {
		if calls[i].Type == "function" && calls[i].FunctionCall != nil && calls[i].ID != "" {
			continue
		}
		if !copied {
			calls, copied = append([]llms.ToolCall(nil), calls...), true
		}
		calls[i].Type = "function"
		if calls[i].FunctionCall == nil {
			calls[i].FunctionCall = &llms.FunctionCall{}
		}
		if calls[i].ID == "" {
			calls[i].ID = "call_" + strings.ToLower(rand.Text()[:16])
		}
	}
	return calls
}

// Message is r as an assistant message: its reasoning, the text (when there is any; a refusal
// given apart from an empty text stands for it, so that the message is never empty), then
// every tool call.
func (r Reply) Message() llms.MessageContent {
	parts := make([]llms.ContentPart, 0, len(r.Reasoning)+len(r.ToolCalls)+1)
	for _, p := range r.Reasoning {
		parts = append(parts, p)
	}
	switch {
	case r.Text != "":
		parts = append(parts, llms.TextContent{Text: r.Text})
	case r.Refusal != "":
		parts = append(parts, llms.TextContent{Text: r.Refusal})
	}
	for _, c := range r.ToolCalls {
		parts = append(parts, c)
	}
	return llms.MessageContent{Role: llms.ChatMessageTypeAI, Parts: parts}
}

// Finish is why a model stopped writing, in cadre's terms.
type Finish int

const (
	// FinishDone: the model ended its turn (an answer or tool calls).
	FinishDone Finish = iota
	// FinishLength: the model hit its output token limit; the answer is cut.
	FinishLength
	// FinishRefusal: the model or the provider's filter refused to answer.
	FinishRefusal
)

// Finish classifies r.StopReason across providers: openai's "length" and "content_filter",
// anthropic's "max_tokens" and "refusal", google's MAX_TOKENS, SAFETY, RECITATION, BLOCKLIST,
// PROHIBITED_CONTENT and SPII (in any case, with or without a FinishReason prefix). A reply
// with a Refusal finishes with FinishRefusal whatever its stop reason.
func (r Reply) Finish() Finish {
	if r.Refusal != "" {
		return FinishRefusal
	}
	reason := strings.ToLower(strings.TrimPrefix(r.StopReason, "FinishReason"))
	reason = strings.ReplaceAll(reason, "_", "")
	switch reason {
	case "length", "maxtokens", "modellengthexceeded":
		return FinishLength
	case "contentfilter", "refusal", "safety", "recitation", "blocklist", "prohibitedcontent", "spii", "imagesafety":
		return FinishRefusal
	}
	return FinishDone
}

// UsageOf reads token usage from a choice's GenerationInfo, whichever provider wrote it:
//
//   - openai and ollama (through the openai client): PromptTokens (cached tokens included),
//     CompletionTokens (reasoning included), PromptCachedTokens, ReasoningTokens.
//   - anthropic: InputTokens (without cache reads and writes, which are added here),
//     OutputTokens, CacheReadInputTokens, CacheCreationInputTokens.
//   - googleai: both sets, and CachedTokens (already inside PromptTokens).
//   - vertex and bedrock: input_tokens and output_tokens.
//
// Counts may be int, int32, int64 or float64. Requests is left zero.
func UsageOf(info map[string]any) usage.Usage {
	var u usage.Usage
	if len(info) == 0 {
		return u
	}
	if in, ok := intOf(info["PromptTokens"]); ok {
		u.InputTokens = in
		u.OutputTokens, _ = intOf(info["CompletionTokens"])
		u.CacheReadTokens = firstInt(info, "PromptCachedTokens", "CachedTokens", "CacheReadInputTokens")
	} else if in, ok := intOf(info["input_tokens"]); ok { // langchaingo's vertex and bedrock clients
		u.InputTokens = in
		u.OutputTokens, _ = intOf(info["output_tokens"])
	} else {
		in, _ := intOf(info["InputTokens"])
		u.CacheReadTokens, _ = intOf(info["CacheReadInputTokens"])
		u.CacheWriteTokens, _ = intOf(info["CacheCreationInputTokens"])
		u.InputTokens = in + u.CacheReadTokens + u.CacheWriteTokens
		u.OutputTokens, _ = intOf(info["OutputTokens"])
	}
	u.ReasoningTokens = firstInt(info, "ReasoningTokens", "CompletionReasoningTokens", "ThinkingTokens")
	return u
}

func hasUsage(info map[string]any) bool {
	for _, k := range [...]string{"PromptTokens", "InputTokens", "CompletionTokens", "OutputTokens", "input_tokens"} {
		if _, ok := info[k]; ok {
			return true
		}
	}
	return false
}

func firstInt(info map[string]any, keys ...string) int {
	for _, k := range keys {
		if n, ok := intOf(info[k]); ok && n != 0 {
			return n
		}
	}
	return 0
}

func intOf(v any) (int, bool) {
	switch n := v.(type) {
	case int:
		return n, true
	case int32:
		return int(n), true
	case int64:
		return int(n), true
	case float64:
		return int(n), true
	case float32:
		return int(n), true
	case uint32:
		return int(n), true
	case uint64:
		return int(n), true
	}
	return 0, false
}
