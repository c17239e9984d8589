package agui_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/cadrehq/cadre/pkg/agui"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestEventsRoundTrip(t *testing.T) {
	t.Parallel()
	seen := map[agui.EventType]bool{}
	for _, e := range samples() {
		seen[e.Type()] = true
		data, err := json.Marshal(e)
		if err != nil {
			t.Fatalf("%s: %v", e.Type(), err)
		}
		if want := `{"type":"` + string(e.Type()) + `"`; !strings.HasPrefix(string(data), want) {
			t.Errorf("%s: JSON %s does not start with %s", e.Type(), data, want)
		}
		back, err := agui.ParseEvent(data)
		if err != nil {
			t.Fatalf("%s: ParseEvent(%s): %v", e.Type(), data, err)
		}
		if diff := cmp.Diff(e, back, cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("%s: round trip (-sent +parsed):\n%s", e.Type(), diff)
		}
	}
	if len(seen) != 31 {
		t.Errorf("the samples have %d event types, AG-UI 1.0 has 31", len(seen))
	}
}

func TestEventJSON(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		event agui.Event
		want  string
	}{
		{agui.TextMessageEnd{MessageID: "m1"}, `{"type":"TEXT_MESSAGE_END","messageId":"m1"}`},
		{agui.TextMessageContent{MessageID: "m1", Delta: ""}, `{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":""}`},
		{agui.ReasoningMessageStart{MessageID: "r"}, `{"type":"REASONING_MESSAGE_START","messageId":"r","role":"reasoning"}`},
		{agui.StateSnapshot{}, `{"type":"STATE_SNAPSHOT","snapshot":null}`},
		{agui.StateDelta{Delta: []agui.PatchOp{{Op: "add", Path: "/a"}, {Op: "remove", Path: "/b", Value: 1}}},
			`{"type":"STATE_DELTA","delta":[{"op":"add","path":"/a","value":null},{"op":"remove","path":"/b"}]}`},
		{agui.RunFinished{ThreadID: "t", RunID: "r", Outcome: &agui.Outcome{Type: agui.OutcomeCancelled}},
			`{"type":"RUN_FINISHED","threadId":"t","runId":"r","outcome":{"type":"cancelled"}}`},
		{agui.MessagesSnapshot{Messages: []agui.Message{
			{ID: "a", Role: agui.RoleAssistant, Name: "n", ToolCalls: []agui.ToolCall{{ID: "c", Function: agui.FunctionCall{Name: "f", Arguments: "{}"}}}},
			{ID: "s", Role: agui.RoleSystem},
		}}, `{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"a","role":"assistant","name":"n","toolCalls":[{"type":"function","id":"c","function":{"name":"f","arguments":"{}"}}]},{"id":"s","role":"system","content":""}]}`},
	} {
		got, err := json.Marshal(c.event)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.event.Type(), got, c.want)
		}
	}
}

func TestParseEventUnknownType(t *testing.T) {
	t.Parallel()
	_, err := agui.ParseEvent([]byte(`{"type":"THINKING_START"}`))
	if !errors.Is(err, agui.ErrUnknownEvent) {
		t.Errorf("ParseEvent of a type 1.0 lacks: %v, want ErrUnknownEvent", err)
	}
}
