package providertest

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	cmodel "github.com/cadrehq/cadre/pkg/model"
	"github.com/tmc/langchaingo/llms"
)

// Server is a fake provider API on 127.0.0.1, made by [NewOpenAI], [NewAnthropic] or
// [NewGemini], for running langchaingo's real provider clients without a network.
//
// It answers each valid request with its model's reply, rejects the requests the real API
// rejects with the status and error JSON that API uses, and can be made to fail ([Server.Fault]).
// It records every request it receives. A Server is safe for concurrent use; Close it when
// done.
type Server struct {
	ts  *httptest.Server
	api api
	key string // required API key; "" accepts any non-empty key

	mu       sync.Mutex
	bodies   [][]byte
	arrivals []time.Time // of bodies
	faults   []Fault
}

// Fault is how a [Server] fails one request. The fields combine: the server waits Delay, then
// cuts the connection when Reset is set, else answers with Body when it is set, else with a
// truncated body when Truncate is set, else with the error Status when it is not 0, else as it
// would without a fault (a Fault with only a Delay makes a slow answer).
// A faulted request never reaches the model, unless it only has a Delay.
type Fault struct {
	// Status is the HTTP status of the error answer, such as 429, 500 or 401; the body is
	// the provider's error JSON. 0 with Truncate or Delay only.
	Status int

	// RetryAfter, when not empty, is sent as the Retry-After header, such as "0" or "1".
	RetryAfter string

	// Message is the error message in the error JSON; when empty, one typical of Status.
	Message string

	// Delay is how long the server waits before answering. When the request's context ends
	// first (the client gave up, or the server is closed), the server drops the request.
	Delay time.Duration

	// Truncate makes the server send a 200 (or Status) whose body stops in the middle: the
	// connection is cut after half the body its headers announce.
	Truncate bool

	// Reset cuts the connection before any answer, as a reset connection does.
	Reset bool

	// Body, when not empty, is sent as it is, with Status or 200, as application/json: JSON
	// that does not parse, or an answer without choices.
	Body string
}

// Option configures a [Server].
type Option func(*config)

type config struct {
	apiKey string
}

// WithAPIKey makes the server accept only requests with exactly this key: in the
// Authorization header as "Bearer <key>" for OpenAI, in the x-api-key header for Anthropic,
// in the x-goog-api-key header or the key query parameter for Gemini. Other requests get the
// provider's refusal in its error JSON, which never contains the key sent or the one expected:
// a 401 from OpenAI and Anthropic; from Gemini a 400 (reason API_KEY_INVALID) for another key
// and a 403 for none. Without this option any non-empty key is accepted, as the clients need
// one.
func WithAPIKey(key string) Option {
	return func(c *config) { c.apiKey = key }
}

// api is what a provider's fake implements; the Server does the rest.
type api interface {
	// paths names the paths served, such as "/v1/chat/completions", for error messages.
	paths() string
	// serves reports whether the API answers POST requests at path p.
	serves(p string) bool
	// checkKey checks the request's key against want ("" accepts any non-empty key).
	checkKey(r *http.Request, want string) *apiError
	// checkHeaders checks the other headers the provider requires.
	checkHeaders(h http.Header) *apiError
	// serve validates r's body, asks the model, and writes the answer; or returns the
	// refusal to write, having written nothing.
	serve(w http.ResponseWriter, r *http.Request, body []byte) *apiError
	// errorBody renders e in the provider's error JSON.
	errorBody(e *apiError) []byte
	// faultError is the refusal that f, a Fault with a Status, makes.
	faultError(f Fault) *apiError
	// sample is a complete, valid answer to r (a stream when r asks for one, where the
	// provider streams in a format of its own), and its Content-Type, for Truncate to cut.
	sample(r *http.Request) (contentType string, body []byte)
}

// apiError is a refusal, rendered in the provider's error JSON.
type apiError struct {
	status  int
	kind    string // the provider's error type, such as "invalid_request_error"; "" for the status's usual one
	message string
	param   string // OpenAI only; "" is null
	code    string // OpenAI only; "" is null
	details []any  // Gemini only: google.rpc details, such as an ErrorInfo
}

