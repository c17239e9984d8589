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
)

// bodyEdit is what one model's transport writes into the JSON bodies of its chat requests:
// the settings of llm.yaml that langchaingo's clients (v0.1.14) cannot send. The openai
// client never writes reasoning_effort (openaillm.go leaves it commented out); the anthropic
// client writes the system prompt as a string and tools without cache_control, and thinking
// only for the model names it knows (not claude-haiku-4-5, say).
//
// The transport applies the edit once, before the first attempt, and sends the edited body
// again on a retry. The entry point is apply; each API has its function (openAI, anthropic).
// A nil *bodyEdit edits nothing: the transport then neither decodes nor encodes a body.
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
// rewrite of the body, or nil when there is nothing to edit.
func newBodyEdit(t ProviderType, spec *modelSpec) *bodyEdit {
	api := t.API
	e := &bodyEdit{api: api}
	switch api {
	case OpenAIAPI:
		e.reasoningEffort = spec.reasoningEffort
	case AnthropicAPI:
		if spec.thinkingBudget != nil {
			e.thinkingBudget = *spec.thinkingBudget
		}
		e.promptCache = spec.promptCache
	}
	if e.reasoningEffort == "" && e.thinkingBudget == 0 && !e.promptCache && t.body == nil {
		return nil
	}
	e.service = t.body
	return e
}

// thinks reports whether e turns extended thinking on; false for a nil e.
func (e *bodyEdit) thinks() bool { return e != nil && e.thinkingBudget > 0 }

// thinking returns the conversation of req when e thinks and req is one of its chat requests
// sent by the factory's client (see thinkingCall); nil otherwise.
func (e *bodyEdit) thinking(req *http.Request) *thinkingCall {
	if !e.thinks() || !e.applies(req) {
		return nil
	}
	return thinkingOf(req.Context())
}

// applies reports whether req is a chat request of e's API, whose body e edits: a POST of
// JSON to the API's chat endpoint, .../chat/completions (OpenAI's, Azure's deployments
// included) or .../messages (Anthropic's). Never a GET, nor another endpoint (embeddings,
// models, count_tokens). False for a nil e.
func (e *bodyEdit) applies(req *http.Request) bool {
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
	}
	return false
}

// apply returns body, the JSON object of a chat request of e's API, with e's settings
// written in, and, for a thinking model's request, its messages written from the conversation
// (thinking, from thinking; nil otherwise). Every member it does not edit keeps its place and
// its bytes; a member it adds goes last. Streamed requests ("stream": true) are edited alike.
func (e *bodyEdit) apply(body []byte, thinking *thinkingCall) ([]byte, error) {
	o, err := parseObject(body)
	if err != nil {
		return nil, fmt.Errorf("the request body is not a JSON object: %w", err)
	}
	switch e.api {
	case OpenAIAPI:
		e.openAI(&o)
	case AnthropicAPI:
		err = e.anthropic(&o, thinking)
	}
	if err != nil {
		return nil, err
	}
	return o.marshal(), nil
}

// openAI writes the reasoning effort, which OpenAI's reasoning models take, then puts the
// body in the form the service takes.
func (e *bodyEdit) openAI(o *object) {
	if e.reasoningEffort != "" {
		o.set("reasoning_effort", jsonString(e.reasoningEffort))
	}
	if e.service != nil {
		e.service(o)
	}
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
func (e *bodyEdit) anthropic(o *object, thinking *thinkingCall) error {
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
