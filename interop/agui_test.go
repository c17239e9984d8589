package interop

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/cadrehq/cadre/pkg/agui"
	"github.com/google/go-cmp/cmp"
)

// TestAGUISchemas writes one event of every AG-UI 1.0 type, as pkg/agui marshals it, and has
// agui.mjs validate each against @ag-ui/core 1.0.0's own zod schemas; it then decodes with
// agui.DecodeInput the RunAgentInput that @ag-ui/client's HttpAgent builds for a conversation.
func TestAGUISchemas(t *testing.T) {
	requireNodePackages(t, "@ag-ui/core", "@ag-ui/client")
	var lines bytes.Buffer
	samples := aguiSamples()
	for _, e := range samples {
		data, err := json.Marshal(e)
		if err != nil {
			t.Fatalf("%s: %v", e.Type(), err)
		}
		lines.Write(data)
		lines.WriteByte('\n')
	}
	file := filepath.Join(t.TempDir(), "events.jsonl")
	if err := os.WriteFile(file, lines.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(testContext(t), "node", "agui.mjs", file)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("node agui.mjs: %v\nstderr:\n%s", err, stderr.String())
	}
	var out struct {
		Results []struct {
			Type  string
			OK    bool
			Error string
		}
		Input json.RawMessage
	}
	if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
		t.Fatalf("agui.mjs wrote %q: %v\nstderr:\n%s", stdout.String(), err, stderr.String())
	}
	if len(out.Results) < len(samples) {
		t.Fatalf("agui.mjs checked %d events of %d", len(out.Results), len(samples))
	}
	types := map[string]bool{}
	for i, r := range out.Results {
		types[r.Type] = true
		if !r.OK {
			line := ""
			if i < len(samples) {
				line = string(bytes.Split(lines.Bytes(), []byte("\n"))[i])
			}
			t.Errorf("@ag-ui/core refuses %s %s:\n%s", r.Type, line, r.Error)
		}
	}
	if len(types) != 31 {
		t.Errorf("%d event types checked, AG-UI 1.0 has 31", len(types))
	}

	in, err := agui.DecodeInput(bytes.NewReader(out.Input))
	if err != nil {
		t.Fatalf("DecodeInput of HttpAgent's input %s: %v", out.Input, err)
	}
	want := &agui.RunAgentInput{
		ThreadID: "thread-1", RunID: "run-2", ProtocolVersion: "1.0",
		State:          json.RawMessage(`{"city":"Oslo"}`),
		ForwardedProps: json.RawMessage(`{"locale":"en"}`),
		Tools: []agui.Tool{{Name: "confirm", Description: "Ask the user",
			Parameters: json.RawMessage(`{"type":"object","properties":{"q":{"type":"string"}}}`)}},
		Context: []agui.Context{{Description: "unit", Value: "metric"}},
		Messages: []agui.Message{
			{ID: "s1", Role: agui.RoleSystem, Content: agui.Content{Text: "Be brief."}},
			{ID: "d1", Role: agui.RoleDeveloper, Content: agui.Content{Text: "Use metric units."}},
			{ID: "u1", Role: agui.RoleUser, Content: agui.Content{Parts: []agui.Part{
				{Type: agui.PartText, Text: "Look"},
				{Type: agui.PartImage, Source: &agui.Source{Type: "url", Value: "https://example.com/a.png"}},
			}}},
			{ID: "a1", Role: agui.RoleAssistant, Content: agui.Content{Text: "Checking."},
				ToolCalls: []agui.ToolCall{{ID: "c1", Function: agui.FunctionCall{Name: "confirm", Arguments: `{"q":"ok?"}`}}}},
			{ID: "t1", Role: agui.RoleTool, ToolCallID: "c1", Content: agui.Content{Text: "yes"}},
			{ID: "r1", Role: agui.RoleReasoning, Content: agui.Content{Text: "thinking"}},
			{ID: "u2", Role: agui.RoleUser, Content: agui.Content{Text: "go on"}},
		},
		Resume: []agui.ResumeEntry{{InterruptID: "i1", Status: agui.ResumeResolved, Payload: json.RawMessage(`{"approved":true}`)}},
	}
	if diff := cmp.Diff(want, in); diff != "" {
		t.Errorf("DecodeInput of HttpAgent's input (-want +got):\n%s", diff)
	}
}

