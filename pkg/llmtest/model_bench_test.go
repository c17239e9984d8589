package llmtest_test

import (
	"context"
	"testing"

	"github.com/cadrehq/cadre/pkg/llmtest"
	"github.com/cadrehq/cadre/pkg/usage"
	"github.com/tmc/langchaingo/llms"
)

func BenchmarkScripted(b *testing.B) {
	msgs := []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, "hi")}
	u := usage.Usage{InputTokens: 1200, OutputTokens: 300, CacheReadTokens: 1000}
	for _, bb := range []struct {
		name  string
		reply llmtest.Reply
	}{
		{"text", llmtest.Reply{Text: "hello", Usage: u}},
		{"calls", llmtest.Reply{ToolCalls: []llms.ToolCall{llmtest.Call("a", "{}"), llmtest.Call("b", "{}")}, Usage: u}},
	} {
		b.Run(bb.name, func(b *testing.B) {
			m := llmtest.NewScripted(bb.reply).Cycle().NoRecord()
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				if _, err := m.GenerateContent(ctx, msgs, llms.WithMaxTokens(10)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
