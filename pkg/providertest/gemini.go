package providertest

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/tmc/langchaingo/llms"
)

// NewGemini starts a fake Gemini API (generativelanguage.googleapis.com), as langchaingo's
// googleai client speaks it, that serves POST /v1beta/models/{model}:generateContent and
// :streamGenerateContent (so a client's endpoint is s.URL()). That client sends a
// conversation of one user message to :generateContent, and any other, streamed or not, to
// :streamGenerateContent.
//
// Each valid request is converted for m — the systemInstruction into a system message, each
// content into a human or an AI message (text, inline data, functionCall parts as ToolCall
// parts with the call's id, usually none), each functionResponse part into a Tool message of
// its own whose Content is the string the client wraps as {"response": "..."} (else the
// response's JSON); the path's model, the function declarations (their parameters as a JSON
// Schema, types in lower case), the function calling mode and the generation config into call
// options — and m's response is rendered as one candidate per choice: its text in a text
// part, then a functionCall part per tool call, without an id as the API sends them. The
// finish reason is STOP, or MAX_TOKENS for "length", or the choice's own when it is one of
// the API's (such as SAFETY, which the client turns into an error); a number when the request
// asks for enum-encoding=int, as the client does. The usage is read from the first choice's
// GenerationInfo (the keys of langchaingo's openai client, which
// [github.com/cadrehq/cadre/pkg/llmtest.Reply] sets for its Usage, or those of its anthropic
// client): promptTokenCount counts cached tokens, thoughtsTokenCount apart from
// candidatesTokenCount. :streamGenerateContent answers with a JSON array of responses, or with
// server-sent events when the query has alt=sse, the text cut in pieces; as the API does, only
// the last response carries the whole usage, the others the prompt's alone. (The googleai
// client keeps the usage of the first, so it reports no output tokens for an answer streamed
// in several pieces: a test sees what production sees.) A failing m gets a 500, as does a tool
// call whose arguments are not a JSON object.
//
// The generation config may ask for JSON (responseMimeType "application/json"), which turns
// the JSON mode call option on, in the schema of responseJsonSchema (a JSON Schema) or of the
// older responseSchema (the API's OpenAPI subset): m gets the schema in the context of its
// request ([github.com/cadrehq/cadre/pkg/model.OutputSchemaOf]), responseJsonSchema as it
// came, responseSchema as a JSON Schema, its types in lower case. The API has no refusal of
// its own: a choice whose stop reason is SAFETY finishes as such.
//
// Requests the real API rejects get its status and error JSON ({"error": {"code", "message",
// "status"}}) and never reach m: no contents, a role other than user and model, a content
// without parts, a part without data (an empty text is none), a function call turn that does
// not come after a user turn (model contents of text alone between them belong to its turn),
// one not answered by the next content with as many functionResponse parts, a
// functionResponse turn that does not come right after a function call turn or answers none
// of its calls left unanswered (by id when it has one, else by name), a function name the API
// refuses, function parameters that are not an OBJECT schema, a schema without a type, an
// OBJECT schema without properties or properties on another type, a field name the API does
// not know; a responseMimeType other than text/plain, application/json, application/xml,
// application/yaml and text/x.enum, a responseJsonSchema or responseSchema without
// responseMimeType application/json (or text/x.enum for responseSchema), both at once, a
// responseJsonSchema that is not an object or for a model that model.NativeOutputFor does
// not know to take one, a responseSchema the API refuses as it refuses function parameters
// (but for an OBJECT root); no key (403, PERMISSION_DENIED) or, with [WithAPIKey], another
// one (400, API_KEY_INVALID). The fake also refuses, where the API would not, the snake_case
// field names that the API takes besides the lowerCamelCase ones clients send, and a
// cachedContent, since it keeps none.
func NewGemini(m llms.Model, opts ...Option) *Server {
	return newServer(&geminiAPI{model: m}, opts)
}

type geminiAPI struct {
	model llms.Model
	ids   atomic.Int64
}

// The response.
type gmResponse struct {
	Candidates    []gmCandidate `json:"candidates"`
	UsageMetadata gmUsage       `json:"usageMetadata"`
	ModelVersion  string        `json:"modelVersion"`
	ResponseID    string        `json:"responseId"`
}

type gmCandidate struct {
	Content      gmContent `json:"content"`
	FinishReason any       `json:"finishReason,omitempty"` // a name, or its number
	Index        int       `json:"index"`
}