// everyRole is a conversation with a message of each role of AG-UI 1.0.
var everyRole = []agui.Message{
	{ID: "s1", Role: agui.RoleSystem, Content: agui.Content{Text: "Be brief."}},
	{ID: "d1", Role: agui.RoleDeveloper, Content: agui.Content{Text: ""}},
	{ID: "u1", Role: agui.RoleUser, Content: agui.Content{Text: "hi"}, Name: "ann"},
	{ID: "u2", Role: agui.RoleUser, Content: agui.Content{Parts: []agui.Part{
		{Type: agui.PartText, Text: "this"},
		{Type: agui.PartDocument, Source: &agui.Source{Type: "data", Value: "aGk=", MimeType: "application/pdf"}},
		{Type: agui.PartAudio, Source: &agui.Source{Type: "file", Value: "file-1", Provider: "openai"}},
	}}},
	{ID: "a1", Role: agui.RoleAssistant, ToolCalls: []agui.ToolCall{{ID: "c1", Function: agui.FunctionCall{Name: "forecast", Arguments: "{}"}}}},
	{ID: "a2", Role: agui.RoleAssistant, Content: agui.Content{Text: "Sunny."}, Name: "guide", EncryptedValue: "x", Metadata: map[string]any{"k": nil}},
	{ID: "t1", Role: agui.RoleTool, ToolCallID: "c1", Content: agui.Content{Text: "sunny"}, Error: "late"},
	{ID: "x1", Role: agui.RoleActivity, ActivityType: "plan", Activity: map[string]any{"step": "one"}},
	{ID: "x2", Role: agui.RoleActivity, ActivityType: "plan"},
	{ID: "r1", Role: agui.RoleReasoning, Content: agui.Content{Text: "thinking"}, SubagentRunID: "sa1"},
}

