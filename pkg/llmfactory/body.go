package llmfactory

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"

	"github.com/cadrehq/cadre/pkg/model"
)

// bodyEdit is what one model's transport writes into the JSON bodies of its chat requests:
// the settings of llm.yaml that langchaingo's clients (v0.1.14) cannot send, and the output
// schema a request's context carries (model.OutputSchemaOf), which no client sends. The
// openai client never writes reasoning_effort (openaillm.go leaves it commented out); the
// anthropic client writes the system prompt as a string and tools without cache_control, and
// thinking only for the model names it knows (not claude-haiku-4-5, say).
//
// The transport applies the edit once, before the first attempt, and sends the edited body
// again on a retry. The entry point is apply; each API has its function (openAI, anthropic,
// gemini). A model's settings edit every chat request; a request that carries an output
// schema is edited even when the model has no settings, and one without is then sent as the
// client wrote it, byte for byte. A nil *bodyEdit, a type's without an API, edits nothing:
// the transport then neither decodes nor encodes a body.
type bodyEdit struct {
	api API
	// OpenAIAPI
	reasoningEffort string // "" for none
	// AnthropicAPI
	thinkingBudget int  // 0 for no thinking
	promptCache    bool // mark the tools and the system prompt for caching
	// service puts the body in the form a service that copies OpenAI's API takes (see
	// compatible.body); nil for OpenAI itself.
	service func(*object)
}

// newBodyEdit returns the edit of spec's settings for requests of t's API, with the type's own
// rewrite of the body, or nil for a type without an API.
func newBodyEdit(t ProviderType, spec *modelSpec) *bodyEdit {
	if t.API == "" {
		return nil
	}
	e := &bodyEdit{api: t.API, service: t.body}
	switch t.API {
	case OpenAIAPI:
		e.reasoningEffort = spec.reasoningEffort
	case AnthropicAPI:
		if spec.thinkingBudget != nil {
			e.thinkingBudget = *spec.thinkingBudget
		}
		e.promptCache = spec.promptCache
	}
	return e
}

// settings reports whether e edits every chat request: the model has settings to write, or
// its type rewrites the body.
func (e *bodyEdit) settings() bool {
	return e.reasoningEffort != "" || e.thinkingBudget > 0 || e.promptCache || e.service != nil
}

// thinks reports whether e turns extended thinking on; false for a nil e.
func (e *bodyEdit) thinks() bool { return e != nil && e.thinkingBudget > 0 }

// thinking returns the conversation of req when e thinks and req is one of its chat requests
// sent by the factory's client (see thinkingCall); nil otherwise.
func (e *bodyEdit) thinking(req *http.Request) *thinkingCall {
	if !e.thinks() || !e.chat(req) {
		return nil
	}
	return thinkingOf(req.Context())
}

// applies reports whether e edits req: a chat request of e's API, when e has settings or req
// carries an output schema. False for a nil e.
func (e *bodyEdit) applies(req *http.Request) bool {
	return e.chat(req) && (e.settings() || model.OutputSchemaOf(req.Context()) != nil)
}

// chat reports whether req is a chat request of e's API: a POST of JSON to the API's chat
// endpoint, .../chat/completions (OpenAI's, Azure's deployments included), .../messages
// (Anthropic's), or ...:generateContent and ...:streamGenerateContent (Gemini's). Never a
// GET, nor another endpoint (embeddings, models, count_tokens). False for a nil e.
func (e *bodyEdit) chat(req *http.Request) bool {
	if e == nil || req.Method != http.MethodPost || req.Body == nil || req.Body == http.NoBody {
		return false
	}
	if mt, _, err := mime.ParseMediaType(req.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		return false
	}
	path := strings.TrimSuffix(req.URL.Path, "/")
	switch e.api {
	case OpenAIAPI:
		return strings.HasSuffix(path, "/chat/completions")
	case AnthropicAPI:
		return strings.HasSuffix(path, "/messages")
	case GeminiAPI:
		return strings.HasSuffix(path, ":generateContent") || strings.HasSuffix(path, ":streamGenerateContent")
	}
	return false
}

// apply returns body, the JSON object of a chat request of e's API, with e's settings
// written in, with schema (nil for none) in the API's field for an output schema, and, for a
// thinking model's request, its messages written from the conversation (thinking, from
// thinking; nil otherwise). Every member it does not edit keeps its place and its bytes; a
// member it adds goes last. Streamed requests ("stream": true) are edited alike.
func (e *bodyEdit) apply(body []byte, thinking *thinkingCall, schema *model.OutputSchema) ([]byte, error) {
	o, err := parseObject(body)
	if err != nil {
		return nil, fmt.Errorf("the request body is not a JSON object: %w", err)
	}
	switch e.api {
	case OpenAIAPI:
		err = e.openAI(&o, schema)
	case AnthropicAPI:
		err = e.anthropic(&o, thinking, schema)
	case GeminiAPI:
		err = geminiOutput(&o, schema)
	}
	if err != nil {
		return nil, err
	}
	return o.marshal(), nil
}

// openAI writes the reasoning effort, which OpenAI's reasoning models take, and the output
// schema (see openAIOutput), then puts the body in the form the service takes.
func (e *bodyEdit) openAI(o *object, schema *model.OutputSchema) error {
	if e.reasoningEffort != "" {
		o.set("reasoning_effort", jsonString(e.reasoningEffort))
	}
	if schema != nil {
		if err := openAIOutput(o, schema); err != nil {
			return err
		}
	}
	if e.service != nil {
		e.service(o)
	}
	return nil
}

// ephemeral is Anthropic's cache breakpoint: the prefix up to and including the block that
// carries it is cached, for five minutes from its last use.
const ephemeral = `{"type":"ephemeral"}`