type gmUsage struct {
	PromptTokenCount        int `json:"promptTokenCount"`
	CandidatesTokenCount    int `json:"candidatesTokenCount,omitempty"`
	TotalTokenCount         int `json:"totalTokenCount"`
	CachedContentTokenCount int `json:"cachedContentTokenCount,omitempty"`
	ThoughtsTokenCount      int `json:"thoughtsTokenCount,omitempty"`
}

type gmErrorBody struct {
	Error struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
		Status  string `json:"status"`
		Details []any  `json:"details,omitempty"`
	} `json:"error"`
}

const geminiPrefix = "/v1beta/models/"

func (*geminiAPI) paths() string {
	return geminiPrefix + "{model}:generateContent and " + geminiPrefix + "{model}:streamGenerateContent"
}

func (*geminiAPI) serves(p string) bool {
	_, _, ok := geminiRoute(p)
	return ok
}

// geminiRoute splits a path the API serves into its model and method.
func geminiRoute(p string) (model, method string, ok bool) {
	rest, ok := strings.CutPrefix(p, geminiPrefix)
	i := strings.LastIndexByte(rest, ':')
	if !ok || i <= 0 || strings.Contains(rest[:i], "/") {
		return "", "", false
	}
	model, method = rest[:i], rest[i+1:]
	return model, method, method == "generateContent" || method == "streamGenerateContent"
}

// geminiFormat is how an answer to a request is written.
type geminiFormat struct {
	stream   bool // :streamGenerateContent
	sse      bool // alt=sse: as server-sent events, else as a JSON array
	enumInts bool // enum-encoding=int: enums as numbers, as Google's Go clients ask
}

func geminiFormatOf(r *http.Request) geminiFormat {
	_, method, _ := geminiRoute(r.URL.Path)
	q := r.URL.Query()
	alt := q.Get("alt")
	if alt == "" {
		alt = q.Get("$alt") // "json;enum-encoding=int"
	}
	kind, params, _ := strings.Cut(alt, ";")
	return geminiFormat{stream: method == "streamGenerateContent", sse: kind == "sse", enumInts: strings.Contains(params, "enum-encoding=int")}
}

// geminiFinishNumbers are the numbers of the finish reasons that the googleai client's
// v1beta protos know; it reads others, sent by name, as unspecified.
var geminiFinishNumbers = map[string]int{"FINISH_REASON_UNSPECIFIED": 0, "STOP": 1, "MAX_TOKENS": 2, "SAFETY": 3, "RECITATION": 4, "OTHER": 5}

// finish is a finish reason as f writes it.
func (f geminiFormat) finish(reason string) any {
	if n, ok := geminiFinishNumbers[reason]; ok && f.enumInts {
		return n
	}
	return reason
}

func (*geminiAPI) checkKey(r *http.Request, want string) *apiError {
	key := r.Header.Get("X-Goog-Api-Key")
	if key == "" {
		key = r.URL.Query().Get("key")
	}
	if key == "" {
		return &apiError{status: http.StatusForbidden, kind: "PERMISSION_DENIED", message: "Method doesn't allow unregistered callers " +
			"(callers without established identity). Please use API Key or other form of API consumer identity to call this API."}
	}
	if want != "" && key != want {
		return &apiError{status: http.StatusBadRequest, kind: "INVALID_ARGUMENT", message: "API key not valid. Please pass a valid API key.",
			details: []any{map[string]any{"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "API_KEY_INVALID",
				"domain": "googleapis.com", "metadata": map[string]string{"service": "generativelanguage.googleapis.com"}}}}
	}
	return nil
}

func (*geminiAPI) checkHeaders(http.Header) *apiError { return nil }

func (*geminiAPI) errorBody(e *apiError) []byte {
	var b gmErrorBody
	b.Error.Code, b.Error.Message, b.Error.Status, b.Error.Details = e.status, e.message, e.kind, e.details
	if b.Error.Status == "" || strings.ToUpper(b.Error.Status) != b.Error.Status { // not a google.rpc code
		b.Error.Status = googleStatus(e.status)
	}
	return mustJSON(&b)
}

