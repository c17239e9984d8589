package providertest

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/tmc/langchaingo/llms"
)

// The request, as far as the fake reads it. The names are those the API knows, in the
// lowerCamelCase its clients send: an unknown name is refused, as the API refuses it. Fields
// typed json.RawMessage are accepted and not read, but for the generation config's response
// schemas (see outputSchema).
type gmRequest struct {
	Model             string             `json:"model"`
	Contents          []gmContent        `json:"contents"`
	SystemInstruction *gmContent         `json:"systemInstruction"`
	Tools             []gmTool           `json:"tools"`
	ToolConfig        *gmToolConfig      `json:"toolConfig"`
	GenerationConfig  gmGenerationConfig `json:"generationConfig"`
	SafetySettings    json.RawMessage    `json:"safetySettings"`
	CachedContent     string             `json:"cachedContent"`
}

// gmContent is a turn of the conversation; the fake answers with one too.
type gmContent struct {
	Role  string   `json:"role,omitempty"`
	Parts []gmPart `json:"parts"`
}

// gmPart holds one piece of data (its oneof "data"), and, in a request, perhaps others the
// fake does not support.
type gmPart struct {
	Text             *string             `json:"text,omitempty"`
	InlineData       *gmBlob             `json:"inlineData,omitempty"`
	FunctionCall     *gmFunctionCall     `json:"functionCall,omitempty"`
	FunctionResponse *gmFunctionResponse `json:"functionResponse,omitempty"`

	FileData            json.RawMessage `json:"fileData,omitempty"`
	ExecutableCode      json.RawMessage `json:"executableCode,omitempty"`
	CodeExecutionResult json.RawMessage `json:"codeExecutionResult,omitempty"`
	Thought             bool            `json:"thought,omitempty"`
	ThoughtSignature    string          `json:"thoughtSignature,omitempty"`
	VideoMetadata       json.RawMessage `json:"videoMetadata,omitempty"`
}

type gmBlob struct {
	MimeType string `json:"mimeType"`
	Data     string `json:"data"` // base64
}

type gmFunctionCall struct {
	ID   string          `json:"id,omitempty"`
	Name string          `json:"name"`
	Args json.RawMessage `json:"args,omitempty"`
}

type gmFunctionResponse struct {
	ID           string          `json:"id"`
	Name         string          `json:"name"`
	Response     json.RawMessage `json:"response"`
	WillContinue json.RawMessage `json:"willContinue"`
	Scheduling   json.RawMessage `json:"scheduling"`
}

type gmTool struct {
	FunctionDeclarations  []gmFunctionDeclaration `json:"functionDeclarations"`
	CodeExecution         json.RawMessage         `json:"codeExecution"`
	GoogleSearch          json.RawMessage         `json:"googleSearch"`
	GoogleSearchRetrieval json.RawMessage         `json:"googleSearchRetrieval"`
	URLContext            json.RawMessage         `json:"urlContext"`
}

type gmFunctionDeclaration struct {
	Name                 string          `json:"name"`
	Description          string          `json:"description"`
	Parameters           any             `json:"parameters"`           // a Schema
	ParametersJSONSchema any             `json:"parametersJsonSchema"` // a JSON Schema
	Response             json.RawMessage `json:"response"`
	ResponseJSONSchema   json.RawMessage `json:"responseJsonSchema"`
	Behavior             json.RawMessage `json:"behavior"`
}

type gmToolConfig struct {
	FunctionCallingConfig *struct {
		Mode                 any      `json:"mode"` // a name, or its number
		AllowedFunctionNames []string `json:"allowedFunctionNames"`
	} `json:"functionCallingConfig"`
	RetrievalConfig json.RawMessage `json:"retrievalConfig"`
}

