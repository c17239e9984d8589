package chat_test

import (
	"strings"
	"testing"

	"github.com/cadrehq/cadre/pkg/chat"
	"github.com/cadrehq/cadre/pkg/model"
	"github.com/google/go-cmp/cmp"
	"github.com/tmc/langchaingo/llms"
)

// everyPart holds each part type once, with the fields that must survive storage.
var everyPart = []llms.MessageContent{
	{Role: llms.ChatMessageTypeHuman, Parts: []llms.ContentPart{
		llms.TextContent{Text: "look"},
		llms.ImageURLContent{URL: "https://example.com/a.png", Detail: "low"},
		llms.BinaryContent{MIMEType: "application/pdf", Data: []byte{0, 1, 0xff}},
	}},
	{Role: llms.ChatMessageTypeAI, Parts: []llms.ContentPart{
		model.Reasoning{TextContent: llms.TextContent{Text: "think"}, Provider: "anthropic", Signature: "sig"},
		model.Reasoning{Provider: "anthropic", Redacted: "opaque"},
		llms.ToolCall{ID: "c1", Type: "function", FunctionCall: &llms.FunctionCall{Name: "f", Arguments: "not JSON"}},
	}},
	{Role: llms.ChatMessageTypeTool, Parts: []llms.ContentPart{
		llms.ToolCallResponse{ToolCallID: "c1", Name: "f", Content: "done"},
	}},
}

// everyPartJSON is everyPart as stores keep it. Stored chats outlive releases: a change here
// must still decode what was stored before.
const everyPartJSON = `[{"role":"human","parts":[{"type":"text","text":"look"},` +
	`{"type":"image_url","url":"https://example.com/a.png","detail":"low"},` +
	`{"type":"binary","mime_type":"application/pdf","data":"AAH/"}]},` +
	`{"role":"ai","parts":[{"type":"reasoning","text":"think","provider":"anthropic","signature":"sig"},` +
	`{"type":"reasoning","provider":"anthropic","redacted":"opaque"},` +
	`{"type":"tool_call","id":"c1","call_type":"function","name":"f","arguments":"not JSON"}]},` +
	`{"role":"tool","parts":[{"type":"tool_result","id":"c1","name":"f","content":"done"}]}]`

func TestMarshalMessagesRoundTrip(t *testing.T) {
	t.Parallel()
	data, err := chat.MarshalMessages(everyPart)
	if err != nil {
		t.Fatal(err)
	}
	got, err := chat.UnmarshalMessages(data)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(everyPart, got); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
}

func TestMarshalMessagesEncodingIsStable(t *testing.T) {
	t.Parallel()
	data, err := chat.MarshalMessages(everyPart)
	if err != nil {
		t.Fatal(err)
	}
	if string(data) != everyPartJSON {
		t.Errorf("MarshalMessages =\n%s\nwant\n%s", data, everyPartJSON)
	}
	got, err := chat.UnmarshalMessages([]byte(everyPartJSON))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(everyPart, got); diff != "" {
		t.Errorf("decoding the stored form (-want +got):\n%s", diff)
	}
}

// otherPart is a part type the codec does not know: it embeds a known one for its marker method.
type otherPart struct{ llms.TextContent }

func TestCodecErrors(t *testing.T) {
	t.Parallel()
	_, err := chat.MarshalMessages([]llms.MessageContent{{Role: llms.ChatMessageTypeHuman,
		Parts: []llms.ContentPart{llms.TextContent{}, otherPart{}}}})
	if err == nil || !strings.Contains(err.Error(), "part 1") || !strings.Contains(err.Error(), "otherPart") {
		t.Errorf("MarshalMessages of an unknown part type: %v; want an error naming the part and its type", err)
	}
	tests := []struct{ name, data, want string }{
		{"unknown part type", `[{"role":"human","parts":[{"type":"video","url":"x"}]}]`, `unknown part type "video"`},
		{"not JSON", `[{"role":`, "stored messages"},
		{"not a list", `{"role":"human"}`, "stored messages"},
	}
	for _, tt := range tests {
		if _, err := chat.UnmarshalMessages([]byte(tt.data)); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: UnmarshalMessages = %v; want an error containing %q", tt.name, err, tt.want)
		}
	}
}
