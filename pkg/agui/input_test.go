package agui_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/cadrehq/cadre/pkg/agui"
	"github.com/google/go-cmp/cmp"
	"github.com/tmc/langchaingo/llms"
)

// httpAgentBody is a request as HttpAgent 1.0 sends it: a conversation with a tool round trip,
// a frontend tool, state, and the resume of an interrupt.
const httpAgentBody = `{"threadId":"t1","runId":"r2","protocolVersion":"1.0",
 "tools":[{"name":"confirm","description":"Ask the user","parameters":{"type":"object"}}],
 "context":[{"description":"city","value":"Oslo"}],"forwardedProps":{},"state":{"n":1},
 "messages":[
  {"id":"u1","role":"user","content":[{"type":"text","text":"Look"},{"type":"image","source":{"type":"data","value":"aGk=","mimeType":"image/png"}}]},
  {"id":"a1","role":"assistant","toolCalls":[{"id":"c1","type":"function","function":{"name":"confirm","arguments":"{}"}}]},
  {"id":"t1","role":"tool","toolCallId":"c1","content":"yes"},
  {"id":"u2","role":"user","content":"go on","extra":"ignored"}],
 "resume":[{"interruptId":"i1","status":"resolved","payload":{"approved":true}}]}`

func TestDecodeInput(t *testing.T) {
	t.Parallel()
	in, err := agui.DecodeInput(strings.NewReader(httpAgentBody))
	if err != nil {
		t.Fatal(err)
	}
	want := &agui.RunAgentInput{
		ThreadID: "t1", RunID: "r2", ProtocolVersion: "1.0",
		Tools:          []agui.Tool{{Name: "confirm", Description: "Ask the user", Parameters: json.RawMessage(`{"type":"object"}`)}},
		Context:        []agui.Context{{Description: "city", Value: "Oslo"}},
		ForwardedProps: json.RawMessage(`{}`),
		State:          json.RawMessage(`{"n":1}`),
		Messages: []agui.Message{
			{ID: "u1", Role: agui.RoleUser, Content: agui.Content{Parts: []agui.Part{
				{Type: agui.PartText, Text: "Look"},
				{Type: agui.PartImage, Source: &agui.Source{Type: "data", Value: "aGk=", MimeType: "image/png"}},
			}}},
			{ID: "a1", Role: agui.RoleAssistant, ToolCalls: []agui.ToolCall{{ID: "c1", Function: agui.FunctionCall{Name: "confirm", Arguments: "{}"}}}},
			{ID: "t1", Role: agui.RoleTool, ToolCallID: "c1", Content: agui.Content{Text: "yes"}},
			{ID: "u2", Role: agui.RoleUser, Content: agui.Content{Text: "go on"}},
		},
		Resume: []agui.ResumeEntry{{InterruptID: "i1", Status: agui.ResumeResolved, Payload: json.RawMessage(`{"approved":true}`)}},
	}
	if diff := cmp.Diff(want, in); diff != "" {
		t.Errorf("DecodeInput (-want +got):\n%s", diff)
	}

	// What DecodeInput read, written again, decodes to the same input.
	data, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	again, err := agui.DecodeInput(strings.NewReader(string(data)))
	if err != nil {
		t.Fatalf("DecodeInput(%s): %v", data, err)
	}
	if diff := cmp.Diff(in, again); diff != "" {
		t.Errorf("round trip (-first +second):\n%s", diff)
	}
}

func TestDecodeInputNullsAreAbsent(t *testing.T) {
	t.Parallel()
	in, err := agui.DecodeInput(strings.NewReader(`{"threadId":"t","runId":"r","messages":[],"state":null,"forwardedProps":null}`))
	if err != nil {
		t.Fatal(err)
	}
	if in.State != nil || in.ForwardedProps != nil {
		t.Errorf("state %s, forwardedProps %s: want both absent", in.State, in.ForwardedProps)
	}
}