// aguiSamples returns one event of each type of AG-UI 1.0, with the optional fields set, and a
// RUN_STARTED echoing an input with a message of every role.
func aguiSamples() []agui.Event {
	base := agui.Base{Timestamp: 1700000000000, Metadata: map[string]any{"k": "v"}}
	yes := true
	input := &agui.RunAgentInput{ThreadID: "t1", RunID: "r1", Messages: []agui.Message{
		{ID: "u1", Role: agui.RoleUser, Content: agui.Content{Text: "hi"}},
	}}
	return []agui.Event{
		agui.RunStarted{Base: base, ThreadID: "t1", RunID: "r1", ProtocolVersion: "1.0", ParentRunID: "r0", Input: input},
		agui.TextMessageStart{Base: base, MessageID: "m1", Role: agui.RoleAssistant, Name: "guide"},
		agui.TextMessageContent{MessageID: "m1", Delta: "Hello"},
		agui.TextMessageEnd{MessageID: "m1"},
		agui.TextMessageChunk{MessageID: "m2", Role: agui.RoleAssistant, Delta: "Hi"},
		agui.ToolCallStart{ToolCallID: "c1", ToolCallName: "forecast", ParentMessageID: "m1"},
		agui.ToolCallArgs{ToolCallID: "c1", Delta: `{"city":"Oslo"}`},
		agui.ToolCallEnd{ToolCallID: "c1"},
		agui.ToolCallChunk{ToolCallID: "c2", ToolCallName: "forecast", Delta: "{}"},
		agui.ToolCallResult{MessageID: "m3", ToolCallID: "c1", Content: agui.Content{Text: "sunny"}, Role: agui.RoleTool},
		agui.ToolCallResult{MessageID: "m4", ToolCallID: "c2", Content: agui.Content{Parts: []agui.Part{
			{Type: agui.PartText, Text: "a map"},
			{Type: agui.PartImage, Source: &agui.Source{Type: "url", Value: "https://example.com/m.png"}},
		}}},
		agui.StateSnapshot{Snapshot: map[string]any{"n": 1.0}},
		agui.StateDelta{Delta: []agui.PatchOp{{Op: "add", Path: "/n", Value: nil}, {Op: "remove", Path: "/m"}, {Op: "move", From: "/a", Path: "/b"}}},
		agui.MessagesSnapshot{Messages: everyRole},
		agui.ActivitySnapshot{MessageID: "x1", ActivityType: "plan", Content: map[string]any{"step": "one"}, Replace: &yes},
		agui.ActivityDelta{MessageID: "x1", ActivityType: "plan", Patch: []agui.PatchOp{{Op: "replace", Path: "/step", Value: "two"}}},
		agui.Raw{Event: map[string]any{"provider": "x"}, Source: "openai"},
		agui.Custom{Name: "cadre.usage", Value: map[string]any{"tokens": 3.0}},
		agui.StepStarted{StepName: "call model"},
		agui.StepFinished{StepName: "call model"},
		agui.ReasoningStart{MessageID: "rs1"},
		agui.ReasoningMessageStart{MessageID: "rm1"},
		agui.ReasoningMessageContent{MessageID: "rm1", Delta: "hmm"},
		agui.ReasoningMessageEnd{MessageID: "rm1"},
		agui.ReasoningMessageChunk{MessageID: "rm2", Delta: "so"},
		agui.ReasoningEnd{MessageID: "rs1"},
		agui.ReasoningEncryptedValue{Subtype: "message", EntityID: "rm1", EncryptedValue: "opaque"},
		agui.SubagentStarted{SubagentRunID: "sa1", Name: "researcher", Description: "finds things", ParentToolCallID: "c1", ParentMessageID: "m1"},
		agui.TextMessageStart{SubagentRunID: "sa1", MessageID: "m5"},
		agui.SubagentFinished{SubagentRunID: "sa1", Result: "found", Outcome: &agui.SubagentOutcome{Type: agui.SubagentSuccess}},
		agui.SubagentFinished{SubagentRunID: "sa2", Outcome: &agui.SubagentOutcome{Type: agui.SubagentSuspended, InterruptIDs: []string{"i1"}}},
		agui.SubagentError{SubagentRunID: "sa3", Message: "failed", Code: "tool"},
		agui.RunFinished{ThreadID: "t1", RunID: "r1", Result: map[string]any{"answer": "42"}, Outcome: &agui.Outcome{Type: agui.OutcomeSuccess, PendingToolCallIDs: []string{"c9"}},
			Usage: []agui.TokenUsage{{Provider: "openai", Model: "gpt", InputTokens: 10, OutputTokens: 2, TotalTokens: 12}}},
		agui.RunFinished{ThreadID: "t1", RunID: "r2", Outcome: &agui.Outcome{Type: agui.OutcomeInterrupt, Interrupts: []agui.Interrupt{
			{ID: "i1", Reason: "tool_approval", Message: "May I?", ToolCallID: "c1", ResponseSchema: map[string]any{"type": "object"}, SubagentRunID: "sa2"},
		}}},
		agui.RunFinished{ThreadID: "t1", RunID: "r3", Outcome: &agui.Outcome{Type: agui.OutcomeCancelled}},
		agui.RunError{Message: "model down", Code: "provider"},
		agui.RunStarted{ThreadID: "t1", RunID: "r4", Input: &agui.RunAgentInput{
			ThreadID: "t1", RunID: "r4", State: json.RawMessage(`{"n":1}`),
			Messages: everyRole,
			Tools:    []agui.Tool{{Name: "confirm", Description: "", Parameters: json.RawMessage(`{"type":"object"}`)}},
			Context:  []agui.Context{{Description: "unit", Value: "metric"}},
			Resume:   []agui.ResumeEntry{{InterruptID: "i1", Status: agui.ResumeCancelled}},
		}},
	}
}
