package providertest

import (
	"bytes"
	"cmp"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/tmc/langchaingo/llms"
)

// NewAnthropic starts a fake Anthropic Messages API that serves POST /v1/messages (so
// a client's base URL is s.URL()+"/v1").
//
// As the real API does, it first merges consecutive messages of the same role into one. Each
// valid request is then converted for m — the system prompt into a system message, each
// message into a human or AI message (text, images, tool_use blocks as ToolCall parts), each
// tool_result block into a Tool message of its own, the result's Name taken from its call;
// its model, max_tokens, tools, tool choice... into call options — and m's response is
// rendered as one message: the text of all its choices in one text block (none when empty),
// then a tool_use block per tool call, whose ID gets the prefix "toolu_" when it lacks one.
// The stop reason is the first choice's, "stop" and "tool_calls" becoming "end_turn" and
// "tool_use" ("length" becomes "max_tokens"). The usage is read from its GenerationInfo (the
// keys of langchaingo's openai client, which [github.com/cadrehq/cadre/pkg/llmtest.Reply] sets
// for its Usage, or those of its anthropic client), input_tokens not counting cache reads.
// The usage reports cache_read_input_tokens and cache_creation_input_tokens as m's
// GenerationInfo gives them: CacheReadInputTokens and CacheCreationInputTokens with the keys
// of the anthropic client, PromptCachedTokens (reads only) with those of the openai client. When the request turns extended thinking on ("thinking": {"type":
// "enabled", "budget_tokens": N}), the message starts with a thinking block: the reasoning of
// m's choices (their ReasoningContent), or a sentence of its own, with a signature that only
// this server makes. When the request asks to stream, the answer is sent as the API's
// server-sent events, a thinking block as thinking_delta events and a signature_delta. A
// failing m gets a 500, as does a tool call whose arguments are not a JSON object, which the
// API cannot express.
//
// The system prompt may be a string or a list of text blocks; blocks and tools may carry a
// cache breakpoint ("cache_control": {"type": "ephemeral"}, with a "ttl" of "5m" or "1h").
//
// The request may ask for structured output as the generally available API takes it, with no
// beta header: "output_config": {"format": {"type": "json_schema", "schema": {...}}} (beside
// an "effort", which m does not see). It turns the JSON mode call option on and gives m the
// schema, as it came, in the context of its request
// ([github.com/cadrehq/cadre/pkg/model.OutputSchemaOf]), beside tools or not. A choice of
// m's response that carries a refusal (its GenerationInfo under model.RefusalInfo, which an
// llmtest.Reply's Refusal sets) makes the answer the API's refusal: the stop reason
// "refusal", the refusal's words in place of the choice's text, streamed alike.
//
// Requests the real API rejects get its error JSON and never reach m: a missing model or
// max_tokens, a first message not from the user, a tool_use block not answered by a
// tool_result block in the next message, a tool_result block answering no tool_use block of
// the message before, an empty text block, a tool_use input that is not a JSON object, a tool
// whose name is not ^[a-zA-Z0-9_-]{1,64}$ or whose input_schema is not an object schema, more
// than 4 cache breakpoints or one that is not ephemeral, a thinking budget under 1024 or not
// under max_tokens, and with thinking on a temperature other than 1, a top_k, a top_p under
// 0.95 or a tool_choice that forces tool use; an output_config.format of another type, or
// for a model that model.NativeOutputFor does not know to take one, or whose schema is
// outside the API's limits: an object whose additionalProperties is not false, a numeric
// bound (minimum, maximum, exclusiveMinimum, exclusiveMaximum, multipleOf), a string length
// (minLength, maxLength), a maxItems or a minItems other than 0 and 1, a recursive $ref; and a
// request without the anthropic-version header.
func NewAnthropic(m llms.Model, opts ...Option) *Server {
	a := &anthropicAPI{model: m}
	_, _ = rand.Read(a.secret[:]) // never fails
	return newServer(a, opts)
}

type anthropicAPI struct {
	model  llms.Model
	ids    atomic.Int64
	secret [32]byte // signs the thinking blocks (see sign)
}

// The request, as far as the fake reads it.
type anRequest struct {
	Model      string          `json:"model"`
	Messages   []anMessage     `json:"messages"`
	System     json.RawMessage `json:"system"` // a string or an array of text blocks
	MaxTokens  *int            `json:"max_tokens"`
	Tools      []anTool        `json:"tools"`
	ToolChoice *struct {
		Type string `json:"type"`
		Name string `json:"name"`
	} `json:"tool_choice"`
	Temperature   *float64        `json:"temperature"`
	TopP          *float64        `json:"top_p"`
	TopK          *int            `json:"top_k"`
	StopSequences []string        `json:"stop_sequences"`
	Stream        bool            `json:"stream"`
	Thinking      *anThinking     `json:"thinking"`
	OutputConfig  *anOutputConfig `json:"output_config"`
}

