package llmtest_test

import (
	"context"
	"fmt"

	"github.com/cadrehq/cadre/pkg/llmtest"
	"github.com/tmc/langchaingo/llms"
)

func Example() {
	// A model that first asks for a tool, then answers.
	m := llmtest.NewScripted(
		llmtest.Calls(llmtest.Call("weather", `{"city":"Oslo"}`)),
		llmtest.Text("It is sunny in Oslo."),
	)
	ctx := context.Background()
	msgs := []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, "Weather in Oslo?")}

	resp, _ := m.GenerateContent(ctx, msgs)
	call := resp.Choices[0].ToolCalls[0]
	fmt.Println(call.ID, call.FunctionCall.Name, call.FunctionCall.Arguments)

	msgs = append(msgs,
		llms.MessageContent{Role: llms.ChatMessageTypeAI, Parts: []llms.ContentPart{call}},
		llms.MessageContent{Role: llms.ChatMessageTypeTool, Parts: []llms.ContentPart{
			llms.ToolCallResponse{ToolCallID: call.ID, Name: "weather", Content: "sunny"},
		}},
	)
	resp, _ = m.GenerateContent(ctx, msgs)
	fmt.Println(resp.Choices[0].Content)

	// What the model was sent.
	fmt.Println(len(m.Requests()), "requests; the second had", len(m.Requests()[1].Messages), "messages")

	_, err := m.GenerateContent(ctx, msgs)
	fmt.Println(err)
	// Output:
	// call_1 weather {"city":"Oslo"}
	// It is sunny in Oslo.
	// 2 requests; the second had 3 messages
	// llmtest: the scripted model has no reply left: request 3 arrived, but the script has 2 replies; add replies or build the model with Cycle
}