type gmGenerationConfig struct {
	CandidateCount     int             `json:"candidateCount"`
	StopSequences      []string        `json:"stopSequences"`
	MaxOutputTokens    int             `json:"maxOutputTokens"`
	Temperature        *float64        `json:"temperature"`
	TopP               *float64        `json:"topP"`
	TopK               int             `json:"topK"`
	Seed               *int            `json:"seed"`
	ResponseMimeType   string          `json:"responseMimeType"`
	ResponseSchema     json.RawMessage `json:"responseSchema"`
	ResponseJSONSchema json.RawMessage `json:"responseJsonSchema"`
	PresencePenalty    json.RawMessage `json:"presencePenalty"`
	FrequencyPenalty   json.RawMessage `json:"frequencyPenalty"`
	ResponseLogprobs   json.RawMessage `json:"responseLogprobs"`
	Logprobs           json.RawMessage `json:"logprobs"`
	ResponseModalities json.RawMessage `json:"responseModalities"`
	ThinkingConfig     json.RawMessage `json:"thinkingConfig"`
	SpeechConfig       json.RawMessage `json:"speechConfig"`
	MediaResolution    json.RawMessage `json:"mediaResolution"`
}

// The names of the API's enums, by number: a client may send either.
var (
	geminiTypes = []string{"TYPE_UNSPECIFIED", "STRING", "NUMBER", "INTEGER", "BOOLEAN", "ARRAY", "OBJECT", "NULL"}
	geminiModes = []string{"MODE_UNSPECIFIED", "AUTO", "ANY", "NONE", "VALIDATED"}
)

// geminiSchemaFields are the fields of the API's Schema, a subset of OpenAPI's.
var geminiSchemaFields = []string{"type", "format", "title", "description", "nullable", "enum", "maxItems", "minItems",
	"properties", "required", "minProperties", "maxProperties", "minLength", "maxLength", "pattern", "example",
	"anyOf", "propertyOrdering", "default", "items", "minimum", "maximum"}

// geminiFunctionName is what the API accepts as a function's name.
var geminiFunctionName = regexp.MustCompile(`^[a-zA-Z_][a-zA-Z0-9_.:-]{0,63}$`)

// geminiInvalid is the API's 400.
func geminiInvalid(message string) *apiError {
	return &apiError{status: http.StatusBadRequest, kind: "INVALID_ARGUMENT", message: message}
}

// geminiViolation is the API's 400 for a field of the request, such as "contents[0].parts",
// in the API's words: "* GenerateContentRequest.<field>: <message>\n".
func geminiViolation(field, message string) *apiError {
	return geminiInvalid("* GenerateContentRequest." + field + ": " + message + "\n")
}

// parseGemini reads body, refusing a name the API does not know.
func parseGemini(body []byte) (*gmRequest, *apiError) {
	d := json.NewDecoder(bytes.NewReader(body))
	d.DisallowUnknownFields()
	var req gmRequest
	if err := d.Decode(&req); err != nil {
		if name, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
			return nil, geminiInvalid(fmt.Sprintf("Invalid JSON payload received. Unknown name %s: Cannot find field. "+
				"(This fake reads the lowerCamelCase names the clients send; the real API also takes snake_case ones.)", name))
		}
		return nil, geminiInvalid("Invalid JSON payload received. " + err.Error())
	}
	if d.More() {
		return nil, geminiInvalid("Invalid JSON payload received. Unexpected token after the request object.")
	}
	return &req, nil
}

// enumOf reads an enum value, sent as its name (in any case) or its number, among names.
func enumOf(v any, names []string) (string, bool) {
	switch v := v.(type) {
	case float64:
		if n := int(v); float64(n) == v && n >= 0 && n < len(names) {
			return names[n], true
		}
	case string:
		if s := strings.ToUpper(v); slices.Contains(names, s) {
			return s, true
		}
	}
	return "", false
}