// anThinking is the request's extended thinking: {"type": "enabled", "budget_tokens": N}, or
// {"type": "disabled"}.
type anThinking struct {
	Type         string `json:"type"`
	BudgetTokens *int   `json:"budget_tokens"`
}

// anCacheControl is a cache breakpoint on a block or a tool: {"type": "ephemeral"}, with a
// "ttl" of "5m" (the default) or "1h".
type anCacheControl struct {
	Type string `json:"type"`
	TTL  string `json:"ttl"`
}

type anMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"` // a string or an array of blocks
}

type anBlock struct {
	Type      string          `json:"type"`
	Text      *string         `json:"text"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"` // of a tool_result: a string or an array of blocks
	Source    *struct {
		Type      string `json:"type"`
		MediaType string `json:"media_type"`
		Data      string `json:"data"`
		URL       string `json:"url"`
	} `json:"source"`
	CacheControl *anCacheControl `json:"cache_control"`
	Thinking     *string         `json:"thinking"`  // of a thinking block
	Signature    *string         `json:"signature"` // of a thinking block
	Data         string          `json:"data"`      // of a redacted_thinking block
}

type anTool struct {
	Name         string          `json:"name"`
	Description  string          `json:"description"`
	InputSchema  json.RawMessage `json:"input_schema"`
	CacheControl *anCacheControl `json:"cache_control"`
}

// The response.
type anResponse struct {
	ID           string       `json:"id"`
	Type         string       `json:"type"`
	Role         string       `json:"role"`
	Model        string       `json:"model"`
	Content      []anOutBlock `json:"content"`
	StopReason   *string      `json:"stop_reason"`
	StopSequence *string      `json:"stop_sequence"`
	Usage        anUsage      `json:"usage"`
}

type anOutBlock struct {
	Type      string          `json:"type"`
	Text      *string         `json:"text,omitempty"`
	ID        string          `json:"id,omitempty"`
	Name      string          `json:"name,omitempty"`
	Input     json.RawMessage `json:"input,omitempty"`
	Thinking  *string         `json:"thinking,omitempty"`
	Signature *string         `json:"signature,omitempty"`
}

