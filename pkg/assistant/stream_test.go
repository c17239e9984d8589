package assistant_test

import (
	"context"
	"sync"
	"testing"

	"github.com/cadrehq/cadre/pkg/assistant"
	"github.com/cadrehq/cadre/pkg/callback"
	"github.com/cadrehq/cadre/pkg/llmtest"
)

func TestStreamNamesTheRunsOfATree(t *testing.T) {
	t.Parallel()
	spec := assistant.New[string]("spec", assistant.WithModel(llmtest.NewScripted(llmtest.Text("a fact"))))
	sup := assistant.New[string]("sup", assistant.WithTools(assistant.AsTool[string](spec)),
		assistant.WithModel(llmtest.NewScripted(
			llmtest.Reply{Text: "Asking.", ToolCalls: llmtest.Calls(llmtest.Call("spec", `{"input":"q"}`)).ToolCalls},
			llmtest.Text("The answer."))))
	var mu sync.Mutex
	var chunks []assistant.Chunk
	rec := &recorder{}
	_, err := sup.Run(testContext(t), assistant.Input{Prompt: "go", Options: []assistant.Option{
		assistant.WithCallback(rec),
		assistant.WithStream(func(_ context.Context, c assistant.Chunk) error {
			mu.Lock()
			defer mu.Unlock()
			chunks = append(chunks, c)
			return nil
		}),
	}})
	if err != nil {
		t.Fatal(err)
	}
	runs := map[string]string{}
	for _, e := range rec.Of(callback.RunStart) {
		runs[e.Assistant] = e.RunID
	}
	want := []assistant.Chunk{
		{RunID: runs["sup"], Assistant: "sup", Model: "custom", Text: "Asking."},
		{RunID: runs["spec"], ParentRunID: runs["sup"], Assistant: "spec", Model: "custom", Text: "a fact"},
		{RunID: runs["sup"], Assistant: "sup", Model: "custom", Text: "The answer."},
	}
	if len(chunks) != len(want) {
		t.Fatalf("chunks = %+v, want %+v", chunks, want)
	}
	for i := range want {
		if chunks[i] != want[i] {
			t.Errorf("chunk %d = %+v, want %+v", i, chunks[i], want[i])
		}
	}
}