func newServer(a api, opts []Option) *Server {
	var cfg config
	for _, o := range opts {
		o(&cfg)
	}
	s := &Server{api: a, key: cfg.apiKey}
	s.ts = httptest.NewServer(http.HandlerFunc(s.handle))
	return s
}

// URL returns the server's base URL, "http://127.0.0.1:PORT". An OpenAI or Anthropic
// client's base URL is URL()+"/v1"; a Gemini client's endpoint is URL() itself.
func (s *Server) URL() string { return s.ts.URL }

// Client returns an HTTP client for the server, whose idle connections Close closes.
func (s *Server) Client() *http.Client { return s.ts.Client() }

// Close ends the requests in flight (their clients see a broken connection), shuts the server
// down and waits for its handlers to return. Call it once, when done.
func (s *Server) Close() {
	s.ts.CloseClientConnections()
	s.ts.Close()
}

// Attempts returns how many HTTP requests the server has received: all of them, also those
// a fault answered or the server rejected. Safe to call at any time.
func (s *Server) Attempts() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.bodies)
}

// Bodies returns copies of the raw bodies of the requests the server has received, in the
// order they arrived. Safe to call at any time.
func (s *Server) Bodies() [][]byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([][]byte, len(s.bodies))
	for i, b := range s.bodies {
		out[i] = slices.Clone(b)
	}
	return out
}

// Arrivals returns when each request the server has received arrived (once its body was read),
// in the order of [Server.Bodies]: the gaps between them show how long a client that retries
// waited. Safe to call at any time.
func (s *Server) Arrivals() []time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.arrivals)
}

// Fault queues faults: each answers one of the next requests, in order of arrival, after
// those already queued. Safe to call at any time.
func (s *Server) Fault(f ...Fault) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults = append(s.faults, f...)
}

// arrive records a request's body and arrival, and takes the next fault, if one is queued.
func (s *Server) arrive(body []byte) (Fault, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.bodies = append(s.bodies, body)
	s.arrivals = append(s.arrivals, time.Now())
	if len(s.faults) == 0 {
		return Fault{}, false
	}
	f := s.faults[0]
	s.faults = s.faults[1:]
	return f, true
}

func (s *Server) handle(w http.ResponseWriter, r *http.Request) {
	body, readErr := io.ReadAll(r.Body)
	if f, ok := s.arrive(body); ok {
		if wait(r.Context(), f.Delay) != nil {
			panic(http.ErrAbortHandler) // drop the request: its client is gone
		}
		if f.Reset {
			panic(http.ErrAbortHandler)
		}
		if f.RetryAfter != "" {
			w.Header().Set("Retry-After", f.RetryAfter)
		}
		if f.Body != "" {
			writeJSON(w, cmp.Or(f.Status, http.StatusOK), []byte(f.Body))
			return
		}
		if f.Truncate {
			s.truncate(w, r, f)
		}
		if f.Status != 0 {
			s.writeError(w, s.api.faultError(f))
			return
		}
	}
	if e := s.check(r, readErr); e != nil {
		s.writeError(w, e)
		return
	}
	if e := s.api.serve(w, r, body); e != nil {
		s.writeError(w, e)
	}
}

