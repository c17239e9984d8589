package providertest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/tmc/langchaingo/llms"
)

// NewOpenAI starts a fake OpenAI Chat Completions API that serves POST /v1/chat/completions
// (so a client's base URL is s.URL()+"/v1").
//
// Each valid request is converted for m — its messages into []llms.MessageContent (system,
// human, AI messages with text and ToolCall parts, one Tool message per tool result, the
// result's Name taken from its call), its model, tools, tool choice, maximum tokens,
// temperature... into call options — and m's response is rendered as the API does: one choice
// per choice of the response, its usage read from the first choice's GenerationInfo (the keys
// of langchaingo's openai client, which [github.com/cadrehq/cadre/pkg/llmtest.Reply] sets for
// its Usage, or those of its anthropic client), as server-sent events when the request asks to
// stream. A failing m gets a 500.
//
// The usage reports cached input (usage.prompt_tokens_details.cached_tokens) and reasoning
// output (usage.completion_tokens_details.reasoning_tokens), in the answer and in the last
// chunk of a stream. The request may carry reasoning_effort, which m does not see.
//
// The request may carry a response_format: {"type": "text"}; {"type": "json_object"}, which
// turns the JSON mode call option on; or {"type": "json_schema", "json_schema": {"name",
// "description", "schema", "strict"}}, which turns it on too and gives m the schema, as it
// came, its name and its description, in the context of its request
// ([github.com/cadrehq/cadre/pkg/model.OutputSchemaOf]), beside tools or not. A choice of m's
// response that carries a refusal (its GenerationInfo under model.RefusalInfo, which an
// llmtest.Reply's Refusal sets) is rendered as the API renders one: message.refusal with a
// null content, or delta.refusal chunks when streamed, the finish reason "stop".
//
// Requests the real API rejects get a 400 with its error JSON and never reach m: a missing
// model, no messages, a reasoning_effort other than none, minimal, low, medium, high and xhigh,
// a tool whose type is not "function", whose name is not
// ^[a-zA-Z0-9_-]{1,64}$ or whose parameters are not an object schema, an assistant message's
// tool calls not each answered by a tool message before the next other message, a tool
// message answering no call of the assistant message before it, a tool message whose content
// is not a string or a single text part; a response_format of another type, a json_object
// one whose messages never say "json", a json_schema one without a name of at most 64
// letters, digits, '_' and '-', without a schema, or whose schema is not an object schema;
// and with strict true, a schema outside the subset strict mode takes (param
// "response_format", code "invalid_json_schema"): an object whose additionalProperties is not
// false or whose required does not list each of its properties, a keyword strict mode does
// not permit (minLength, maxLength, allOf, not, if, uniqueItems, default...). The fake takes
// json_schema whatever the model, as it also stands for Azure OpenAI and the compatible APIs.
func NewOpenAI(m llms.Model, opts ...Option) *Server {
	return newServer(&openAIAPI{model: m}, opts)
}

type openAIAPI struct {
	model llms.Model
	ids   atomic.Int64
}

// The request, as far as the fake reads it.
type oaRequest struct {
	Model         string          `json:"model"`
	Messages      []oaMessage     `json:"messages"`
	Tools         []oaTool        `json:"tools"`
	ToolChoice    json.RawMessage `json:"tool_choice"`
	Stream        bool            `json:"stream"`
	StreamOptions *struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
	Temperature         *float64          `json:"temperature"`
	TopP                *float64          `json:"top_p"`
	MaxTokens           int               `json:"max_tokens"`
	MaxCompletionTokens int               `json:"max_completion_tokens"`
	N                   int               `json:"n"`
	Stop                json.RawMessage   `json:"stop"`
	Seed                *int              `json:"seed"`
	ResponseFormat      *oaResponseFormat `json:"response_format"`
	ReasoningEffort     *string           `json:"reasoning_effort"` // null as absent
}

type oaMessage struct {
	Role       string          `json:"role"`
	Content    json.RawMessage `json:"content"` // a string, an array of parts, or null
	Name       string          `json:"name"`
	ToolCalls  []oaToolCall    `json:"tool_calls"`
	ToolCallID string          `json:"tool_call_id"`
}