// callOptions reads and checks everything but the conversation: the generation config, the
// tools and the tool config. model is the one of the path.
func (r *gmRequest) callOptions(model string) (*callOptions, *apiError) {
	g := r.GenerationConfig
	output, e := r.outputSchema(model)
	if e != nil {
		return nil, e
	}
	o := &callOptions{model: model, maxTokens: g.MaxOutputTokens, temperature: g.Temperature, topP: g.TopP, topK: g.TopK,
		stop: g.StopSequences, seed: g.Seed, candidateCount: g.CandidateCount, jsonMode: g.ResponseMimeType == "application/json", output: output}
	if r.CachedContent != "" {
		return nil, &apiError{status: http.StatusNotFound, kind: "NOT_FOUND",
			message: fmt.Sprintf("providertest: this fake keeps no cached contents: %q cannot be found", r.CachedContent)}
	}
	for i, t := range r.Tools {
		for j, d := range t.FunctionDeclarations {
			tool, e := geminiFunction(d, fmt.Sprintf("tools[%d].function_declarations[%d]", i, j))
			if e != nil {
				return nil, e
			}
			o.tools = append(o.tools, tool)
		}
	}
	choice, e := r.toolChoice()
	o.toolChoice = choice
	return o, e
}

// geminiFunction checks a function declaration at field and converts it for the model, its
// parameters as a JSON Schema.
func geminiFunction(d gmFunctionDeclaration, field string) (llms.Tool, *apiError) {
	if !geminiFunctionName.MatchString(d.Name) {
		return llms.Tool{}, geminiViolation(field+".name", "Invalid function name. Must start with a letter or an underscore. "+
			"Must be alphameric (a-z, A-Z, 0-9), underscores (_), dots (.), colons (:), or dashes (-), with a maximum length of 64.")
	}
	var params any
	switch {
	case d.Parameters != nil && d.ParametersJSONSchema != nil:
		return llms.Tool{}, geminiViolation(field, "parameters and parameters_json_schema are mutually exclusive")
	case d.Parameters != nil:
		schema, e := geminiSchema(d.Parameters, field+".parameters", true)
		if e != nil {
			return llms.Tool{}, e
		}
		params = schema
	case d.ParametersJSONSchema != nil:
		schema, _ := d.ParametersJSONSchema.(map[string]any)
		if schema["type"] != "object" {
			return llms.Tool{}, geminiViolation(field+".parameters_json_schema",
				"the schema must describe an object, whose properties are the parameters of the function")
		}
		params = schema
	}
	return llms.Tool{Type: "function", Function: &llms.FunctionDefinition{Name: d.Name, Description: d.Description, Parameters: params}}, nil
}

// geminiSchema checks a Schema at field, the parameters of a function when root, and
// converts it to a JSON Schema: the types in lower case, the rest as sent.
func geminiSchema(node any, field string, root bool) (map[string]any, *apiError) {
	s, ok := node.(map[string]any)
	if !ok {
		return nil, geminiInvalid(fmt.Sprintf("Invalid JSON payload received. Invalid value at '%s': a Schema is an object.", field))
	}
	keys := sortedKeys(s)
	for _, k := range keys {
		if !slices.Contains(geminiSchemaFields, k) {
			return nil, geminiInvalid(fmt.Sprintf("Invalid JSON payload received. Unknown name %q at '%s': Cannot find field.", k, field))
		}
	}
	out := make(map[string]any, len(s))
	for _, k := range keys {
		out[k] = s[k]
	}
	typ, e := geminiSchemaType(s, out, field)
	if e != nil {
		return nil, e
	}
	if root && typ != "OBJECT" {
		return nil, geminiViolation(field+".type", "must be OBJECT: the parameters schema of a function should be of type OBJECT")
	}
	if e := geminiProperties(s, out, typ, field); e != nil {
		return nil, e
	}
	if items, ok := s["items"]; ok {
		if out["items"], e = geminiSchema(items, field+".items", false); e != nil {
			return nil, e
		}
	}
	if anyOf, ok := s["anyOf"].([]any); ok {
		converted := make([]any, len(anyOf))
		for i, alt := range anyOf {
			if converted[i], e = geminiSchema(alt, fmt.Sprintf("%s.any_of[%d]", field, i), false); e != nil {
				return nil, e
			}
		}
		out["anyOf"] = converted
	}
	return out, nil
}