// wait returns nil after d, or ctx's error when ctx is done first or already.
func wait(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil || d <= 0 {
		return err
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// check refuses a request whose path, method, body or headers the provider would refuse.
func (s *Server) check(r *http.Request, readErr error) *apiError {
	if !s.api.serves(r.URL.Path) {
		return &apiError{status: http.StatusNotFound,
			message: "Invalid URL (" + r.Method + " " + r.URL.Path + "): this fake serves only POST " + s.api.paths()}
	}
	if r.Method != http.MethodPost {
		return &apiError{status: http.StatusMethodNotAllowed,
			message: "Method " + r.Method + " not allowed: use POST " + s.api.paths()}
	}
	if e := s.api.checkKey(r, s.key); e != nil {
		return e
	}
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		return invalid("Content-Type must be application/json, got " + strconv.Quote(r.Header.Get("Content-Type")))
	}
	if readErr != nil {
		return invalid("could not read the request body: " + readErr.Error())
	}
	return s.api.checkHeaders(r.Header)
}

// truncate sends f.Status (200 when 0) with half of a valid answer to r, announcing all of
// it, and cuts the connection.
func (s *Server) truncate(w http.ResponseWriter, r *http.Request, f Fault) {
	contentType, body := s.api.sample(r)
	status := f.Status
	if status == 0 {
		status = http.StatusOK
	} else {
		contentType, body = "application/json", s.api.errorBody(s.api.faultError(f))
	}
	w.Header().Set("Content-Type", contentType)
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	_, _ = w.Write(body[:len(body)/2])
	if fl, ok := w.(http.Flusher); ok {
		fl.Flush()
	}
	panic(http.ErrAbortHandler)
}

func (s *Server) writeError(w http.ResponseWriter, e *apiError) {
	writeJSON(w, e.status, s.api.errorBody(e))
}

func writeJSON(w http.ResponseWriter, status int, body []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// mustJSON marshals v, which is one of this package's wire types and always marshals.
func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic("providertest: marshal " + err.Error())
	}
	return b
}

// invalid is a 400 invalid_request_error.
func invalid(message string) *apiError {
	return &apiError{status: http.StatusBadRequest, kind: "invalid_request_error", message: message}
}

// toolName is what both APIs accept as a tool's name.
var toolName = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

// modelError is the refusal when the model fails: a 500, as an API fails on its own error.
func modelError(err error) *apiError {
	return &apiError{status: http.StatusInternalServerError, message: "providertest: the model failed: " + err.Error()}
}

// tokens are the token counts of a response, read from its GenerationInfo.
type tokens struct {
	prompt, completion    int // all input, cached included; all output, reasoning included
	cacheRead, cacheWrite int
	reasoning             int
}

// readTokens reads the usage a model reports in GenerationInfo: the keys of langchaingo's
// openai client (PromptTokens, CompletionTokens, PromptCachedTokens, ReasoningTokens), or,
// when PromptTokens is absent, those of its anthropic client (InputTokens, OutputTokens,
// CacheReadInputTokens, CacheCreationInputTokens).
func readTokens(info map[string]any) tokens {
	if _, ok := info["PromptTokens"]; ok {
		return tokens{
			prompt:     intOf(info["PromptTokens"]),
			completion: intOf(info["CompletionTokens"]),
			cacheRead:  intOf(info["PromptCachedTokens"]),
			reasoning:  intOf(info["ReasoningTokens"]),
		}
	}
	t := tokens{
		completion: intOf(info["OutputTokens"]),
		cacheRead:  intOf(info["CacheReadInputTokens"]),
		cacheWrite: intOf(info["CacheCreationInputTokens"]),
	}
	t.prompt = intOf(info["InputTokens"]) + t.cacheRead + t.cacheWrite
	return t
}

func intOf(v any) int {
	switch n := v.(type) {
	case int:
		return n
	case int32:
		return int(n)
	case int64:
		return int(n)
	case float64:
		return int(n)
	}
	return 0
}

// callOptions turns what a request asked for into the call options the model receives.
type callOptions struct {
	model          string
	maxTokens      int
	temperature    *float64
	topP           *float64
	topK           int
	stop           []string
	seed           *int
	n              int
	candidateCount int
	jsonMode       bool
	tools          []llms.Tool
	toolChoice     any
	output         *cmodel.OutputSchema // the structured-output field, handed to the model in its context
}

func (c *callOptions) options() []llms.CallOption {
	opts := []llms.CallOption{llms.WithModel(c.model)}
	if c.maxTokens > 0 {
		opts = append(opts, llms.WithMaxTokens(c.maxTokens))
	}
	if c.temperature != nil {
		opts = append(opts, llms.WithTemperature(*c.temperature))
	}
	if c.topP != nil {
		opts = append(opts, llms.WithTopP(*c.topP))
	}
	if c.topK > 0 {
		opts = append(opts, llms.WithTopK(c.topK))
	}
	if len(c.stop) > 0 {
		opts = append(opts, llms.WithStopWords(c.stop))
	}
	if c.seed != nil {
		opts = append(opts, llms.WithSeed(*c.seed))
	}
	if c.n > 0 {
		opts = append(opts, llms.WithN(c.n))
	}
	if c.candidateCount > 0 {
		opts = append(opts, llms.WithCandidateCount(c.candidateCount))
	}
	if c.jsonMode {
		opts = append(opts, llms.WithJSONMode())
	}
	if len(c.tools) > 0 {
		opts = append(opts, llms.WithTools(c.tools))
	}
	if c.toolChoice != nil {
		opts = append(opts, llms.WithToolChoice(c.toolChoice))
	}
	return opts
}

