package llmtest

import (
	"time"

	"github.com/cadrehq/cadre/pkg/usage"
	"github.com/tmc/langchaingo/llms"
)

// Reply is one scripted model answer.
//
// A model never modifies a Reply: each response gets its own copy of the tool calls.
type Reply struct {
	// Text is the answer's text (the choice's Content).
	Text string

	// ToolCalls are the tool calls of the answer. In each response, a call with an empty ID
	// gets one unique within its model ("call_1", "call_2", ...), and an empty Type becomes
	// "function".
	ToolCalls []llms.ToolCall

	// Err, when not nil, is returned by GenerateContent instead of a response (after Latency).
	Err error

	// StopReason is the choice's StopReason; when empty, "tool_calls" for an answer with tool
	// calls and "stop" otherwise.
	StopReason string

	// Refusal, when not empty, is the model's refusal in its words, given apart from the
	// answer as OpenAI's API gives it (message.refusal): the choice carries it in its
	// GenerationInfo under model.RefusalInfo, which model.Read takes into Reply.Refusal.
	Refusal string

	// Latency is how long the model takes to answer. It waits that long, or until the
	// request's context is done, and then returns the context's error.
	Latency time.Duration

	// Usage is reported in the choice's GenerationInfo with the keys and int values that
	// langchaingo's openai client uses: PromptTokens (InputTokens), CompletionTokens
	// (OutputTokens), TotalTokens (their sum), and, when not zero, PromptCachedTokens
	// (CacheReadTokens) and ReasoningTokens. Requests, ToolCalls and CacheWriteTokens are not
	// reported: that client has no key for them.
	Usage usage.Usage

	// Response, when not nil, is returned as is (the same pointer, each time) instead of a
	// response built from the fields above, to imitate another provider's shape; Latency and
	// Err still apply.
	Response *llms.ContentResponse
}

// Text returns a reply that answers s.
func Text(s string) Reply { return Reply{Text: s} }

// Calls returns a reply that is a turn of tool calls, such as those made by [Call].
func Calls(calls ...llms.ToolCall) Reply { return Reply{ToolCalls: calls} }

// Call returns a call of the function name with the arguments args, as the model writes them
// (usually a JSON object). The model assigns its ID when it returns it.
func Call(name, args string) llms.ToolCall {
	return llms.ToolCall{Type: "function", FunctionCall: &llms.FunctionCall{Name: name, Arguments: args}}
}

// Fail returns a reply that fails the request with err.
func Fail(err error) Reply { return Reply{Err: err} }