type oaPart struct {
	Type     string  `json:"type"`
	Text     *string `json:"text"`
	ImageURL *struct {
		URL    string `json:"url"`
		Detail string `json:"detail"`
	} `json:"image_url"`
}

type oaToolCall struct {
	ID       string     `json:"id"`
	Type     string     `json:"type"`
	Function oaFunction `json:"function"`
}

type oaFunction struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

type oaTool struct {
	Type     string `json:"type"`
	Function struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		Parameters  json.RawMessage `json:"parameters"`
		Strict      bool            `json:"strict"`
	} `json:"function"`
}

// The response.
type oaResponse struct {
	ID                string     `json:"id"`
	Object            string     `json:"object"`
	Created           int64      `json:"created"`
	Model             string     `json:"model"`
	Choices           []oaChoice `json:"choices"`
	Usage             oaUsage    `json:"usage"`
	SystemFingerprint string     `json:"system_fingerprint"`
}

type oaChoice struct {
	Index        int             `json:"index"`
	Message      oaOutMessage    `json:"message"`
	Logprobs     json.RawMessage `json:"logprobs"`
	FinishReason string          `json:"finish_reason"`
}

type oaOutMessage struct {
	Role      string       `json:"role"`
	Content   *string      `json:"content"`
	Refusal   *string      `json:"refusal"`
	ToolCalls []oaToolCall `json:"tool_calls,omitempty"`
}

type oaUsage struct {
	PromptTokens        int `json:"prompt_tokens"`
	CompletionTokens    int `json:"completion_tokens"`
	TotalTokens         int `json:"total_tokens"`
	PromptTokensDetails struct {
		CachedTokens int `json:"cached_tokens"`
	} `json:"prompt_tokens_details"`
	CompletionTokensDetails struct {
		ReasoningTokens int `json:"reasoning_tokens"`
	} `json:"completion_tokens_details"`
}

// A streamed chunk.
type oaChunk struct {
	ID                string          `json:"id"`
	Object            string          `json:"object"`
	Created           int64           `json:"created"`
	Model             string          `json:"model"`
	SystemFingerprint string          `json:"system_fingerprint"`
	Choices           []oaChunkChoice `json:"choices"`
	Usage             *oaUsage        `json:"usage,omitempty"`
}

type oaChunkChoice struct {
	Index        int             `json:"index"`
	Delta        oaDelta         `json:"delta"`
	Logprobs     json.RawMessage `json:"logprobs"`
	FinishReason *string         `json:"finish_reason"`
}

type oaDelta struct {
	Role      string        `json:"role,omitempty"`
	Content   *string       `json:"content,omitempty"`
	Refusal   *string       `json:"refusal,omitempty"`
	ToolCalls []oaDeltaCall `json:"tool_calls,omitempty"`
}

type oaDeltaCall struct {
	Index    int    `json:"index"`
	ID       string `json:"id,omitempty"`
	Type     string `json:"type,omitempty"`
	Function struct {
		Name      string `json:"name,omitempty"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

type oaErrorBody struct {
	Error struct {
		Message string  `json:"message"`
		Type    string  `json:"type"`
		Param   *string `json:"param"`
		Code    *string `json:"code"`
	} `json:"error"`
}

var jsonNull = json.RawMessage("null")

const openAIPath = "/v1/chat/completions"

func (*openAIAPI) paths() string { return openAIPath }

func (*openAIAPI) serves(p string) bool { return p == openAIPath }

func (*openAIAPI) checkKey(r *http.Request, want string) *apiError {
	key, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok || key == "" {
		return &apiError{status: http.StatusUnauthorized, kind: "invalid_request_error",
			message: `You didn't provide an API key. Send it in the Authorization header as "Bearer <key>".`}
	}
	if want != "" && key != want {
		return &apiError{status: http.StatusUnauthorized, kind: "invalid_request_error", code: "invalid_api_key",
			message: "Incorrect API key provided. Give the client the key the server expects."}
	}
	return nil
}

func (*openAIAPI) checkHeaders(http.Header) *apiError { return nil }

