package soak

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/cadrehq/cadre/pkg/assistant"
	"github.com/cadrehq/cadre/pkg/llmtest"
	"github.com/cadrehq/cadre/pkg/model"
	"github.com/cadrehq/cadre/pkg/tool"
	"github.com/cadrehq/cadre/pkg/usage"
	"github.com/tmc/langchaingo/llms"
)

// The four-tool round of pkg/assistant's BenchmarkRunToolRound: the model asks for the weather
// of four cities at once, the tool answers each, and the model answers with a typed value.

type answer struct {
	City        string   `json:"city"`
	Temperature float64  `json:"temperature"`
	Conditions  []string `json:"conditions"`
}

type weatherIn struct {
	City string `json:"city"`
}

type weatherOut struct {
	City        string  `json:"city"`
	Temperature float64 `json:"temperature"`
}

const (
	instructions = "You are a weather assistant. Answer with the weather of the city asked for."
	prompt       = "What is the weather in Paris?"
	answerJSON   = `{"city":"Paris","temperature":21.5,"conditions":["sunny","light wind"]}`
)

// roundModel calls the weather tool for four cities, then, once it has their results, answers.
// It decides from the conversation alone, so that any number of runs can share it.
func roundModel() *llmtest.FuncModel {
	return llmtest.NewFunc(func(_ context.Context, req llmtest.Request) llmtest.Reply {
		if req.Messages[len(req.Messages)-1].Role == llms.ChatMessageTypeTool {
			return llmtest.Reply{Text: answerJSON, Usage: usage.Usage{InputTokens: 180, OutputTokens: 30}}
		}
		return llmtest.Reply{ToolCalls: []llms.ToolCall{
			llmtest.Call("weather", `{"city":"Paris"}`),
			llmtest.Call("weather", `{"city":"Lyon"}`),
			llmtest.Call("weather", `{"city":"Nice"}`),
			llmtest.Call("weather", `{"city":"Lille"}`),
		}, Usage: usage.Usage{InputTokens: 120, OutputTokens: 40}}
	}).NoRecord()
}

// weatherTool answers at once; it notes how long it ran in its run's clock.
func weatherTool() tool.Tool {
	return tool.Func("weather", "Current weather of a city.", func(ctx context.Context, in weatherIn) (weatherOut, error) {
		start := time.Now()
		out := weatherOut{City: in.City, Temperature: 21.5}
		clockOf(ctx).tool(start, time.Now())
		return out, nil
	})
}

// newRound returns the assistant of the round, with models (each timed) and any options.
func newRound(models model.Resolver, opts ...assistant.Option) *assistant.Assistant[answer] {
	return assistant.New[answer]("weather", append([]assistant.Option{
		assistant.WithModels(timedModels{models}),
		assistant.WithInstructions(instructions),
		assistant.WithTools(weatherTool()),
	}, opts...)...)
}

// A clock is the time one run spent outside cadre: in its model's client (and the provider
// behind it) and in its tools. What remains of the run's time is cadre's own.
type clock struct {
	mu    sync.Mutex
	model time.Duration
	tools [][2]time.Time // the calls' intervals; the calls of a turn overlap
}

type clockKey struct{}

func withClock(ctx context.Context, c *clock) context.Context {
	return context.WithValue(ctx, clockKey{}, c)
}

// clockOf returns the clock of ctx's run; a clock that notes nothing when there is none.
func clockOf(ctx context.Context) *clock {
	if c, ok := ctx.Value(clockKey{}).(*clock); ok {
		return c
	}
	return &clock{}
}

func (c *clock) modelCall(d time.Duration) {
	c.mu.Lock()
	c.model += d
	c.mu.Unlock()
}

func (c *clock) tool(start, end time.Time) {
	c.mu.Lock()
	c.tools = append(c.tools, [2]time.Time{start, end})
	c.mu.Unlock()
}

// outside is the model's time plus the time during which at least one tool ran.
func (c *clock) outside() time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	spans := slices.Clone(c.tools)
	slices.SortFunc(spans, func(a, b [2]time.Time) int { return a[0].Compare(b[0]) })
	d := c.model
	var end time.Time
	for _, s := range spans {
		if s[0].After(end) {
			end = s[0]
		}
		if s[1].After(end) {
			d += s[1].Sub(end)
			end = s[1]
		}
	}
	return d
}

// timedModels gives each model of a chain a client that notes its time in the run's clock.
type timedModels struct{ model.Resolver }

func (r timedModels) Resolve(ctx context.Context, name string) ([]model.Model, error) {
	chain, err := r.Resolver.Resolve(ctx, name)
	if err != nil {
		return nil, err
	}
	timed := make([]model.Model, len(chain))
	for i, m := range chain {
		m.LLM = timedLLM{m.LLM}
		timed[i] = m
	}
	return timed, nil
}

type timedLLM struct{ llms.Model }

func (m timedLLM) GenerateContent(ctx context.Context, msgs []llms.MessageContent, opts ...llms.CallOption) (*llms.ContentResponse, error) {
	start := time.Now()
	resp, err := m.Model.GenerateContent(ctx, msgs, opts...)
	clockOf(ctx).modelCall(time.Since(start))
	return resp, err
}
