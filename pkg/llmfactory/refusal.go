package llmfactory

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
)

// Refusals. A model of OpenAI's API that declines to answer in the schema asked for says so
// in message.refusal (delta.refusal, piece by piece, when streaming), with no content, and
// langchaingo's openai client (v0.1.14) drops the field: the reply would look empty. So the
// transport reads the refusal on the answer's way to the client, into the call's refusalCall,
// and the factory's client hands it to model.Read under model.RefusalInfo.
//
// Anthropic says it with the stop reason "refusal", which langchaingo's anthropic client
// passes on as the choice's StopReason, with whatever text came before (model.Reply.Finish
// reads it). An answer refused before any text has no content block, and the client fails
// on one ("no response"): the transport gives it an empty text block, so that the refusal
// reaches model.Read with its usage.

// refusalCall is one model request of OpenAI's API, between its client and its transport:
// the refusal its answer holds, as the transport read it.
type refusalCall struct {
	text strings.Builder
}

type refusalKey struct{}

func withRefusal(ctx context.Context, c *refusalCall) context.Context {
	return context.WithValue(ctx, refusalKey{}, c)
}

func refusalOf(ctx context.Context) *refusalCall {
	c, _ := ctx.Value(refusalKey{}).(*refusalCall)
	return c
}

// refusal returns the refusal read; "" for none, and for a nil c.
func (c *refusalCall) refusal() string {
	if c == nil {
		return ""
	}
	return c.text.String()
}

// answer has the successful answer resp to req, a chat request of e's API, read on its way
// to the client: OpenAI's refusals into the request's refusalCall, Anthropic's refusals
// without content given an empty text block.
func (e *bodyEdit) answer(req *http.Request, resp *http.Response) {
	if !e.chat(req) {
		return
	}
	stream := strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream")
	switch e.api {
	case OpenAIAPI:
		c := refusalOf(req.Context())
		if c == nil {
			return
		}
		if stream {
			resp.Body = newLineStream(resp.Body, func(line []byte) []byte {
				readDeltaRefusal(line, c)
				return line
			})
			return
		}
		rewrite(resp, func(body []byte) []byte {
			readMessageRefusal(body, c)
			return body
		})
	case AnthropicAPI:
		if stream {
			var started bool
			resp.Body = newLineStream(resp.Body, func(line []byte) []byte {
				return emptyRefusalEvent(line, &started)
			})
			return
		}
		rewrite(resp, emptyRefusal)
	}
}

// rewrite replaces the body of resp, a whole answer, with edit's rewrite of it. A body that
// cannot be read whole goes to the client as it came, with its error.
func rewrite(resp *http.Response, edit func([]byte) []byte) {
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		resp.Body = io.NopCloser(io.MultiReader(bytes.NewReader(body), errReader{err}))
		return
	}
	resp.Body = io.NopCloser(bytes.NewReader(edit(body)))
}

// hasText reports whether data holds the member key with a string value (not null): a
// quick look before decoding, since OpenAI writes "refusal": null in every answer.
func hasText(data []byte, key string) bool {
	k := []byte(`"` + key + `"`)
	for {
		i := bytes.Index(data, k)
		if i < 0 {
			return false
		}
		data = bytes.TrimLeft(data[i+len(k):], " \t\r\n")
		if rest, ok := bytes.CutPrefix(data, []byte(":")); ok && bytes.HasPrefix(bytes.TrimLeft(rest, " \t\r\n"), []byte(`"`)) {
			return true
		}
	}
}

// readMessageRefusal reads the refusal of an answer of OpenAI's API into c: the first
// choice's message.refusal that is not empty.
func readMessageRefusal(body []byte, c *refusalCall) {
	if !hasText(body, "refusal") {
		return
	}
	var answer struct {
		Choices []struct {
			Message struct {
				Refusal string `json:"refusal"`
			} `json:"message"`
		} `json:"choices"`
	}
	if json.Unmarshal(body, &answer) != nil {
		return // the client says what is wrong with it
	}
	for _, ch := range answer.Choices {
		if ch.Message.Refusal != "" {
			c.text.WriteString(ch.Message.Refusal)
			return
		}
	}
}