func (*openAIAPI) errorBody(e *apiError) []byte {
	var b oaErrorBody
	b.Error.Message = e.message
	b.Error.Type = e.kind
	if b.Error.Type == "" {
		switch {
		case e.status == http.StatusTooManyRequests:
			b.Error.Type = "requests"
		case e.status >= 500:
			b.Error.Type = "server_error"
		default:
			b.Error.Type = "invalid_request_error"
		}
	}
	if e.param != "" {
		b.Error.Param = &e.param
	}
	if e.code != "" {
		b.Error.Code = &e.code
	}
	return mustJSON(&b)
}

func (*openAIAPI) faultError(f Fault) *apiError {
	e := &apiError{status: f.Status, message: f.Message}
	switch f.Status {
	case http.StatusTooManyRequests:
		e.code = "rate_limit_exceeded"
		if e.message == "" {
			e.message = "Rate limit reached for requests. Try again later."
		}
	case http.StatusUnauthorized:
		e.code = "invalid_api_key"
		if e.message == "" {
			e.message = "Incorrect API key provided."
		}
	default:
		if e.message == "" {
			e.message = "The server had an error while processing your request (" + http.StatusText(f.Status) + ")."
		}
	}
	return e
}

func (a *openAIAPI) sample(*http.Request) (string, []byte) {
	text := "This answer is cut in the middle."
	return "application/json", mustJSON(&oaResponse{ID: "chatcmpl-providertest0", Object: "chat.completion", Model: "providertest",
		Choices: []oaChoice{{Message: oaOutMessage{Role: "assistant", Content: &text}, Logprobs: jsonNull, FinishReason: "stop"}}})
}

func (a *openAIAPI) serve(w http.ResponseWriter, r *http.Request, body []byte) *apiError {
	var req oaRequest
	if err := json.Unmarshal(body, &req); err != nil {
		return invalid("We could not parse the JSON body of your request (" + err.Error() + "). The API expects a JSON object.")
	}
	if req.Model == "" {
		return invalid("you must provide a model parameter")
	}
	if len(req.Messages) == 0 {
		return invalidParam("Invalid 'messages': empty array. Expected an array with minimum length 1, but got an empty array instead.",
			"messages", "empty_array")
	}
	opts, e := req.callOptions()
	if e != nil {
		return e
	}
	msgs, e := req.messages()
	if e != nil {
		return e
	}
	if req.ResponseFormat != nil && req.ResponseFormat.Type == "json_object" && !mentionsJSON(msgs) {
		return noJSONWord()
	}
	resp, e := generate(r.Context(), a.model, msgs, opts)
	if e != nil {
		return e
	}
	id := fmt.Sprintf("chatcmpl-providertest%d", a.ids.Add(1))
	created := time.Now().Unix()
	if req.Stream {
		streamOpenAI(w, id, req.Model, created, resp, req.StreamOptions != nil && req.StreamOptions.IncludeUsage)
		return nil
	}
	out := oaResponse{ID: id, Object: "chat.completion", Created: created, Model: req.Model,
		Usage: openAIUsage(resp), SystemFingerprint: "fp_providertest"}
	for i, c := range resp.Choices {
		msg := oaOutMessage{Role: "assistant", ToolCalls: openAICalls(c.ToolCalls)}
		if refusal := refusalOf(c); refusal != "" {
			msg.Refusal = &refusal
		} else if c.Content != "" {
			msg.Content = &c.Content
		}
		out.Choices = append(out.Choices, oaChoice{Index: i, Message: msg, Logprobs: jsonNull, FinishReason: finishReason(c)})
	}
	writeJSON(w, http.StatusOK, mustJSON(&out))
	return nil
}

func invalidParam(message, param, code string) *apiError {
	e := invalid(message)
	e.param, e.code = param, code
	return e
}

// reasoningEfforts are the values of reasoning_effort that the API takes (each model takes
// some of them: gpt-5 minimal to high, gpt-5.1 none to high).
var reasoningEfforts = []string{"none", "minimal", "low", "medium", "high", "xhigh"}

