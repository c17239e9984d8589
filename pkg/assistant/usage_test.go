package assistant_test

import (
	"sync/atomic"
	"testing"

	"github.com/cadrehq/cadre/pkg/assistant"
	"github.com/cadrehq/cadre/pkg/llmtest"
	"github.com/cadrehq/cadre/pkg/usage"
	"github.com/google/go-cmp/cmp"
	"github.com/tmc/langchaingo/llms"
)

// TestUsageIsTheSumOfTheReplies: a run's Usage.Total is the sum of its replies' usage, with a
// request for each reply and a tool call for each call but final_result, and ByAgent and
// ByModel hold it under the assistant's name and "scripted", its model's kind.
func TestUsageIsTheSumOfTheReplies(t *testing.T) {
	t.Parallel()
	var runs atomic.Int64
	m := llmtest.NewScripted(
		llmtest.Reply{
			ToolCalls: []llms.ToolCall{llmtest.Call("lookup", `{"q":"a"}`), llmtest.Call("lookup", `{"q":"b"}`)},
			Usage:     usage.Usage{InputTokens: 100, OutputTokens: 20, CacheReadTokens: 30, ReasoningTokens: 5},
		},
		llmtest.Reply{
			ToolCalls: []llms.ToolCall{llmtest.Call("final_result", `{"name":"Paris","population":2102650}`)},
			Usage:     usage.Usage{InputTokens: 150, OutputTokens: 40, CacheReadTokens: 100},
		},
	)
	a := assistant.New[city]("counter", assistant.WithModel(m), assistant.WithTools(countingTool("lookup", &runs)))

	res, err := a.Run(testContext(t), assistant.Input{Prompt: "Paris?"})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}

	total := usage.Usage{Requests: 2, ToolCalls: 2, InputTokens: 250, OutputTokens: 60, CacheReadTokens: 130, ReasoningTokens: 5}
	want := usage.Report{
		Total:   total,
		ByAgent: map[string]usage.Usage{"counter": total},
		ByModel: map[string]usage.Usage{"scripted": total},
	}
	if diff := cmp.Diff(want, res.Usage); diff != "" {
		t.Errorf("Usage (-want +got):\n%s", diff)
	}
}

// TestUsageOfRunsUnderOneLedger: two runs under one usage.Ledger each report their own usage,
// and the ledger's report covers both, by agent.
func TestUsageOfRunsUnderOneLedger(t *testing.T) {
	t.Parallel()
	ledger := usage.NewLedger(usage.Limits{})
	ctx := usage.WithLedger(testContext(t), ledger)
	first := assistant.New[string]("first", assistant.WithModel(llmtest.NewScripted(
		llmtest.Reply{Text: "one", Usage: usage.Usage{InputTokens: 10, OutputTokens: 1}},
	)))
	second := assistant.New[string]("second", assistant.WithModel(llmtest.NewScripted(
		llmtest.Reply{Text: "two", Usage: usage.Usage{InputTokens: 20, OutputTokens: 2}},
	)))

	res1, err := first.Run(ctx, assistant.Input{Prompt: "1"})
	if err != nil {
		t.Fatalf("first run: %v", err)
	}
	res2, err := second.Run(ctx, assistant.Input{Prompt: "2"})
	if err != nil {
		t.Fatalf("second run: %v", err)
	}

	u1 := usage.Usage{Requests: 1, InputTokens: 10, OutputTokens: 1}
	u2 := usage.Usage{Requests: 1, InputTokens: 20, OutputTokens: 2}
	if diff := cmp.Diff(u1, res1.Usage.Total); diff != "" {
		t.Errorf("first run's Usage.Total (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(u2, res2.Usage.Total); diff != "" {
		t.Errorf("second run's Usage.Total (-want +got):\n%s", diff)
	}
	want := usage.Report{
		Total:   u1.Add(u2),
		ByAgent: map[string]usage.Usage{"first": u1, "second": u2},
		ByModel: map[string]usage.Usage{"scripted": u1.Add(u2)},
	}
	if diff := cmp.Diff(want, ledger.Report()); diff != "" {
		t.Errorf("ledger.Report() (-want +got):\n%s", diff)
	}
}

// TestUsageOfConcurrentRunsUnderOneLedger: runs of one assistant in parallel under one ledger
// all record into it.
func TestUsageOfConcurrentRunsUnderOneLedger(t *testing.T) {
	t.Parallel()
	ledger := usage.NewLedger(usage.Limits{})
	ctx := usage.WithLedger(testContext(t), ledger)
	m := llmtest.NewScripted(llmtest.Reply{Text: "ok", Usage: usage.Usage{InputTokens: 3, OutputTokens: 1}}).Cycle()
	a := assistant.New[string]("parallel", assistant.WithModel(m))

	const runs = 20
	errs := make(chan error, runs)
	for range runs {
		go func() {
			_, err := a.Run(ctx, assistant.Input{Prompt: "go"})
			errs <- err
		}()
	}
	for range runs {
		if err := <-errs; err != nil {
			t.Errorf("Run: %v", err)
		}
	}

	want := usage.Usage{Requests: runs, InputTokens: 3 * runs, OutputTokens: runs}
	if diff := cmp.Diff(want, ledger.Report().Total); diff != "" {
		t.Errorf("ledger total (-want +got):\n%s", diff)
	}
}

// TestUsageOfAnAnthropicShapedResponse: a response shaped as langchaingo's anthropic client
// shapes it (a choice per content block, each with a copy of the usage, cache tokens apart from
// the input) is counted once, with the cache tokens in the input.
func TestUsageOfAnAnthropicShapedResponse(t *testing.T) {
	t.Parallel()
	info := map[string]any{"InputTokens": 10, "OutputTokens": 5, "CacheReadInputTokens": 3, "CacheCreationInputTokens": 2}
	resp := &llms.ContentResponse{Choices: []*llms.ContentChoice{
		{Content: "Let me look.", StopReason: "tool_use", GenerationInfo: info},
		{StopReason: "tool_use", GenerationInfo: info, ToolCalls: []llms.ToolCall{
			{ID: "toolu_1", FunctionCall: &llms.FunctionCall{Name: "lookup", Arguments: `{"q":"a"}`}},
		}},
	}}
	var runs atomic.Int64
	m := llmtest.NewScripted(llmtest.Reply{Response: resp}, llmtest.Reply{Text: "done", Usage: usage.Usage{InputTokens: 30, OutputTokens: 2}})
	a := assistant.New[string]("anthropic", assistant.WithModel(m), assistant.WithTools(countingTool("lookup", &runs)))

	res, err := a.Run(testContext(t), assistant.Input{Prompt: "look"})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}

	want := usage.Usage{Requests: 2, ToolCalls: 1, InputTokens: 45, OutputTokens: 7, CacheReadTokens: 3, CacheWriteTokens: 2}
	if diff := cmp.Diff(want, res.Usage.Total); diff != "" {
		t.Errorf("Usage.Total (-want +got):\n%s", diff)
	}
	if runs.Load() != 1 {
		t.Errorf("the tool ran %d times; want 1", runs.Load())
	}
}
