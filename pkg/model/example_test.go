package model_test

import (
	"fmt"

	"github.com/cadrehq/cadre/pkg/model"
	"github.com/cadrehq/cadre/pkg/usage"
	"github.com/tmc/langchaingo/llms"
)

// Read merges a response with one choice per content block, as langchaingo's anthropic client
// answers, into one reply whose usage is counted once.
func ExampleRead() {
	info := map[string]any{"InputTokens": 20, "OutputTokens": 15, "CacheReadInputTokens": 100, "CacheCreationInputTokens": 0}
	resp := &llms.ContentResponse{Choices: []*llms.ContentChoice{
		{Content: "Let me check.", StopReason: "tool_use", GenerationInfo: info},
		{
			ToolCalls:      []llms.ToolCall{{ID: "toolu_1", FunctionCall: &llms.FunctionCall{Name: "weather", Arguments: `{"city":"Paris"}`}}},
			StopReason:     "tool_use",
			GenerationInfo: info,
		},
	}}
	reply, err := model.Read(resp)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(reply.Text)
	for _, c := range reply.ToolCalls {
		fmt.Println(c.Type, c.FunctionCall.Name, c.FunctionCall.Arguments)
	}
	fmt.Printf("%+v\n", reply.Usage)
	// Output:
	// Let me check.
	// function weather {"city":"Paris"}
	// {Requests:1 ToolCalls:0 InputTokens:120 OutputTokens:15 CacheReadTokens:100 CacheWriteTokens:0 ReasoningTokens:0}
}

// ShapeSafe sends every tool call in its own assistant message, right before its result.
func ExampleShape_Wire() {
	msgs := []llms.MessageContent{
		llms.TextParts(llms.ChatMessageTypeHuman, "Weather in Paris and Oslo?"),
		{Role: llms.ChatMessageTypeAI, Parts: []llms.ContentPart{
			llms.TextContent{Text: "Checking."},
			llms.ToolCall{ID: "c1", Type: "function", FunctionCall: &llms.FunctionCall{Name: "weather", Arguments: `{"city":"Paris"}`}},
			llms.ToolCall{ID: "c2", Type: "function", FunctionCall: &llms.FunctionCall{Name: "weather", Arguments: `{"city":"Oslo"}`}},
		}},
		{Role: llms.ChatMessageTypeTool, Parts: []llms.ContentPart{llms.ToolCallResponse{ToolCallID: "c1", Name: "weather", Content: "sunny"}}},
		{Role: llms.ChatMessageTypeTool, Parts: []llms.ContentPart{llms.ToolCallResponse{ToolCallID: "c2", Name: "weather", Content: "rain"}}},
	}
	for _, m := range model.ShapeSafe.Wire(msgs) {
		for _, p := range m.Parts {
			switch p := p.(type) {
			case llms.TextContent:
				fmt.Printf("%s: %s\n", m.Role, p.Text)
			case llms.ToolCall:
				fmt.Printf("%s: call %s %s\n", m.Role, p.ID, p.FunctionCall.Arguments)
			case llms.ToolCallResponse:
				fmt.Printf("%s: result %s %s\n", m.Role, p.ToolCallID, p.Content)
			}
		}
	}
	// Output:
	// human: Weather in Paris and Oslo?
	// ai: Checking.
	// ai: call c1 {"city":"Paris"}
	// tool: result c1 sunny
	// ai: call c2 {"city":"Oslo"}
	// tool: result c2 rain
}

// Costs prices a run's usage report with prices per million tokens by model name, as
// llmfactory's Factory.Prices gives them from llm.yaml; a model without a price is named.
func ExampleCosts() {
	report := usage.Report{ByModel: map[string]usage.Usage{
		"deep":  {Requests: 1, InputTokens: 1350, CacheReadTokens: 1000, CacheWriteTokens: 300, OutputTokens: 120},
		"local": {Requests: 1, InputTokens: 2000, OutputTokens: 500},
	}}
	prices := map[string]model.Price{"deep": {Input: 3, CacheRead: 0.3, CacheWrite: 3.75, Output: 15}}
	total, byModel, missing := model.Costs(report, prices)
	fmt.Printf("deep: $%.6f\n", byModel["deep"])
	fmt.Printf("total: $%.6f, without %v\n", total, missing)
	// Output:
	// deep: $0.003375
	// total: $0.003375, without [local]
}