// callOptions reads and checks everything but the messages.
func (r *oaRequest) callOptions() (*callOptions, *apiError) {
	if e := r.ReasoningEffort; e != nil && !slices.Contains(reasoningEfforts, *e) {
		return nil, invalidParam(fmt.Sprintf("Invalid value: '%s'. Supported values are: 'none', 'minimal', 'low', 'medium', 'high', and 'xhigh'.", *e),
			"reasoning_effort", "invalid_value")
	}
	output, jsonMode, e := r.responseFormat()
	if e != nil {
		return nil, e
	}
	o := &callOptions{model: r.Model, maxTokens: r.MaxCompletionTokens, temperature: r.Temperature,
		topP: r.TopP, seed: r.Seed, n: r.N, jsonMode: jsonMode, output: output}
	if o.maxTokens == 0 {
		o.maxTokens = r.MaxTokens
	}
	if len(r.Stop) > 0 && !bytes.Equal(r.Stop, jsonNull) {
		var one string
		if json.Unmarshal(r.Stop, &one) == nil {
			o.stop = []string{one}
		} else if json.Unmarshal(r.Stop, &o.stop) != nil {
			return nil, invalidParam("Invalid type for 'stop': expected a string or an array of strings.", "stop", "invalid_type")
		}
	}
	for i, t := range r.Tools {
		p := fmt.Sprintf("tools[%d]", i)
		if t.Type != "function" {
			return nil, invalidParam(fmt.Sprintf("Invalid value: '%s'. Supported values are: 'function'.", t.Type), p+".type", "invalid_value")
		}
		name := t.Function.Name
		if !toolName.MatchString(name) {
			return nil, invalidParam(fmt.Sprintf("Invalid '%s.function.name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]{1,64}$', got %q.", p, name),
				p+".function.name", "invalid_value")
		}
		params, e := openAIParameters(name, t.Function.Parameters, p+".function.parameters")
		if e != nil {
			return nil, e
		}
		o.tools = append(o.tools, llms.Tool{Type: "function", Function: &llms.FunctionDefinition{
			Name: name, Description: t.Function.Description, Parameters: params, Strict: t.Function.Strict}})
	}
	choice, e := r.toolChoice()
	o.toolChoice = choice
	return o, e
}

// openAIParameters checks a tool's parameters schema: absent, or an object schema.
func openAIParameters(name string, raw json.RawMessage, param string) (any, *apiError) {
	if len(raw) == 0 {
		return nil, nil
	}
	var schema any
	if err := json.Unmarshal(raw, &schema); err != nil {
		return nil, invalidParam(fmt.Sprintf("Invalid schema for function '%s': %v.", name, err), param, "invalid_function_parameters")
	}
	obj, ok := schema.(map[string]any)
	if !ok {
		got := string(raw)
		if schema == nil {
			got = "None"
		}
		return nil, invalidParam(fmt.Sprintf("Invalid schema for function '%s': %s is not of type 'object', 'boolean'.", name, got),
			param, "invalid_function_parameters")
	}
	if t, _ := obj["type"].(string); t != "object" {
		got := "None"
		if obj["type"] != nil {
			got = fmt.Sprint(obj["type"])
		}
		return nil, invalidParam(fmt.Sprintf(`Invalid schema for function '%s': schema must be a JSON Schema of 'type: "object"', got 'type: "%s"'.`, name, got),
			param, "invalid_function_parameters")
	}
	return obj, nil
}

// toolChoice reads tool_choice: "none", "auto", "required", or a named function, which
// becomes an llms.ToolChoice.
func (r *oaRequest) toolChoice() (any, *apiError) {
	if len(r.ToolChoice) == 0 || bytes.Equal(r.ToolChoice, jsonNull) {
		return nil, nil
	}
	if len(r.Tools) == 0 {
		return nil, invalidParam("Invalid value for 'tool_choice': 'tool_choice' is only allowed when 'tools' are specified.", "tool_choice", "")
	}
	var mode string
	if json.Unmarshal(r.ToolChoice, &mode) == nil {
		if mode != "none" && mode != "auto" && mode != "required" {
			return nil, invalidParam(fmt.Sprintf("Invalid value: '%s'. Supported values are: 'none', 'auto', and 'required'.", mode), "tool_choice", "invalid_value")
		}
		return mode, nil
	}
	var named oaToolCall // the same shape: {"type": "function", "function": {"name": ...}}
	if err := json.Unmarshal(r.ToolChoice, &named); err != nil || named.Type != "function" {
		return nil, invalidParam(`Invalid 'tool_choice': expected "none", "auto", "required" or {"type": "function", "function": {"name": ...}}.`, "tool_choice", "invalid_value")
	}
	if !slices.ContainsFunc(r.Tools, func(t oaTool) bool { return t.Function.Name == named.Function.Name }) {
		return nil, invalidParam(fmt.Sprintf("Invalid 'tool_choice': the function '%s' is not among the 'tools'.", named.Function.Name), "tool_choice", "invalid_value")
	}
	return llms.ToolChoice{Type: "function", Function: &llms.FunctionReference{Name: named.Function.Name}}, nil
}