// readDeltaRefusal adds the piece of refusal in one line of a streamed answer of OpenAI's
// API to c: the first choice's delta.refusal, as the client reads the first choice's content.
func readDeltaRefusal(line []byte, c *refusalCall) {
	data, ok := bytes.CutPrefix(line, []byte("data:"))
	if !ok || !hasText(data, "refusal") {
		return
	}
	var chunk struct {
		Choices []struct {
			Delta struct {
				Refusal string `json:"refusal"`
			} `json:"delta"`
		} `json:"choices"`
	}
	if json.Unmarshal(bytes.TrimSpace(data), &chunk) == nil && len(chunk.Choices) > 0 {
		c.text.WriteString(chunk.Choices[0].Delta.Refusal)
	}
}

// emptyRefusal returns an answer of Anthropic's API refused before any content with one
// empty text block; any other answer as it is.
func emptyRefusal(body []byte) []byte {
	if !bytes.Contains(body, []byte(`"refusal"`)) {
		return body
	}
	var answer map[string]json.RawMessage
	if json.Unmarshal(body, &answer) != nil || string(answer["stop_reason"]) != `"refusal"` {
		return body
	}
	if raw, ok := answer["content"]; ok {
		var content []json.RawMessage
		if json.Unmarshal(raw, &content) != nil || len(content) > 0 {
			return body
		}
	}
	answer["content"] = json.RawMessage(`[{"type":"text","text":""}]`)
	out, err := json.Marshal(answer)
	if err != nil {
		return body
	}
	return out
}

// emptyRefusalEvent returns a line of a streamed answer of Anthropic's API as the client is
// to read it: the message_delta of a refusal before any content block (started notes whether
// one started) comes after an empty text block.
func emptyRefusalEvent(line []byte, started *bool) []byte {
	data, ok := bytes.CutPrefix(line, []byte("data:"))
	if !ok || *started {
		return line
	}
	if bytes.Contains(data, []byte(`"content_block_start"`)) {
		*started = true
		return line
	}
	if !bytes.Contains(data, []byte(`"refusal"`)) {
		return line
	}
	var ev struct {
		Type  string `json:"type"`
		Delta struct {
			StopReason string `json:"stop_reason"`
		} `json:"delta"`
	}
	if json.Unmarshal(bytes.TrimSpace(data), &ev) != nil || ev.Type != "message_delta" || ev.Delta.StopReason != "refusal" {
		return line
	}
	*started = true
	// The blank line ends the message_delta event begun by its "event:" line, with no data
	// yet: SSE dispatches none. The block's events follow, then message_delta's, whole.
	const block = "\nevent: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n" +
		"event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n" +
		"event: message_delta\n"
	return append([]byte(block), line...)
}

// lineStream is a streamed answer read line by line on its way to the client: edit notes
// what each line says, and returns it as the client is to read it.
type lineStream struct {
	io.ReadCloser
	r    *bufio.Reader
	edit func(line []byte) []byte
	out  []byte // edited, not yet read
	err  error
	done bool
}

func newLineStream(body io.ReadCloser, edit func(line []byte) []byte) *lineStream {
	return &lineStream{ReadCloser: body, r: bufio.NewReader(body), edit: edit}
}

func (s *lineStream) Read(p []byte) (int, error) {
	for len(s.out) == 0 && !s.done {
		line, err := s.r.ReadBytes('\n')
		if len(line) > 0 {
			s.out = s.edit(line)
		}
		if err != nil {
			s.done, s.err = true, err
		}
	}
	if len(s.out) == 0 {
		return 0, s.err
	}
	n := copy(p, s.out)
	s.out = s.out[n:]
	return n, nil
}