// geminiSchemaType reads the type of schema s into out, which it must have unless it has
// anyOf alternatives.
func geminiSchemaType(s, out map[string]any, field string) (string, *apiError) {
	typ := "TYPE_UNSPECIFIED"
	if v, ok := s["type"]; ok {
		if typ, ok = enumOf(v, geminiTypes); !ok {
			return "", geminiInvalid(fmt.Sprintf("Invalid value at '%s.type' (type.googleapis.com/google.ai.generativelanguage.v1beta.Type), %s",
				field, mustJSON(v)))
		}
	}
	if typ == "TYPE_UNSPECIFIED" {
		delete(out, "type")
		if _, ok := s["anyOf"]; !ok {
			return "", geminiViolation(field+".type", "must be specified")
		}
		return typ, nil
	}
	out["type"] = strings.ToLower(typ)
	return typ, nil
}

// geminiProperties checks and converts the properties of schema s, of type typ: an OBJECT
// must have some, and no other type may.
func geminiProperties(s, out map[string]any, typ, field string) *apiError {
	raw, ok := s["properties"]
	if ok && typ != "OBJECT" {
		return geminiViolation(field+".properties", "only allowed for OBJECT type")
	}
	if typ != "OBJECT" {
		return nil
	}
	props, isMap := raw.(map[string]any)
	if ok && !isMap {
		return geminiInvalid(fmt.Sprintf("Invalid JSON payload received. Invalid value at '%s.properties': a map of Schemas.", field))
	}
	if len(props) == 0 {
		return geminiViolation(field+".properties", "should be non-empty for OBJECT type")
	}
	converted := make(map[string]any, len(props))
	for _, name := range sortedKeys(props) {
		p, e := geminiSchema(props[name], field+".properties["+name+"]", false)
		if e != nil {
			return e
		}
		converted[name] = p
	}
	out["properties"] = converted
	return nil
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// toolChoice reads the function calling config: AUTO, NONE, or ANY, which becomes
// "required", or the one function it allows.
func (r *gmRequest) toolChoice() (any, *apiError) {
	if r.ToolConfig == nil || r.ToolConfig.FunctionCallingConfig == nil {
		return nil, nil
	}
	c := r.ToolConfig.FunctionCallingConfig
	mode := "MODE_UNSPECIFIED"
	if c.Mode != nil {
		var ok bool
		if mode, ok = enumOf(c.Mode, geminiModes); !ok {
			return nil, geminiInvalid(fmt.Sprintf("Invalid value at 'tool_config.function_calling_config.mode' "+
				"(type.googleapis.com/google.ai.generativelanguage.v1beta.FunctionCallingConfig.Mode), %s", mustJSON(c.Mode)))
		}
	}
	switch mode {
	case "NONE":
		return "none", nil
	case "ANY":
		if len(c.AllowedFunctionNames) == 1 {
			return llms.ToolChoice{Type: "function", Function: &llms.FunctionReference{Name: c.AllowedFunctionNames[0]}}, nil
		}
		return "required", nil
	}
	return "auto", nil
}

// messages checks the conversation and converts it for the model: the system instruction,
// then each content.
func (r *gmRequest) messages() ([]llms.MessageContent, *apiError) {
	if len(r.Contents) == 0 {
		return nil, geminiViolation("contents", "contents is not specified")
	}
	var msgs []llms.MessageContent
	if si := r.SystemInstruction; si != nil {
		system, e := geminiSystem(*si)
		if e != nil {
			return nil, e
		}
		msgs = append(msgs, system)
	}
	turns := make([][]llms.ContentPart, len(r.Contents))
	for i, c := range r.Contents {
		parts, e := geminiParts(c, i)
		if e != nil {
			return nil, e
		}
		turns[i] = parts
	}
	if e := checkGeminiTurns(r.Contents); e != nil {
		return nil, e
	}
	for i, c := range r.Contents {
		if c.Role == "model" {
			msgs = append(msgs, llms.MessageContent{Role: llms.ChatMessageTypeAI, Parts: turns[i]})
			continue
		}
		msgs = appendUserTurn(msgs, turns[i])
	}
	return msgs, nil
}

// geminiSystem converts the system instruction, of text parts, into a system message.
func geminiSystem(si gmContent) (llms.MessageContent, *apiError) {
	if len(si.Parts) == 0 {
		return llms.MessageContent{}, geminiViolation("system_instruction.parts", "contents.parts must not be empty.")
	}
	parts := make([]llms.ContentPart, len(si.Parts))
	for j, p := range si.Parts {
		if p.Text == nil || *p.Text == "" {
			return llms.MessageContent{}, geminiViolation(fmt.Sprintf("system_instruction.parts[%d].data", j),
				"required oneof field 'data' must have one initialized field")
		}
		parts[j] = llms.TextContent{Text: *p.Text}
	}
	return llms.MessageContent{Role: llms.ChatMessageTypeSystem, Parts: parts}, nil
}

// geminiParts checks content i and converts its parts for the model.
func geminiParts(c gmContent, i int) ([]llms.ContentPart, *apiError) {
	if c.Role != "" && c.Role != "user" && c.Role != "model" {
		return nil, geminiInvalid("Please use a valid role: user, model.")
	}
	if len(c.Parts) == 0 {
		return nil, geminiViolation(fmt.Sprintf("contents[%d].parts", i), "contents.parts must not be empty.")
	}
	parts := make([]llms.ContentPart, 0, len(c.Parts))
	for j, p := range c.Parts {
		part, e := geminiPart(p, fmt.Sprintf("contents[%d].parts[%d]", i, j))
		if e != nil {
			return nil, e
		}
		parts = append(parts, part)
	}
	return parts, nil
}

// geminiPart checks the part at field, which must hold exactly one piece of data, and
// converts it for the model.
func geminiPart(p gmPart, field string) (llms.ContentPart, *apiError) {
	set := 0
	for _, has := range []bool{p.Text != nil && *p.Text != "", p.InlineData != nil, p.FunctionCall != nil, p.FunctionResponse != nil,
		p.FileData != nil, p.ExecutableCode != nil, p.CodeExecutionResult != nil} {
		if has {
			set++
		}
	}
	switch {
	case set == 0:
		return nil, geminiViolation(field+".data", "required oneof field 'data' must have one initialized field")
	case set > 1:
		return nil, geminiInvalid(fmt.Sprintf("Invalid JSON payload received. Oneof field 'data' of '%s' is already set: a part holds one piece of data.", field))
	case p.Text != nil:
		return llms.TextContent{Text: *p.Text}, nil
	case p.InlineData != nil:
		return geminiBlob(*p.InlineData, field+".inline_data")
	case p.FunctionCall != nil:
		return geminiCall(*p.FunctionCall, field+".function_call")
	case p.FunctionResponse != nil:
		return geminiResult(*p.FunctionResponse, field+".function_response")
	}
	return nil, geminiInvalid("providertest: this fake reads text, inlineData, functionCall and functionResponse parts; " + field + " holds another kind")
}

func geminiBlob(b gmBlob, field string) (llms.ContentPart, *apiError) {
	data, err := base64.StdEncoding.DecodeString(b.Data)
	if err != nil {
		if data, err = base64.URLEncoding.DecodeString(b.Data); err != nil {
			return nil, geminiInvalid(fmt.Sprintf("Invalid value at '%s.data' (TYPE_BYTES), Base64 decoding failed", field))
		}
	}
	if b.MimeType == "" {
		return nil, geminiViolation(field+".mime_type", "required field is not set")
	}
	return llms.BinaryContent{MIMEType: b.MimeType, Data: data}, nil
}

func geminiCall(c gmFunctionCall, field string) (llms.ContentPart, *apiError) {
	if c.Name == "" {
		return nil, geminiViolation(field+".name", "Name cannot be empty.")
	}
	args := "{}"
	if len(c.Args) > 0 && !bytes.Equal(c.Args, jsonNull) {
		var compact bytes.Buffer
		if !isJSONObject(c.Args) || json.Compact(&compact, c.Args) != nil {
			return nil, geminiInvalid(fmt.Sprintf("Invalid value at '%s.args' (type.googleapis.com/google.protobuf.Struct), %s", field, c.Args))
		}
		args = compact.String()
	}
	return llms.ToolCall{ID: c.ID, Type: "function", FunctionCall: &llms.FunctionCall{Name: c.Name, Arguments: args}}, nil
}

func geminiResult(r gmFunctionResponse, field string) (llms.ContentPart, *apiError) {
	if r.Name == "" {
		return nil, geminiViolation(field+".name", "Name cannot be empty.")
	}
	if !isJSONObject(r.Response) {
		return nil, geminiInvalid(fmt.Sprintf("Invalid value at '%s.response' (type.googleapis.com/google.protobuf.Struct), %s", field, r.Response))
	}
	return llms.ToolCallResponse{ToolCallID: r.ID, Name: r.Name, Content: responseText(r.Response)}, nil
}

func isJSONObject(raw json.RawMessage) bool {
	var m map[string]json.RawMessage
	return json.Unmarshal(raw, &m) == nil && m != nil
}

// responseText is what the model gets of a function's response: the string that
// langchaingo's client wraps as {"response": "..."}, else the response's JSON.
func responseText(raw json.RawMessage) string {
	var wrapped map[string]json.RawMessage
	var s string
	if json.Unmarshal(raw, &wrapped) == nil && len(wrapped) == 1 && json.Unmarshal(wrapped["response"], &s) == nil {
		return s
	}
	var compact bytes.Buffer
	_ = json.Compact(&compact, raw) // checked: a JSON object
	return compact.String()
}

// checkGeminiTurns checks that function calls and responses pair up as the API requires:
// a content with function calls comes after a user turn or a function response turn (model
// contents of text between them belong to its turn), the next content answers each of its
// calls, and a content with function responses answers the one before it.
func checkGeminiTurns(cs []gmContent) *apiError {
	for i, c := range cs {
		calls, responses := c.functionParts()
		if responses > 0 {
			if i == 0 || cs[i-1].countCalls() == 0 {
				return geminiInvalid("Please ensure that function response turn comes immediately after a function call turn.")
			}
		}
		if calls == 0 {
			continue
		}
		if !afterUserTurn(cs, i) {
			return geminiInvalid("Please ensure that function call turn comes immediately after a user turn or after a function response turn.")
		}
		if i+1 == len(cs) || cs[i+1].countResponses() != calls {
			return geminiInvalid("Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn.")
		}
		if e := matchResponses(cs[i], cs[i+1], i+1); e != nil {
			return e
		}
	}
	return nil
}

func (c gmContent) functionParts() (calls, responses int) {
	for _, p := range c.Parts {
		if p.FunctionCall != nil {
			calls++
		}
		if p.FunctionResponse != nil {
			responses++
		}
	}
	return calls, responses
}

func (c gmContent) countCalls() int     { n, _ := c.functionParts(); return n }
func (c gmContent) countResponses() int { _, n := c.functionParts(); return n }

// afterUserTurn reports whether content i follows a user turn, over model contents without
// function calls.
func afterUserTurn(cs []gmContent, i int) bool {
	j := i - 1
	for j >= 0 && cs[j].Role == "model" && cs[j].countCalls() == 0 {
		j--
	}
	return j >= 0 && cs[j].Role != "model"
}

// matchResponses checks that each function response of answer (content i) answers a call of
// turn not answered yet: the one with its id when it has one, else one with its name.
func matchResponses(turn, answer gmContent, i int) *apiError {
	var open []*gmFunctionCall
	for _, p := range turn.Parts {
		if p.FunctionCall != nil {
			open = append(open, p.FunctionCall)
		}
	}
	for j, p := range answer.Parts {
		r := p.FunctionResponse
		if r == nil {
			continue
		}
		k := slices.IndexFunc(open, func(c *gmFunctionCall) bool {
			if r.ID != "" {
				return c.ID == r.ID
			}
			return c.Name == r.Name
		})
		if k < 0 {
			return geminiViolation(fmt.Sprintf("contents[%d].parts[%d].function_response", i, j),
				fmt.Sprintf("answers no function call of contents[%d] left unanswered (name %q, id %q)", i-1, r.Name, r.ID))
		}
		open = slices.Delete(open, k, k+1)
	}
	return nil
}