// messages checks the messages and converts them for the model.
func (r *oaRequest) messages() ([]llms.MessageContent, *apiError) {
	msgs := make([]llms.MessageContent, 0, len(r.Messages))
	var (
		calls   map[string]string // ID -> function name, of the assistant message the tool messages answer
		pending []string          // its call IDs not answered yet, in order
	)
	for i, m := range r.Messages {
		if m.Role != "tool" {
			if len(pending) > 0 {
				return nil, unansweredCalls(pending)
			}
			calls = nil
		}
		var (
			mc llms.MessageContent
			e  *apiError
		)
		switch m.Role {
		case "system", "developer":
			mc, e = openAIText(llms.ChatMessageTypeSystem, m, i, false)
		case "user":
			mc, e = openAIText(llms.ChatMessageTypeHuman, m, i, true)
		case "assistant":
			mc, e = openAIAssistant(m, i)
			if e == nil && len(m.ToolCalls) > 0 {
				calls = make(map[string]string, len(m.ToolCalls))
				pending = pending[:0]
				for _, c := range m.ToolCalls {
					calls[c.ID] = c.Function.Name
					pending = append(pending, c.ID)
				}
			}
		case "tool":
			mc, e = openAIToolResult(m, i, calls)
			pending = slices.DeleteFunc(pending, func(id string) bool { return id == m.ToolCallID })
		case "function":
			mc, e = openAIFunctionResult(m, i)
		default:
			e = invalidParam(fmt.Sprintf("Invalid value: '%s'. Supported values are: 'system', 'assistant', 'user', 'function', 'tool', and 'developer'.", m.Role),
				fmt.Sprintf("messages[%d].role", i), "invalid_value")
		}
		if e != nil {
			return nil, e
		}
		msgs = append(msgs, mc)
	}
	if len(pending) > 0 {
		return nil, unansweredCalls(pending)
	}
	return msgs, nil
}

func unansweredCalls(ids []string) *apiError {
	return invalidParam("An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. "+
		"The following tool_call_ids did not have response messages: "+strings.Join(ids, ", "), "messages", "")
}

// openAIContent parses a message's content: absent or null (ok false), a string, or an
// array of text (and, when images is set, image_url) parts.
func openAIContent(raw json.RawMessage, i int, images bool) (parts []llms.ContentPart, ok bool, e *apiError) {
	raw = bytes.TrimSpace(raw)
	param := fmt.Sprintf("messages[%d].content", i)
	switch {
	case len(raw) == 0 || bytes.Equal(raw, jsonNull):
		return nil, false, nil
	case raw[0] == '"':
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, false, invalidParam(fmt.Sprintf("Invalid '%s': %v.", param, err), param, "invalid_type")
		}
		return []llms.ContentPart{llms.TextContent{Text: s}}, true, nil
	case raw[0] != '[':
		return nil, false, invalidParam(fmt.Sprintf("Invalid type for '%s': expected one of a string or array of objects.", param), param, "invalid_type")
	}
	var ps []oaPart
	if err := json.Unmarshal(raw, &ps); err != nil {
		return nil, false, invalidParam(fmt.Sprintf("Invalid '%s': %v.", param, err), param, "invalid_type")
	}
	for j, p := range ps {
		pp := fmt.Sprintf("%s[%d]", param, j)
		switch {
		case p.Type == "text" && p.Text != nil:
			parts = append(parts, llms.TextContent{Text: *p.Text})
		case p.Type == "text":
			return nil, false, invalidParam(fmt.Sprintf("Missing required parameter: '%s.text'.", pp), pp+".text", "missing_required_parameter")
		case p.Type == "image_url" && images && p.ImageURL != nil:
			parts = append(parts, llms.ImageURLContent{URL: p.ImageURL.URL, Detail: p.ImageURL.Detail})
		default:
			supported := "'text'"
			if images {
				supported = "'text' and 'image_url'"
			}
			return nil, false, invalidParam(fmt.Sprintf("Invalid value: '%s'. Supported values are: %s.", p.Type, supported), pp+".type", "invalid_value")
		}
	}
	return parts, true, nil
}