// anthropic turns extended thinking on with its budget, and marks the prompt's prefix for
// caching.
//
// With thinking on, Anthropic refuses any temperature but 1, and langchaingo's client always
// writes one (0 when none is set): the temperature goes, leaving the API's default, 1. The
// file cannot set one with thinking_budget (see thinkingBudget); one from an assistant's or a
// run's call options goes too.
//
// The messages of a thinking model's request are written anew from its conversation, its
// thinking blocks sent back (see thinking.go); a tool loop whose turn has none goes on without
// thinking.
//
// Caching marks the last tool and the system prompt with a breakpoint: Anthropic's prefix is
// the tools, then the system prompt, then the messages, so the two breakpoints cache every
// tool and the whole system prompt. A request without tools or system prompt has nothing to
// mark there.
//
// The output schema goes in output_config (see anthropicOutput).
func (e *bodyEdit) anthropic(o *object, thinking *thinkingCall, schema *model.OutputSchema) error {
	if schema != nil {
		if err := anthropicOutput(o, schema); err != nil {
			return err
		}
	}
	if e.thinkingBudget > 0 {
		on := true
		if thinking != nil {
			msgs, continued := anthropicMessages(thinking.msgs, "anthropic")
			raw, err := json.Marshal(msgs)
			if err != nil {
				return err
			}
			o.set("messages", raw)
			on = continued || !loopGoesOn(msgs)
		}
		if on {
			o.set("thinking", json.RawMessage(fmt.Sprintf(`{"type":"enabled","budget_tokens":%d}`, e.thinkingBudget)))
		} else {
			o.delete("thinking")
		}
		o.delete("temperature")
	}
	if !e.promptCache {
		return nil
	}
	if system, ok := o.get("system"); ok {
		marked, err := cacheSystem(system)
		if err != nil {
			return err
		}
		o.set("system", marked)
	}
	if tools, ok := o.get("tools"); ok {
		marked, err := cacheLast(tools)
		if err != nil {
			return fmt.Errorf("tools: %w", err)
		}
		o.set("tools", marked)
	}
	return nil
}

// cacheSystem returns Anthropic's system prompt with a cache breakpoint at its end: a string
// becomes one text block that carries it; the last of a list of blocks gets it. An empty or
// null prompt is returned as it is.
func cacheSystem(system json.RawMessage) (json.RawMessage, error) {
	var text string
	if err := json.Unmarshal(system, &text); err == nil {
		if text == "" {
			return system, nil
		}
		block := object{{"type", jsonString("text")}, {"text", system}, {"cache_control", json.RawMessage(ephemeral)}}
		return append(append([]byte{'['}, block.marshal()...), ']'), nil
	}
	marked, err := cacheLast(system)
	if err != nil {
		return nil, fmt.Errorf("system: %w", err)
	}
	return marked, nil
}

// cacheLast returns a JSON array of objects whose last one has a cache breakpoint. An empty
// array, or null, is returned as it is.
func cacheLast(list json.RawMessage) (json.RawMessage, error) {
	var items []json.RawMessage
	if err := json.Unmarshal(list, &items); err != nil {
		return nil, fmt.Errorf("not a list: %w", err)
	}
	if len(items) == 0 {
		return list, nil
	}
	last, err := parseObject(items[len(items)-1])
	if err != nil {
		return nil, fmt.Errorf("item %d is not an object: %w", len(items)-1, err)
	}
	last.set("cache_control", json.RawMessage(ephemeral))
	items[len(items)-1] = last.marshal()
	var b bytes.Buffer
	b.WriteByte('[')
	for i, item := range items {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(item)
	}
	b.WriteByte(']')
	return b.Bytes(), nil
}

// object is a JSON object as the list of its members, in order, each value as it was
// written: an edit changes the members it names, and the others keep their bytes.
type object []member

type member struct {
	key   string
	value json.RawMessage
}

var errNotObject = errors.New("not a JSON object")

// parseObject reads data, a JSON object and nothing more.
func parseObject(data []byte) (object, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, errNotObject
	}
	var o object
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, cut(err)
		}
		key, _ := t.(string) // in an object, the decoder has checked it is a key
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, cut(err)
		}
		o = append(o, member{key, v})
	}
	if _, err := dec.Token(); err != nil { // the closing }
		return nil, cut(err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("data after the object")
	}
	return o, nil
}

// cut is err, the decoder's, with an end of data inside the object called unexpected.
func cut(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

// get returns the value of key.
func (o object) get(key string) (json.RawMessage, bool) {
	for _, m := range o {
		if m.key == key {
			return m.value, true
		}
	}
	return nil, false
}

// set gives key the value v, in its place, or last when o has no such key.
func (o *object) set(key string, v json.RawMessage) {
	for i := range *o {
		if (*o)[i].key == key {
			(*o)[i].value = v
			return
		}
	}
	*o = append(*o, member{key, v})
}

// rename gives the member key the name to, in its place; nothing when o has no key.
func (o object) rename(key, to string) {
	for i := range o {
		if o[i].key == key {
			o[i].key = to
			return
		}
	}
}

// delete removes key.
func (o *object) delete(key string) {
	for i, m := range *o {
		if m.key == key {
			*o = append((*o)[:i], (*o)[i+1:]...)
			return
		}
	}
}

// marshal writes o as a JSON object.
func (o object) marshal() []byte {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(jsonString(m.key))
		b.WriteByte(':')
		b.Write(m.value)
	}
	b.WriteByte('}')
	return b.Bytes()
}

// jsonString is s as a JSON string.
func jsonString(s string) json.RawMessage {
	b, _ := json.Marshal(s) // a string always marshals
	return b
}