// googleStatus is the google.rpc code that goes with an HTTP status.
func googleStatus(status int) string {
	switch status {
	case http.StatusBadRequest:
		return "INVALID_ARGUMENT"
	case http.StatusUnauthorized:
		return "UNAUTHENTICATED"
	case http.StatusForbidden:
		return "PERMISSION_DENIED"
	case http.StatusNotFound, http.StatusMethodNotAllowed:
		return "NOT_FOUND"
	case http.StatusConflict:
		return "ABORTED"
	case http.StatusTooManyRequests:
		return "RESOURCE_EXHAUSTED"
	case 499:
		return "CANCELLED"
	case http.StatusNotImplemented:
		return "UNIMPLEMENTED"
	case http.StatusServiceUnavailable:
		return "UNAVAILABLE"
	case http.StatusGatewayTimeout:
		return "DEADLINE_EXCEEDED"
	}
	if status < 500 {
		return "FAILED_PRECONDITION"
	}
	return "INTERNAL"
}

// faultError is the API's refusal; a RetryAfter in seconds is also given as the RetryInfo
// that the API sends with a 429.
func (*geminiAPI) faultError(f Fault) *apiError {
	e := &apiError{status: f.Status, message: f.Message}
	if e.message == "" {
		switch f.Status {
		case http.StatusTooManyRequests:
			e.message = "Resource has been exhausted (e.g. check quota)."
		case http.StatusServiceUnavailable:
			e.message = "The model is overloaded. Please try again later."
		case http.StatusInternalServerError:
			e.message = "An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting"
		case http.StatusForbidden:
			e.message = "The caller does not have permission"
		default:
			e.message = http.StatusText(f.Status)
		}
	}
	if secs, err := strconv.Atoi(f.RetryAfter); err == nil {
		e.details = []any{map[string]string{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": strconv.Itoa(secs) + "s"}}
	}
	return e
}

func (*geminiAPI) sample(r *http.Request) (string, []byte) {
	f := geminiFormatOf(r)
	text := "This answer is cut in the middle, "
	more := "in a stream or not."
	parts := []gmPart{{Text: &text}, {Text: &more}}
	resp := func(parts []gmPart, last bool) *gmResponse {
		c := gmCandidate{Content: gmContent{Role: "model", Parts: parts}}
		if last {
			c.FinishReason = f.finish("STOP")
		}
		return &gmResponse{Candidates: []gmCandidate{c}, UsageMetadata: gmUsage{PromptTokenCount: 5, TotalTokenCount: 5},
			ModelVersion: "providertest", ResponseID: "providertest0"}
	}
	if !f.stream {
		return "application/json", mustJSON(resp(parts, true))
	}
	var b bytes.Buffer
	s := newGeminiStream(&b, nil, f.sse)
	s.send(resp(parts[:1], false))
	s.send(resp(parts[1:], true))
	s.end()
	return s.contentType(), b.Bytes()
}

func (a *geminiAPI) serve(w http.ResponseWriter, r *http.Request, body []byte) *apiError {
	req, e := parseGemini(body)
	if e != nil {
		return e
	}
	model, _, _ := geminiRoute(r.URL.Path)
	opts, e := req.callOptions(model)
	if e != nil {
		return e
	}
	msgs, e := req.messages()
	if e != nil {
		return e
	}
	resp, e := generate(r.Context(), a.model, msgs, opts)
	if e != nil {
		return e
	}
	f := geminiFormatOf(r)
	candidates, e := geminiCandidates(resp, f)
	if e != nil {
		return e
	}
	out := &gmResponse{Candidates: candidates, UsageMetadata: geminiUsage(resp), ModelVersion: model,
		ResponseID: fmt.Sprintf("providertest%d", a.ids.Add(1))}
	if f.stream {
		streamGemini(w, out, f)
		return nil
	}
	writeJSON(w, http.StatusOK, mustJSON(out))
	return nil
}

// geminiCandidates renders each choice of resp as a candidate.
func geminiCandidates(resp *llms.ContentResponse, f geminiFormat) ([]gmCandidate, *apiError) {
	out := make([]gmCandidate, len(resp.Choices))
	for i, c := range resp.Choices {
		var parts []gmPart
		if c.Content != "" {
			parts = append(parts, gmPart{Text: &c.Content})
		}
		for _, call := range c.ToolCalls {
			name, args, e := objectArgs(call, "Gemini")
			if e != nil {
				return nil, e
			}
			parts = append(parts, gmPart{FunctionCall: &gmFunctionCall{Name: name, Args: args}})
		}
		if len(parts) == 0 {
			empty := ""
			parts = []gmPart{{Text: &empty}}
		}
		out[i] = gmCandidate{Content: gmContent{Role: "model", Parts: parts}, FinishReason: f.finish(geminiFinishReason(c.StopReason)), Index: i}
	}
	return out, nil
}

// geminiFinishReason is the API's finish reason for a model's stop reason.
func geminiFinishReason(reason string) string {
	switch strings.ToLower(reason) {
	case "", "stop", "tool_calls", "end_turn", "tool_use", "finishreasonstop":
		return "STOP"
	case "length", "max_tokens", "finishreasonmaxtokens":
		return "MAX_TOKENS"
	}
	if r, ok := strings.CutPrefix(reason, "FinishReason"); ok { // googleai's names, such as FinishReasonSafety
		return strings.ToUpper(r)
	}
	return reason
}

func geminiUsage(resp *llms.ContentResponse) gmUsage {
	t := readTokens(resp.Choices[0].GenerationInfo)
	return gmUsage{PromptTokenCount: t.prompt, CandidatesTokenCount: max(t.completion-t.reasoning, 0), TotalTokenCount: t.prompt + t.completion,
		CachedContentTokenCount: t.cacheRead, ThoughtsTokenCount: t.reasoning}
}

// streamGemini sends out as the API streams it: responses whose candidates carry their text
// in pieces and a function call each, the finish reason in a candidate's last, and the usage
// of the prompt alone but in the last response.
func streamGemini(w http.ResponseWriter, out *gmResponse, f geminiFormat) {
	const size = 16                                   // bytes of text per response
	chunks := make([][][]gmPart, len(out.Candidates)) // by candidate, the parts of each response
	n := 0
	for i, c := range out.Candidates {
		for _, p := range c.Content.Parts {
			if p.Text == nil || *p.Text == "" {
				chunks[i] = append(chunks[i], []gmPart{p})
				continue
			}
			for _, t := range pieces(*p.Text, size) {
				chunks[i] = append(chunks[i], []gmPart{{Text: &t}})
			}
		}
		n = max(n, len(chunks[i]))
	}
	fl, _ := w.(http.Flusher)
	s := newGeminiStream(w, fl, f.sse)
	w.Header().Set("Content-Type", s.contentType())
	w.WriteHeader(http.StatusOK)
	for k := range n {
		chunk := *out
		chunk.Candidates = nil
		if k < n-1 {
			chunk.UsageMetadata = gmUsage{PromptTokenCount: out.UsageMetadata.PromptTokenCount, TotalTokenCount: out.UsageMetadata.PromptTokenCount}
		}
		for i, c := range out.Candidates {
			if k >= len(chunks[i]) {
				continue
			}
			piece := gmCandidate{Content: gmContent{Role: "model", Parts: chunks[i][k]}, Index: c.Index}
			if k == len(chunks[i])-1 {
				piece.FinishReason = c.FinishReason
			}
			chunk.Candidates = append(chunk.Candidates, piece)
		}
		s.send(&chunk)
	}
	s.end()
}

// geminiStream writes responses as the API streams them: as server-sent events, or as the
// elements of one JSON array; each is flushed as it is written.
type geminiStream struct {
	events *sse // nil for a JSON array
	w      io.Writer
	fl     http.Flusher
	sent   int
}

func newGeminiStream(w io.Writer, fl http.Flusher, events bool) *geminiStream {
	s := &geminiStream{w: w, fl: fl}
	if events {
		s.events = &sse{w: w, fl: fl}
	}
	return s
}

func (s *geminiStream) contentType() string {
	if s.events != nil {
		return "text/event-stream"
	}
	return "application/json; charset=UTF-8"
}

func (s *geminiStream) send(resp *gmResponse) {
	if s.events != nil {
		s.events.send("", mustJSON(resp))
		return
	}
	sep := "\n,\r\n"
	if s.sent == 0 {
		sep = "["
	}
	s.sent++
	_, _ = io.WriteString(s.w, sep)
	_, _ = s.w.Write(mustJSON(resp))
	if s.fl != nil {
		s.fl.Flush()
	}
}

// end closes the JSON array.
func (s *geminiStream) end() {
	if s.events != nil {
		return
	}
	if s.sent == 0 {
		_, _ = io.WriteString(s.w, "[")
	}
	_, _ = io.WriteString(s.w, "]\n")
	if s.fl != nil {
		s.fl.Flush()
	}
}