// openAIText converts a system or user message, whose content is required.
func openAIText(role llms.ChatMessageType, m oaMessage, i int, images bool) (llms.MessageContent, *apiError) {
	parts, ok, e := openAIContent(m.Content, i, images)
	if e != nil {
		return llms.MessageContent{}, e
	}
	if !ok {
		return llms.MessageContent{}, invalidParam(fmt.Sprintf("Invalid value for 'messages[%d].content': expected a string, got null.", i),
			fmt.Sprintf("messages[%d].content", i), "invalid_type")
	}
	return llms.MessageContent{Role: role, Parts: parts}, nil
}

// openAIAssistant converts an assistant message: its text (none for empty content) and its
// tool calls, in one AI message.
func openAIAssistant(m oaMessage, i int) (llms.MessageContent, *apiError) {
	parts, ok, e := openAIContent(m.Content, i, false)
	if e != nil {
		return llms.MessageContent{}, e
	}
	if !ok && len(m.ToolCalls) == 0 {
		return llms.MessageContent{}, invalidParam(fmt.Sprintf("Invalid value for 'messages[%d].content': expected a string, got null.", i),
			fmt.Sprintf("messages[%d].content", i), "invalid_type")
	}
	parts = slices.DeleteFunc(parts, func(p llms.ContentPart) bool { return p == llms.ContentPart(llms.TextContent{}) })
	for j, c := range m.ToolCalls {
		p := fmt.Sprintf("messages[%d].tool_calls[%d]", i, j)
		if c.Type != "function" {
			return llms.MessageContent{}, invalidParam(fmt.Sprintf("Invalid value: '%s'. Supported values are: 'function'.", c.Type), p+".type", "invalid_value")
		}
		if c.ID == "" {
			return llms.MessageContent{}, invalidParam(fmt.Sprintf("Missing required parameter: '%s.id'.", p), p+".id", "missing_required_parameter")
		}
		parts = append(parts, llms.ToolCall{ID: c.ID, Type: c.Type,
			FunctionCall: &llms.FunctionCall{Name: c.Function.Name, Arguments: c.Function.Arguments}})
	}
	return llms.MessageContent{Role: llms.ChatMessageTypeAI, Parts: parts}, nil
}

// openAIToolResult converts a tool message that answers one of calls (ID -> name).
func openAIToolResult(m oaMessage, i int, calls map[string]string) (llms.MessageContent, *apiError) {
	if m.ToolCallID == "" {
		p := fmt.Sprintf("messages[%d].tool_call_id", i)
		return llms.MessageContent{}, invalidParam(fmt.Sprintf("Missing required parameter: '%s'.", p), p, "missing_required_parameter")
	}
	name, ok := calls[m.ToolCallID]
	if !ok {
		return llms.MessageContent{}, invalidParam("Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.",
			fmt.Sprintf("messages.[%d].role", i), "")
	}
	parts, _, e := openAIContent(m.Content, i, false)
	if e != nil {
		return llms.MessageContent{}, e
	}
	if len(parts) != 1 {
		p := fmt.Sprintf("messages[%d].content", i)
		return llms.MessageContent{}, invalidParam(fmt.Sprintf("Invalid '%s': a message with role 'tool' holds one result: a string or a single text part, got %d parts.", p, len(parts)),
			p, "invalid_value")
	}
	text := parts[0].(llms.TextContent).Text
	return llms.MessageContent{Role: llms.ChatMessageTypeTool, Parts: []llms.ContentPart{
		llms.ToolCallResponse{ToolCallID: m.ToolCallID, Name: name, Content: text}}}, nil
}