type anUsage struct {
	InputTokens              int `json:"input_tokens"`
	CacheCreationInputTokens int `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     int `json:"cache_read_input_tokens"`
	OutputTokens             int `json:"output_tokens"`
}

type anErrorBody struct {
	Type  string `json:"type"`
	Error struct {
		Type    string `json:"type"`
		Message string `json:"message"`
	} `json:"error"`
}

// anTurn is a message, its content parsed, after merging.
type anTurn struct {
	role   string
	blocks []anBlock
}

const anthropicPath = "/v1/messages"

func (*anthropicAPI) paths() string { return anthropicPath }

func (*anthropicAPI) serves(p string) bool { return p == anthropicPath }

func (*anthropicAPI) checkKey(r *http.Request, want string) *apiError {
	key := r.Header.Get("X-Api-Key")
	if key == "" {
		return &apiError{status: http.StatusUnauthorized, message: "x-api-key header is required"}
	}
	if want != "" && key != want {
		return &apiError{status: http.StatusUnauthorized, message: "invalid x-api-key"}
	}
	return nil
}

func (*anthropicAPI) checkHeaders(h http.Header) *apiError {
	switch v := h.Get("Anthropic-Version"); v {
	case "":
		return invalid("anthropic-version: header is required")
	case "2023-06-01", "2023-01-01":
		return nil
	default:
		return invalid(fmt.Sprintf("anthropic-version: invalid version %q; use 2023-06-01", v))
	}
}

func (*anthropicAPI) errorBody(e *apiError) []byte {
	b := anErrorBody{Type: "error"}
	b.Error.Message = e.message
	b.Error.Type = e.kind
	if b.Error.Type == "" {
		switch e.status {
		case http.StatusBadRequest, http.StatusMethodNotAllowed:
			b.Error.Type = "invalid_request_error"
		case http.StatusUnauthorized:
			b.Error.Type = "authentication_error"
		case http.StatusForbidden:
			b.Error.Type = "permission_error"
		case http.StatusNotFound:
			b.Error.Type = "not_found_error"
		case http.StatusRequestEntityTooLarge:
			b.Error.Type = "request_too_large"
		case http.StatusTooManyRequests:
			b.Error.Type = "rate_limit_error"
		case 529:
			b.Error.Type = "overloaded_error"
		default:
			b.Error.Type = "api_error"
			if e.status < 500 {
				b.Error.Type = "invalid_request_error"
			}
		}
	}
	return mustJSON(&b)
}

func (*anthropicAPI) faultError(f Fault) *apiError {
	status, message := f.Status, f.Message
	if message == "" {
		switch status {
		case http.StatusTooManyRequests:
			message = "This request would exceed the rate limit for your organization. Try again later."
		case http.StatusUnauthorized:
			message = "invalid x-api-key"
		case 529:
			message = "Overloaded"
		default:
			message = http.StatusText(status)
			if message == "" {
				message = "Internal server error"
			}
		}
	}
	return &apiError{status: status, message: message}
}

func (*anthropicAPI) sample(*http.Request) (string, []byte) {
	text, stop := "This answer is cut in the middle.", "end_turn"
	return "application/json", mustJSON(&anResponse{ID: "msg_providertest0", Type: "message", Role: "assistant", Model: "providertest",
		Content: []anOutBlock{{Type: "text", Text: &text}}, StopReason: &stop})
}

func (a *anthropicAPI) serve(w http.ResponseWriter, r *http.Request, body []byte) *apiError {
	var req anRequest
	if err := json.Unmarshal(body, &req); err != nil {
		return invalid("The request body is not valid JSON: " + err.Error())
	}
	switch {
	case req.Model == "":
		return invalid("model: Field required")
	case req.MaxTokens == nil:
		return invalid("max_tokens: Field required")
	case *req.MaxTokens < 1:
		return invalid("max_tokens: Input should be greater than or equal to 1")
	case len(req.Messages) == 0:
		return invalid("messages: at least one message is required")
	}
	opts, e := req.callOptions()
	if e != nil {
		return e
	}
	thinking, e := req.thinking()
	if e != nil {
		return e
	}
	system, e := anthropicSystem(req.System)
	if e != nil {
		return e
	}
	turns, e := anthropicTurns(req.Messages)
	if e != nil {
		return e
	}
	if e := a.checkThinking(turns, thinking); e != nil {
		return e
	}
	if e := checkBreakpoints(&req, turns); e != nil {
		return e
	}
	msgs, e := anthropicMessages(system, turns)
	if e != nil {
		return e
	}
	resp, e := generate(r.Context(), a.model, msgs, opts)
	if e != nil {
		return e
	}
	out, e := a.render(req.Model, resp, thinking)
	if e != nil {
		return e
	}
	if req.Stream {
		streamAnthropic(w, out)
		return nil
	}
	writeJSON(w, http.StatusOK, mustJSON(out))
	return nil
}

// callOptions reads and checks everything but the system prompt and the messages.
func (r *anRequest) callOptions() (*callOptions, *apiError) {
	output, e := r.outputSchema()
	if e != nil {
		return nil, e
	}
	o := &callOptions{model: r.Model, maxTokens: *r.MaxTokens, temperature: r.Temperature, topP: r.TopP, stop: r.StopSequences,
		jsonMode: output != nil, output: output}
	for i, t := range r.Tools {
		if !toolName.MatchString(t.Name) {
			return nil, invalid(fmt.Sprintf("tools.%d.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,64}$', got %q", i, t.Name))
		}
		if len(t.InputSchema) == 0 {
			return nil, invalid(fmt.Sprintf("tools.%d.custom.input_schema: Field required", i))
		}
		var schema map[string]any
		if json.Unmarshal(t.InputSchema, &schema) != nil || schema == nil {
			return nil, invalid(fmt.Sprintf("tools.%d.custom.input_schema: Input should be a valid dictionary", i))
		}
		if schema["type"] != "object" {
			return nil, invalid(fmt.Sprintf("tools.%d.custom.input_schema.type: Input should be 'object'", i))
		}
		if e := checkCacheControl(t.CacheControl, fmt.Sprintf("tools.%d.custom", i)); e != nil {
			return nil, e
		}
		o.tools = append(o.tools, llms.Tool{Type: "function", Function: &llms.FunctionDefinition{
			Name: t.Name, Description: t.Description, Parameters: schema}})
	}
	if c := r.ToolChoice; c != nil {
		if len(r.Tools) == 0 {
			return nil, invalid("tool_choice: tool_choice may only be specified while providing tools")
		}
		switch c.Type {
		case "auto", "none":
			o.toolChoice = c.Type
		case "any":
			o.toolChoice = "required"
		case "tool":
			if !slices.ContainsFunc(r.Tools, func(t anTool) bool { return t.Name == c.Name }) {
				return nil, invalid(fmt.Sprintf("tool_choice.tool.name: no tool named %q among the tools", c.Name))
			}
			o.toolChoice = llms.ToolChoice{Type: "function", Function: &llms.FunctionReference{Name: c.Name}}
		default:
			return nil, invalid(fmt.Sprintf("tool_choice.type: Input should be 'auto', 'any', 'tool' or 'none', got %q", c.Type))
		}
	}
	return o, nil
}

// The documentation the API's refusals of settings with extended thinking point to.
const thinkingDocs = "Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking"

// thinking checks the request's extended thinking, and the settings the API refuses with it
// on; it reports whether thinking is on.
func (r *anRequest) thinking() (bool, *apiError) {
	t := r.Thinking
	if t == nil || t.Type == "disabled" {
		return false, nil
	}
	if t.Type != "enabled" {
		return false, invalid(fmt.Sprintf("thinking: Input tag '%s' found using 'type' does not match any of the expected tags: 'disabled', 'enabled'", t.Type))
	}
	forced := r.ToolChoice != nil && (r.ToolChoice.Type == "any" || r.ToolChoice.Type == "tool")
	switch {
	case t.BudgetTokens == nil:
		return false, invalid("thinking.enabled.budget_tokens: Field required")
	case *t.BudgetTokens < 1024:
		return false, invalid("thinking.enabled.budget_tokens: Input should be greater than or equal to 1024")
	case *t.BudgetTokens >= *r.MaxTokens:
		return false, invalid("`max_tokens` must be greater than `thinking.budget_tokens`. " + thinkingDocs + "#max-tokens-and-context-window-size")
	case r.Temperature != nil && *r.Temperature != 1:
		return false, invalid("`temperature` may only be set to 1 when thinking is enabled. " + thinkingDocs + "#important-considerations-when-using-extended-thinking")
	case r.TopK != nil:
		return false, invalid("`top_k` must be unset when thinking is enabled. " + thinkingDocs + "#important-considerations-when-using-extended-thinking")
	case r.TopP != nil && (*r.TopP < 0.95 || *r.TopP > 1):
		return false, invalid("`top_p` must be greater than or equal to 0.95 or unset when thinking is enabled. " + thinkingDocs + "#important-considerations-when-using-extended-thinking")
	case forced:
		return false, invalid("Thinking may not be enabled when tool_choice forces tool use.")
	}
	return true, nil
}

// maxBreakpoints is how many blocks and tools a request may mark with cache_control.
const maxBreakpoints = 4

// checkCacheControl checks the cache breakpoint of the block or tool at where, if it has one.
func checkCacheControl(c *anCacheControl, where string) *apiError {
	switch {
	case c == nil:
		return nil
	case c.Type != "ephemeral":
		return invalid(fmt.Sprintf("%s.cache_control: Input tag '%s' found using 'type' does not match any of the expected tags: 'ephemeral'", where, c.Type))
	case c.TTL != "" && c.TTL != "5m" && c.TTL != "1h":
		return invalid(fmt.Sprintf("%s.cache_control.ephemeral.ttl: Input should be '5m' or '1h'", where))
	}
	return nil
}

// checkBreakpoints refuses a request with more cache breakpoints than the API takes, counting
// those of the tools, the system prompt's blocks and the messages' blocks (each checked
// already).
func checkBreakpoints(r *anRequest, turns []anTurn) *apiError {
	n := 0
	for _, t := range r.Tools {
		if t.CacheControl != nil {
			n++
		}
	}
	var system []anBlock
	_ = json.Unmarshal(r.System, &system) // a string, or blocks checked already
	for _, b := range system {
		if b.CacheControl != nil {
			n++
		}
	}
	for _, t := range turns {
		for _, b := range t.blocks {
			if b.CacheControl != nil {
				n++
			}
		}
	}
	if n > maxBreakpoints {
		return invalid(fmt.Sprintf("A maximum of %d blocks with cache_control may be provided. Found %d.", maxBreakpoints, n))
	}
	return nil
}

// anthropicSystem reads the system prompt: absent, a string, or text blocks.
func anthropicSystem(raw json.RawMessage) (string, *apiError) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, jsonNull) {
		return "", nil
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, nil
	}
	var blocks []anBlock
	if json.Unmarshal(raw, &blocks) != nil {
		return "", invalid("system: Input should be a valid string or a list of text blocks")
	}
	texts := make([]string, len(blocks))
	for i, b := range blocks {
		if b.Type != "text" || b.Text == nil {
			return "", invalid(fmt.Sprintf("system.%d: Input should be a text block", i))
		}
		if e := checkText(*b.Text, "system"); e != nil {
			return "", e
		}
		if e := checkCacheControl(b.CacheControl, fmt.Sprintf("system.%d", i)); e != nil {
			return "", e
		}
		texts[i] = *b.Text
	}
	return strings.Join(texts, "\n"), nil
}

func checkText(text, where string) *apiError {
	switch {
	case text == "":
		return invalid(where + ": text content blocks must be non-empty")
	case strings.TrimSpace(text) == "":
		return invalid(where + ": text content blocks must contain non-whitespace text")
	}
	return nil
}

// anthropicTurns parses and checks each message, then merges consecutive messages of the
// same role and checks the conversation.
func anthropicTurns(msgs []anMessage) ([]anTurn, *apiError) {
	var turns []anTurn
	for i, m := range msgs {
		if m.Role != "user" && m.Role != "assistant" {
			return nil, invalid(fmt.Sprintf("messages.%d.role: Input should be 'user' or 'assistant', got %q", i, m.Role))
		}
		blocks, e := anthropicBlocks(m, i)
		if e != nil {
			return nil, e
		}
		if len(blocks) == 0 && !(i == len(msgs)-1 && m.Role == "assistant") {
			return nil, invalid(fmt.Sprintf("messages.%d: all messages must have non-empty content except for the optional final assistant message", i))
		}
		if n := len(turns); n > 0 && turns[n-1].role == m.Role {
			turns[n-1].blocks = append(turns[n-1].blocks, blocks...)
			continue
		}
		turns = append(turns, anTurn{role: m.Role, blocks: blocks})
	}
	if turns[0].role != "user" {
		return nil, invalid(`messages: first message must use the "user" role`)
	}
	for i, t := range turns {
		if e := checkToolPairs(turns, i, t); e != nil {
			return nil, e
		}
	}
	return turns, nil
}

// checkToolPairs checks that the tool_use blocks of an assistant turn are all answered in
// the next turn, and that the tool_result blocks of a user turn answer the turn before.
func checkToolPairs(turns []anTurn, i int, t anTurn) *apiError {
	if t.role == "assistant" {
		answered := map[string]bool{}
		if i+1 < len(turns) {
			for _, b := range turns[i+1].blocks {
				if b.Type == "tool_result" {
					answered[b.ToolUseID] = true
				}
			}
		}
		var missing []string
		for _, b := range t.blocks {
			if b.Type == "tool_use" && !answered[b.ID] {
				missing = append(missing, b.ID)
			}
		}
		if len(missing) > 0 {
			return invalid(fmt.Sprintf("messages.%d: `tool_use` ids were found without `tool_result` blocks immediately after: %s. "+
				"Each `tool_use` block must have a corresponding `tool_result` block in the next message.", i, strings.Join(missing, ", ")))
		}
		return nil
	}
	asked := map[string]bool{}
	if i > 0 {
		for _, b := range turns[i-1].blocks {
			if b.Type == "tool_use" {
				asked[b.ID] = true
			}
		}
	}
	for j, b := range t.blocks {
		if b.Type == "tool_result" && !asked[b.ToolUseID] {
			return invalid(fmt.Sprintf("messages.%d.content.%d: unexpected `tool_use_id` found in `tool_result` blocks: %s. "+
				"Each `tool_result` block must have a corresponding `tool_use` block in the previous message.", i, j, b.ToolUseID))
		}
	}
	return nil
}

// anthropicBlocks parses and checks the content of message i: a string (no block when
// empty) or an array of blocks.
func anthropicBlocks(m anMessage, i int) ([]anBlock, *apiError) {
	raw := bytes.TrimSpace(m.Content)
	if len(raw) == 0 || bytes.Equal(raw, jsonNull) {
		return nil, invalid(fmt.Sprintf("messages.%d.content: Field required", i))
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		if s == "" {
			return nil, nil
		}
		if e := checkText(s, "messages"); e != nil {
			return nil, e
		}
		return []anBlock{{Type: "text", Text: &s}}, nil
	}
	var blocks []anBlock
	if err := json.Unmarshal(raw, &blocks); err != nil {
		return nil, invalid(fmt.Sprintf("messages.%d.content: Input should be a valid string or a list of content blocks (%v)", i, err))
	}
	for j, b := range blocks {
		if e := checkBlock(b, m.Role, fmt.Sprintf("messages.%d.content.%d", i, j)); e != nil {
			return nil, e
		}
	}
	return blocks, nil
}

func checkBlock(b anBlock, role, where string) *apiError {
	if e := checkCacheControl(b.CacheControl, where); e != nil {
		return e
	}
	switch b.Type {
	case "text":
		if b.Text == nil {
			return invalid(where + ".text: Field required")
		}
		return checkText(*b.Text, "messages")
	case "image":
		if role != "user" || b.Source == nil {
			return invalid(where + ": an image block needs a source and can only be in a user message")
		}
	case "tool_use":
		if role != "assistant" {
			return invalid(where + ": tool_use blocks can only be in assistant messages")
		}
		if b.ID == "" || b.Name == "" {
			return invalid(where + ".tool_use: id and name are required")
		}
		var input map[string]json.RawMessage
		if json.Unmarshal(b.Input, &input) != nil || input == nil {
			return invalid(where + ".tool_use.input: Input should be a valid dictionary")
		}
	case "tool_result":
		if role != "user" {
			return invalid(where + ": tool_result blocks can only be in user messages")
		}
		if b.ToolUseID == "" {
			return invalid(where + ".tool_result.tool_use_id: Field required")
		}
		if _, e := toolResultText(b, where); e != nil {
			return e
		}
	case "thinking", "redacted_thinking":
		if role != "assistant" {
			return invalid(where + ": thinking blocks can only be in assistant messages")
		}
		if b.Type == "thinking" && (b.Thinking == nil || b.Signature == nil) {
			return invalid(where + ".thinking: thinking and signature are required")
		}
		if b.Type == "redacted_thinking" && b.Data == "" {
			return invalid(where + ".redacted_thinking.data: Field required")
		}
	default:
		return invalid(fmt.Sprintf("%s.type: unsupported content block type %q; this fake accepts text, image, tool_use, tool_result, thinking and redacted_thinking", where, b.Type))
	}
	return nil
}

// checkThinking checks the thinking blocks sent back, as the API does: each one unchanged
// (its signature), each first in its turn; and, with thinking on, a tool loop's turn — the
// assistant turn before the results that end the conversation — must start with one. A
// redacted block is taken as it is: this server never writes one.
func (a *anthropicAPI) checkThinking(turns []anTurn, on bool) *apiError {
	for i, t := range turns {
		opened := true
		for j, b := range t.blocks {
			switch {
			case b.Type != "thinking" && b.Type != "redacted_thinking":
				opened = false
			case !opened:
				return invalid(fmt.Sprintf("messages.%d.content.%d: thinking blocks must come first in an assistant message, before its text and tool_use blocks", i, j))
			case b.Type == "thinking" && !a.signed(*b.Thinking, *b.Signature):
				return invalid(fmt.Sprintf("messages.%d.content.%d: Invalid `signature` in `thinking` block", i, j))
			}
		}
	}
	n := len(turns)
	if !on || n < 2 || len(turns[n-1].blocks) == 0 || turns[n-1].blocks[0].Type != "tool_result" || len(turns[n-2].blocks) == 0 {
		return nil
	}
	if first := turns[n-2].blocks[0].Type; first != "thinking" && first != "redacted_thinking" {
		return invalid(fmt.Sprintf("messages.%d.content.0.type: Expected `thinking` or `redacted_thinking`, but found `%s`. "+
			"When `thinking` is enabled, a final `assistant` message must start with a thinking block (preceeding the lastmost set of `tool_use` and `tool_result` blocks). "+
			"We recommend you include thinking blocks from previous turns. To avoid this requirement, disable `thinking`. %s", n-2, first, thinkingDocs))
	}
	return nil
}

// toolResultText is the text of a tool_result block's content: absent, a string, or text
// (and image) blocks, whose texts it joins.
func toolResultText(b anBlock, where string) (string, *apiError) {
	raw := bytes.TrimSpace(b.Content)
	if len(raw) == 0 || bytes.Equal(raw, jsonNull) {
		return "", nil
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, nil
	}
	var blocks []anBlock
	if json.Unmarshal(raw, &blocks) != nil {
		return "", invalid(where + ".tool_result.content: Input should be a valid string or a list of text or image blocks")
	}
	var text strings.Builder
	for k, c := range blocks {
		switch c.Type {
		case "text":
			if c.Text == nil {
				return "", invalid(fmt.Sprintf("%s.tool_result.content.%d.text: Field required", where, k))
			}
			if e := checkText(*c.Text, "messages"); e != nil {
				return "", e
			}
			text.WriteString(*c.Text)
		case "image":
		default:
			return "", invalid(fmt.Sprintf("%s.tool_result.content.%d.type: Input should be 'text' or 'image', got %q", where, k, c.Type))
		}
	}
	return text.String(), nil
}

// anthropicMessages converts the checked turns for the model.
func anthropicMessages(system string, turns []anTurn) ([]llms.MessageContent, *apiError) {
	var msgs []llms.MessageContent
	if system != "" {
		msgs = append(msgs, llms.TextParts(llms.ChatMessageTypeSystem, system))
	}
	names := map[string]string{} // tool_use ID -> name, of the turn before
	for _, t := range turns {
		if t.role == "assistant" {
			clear(names)
			var parts []llms.ContentPart
			for _, b := range t.blocks {
				switch b.Type {
				case "text":
					parts = append(parts, llms.TextContent{Text: *b.Text})
				case "tool_use":
					var args bytes.Buffer
					_ = json.Compact(&args, b.Input) // checked: a JSON object
					parts = append(parts, llms.ToolCall{ID: b.ID, Type: "function",
						FunctionCall: &llms.FunctionCall{Name: b.Name, Arguments: args.String()}})
					names[b.ID] = b.Name
				}
			}
			msgs = append(msgs, llms.MessageContent{Role: llms.ChatMessageTypeAI, Parts: parts})
			continue
		}
		parts := make([]llms.ContentPart, 0, len(t.blocks))
		for _, b := range t.blocks {
			switch b.Type {
			case "text":
				parts = append(parts, llms.TextContent{Text: *b.Text})
			case "image":
				part, e := anthropicImage(b)
				if e != nil {
					return nil, e
				}
				parts = append(parts, part)
			case "tool_result":
				text, _ := toolResultText(b, "") // checked
				parts = append(parts, llms.ToolCallResponse{ToolCallID: b.ToolUseID, Name: names[b.ToolUseID], Content: text})
			}
		}
		msgs = appendUserTurn(msgs, parts)
	}
	return msgs, nil
}

func anthropicImage(b anBlock) (llms.ContentPart, *apiError) {
	switch b.Source.Type {
	case "base64":
		data, err := base64.StdEncoding.DecodeString(b.Source.Data)
		if err != nil {
			return nil, invalid("image source: the data is not valid base64: " + err.Error())
		}
		return llms.BinaryContent{MIMEType: b.Source.MediaType, Data: data}, nil
	case "url":
		return llms.ImageURLContent{URL: b.Source.URL}, nil
	}
	return nil, invalid(fmt.Sprintf("image source: Input should be 'base64' or 'url', got %q", b.Source.Type))
}

// render builds the one message the API answers with, which starts with a thinking block
// when thinking is on.
func (a *anthropicAPI) render(model string, resp *llms.ContentResponse, thinking bool) (*anResponse, *apiError) {
	out := &anResponse{ID: fmt.Sprintf("msg_providertest%d", a.ids.Add(1)), Type: "message", Role: "assistant",
		Model: model, Content: []anOutBlock{}}
	if thinking {
		out.Content = append(out.Content, a.thinkingBlock(resp))
	}
	var text strings.Builder
	refused := false
	for _, c := range resp.Choices {
		if refusal := refusalOf(c); refusal != "" {
			text.WriteString(refusal)
			refused = true
			continue
		}
		text.WriteString(c.Content)
	}
	if text.Len() > 0 {
		s := text.String()
		out.Content = append(out.Content, anOutBlock{Type: "text", Text: &s})
	}
	calls := 0
	for _, c := range resp.Choices {
		for _, call := range c.ToolCalls {
			block, e := a.toolUse(call)
			if e != nil {
				return nil, e
			}
			out.Content = append(out.Content, block)
			calls++
		}
	}
	first := resp.Choices[0]
	stop := stopReason(first.StopReason, calls > 0)
	if refused {
		stop = "refusal"
	}
	out.StopReason = &stop
	t := readTokens(first.GenerationInfo)
	out.Usage = anUsage{InputTokens: max(t.prompt-t.cacheRead-t.cacheWrite, 0), CacheReadInputTokens: t.cacheRead,
		CacheCreationInputTokens: t.cacheWrite, OutputTokens: t.completion}
	return out, nil
}

// defaultThinking is the text of a thinking block whose model gave no reasoning.
const defaultThinking = "The user asks a question; I work the answer out before I give it."

// thinkingBlock is the thinking block that opens an answer when thinking is on: the reasoning
// of resp's choices (ReasoningContent), or defaultThinking, signed.
func (a *anthropicAPI) thinkingBlock(resp *llms.ContentResponse) anOutBlock {
	var text strings.Builder
	for _, c := range resp.Choices {
		text.WriteString(c.ReasoningContent)
	}
	thinking := cmp.Or(text.String(), defaultThinking)
	signature := a.sign(thinking)
	return anOutBlock{Type: "thinking", Thinking: &thinking, Signature: &signature}
}

// sign returns the signature of a thinking block's text: an HMAC of it under the server's
// secret, so that the server can tell a thinking block it wrote, sent back unchanged in a
// later request, from one made up or edited (see signed), as the real API does with its
// signatures.
func (a *anthropicAPI) sign(thinking string) string {
	mac := hmac.New(sha256.New, a.secret[:])
	mac.Write([]byte(thinking))
	return base64.StdEncoding.EncodeToString(mac.Sum(nil))
}

// signed reports whether signature is the server's signature of the thinking text.
func (a *anthropicAPI) signed(thinking, signature string) bool {
	got, err := base64.StdEncoding.DecodeString(signature)
	if err != nil {
		return false
	}
	want, _ := base64.StdEncoding.DecodeString(a.sign(thinking))
	return hmac.Equal(got, want)
}

func (a *anthropicAPI) toolUse(call llms.ToolCall) (anOutBlock, *apiError) {
	name, input, e := objectArgs(call, "Anthropic")
	if e != nil {
		return anOutBlock{}, e
	}
	id := call.ID
	switch {
	case id == "":
		id = fmt.Sprintf("toolu_providertest%d", a.ids.Add(1))
	case !strings.HasPrefix(id, "toolu_"):
		id = "toolu_" + id
	}
	return anOutBlock{Type: "tool_use", ID: id, Name: name, Input: input}, nil
}

// stopReason is the API's stop reason for a model's.
func stopReason(reason string, calls bool) string {
	switch reason {
	case "", "stop":
		if calls {
			return "tool_use"
		}
		return "end_turn"
	case "tool_calls":
		return "tool_use"
	case "length":
		return "max_tokens"
	}
	return reason
}

// streamAnthropic sends out as the API streams it: message_start, then for each block its
// start, deltas and stop, then message_delta with the stop reason and message_stop. A
// thinking block's deltas are its text (thinking_delta), then its signature (signature_delta).
func streamAnthropic(w http.ResponseWriter, out *anResponse) {
	const size = 16 // bytes of text or arguments per delta
	s := startSSE(w)
	send := func(v map[string]any) { s.send(v["type"].(string), mustJSON(v)) }

	start := *out
	start.Content = []anOutBlock{}
	start.StopReason = nil
	start.Usage.OutputTokens = 1
	send(map[string]any{"type": "message_start", "message": &start})
	for i, b := range out.Content {
		var deltas []map[string]any
		switch b.Type {
		case "text":
			empty := ""
			send(map[string]any{"type": "content_block_start", "index": i, "content_block": anOutBlock{Type: "text", Text: &empty}})
			for _, p := range pieces(*b.Text, size) {
				deltas = append(deltas, map[string]any{"type": "text_delta", "text": p})
			}
		case "tool_use":
			send(map[string]any{"type": "content_block_start", "index": i,
				"content_block": anOutBlock{Type: "tool_use", ID: b.ID, Name: b.Name, Input: json.RawMessage("{}")}})
			for _, p := range pieces(string(b.Input), size) {
				deltas = append(deltas, map[string]any{"type": "input_json_delta", "partial_json": p})
			}
		case "thinking":
			empty := ""
			send(map[string]any{"type": "content_block_start", "index": i,
				"content_block": anOutBlock{Type: "thinking", Thinking: &empty, Signature: &empty}})
			for _, p := range pieces(*b.Thinking, size) {
				deltas = append(deltas, map[string]any{"type": "thinking_delta", "thinking": p})
			}
			deltas = append(deltas, map[string]any{"type": "signature_delta", "signature": *b.Signature})
		}
		for _, d := range deltas {
			send(map[string]any{"type": "content_block_delta", "index": i, "delta": d})
		}
		send(map[string]any{"type": "content_block_stop", "index": i})
	}
	send(map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": out.StopReason, "stop_sequence": nil},
		"usage": map[string]any{"output_tokens": out.Usage.OutputTokens}})
	send(map[string]any{"type": "message_stop"})
}
