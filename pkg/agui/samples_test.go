package agui_test

import "github.com/cadrehq/cadre/pkg/agui"

// samples returns one event of each type of AG-UI 1.0, with the optional fields set.
func samples() []agui.Event {
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
		agui.MessagesSnapshot{Messages: []agui.Message{
			{ID: "s1", Role: agui.RoleSystem, Content: agui.Content{Text: "Be brief."}},
			{ID: "d1", Role: agui.RoleDeveloper, Content: agui.Content{Text: ""}},
			{ID: "u1", Role: agui.RoleUser, Content: agui.Content{Text: "hi"}, Name: "ann"},
			{ID: "a1", Role: agui.RoleAssistant, ToolCalls: []agui.ToolCall{{ID: "c1", Function: agui.FunctionCall{Name: "forecast", Arguments: "{}"}}}},
			{ID: "t1", Role: agui.RoleTool, ToolCallID: "c1", Content: agui.Content{Text: "sunny"}, Error: "late"},
			{ID: "x1", Role: agui.RoleActivity, ActivityType: "plan", Activity: map[string]any{"step": "one"}},
			{ID: "r1", Role: agui.RoleReasoning, Content: agui.Content{Text: "thinking"}, SubagentRunID: "sa1"},
		}},
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
	}
}