// openAIFunctionResult converts a (deprecated) function message.
func openAIFunctionResult(m oaMessage, i int) (llms.MessageContent, *apiError) {
	mc, e := openAIText(llms.ChatMessageTypeFunction, m, i, false)
	if e != nil {
		return mc, e
	}
	var text strings.Builder
	for _, p := range mc.Parts {
		text.WriteString(p.(llms.TextContent).Text)
	}
	mc.Parts = []llms.ContentPart{llms.ToolCallResponse{Name: m.Name, Content: text.String()}}
	return mc, nil
}

func openAICalls(calls []llms.ToolCall) []oaToolCall {
	var out []oaToolCall
	for _, c := range calls {
		tc := oaToolCall{ID: c.ID, Type: c.Type}
		if tc.Type == "" {
			tc.Type = "function"
		}
		if c.FunctionCall != nil {
			tc.Function = oaFunction{Name: c.FunctionCall.Name, Arguments: c.FunctionCall.Arguments}
		}
		out = append(out, tc)
	}
	return out
}

// finishReason is c's StopReason, or what the API says when the model gives none.
func finishReason(c *llms.ContentChoice) string {
	switch {
	case c.StopReason != "":
		return c.StopReason
	case len(c.ToolCalls) > 0:
		return "tool_calls"
	}
	return "stop"
}

func openAIUsage(resp *llms.ContentResponse) oaUsage {
	t := readTokens(resp.Choices[0].GenerationInfo)
	u := oaUsage{PromptTokens: t.prompt, CompletionTokens: t.completion, TotalTokens: t.prompt + t.completion}
	u.PromptTokensDetails.CachedTokens = t.cacheRead
	u.CompletionTokensDetails.ReasoningTokens = t.reasoning
	return u
}

// streamOpenAI sends resp as the API streams: for each choice a chunk with the role, chunks
// of text (of refusal, for a choice that refuses), for each tool call a chunk with its ID and
// name then chunks of its arguments, and a chunk with the finish reason; then the usage when
// asked for, and [DONE].
func streamOpenAI(w http.ResponseWriter, id, model string, created int64, resp *llms.ContentResponse, includeUsage bool) {
	const size = 16 // bytes of text or arguments per chunk
	s := startSSE(w)
	send := func(choices []oaChunkChoice, usage *oaUsage) {
		s.send("", mustJSON(&oaChunk{ID: id, Object: "chat.completion.chunk", Created: created, Model: model,
			SystemFingerprint: "fp_providertest", Choices: choices, Usage: usage}))
	}
	delta := func(i int, d oaDelta) { send([]oaChunkChoice{{Index: i, Delta: d, Logprobs: jsonNull}}, nil) }
	for i, c := range resp.Choices {
		empty := ""
		if refusal := refusalOf(c); refusal != "" {
			delta(i, oaDelta{Role: "assistant", Refusal: &empty})
			for _, p := range pieces(refusal, size) {
				delta(i, oaDelta{Refusal: &p})
			}
		} else {
			delta(i, oaDelta{Role: "assistant", Content: &empty})
			for _, p := range pieces(c.Content, size) {
				delta(i, oaDelta{Content: &p})
			}
		}
		for j, call := range openAICalls(c.ToolCalls) {
			first := oaDeltaCall{Index: j, ID: call.ID, Type: call.Type}
			first.Function.Name = call.Function.Name
			delta(i, oaDelta{ToolCalls: []oaDeltaCall{first}})
			for _, p := range pieces(call.Function.Arguments, size) {
				more := oaDeltaCall{Index: j}
				more.Function.Arguments = p
				delta(i, oaDelta{ToolCalls: []oaDeltaCall{more}})
			}
		}
		reason := finishReason(c)
		send([]oaChunkChoice{{Index: i, Logprobs: jsonNull, FinishReason: &reason}}, nil)
	}
	if includeUsage {
		u := openAIUsage(resp)
		send([]oaChunkChoice{}, &u)
	}
	s.send("", []byte("[DONE]"))
}