// objectArgs returns call's function name and its arguments as a compact JSON object ("{}"
// when empty), or a 500 saying that the provider's API (such as "Anthropic") cannot send
// arguments that are not an object.
func objectArgs(call llms.ToolCall, provider string) (string, json.RawMessage, *apiError) {
	var name, args string
	if call.FunctionCall != nil {
		name, args = call.FunctionCall.Name, call.FunctionCall.Arguments
	}
	if strings.TrimSpace(args) == "" {
		args = "{}"
	}
	var input map[string]json.RawMessage
	var compact bytes.Buffer
	if json.Unmarshal([]byte(args), &input) != nil || input == nil || json.Compact(&compact, []byte(args)) != nil {
		return "", nil, &apiError{status: http.StatusInternalServerError, message: fmt.Sprintf(
			"providertest: the model's call of %q has arguments that are not a JSON object (%q), which the %s API cannot send: give the call an object",
			name, args, provider)}
	}
	return name, compact.Bytes(), nil
}

// appendUserTurn appends the parts of a user turn for the model: each tool result in a Tool
// message of its own, the other parts in human messages between them, in order.
func appendUserTurn(msgs []llms.MessageContent, parts []llms.ContentPart) []llms.MessageContent {
	start := 0
	human := func(end int) {
		if end > start {
			msgs = append(msgs, llms.MessageContent{Role: llms.ChatMessageTypeHuman, Parts: parts[start:end:end]})
		}
	}
	for i, p := range parts {
		if _, ok := p.(llms.ToolCallResponse); ok {
			human(i)
			msgs = append(msgs, llms.MessageContent{Role: llms.ChatMessageTypeTool, Parts: parts[i : i+1 : i+1]})
			start = i + 1
		}
	}
	human(len(parts))
	return msgs
}

// generate asks m, with the request's output schema in ctx, turning its failure or empty
// answer into a 500.
func generate(ctx context.Context, m llms.Model, msgs []llms.MessageContent, opts *callOptions) (*llms.ContentResponse, *apiError) {
	ctx = cmodel.WithOutputSchema(ctx, opts.output)
	resp, err := m.GenerateContent(ctx, msgs, opts.options()...)
	if err != nil {
		return nil, modelError(err)
	}
	if resp == nil || len(resp.Choices) == 0 || slices.Contains(resp.Choices, nil) {
		return nil, &apiError{status: http.StatusInternalServerError,
			message: "providertest: the model returned a response without choices, or a nil choice; give it a reply"}
	}
	return resp, nil
}

// pieces cuts s into chunks of at most n bytes, at rune boundaries, as a stream sends it.
func pieces(s string, n int) []string {
	var out []string
	for len(s) > n {
		i := n
		for i > 0 && !isRuneStart(s[i]) {
			i--
		}
		if i == 0 {
			i = n
		}
		out = append(out, s[:i])
		s = s[i:]
	}
	if s != "" {
		out = append(out, s)
	}
	return out
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }

// sse writes server-sent events, flushing each.
type sse struct {
	w  io.Writer
	fl http.Flusher // nil for none
}

func startSSE(w http.ResponseWriter) *sse {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	fl, _ := w.(http.Flusher)
	return &sse{w: w, fl: fl}
}

// send writes one event: "event: <event>" (when not empty) and "data: <data>".
func (e *sse) send(event string, data []byte) {
	if event != "" {
		_, _ = io.WriteString(e.w, "event: "+event+"\n")
	}
	_, _ = io.WriteString(e.w, "data: ")
	_, _ = e.w.Write(data)
	_, _ = io.WriteString(e.w, "\n\n")
	if e.fl != nil {
		e.fl.Flush()
	}
}
