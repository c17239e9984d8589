package assistant_test

import (
	"context"
	"encoding/json"
	"sync"
	"testing"

	"github.com/cadrehq/cadre/pkg/assistant"
	"github.com/cadrehq/cadre/pkg/llmtest"
	"github.com/cadrehq/cadre/pkg/model"
	"github.com/cadrehq/cadre/pkg/tool"
	"github.com/tmc/langchaingo/llms"
)

// The benchmarks below run the two workloads of PERFORMANCE.md through an assistant, each
// beside a baseline that does the same work by hand with langchaingo and encoding/json, so
// that `make bench` reports both in one run: compare ns/op and allocs/op pairwise.

type benchAnswer struct {
	City        string   `json:"city"`
	Temperature float64  `json:"temperature"`
	Conditions  []string `json:"conditions"`
}

type benchWeatherIn struct {
	City string `json:"city"`
}

type benchWeatherOut struct {
	City        string  `json:"city"`
	Temperature float64 `json:"temperature"`
}

const (
	benchInstructions = "You are a weather assistant. Answer with the weather of the city asked for."
	benchPrompt       = "What is the weather in Paris?"
	benchAnswerJSON   = `{"city":"Paris","temperature":21.5,"conditions":["sunny","light wind"]}`
)

func benchTool() tool.Tool {
	return tool.Func("weather", "Current weather of a city.", func(_ context.Context, in benchWeatherIn) (benchWeatherOut, error) {
		return benchWeatherOut{City: in.City, Temperature: 21.5}, nil
	})
}

func benchToolRound() []llms.ToolCall {
	return []llms.ToolCall{
		llmtest.Call("weather", `{"city":"Paris"}`),
		llmtest.Call("weather", `{"city":"Lyon"}`),
		llmtest.Call("weather", `{"city":"Nice"}`),
		llmtest.Call("weather", `{"city":"Lille"}`),
	}
}

func BenchmarkRunOneTurn(b *testing.B) {
	m := llmtest.NewScripted(llmtest.Text(benchAnswerJSON)).Cycle().NoRecord()
	a := assistant.New[benchAnswer]("weather", assistant.WithModel(m), assistant.WithInstructions(benchInstructions), assistant.WithTools(benchTool()))
	benchRuns(b, a)
}

func BenchmarkRunOneTurnByHand(b *testing.B) {
	m := llmtest.NewScripted(llmtest.Text(benchAnswerJSON)).Cycle().NoRecord()
	t := benchTool()
	defs := []llms.Tool{{Type: "function", Function: &llms.FunctionDefinition{Name: t.Name(), Description: t.Description(), Parameters: t.Schema()}}}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		msgs := []llms.MessageContent{
			llms.TextParts(llms.ChatMessageTypeSystem, benchInstructions),
			llms.TextParts(llms.ChatMessageTypeHuman, benchPrompt),
		}
		resp, err := m.GenerateContent(ctx, msgs, llms.WithTools(defs))
		if err != nil {
			b.Fatal(err)
		}
		var out benchAnswer
		if err := json.Unmarshal([]byte(resp.Choices[0].Content), &out); err != nil || out.City != "Paris" {
			b.Fatal(err)
		}
	}
}

func BenchmarkRunToolRound(b *testing.B) {
	m := llmtest.NewScripted(llmtest.Calls(benchToolRound()...), llmtest.Text(benchAnswerJSON)).Cycle().NoRecord()
	a := assistant.New[benchAnswer]("weather", assistant.WithModel(m), assistant.WithInstructions(benchInstructions), assistant.WithTools(benchTool()))
	benchRuns(b, a)
}

func BenchmarkRunToolRoundByHand(b *testing.B) {
	m := llmtest.NewScripted(llmtest.Calls(benchToolRound()...), llmtest.Text(benchAnswerJSON)).Cycle().NoRecord()
	t := benchTool()
	defs := []llms.Tool{{Type: "function", Function: &llms.FunctionDefinition{Name: t.Name(), Description: t.Description(), Parameters: t.Schema()}}}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		msgs := []llms.MessageContent{
			llms.TextParts(llms.ChatMessageTypeSystem, benchInstructions),
			llms.TextParts(llms.ChatMessageTypeHuman, benchPrompt),
		}
		resp, err := m.GenerateContent(ctx, msgs, llms.WithTools(defs))
		if err != nil {
			b.Fatal(err)
		}
		calls := resp.Choices[0].ToolCalls
		turn := llms.MessageContent{Role: llms.ChatMessageTypeAI}
		for _, c := range calls {
			turn.Parts = append(turn.Parts, c)
		}
		msgs = append(msgs, turn)
		results := make([]string, len(calls))
		var wg sync.WaitGroup
		for i, c := range calls {
			wg.Add(1)
			go func() {
				defer wg.Done()
				results[i], _ = t.Call(ctx, json.RawMessage(c.FunctionCall.Arguments))
			}()
		}
		wg.Wait()
		for i, c := range calls {
			msgs = append(msgs, llms.MessageContent{Role: llms.ChatMessageTypeTool, Parts: []llms.ContentPart{
				llms.ToolCallResponse{ToolCallID: c.ID, Name: c.FunctionCall.Name, Content: results[i]},
			}})
		}
		resp, err = m.GenerateContent(ctx, msgs, llms.WithTools(defs))
		if err != nil {
			b.Fatal(err)
		}
		var out benchAnswer
		if err := json.Unmarshal([]byte(resp.Choices[0].Content), &out); err != nil || out.City != "Paris" {
			b.Fatal(err)
		}
	}
}

// passThrough is middleware at every level that only calls next: what the seam costs when it
// is used, beside BenchmarkRunToolRound, where it is not.
var passThrough = assistant.Middleware{
	Run: func(ctx context.Context, _ assistant.RunInfo, next assistant.RunNext) (*assistant.Response, error) {
		return next(ctx)
	},
	Request: func(ctx context.Context, req *assistant.ModelRequest, next assistant.RequestNext) (model.Reply, error) {
		return next(ctx, req)
	},
	ToolTurn: func(ctx context.Context, turn *assistant.ToolTurn, next assistant.ToolTurnNext) ([]string, error) {
		return next(ctx, turn)
	},
	ToolCall: func(ctx context.Context, call assistant.ToolCall, next assistant.ToolCallNext) (string, error) {
		return next(ctx, call)
	},
}

func BenchmarkRunToolRoundPassThroughMiddleware(b *testing.B) {
	m := llmtest.NewScripted(llmtest.Calls(benchToolRound()...), llmtest.Text(benchAnswerJSON)).Cycle().NoRecord()
	a := assistant.New[benchAnswer]("weather", assistant.WithModel(m), assistant.WithInstructions(benchInstructions),
		assistant.WithTools(benchTool()), assistant.WithMiddleware(passThrough))
	benchRuns(b, a)
}

// benchRuns runs a on the benchmark's prompt b.N times, checking each answer.
func benchRuns(b *testing.B, a *assistant.Assistant[benchAnswer]) {
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		res, err := a.Run(ctx, assistant.Input{Prompt: benchPrompt})
		if err != nil || res.Output.City != "Paris" {
			b.Fatal(err)
		}
	}
}