func TestDecodeInputRefusesMalformed(t *testing.T) {
	t.Parallel()
	const ids = `"threadId":"t","runId":"r"`
	for _, c := range []struct{ body, want string }{
		{`not json`, "invalid character"},
		{`{"runId":"r","messages":[]}`, "threadId is missing"},
		{`{"threadId":"t","runId":"","messages":[]}`, "runId is missing"},
		{`{` + ids + `}`, "messages is missing"},
		{`{` + ids + `,"messages":[{"role":"user","content":"hi"}]}`, "messages[0]: the message has no id"},
		{`{` + ids + `,"messages":[{"id":"m","content":"hi"}]}`, `messages[0]: message "m" has no role`},
		{`{` + ids + `,"messages":[{"id":"m","role":"robot","content":"hi"}]}`, `messages[0]: message "m": unknown role "robot"`},
		{`{` + ids + `,"messages":[{"id":"m","role":"user"}]}`, `a user message needs content`},
		{`{` + ids + `,"messages":[{"id":"m","role":"system","content":[]}]}`, `a system message's content is a string`},
		{`{` + ids + `,"messages":[{"id":"m","role":"tool","content":"x"}]}`, `a tool message needs the toolCallId`},
		{`{` + ids + `,"messages":[{"id":"m","role":"user","content":[{"type":"gif"}]}]}`, `unknown content part type "gif"`},
		{`{` + ids + `,"messages":[],"tools":[{"description":"d"}]}`, "tools[0]: the tool has no name"},
		{`{` + ids + `,"messages":[],"resume":[{"status":"resolved"}]}`, "resume[0]: the entry has no interruptId"},
		{`{` + ids + `,"messages":[],"resume":[{"interruptId":"i","status":"approved"}]}`, `status "approved" is neither resolved nor cancelled`},
		{`{` + ids + `,"messages":[]} {}`, "more than one JSON value"},
	} {
		_, err := agui.DecodeInput(strings.NewReader(c.body))
		if !errors.Is(err, agui.ErrInvalidInput) {
			t.Errorf("DecodeInput(%s): %v, want ErrInvalidInput", c.body, err)
			continue
		}
		if !strings.Contains(err.Error(), c.want) {
			t.Errorf("DecodeInput(%s): %q, want it to say %q", c.body, err, c.want)
		}
	}
}

// TestMessagesRoundTrip: a chat converted to AG-UI messages and read back as a handler reads
// a client's history is the chat, system turns and media aside.
func TestMessagesRoundTrip(t *testing.T) {
	chat := []llms.MessageContent{
		llms.TextParts(llms.ChatMessageTypeSystem, "Be brief."),
		llms.TextParts(llms.ChatMessageTypeHuman, "Weather in Oslo and Rome?"),
		{Role: llms.ChatMessageTypeAI, Parts: []llms.ContentPart{llms.TextContent{Text: "Looking."},
			llms.ToolCall{ID: "c1", Type: "function", FunctionCall: &llms.FunctionCall{Name: "weather", Arguments: `{"city":"Oslo"}`}},
			llms.ToolCall{ID: "c2", Type: "function", FunctionCall: &llms.FunctionCall{Name: "weather", Arguments: `{"city":"Rome"}`}}}},
		{Role: llms.ChatMessageTypeTool, Parts: []llms.ContentPart{llms.ToolCallResponse{ToolCallID: "c1", Name: "weather", Content: "cold"}}},
		{Role: llms.ChatMessageTypeTool, Parts: []llms.ContentPart{llms.ToolCallResponse{ToolCallID: "c2", Name: "weather", Content: "warm"}}},
		llms.TextParts(llms.ChatMessageTypeAI, "Cold in Oslo, warm in Rome."),
		llms.TextParts(llms.ChatMessageTypeHuman, "Thanks"),
	}
	msgs := agui.Messages("t1", chat)
	if len(msgs) != 6 || msgs[0].ID != "t1-0" || msgs[5].ID != "t1-5" {
		t.Fatalf("messages %+v", msgs)
	}
	data, err := json.Marshal(agui.RunAgentInput{ThreadID: "t1", RunID: "r1", Messages: msgs})
	if err != nil {
		t.Fatal(err)
	}
	in, err := agui.DecodeInput(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("the converted messages do not decode: %v\n%s", err, data)
	}
	if diff := cmp.Diff(agui.Messages("t1", chat), in.Messages); diff != "" {
		t.Errorf("through JSON (-want +got):\n%s", diff)
	}
}
