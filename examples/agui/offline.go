package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync/atomic"

	"github.com/cadrehq/cadre/pkg/llmfactory"
	"github.com/cadrehq/cadre/pkg/llmtest"
	"github.com/cadrehq/cadre/pkg/model"
	"github.com/cadrehq/cadre/pkg/usage"
	"github.com/tmc/langchaingo/llms"
)

// modelsFrom returns the assistants' models: from the llm.yaml config, or offline ones when
// config is empty. It says which in its second result.
func modelsFrom(config string) (model.Resolver, string, error) {
	if config == "" {
		return offline{
			"concierge":  model.Describe("offline-large", conciergeModel()),
			"researcher": model.Describe("offline-small", researcherModel()),
		}, "offline, with function models playing the models' parts (no API key needed)", nil
	}
	f, err := llmfactory.Load(config)
	if err != nil {
		return nil, "", err
	}
	return f, "with the models of " + config, nil
}

// offline resolves each assistant's model by its name, as llm.yaml's factory does.
type offline map[string]model.Model

func (o offline) Resolve(_ context.Context, name string) ([]model.Model, error) {
	m, ok := o[name]
	if !ok {
		return nil, fmt.Errorf("no offline model for assistant %q", name)
	}
	return []model.Model{m}, nil
}

// conciergeModel plays the concierge's model, deciding each reply from the conversation: it
// asks the researcher, books the table the researcher found, then says what happened — the
// booking made, or refused with the person's reason, as book_table's result tells it. It
// answers every conversation so, for a front end's as well (-serve).
func conciergeModel() llms.Model {
	call := callIDs("call_c")
	return llmtest.NewFunc(func(_ context.Context, req llmtest.Request) llmtest.Reply {
		result, ok := lastResult(req)
		switch {
		case !ok: // the user's turn
			return llmtest.Reply{
				ToolCalls: []llms.ToolCall{call("researcher", `{"city":"Porto","wish":"good fish"}`)},
				Usage:     usage.Usage{InputTokens: 310, OutputTokens: 32},
			}
		case result.Name == "researcher":
			var f Findings
			if json.Unmarshal([]byte(result.Content), &f) != nil || f.Restaurant == "" {
				return llmtest.Text("The researcher found nothing: " + result.Content)
			}
			return llmtest.Reply{
				ToolCalls: []llms.ToolCall{call("book_table", jsonOf(Booking{Restaurant: f.Restaurant, Time: "20:00", People: 2}))},
				Usage:     usage.Usage{InputTokens: 402, OutputTokens: 28},
			}
		case strings.HasPrefix(result.Content, "denied"):
			return llmtest.Reply{Text: "I did not book: " + result.Content, Usage: usage.Usage{InputTokens: 455, OutputTokens: 20}}
		default:
			var c Confirmation
			_ = json.Unmarshal([]byte(result.Content), &c)
			return llmtest.Reply{
				Text:  fmt.Sprintf("Booked: a table for %d at %s at %s, reference %s.", c.People, c.Restaurant, c.Time, c.Reference),
				Usage: usage.Usage{InputTokens: 461, OutputTokens: 24},
			}
		}
	})
}

// researcherModel plays the researcher's model: it looks the city's fish restaurants up,
// then answers with the first, as a final_result call (the way a model offered tools gives
// a typed answer).
func researcherModel() llms.Model {
	call := callIDs("call_r")
	return llmtest.NewFunc(func(_ context.Context, req llmtest.Request) llmtest.Reply {
		result, ok := lastResult(req)
		if !ok {
			return llmtest.Reply{
				ToolCalls: []llms.ToolCall{call("find_restaurants", `{"city":"Porto","cuisine":"fish"}`)},
				Usage:     usage.Usage{InputTokens: 280, OutputTokens: 19},
			}
		}
		var found []Restaurant
		if json.Unmarshal([]byte(result.Content), &found) != nil || len(found) == 0 {
			return llmtest.Text(`{"restaurant":"","why":"the guide lists none"}`)
		}
		return llmtest.Reply{
			ToolCalls: []llms.ToolCall{call("final_result", jsonOf(Findings{Restaurant: found[0].Name, Why: "Known for " + found[0].Known + "."}))},
			Usage:     usage.Usage{InputTokens: 371, OutputTokens: 36},
		}
	})
}

// lastResult is the tool result the request ends with; false when it ends with the user's
// turn.
func lastResult(req llmtest.Request) (llms.ToolCallResponse, bool) {
	last := req.Messages[len(req.Messages)-1]
	if last.Role != llms.ChatMessageTypeTool || len(last.Parts) == 0 {
		return llms.ToolCallResponse{}, false
	}
	r, ok := last.Parts[0].(llms.ToolCallResponse)
	return r, ok
}

// callIDs returns a function making tool calls with ids of the given prefix, numbered. The
// ids of one AG-UI stream must differ, and it carries the calls of both assistants, whose
// models would otherwise each number theirs from call_1.
func callIDs(prefix string) func(name, args string) llms.ToolCall {
	var n atomic.Int64
	return func(name, args string) llms.ToolCall {
		c := llmtest.Call(name, args)
		c.ID = fmt.Sprintf("%s%d", prefix, n.Add(1))
		return c
	}
}

// jsonOf writes v as the model would: JSON.
func jsonOf(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // only the types above, which always encode
	}
	return string(b)
}
