package main

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/cadrehq/cadre/pkg/llmtest"
	"github.com/cadrehq/cadre/pkg/model"
	"github.com/cadrehq/cadre/pkg/usage"
	"github.com/tmc/langchaingo/llms"
)

// offlineModels are the models of the offline eval: fast, which searches only for the places
// it does not think it knows and guesses the others' weather; deep, which searches every time
// and answers from what it found; and the judge, which scores an answer by whether its weather
// is the expected one.
func offlineModels() (fast, deep, judge model.Model) {
	fast = model.Model{Name: "fast", LLM: llmtest.NewFunc(func(_ context.Context, req llmtest.Request) llmtest.Reply {
		trip, found := state(req.Messages)
		u := usage.Usage{InputTokens: 300, OutputTokens: 40}
		if found == "" && (trip.Destination == "Lisbon" || trip.Destination == "Kyoto") {
			return searchFor(trip, u)
		}
		if found == "" {
			found = "pleasant"
		}
		return answer(trip, found, u)
	})}
	deep = model.Model{Name: "deep", LLM: llmtest.NewFunc(func(_ context.Context, req llmtest.Request) llmtest.Reply {
		trip, found := state(req.Messages)
		u := usage.Usage{InputTokens: 600, OutputTokens: 80}
		if found == "" {
			return searchFor(trip, u)
		}
		return answer(trip, found, u)
	})}
	judge = model.Model{Name: "judge", LLM: llmtest.NewFunc(func(_ context.Context, req llmtest.Request) llmtest.Reply {
		prompt := text(req.Messages[len(req.Messages)-1])
		output, expected, _ := strings.Cut(prompt, "The expected output:")
		var want Findings
		_ = json.Unmarshal([]byte(strings.TrimSpace(expected)), &want)
		verdict := Verdict{Score: 0.2, Reason: "the highlights ignore the month's weather"}
		if want.Weather != "" && strings.Contains(output, want.Weather) {
			verdict = Verdict{Score: 0.9, Reason: "the highlights suit " + want.Weather + " weather"}
		}
		args, _ := json.Marshal(verdict)
		return llmtest.Reply{ToolCalls: []llms.ToolCall{llmtest.Call("final_result", string(args))}, Usage: usage.Usage{InputTokens: 400, OutputTokens: 30}}
	})}
	return fast, deep, judge
}

// Verdict is eval.Verdict's JSON, as the scripted judge writes it.
type Verdict struct {
	Score  float64 `json:"score"`
	Reason string  `json:"reason"`
}

// state reads the trip of a request's prompt, and the weather its search found ("" before it
// searched).
func state(msgs []llms.MessageContent) (trip Trip, found string) {
	for _, m := range msgs {
		switch m.Role {
		case llms.ChatMessageTypeHuman:
			_ = json.Unmarshal([]byte(text(m)), &trip)
		case llms.ChatMessageTypeTool:
			for _, p := range m.Parts {
				if r, ok := p.(llms.ToolCallResponse); ok {
					var res SearchResult
					if json.Unmarshal([]byte(r.Content), &res) == nil && len(res.Snippets) > 0 {
						_, found, _ = strings.Cut(strings.TrimSuffix(res.Snippets[0], "."), ": ")
					}
				}
			}
		}
	}
	return trip, found
}

func searchFor(trip Trip, u usage.Usage) llmtest.Reply {
	args, _ := json.Marshal(SearchIn{Query: trip.Destination + " in " + trip.Month})
	return llmtest.Reply{ToolCalls: []llms.ToolCall{llmtest.Call("search", string(args))}, Usage: u}
}

func answer(trip Trip, weather string, u usage.Usage) llmtest.Reply {
	args, _ := json.Marshal(Findings{Destination: trip.Destination, Weather: weather,
		Highlights: []string{"the old town on foot", "a day trip out of " + trip.Destination}})
	return llmtest.Reply{ToolCalls: []llms.ToolCall{llmtest.Call("final_result", string(args))}, Usage: u}
}

func text(m llms.MessageContent) string {
	var b strings.Builder
	for _, p := range m.Parts {
		if t, ok := p.(llms.TextContent); ok {
			b.WriteString(t.Text)
		}
	}
	return b.String()
}
