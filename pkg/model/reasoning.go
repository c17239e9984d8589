package model

import (
	"github.com/tmc/langchaingo/llms"
)

// Reasoning is a model's reasoning as its provider returned it with an answer — Anthropic's
// thinking blocks — kept as the first parts of that answer's assistant message. A provider
// that reasons across a tool loop needs it back: Anthropic rejects the next request of a loop
// whose last assistant turn comes without its thinking blocks, unchanged. So a Reasoning part
// stays in the conversation (and in a chat's stored history) and goes back to the provider
// that wrote it; every other provider's shape leaves it out (see Shape.Wire).
//
// Reasoning embeds llms.TextContent, which holds the reasoning in words (Text, "" for a block
// the provider redacted) and makes Reasoning an llms.ContentPart.
type Reasoning struct {
	llms.TextContent
	// Provider names the provider that wrote it, as Model.Provider does ("anthropic"): only
	// that provider is sent it back.
	Provider string
	// Signature is the provider's seal over Text, sent back as it came.
	Signature string
	// Redacted is the encrypted reasoning of a block the provider redacted ("" otherwise),
	// sent back as it came.
	Redacted string
}

// ReasoningInfo is the key, in a choice's GenerationInfo, of a []Reasoning that a client puts
// there for Read: the llm.yaml factory's anthropic client does, with the thinking blocks as the
// provider sent them (langchaingo's client loses their signatures when streaming, and fails on
// redacted ones). A client that does not set it may still give thinking blocks the way
// langchaingo's anthropic client does without streaming: a choice whose GenerationInfo holds
// ThinkingContent and ThinkingSignature.
const ReasoningInfo = "cadre.reasoning"

// reasoningOf reads the reasoning a choice carries, if any.
func reasoningOf(info map[string]any) []Reasoning {
	if rs, ok := info[ReasoningInfo].([]Reasoning); ok {
		return rs
	}
	sig, _ := info["ThinkingSignature"].(string)
	if sig == "" { // reasoning without a seal (DeepSeek's) is never sent back
		return nil
	}
	text, _ := info["ThinkingContent"].(string)
	return []Reasoning{{TextContent: llms.TextContent{Text: text}, Signature: sig}}
}
