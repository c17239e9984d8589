package main

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/cadrehq/cadre/pkg/llmfactory"
	"github.com/cadrehq/cadre/pkg/llmtest"
	"github.com/cadrehq/cadre/pkg/model"
	"github.com/cadrehq/cadre/pkg/usage"
	"github.com/tmc/langchaingo/llms"
)

// modelsFrom returns the assistants' models: from the llm.yaml config, or scripted ones when
// config is empty. It says which in its second result.
func modelsFrom(config string) (model.Resolver, string, error) {
	if config == "" {
		return offlineModels(), "offline, with scripted models (no API key needed)", nil
	}
	f, err := llmfactory.Load(config)
	if err != nil {
		return nil, "", err
	}
	return f, "with the models of " + config, nil
}

// offline resolves each assistant's model by its name, as llm.yaml's factory does, to a
// scripted model that plays that assistant's side of the conversation.
type offline map[string]model.Model

func (o offline) Resolve(_ context.Context, name string) ([]model.Model, error) {
	m, ok := o[name]
	if !ok {
		return nil, fmt.Errorf("no offline model for assistant %q", name)
	}
	return []model.Model{m}, nil
}

// offlineModels plays a plausible conversation: the supervisor asks both specialists in one
// turn, each looks something up and answers with its struct (through the final_result tool,
// as a model offered tools does), and the supervisor writes the report. The token counts are
// what such requests cost.
func offlineModels() offline {
	supervisor := llmtest.NewScripted(
		llmtest.Reply{
			ToolCalls: []llms.ToolCall{
				llmtest.Call("researcher", `{"destination":"Lisbon","month":"May"}`),
				llmtest.Call("analyst", `{"destination":"Lisbon","nights":4,"travellers":2}`),
			},
			Usage: usage.Usage{InputTokens: 812, OutputTokens: 64},
		},
		llmtest.Reply{
			ToolCalls: []llms.ToolCall{llmtest.Call("final_result", jsonOf(Report{
				Title: "Lisbon in May: 4 nights for two",
				Summary: "Four nights in Lisbon for two cost about 1,400 euros (700 each), 100 under the budget. " +
					"Expect warm, mostly dry days and cool evenings; keep one day for Sintra.",
				KeyPoints: []string{
					"Budget: 360 flights, 560 hotel, 480 food and transport",
					"Fly midweek: a weekend flight adds 60 euros each, most of the margin",
					"Ride tram 28 at opening time, before the queues",
					"Sintra is a day trip, 40 minutes by train from Rossio",
					"Pack a light jacket: rain on about five days in May",
				},
			}))},
			Usage: usage.Usage{InputTokens: 1287, OutputTokens: 236},
		},
	)
	researcher := llmtest.NewScripted(
		llmtest.Reply{
			ToolCalls: []llms.ToolCall{llmtest.Call("search", `{"query":"Lisbon in May weather and things to do"}`)},
			Usage:     usage.Usage{InputTokens: 356, OutputTokens: 21},
		},
		llmtest.Reply{
			ToolCalls: []llms.ToolCall{llmtest.Call("final_result", jsonOf(Findings{
				Destination: "Lisbon",
				Weather:     "17-24 °C, rain on about five days, cool evenings",
				Highlights:  []string{"Tram 28 through Alfama at opening time", "Belém and its pastéis de nata", "A day trip to Sintra"},
			}))},
			Usage: usage.Usage{InputTokens: 540, OutputTokens: 148},
		},
	)
	analyst := llmtest.NewScripted(
		llmtest.Reply{
			ToolCalls: []llms.ToolCall{llmtest.Call("price_lookup", `{"destination":"Lisbon","nights":4}`)},
			Usage:     usage.Usage{InputTokens: 402, OutputTokens: 27},
		},
		llmtest.Reply{
			ToolCalls: []llms.ToolCall{llmtest.Call("final_result", jsonOf(Costs{
				TotalEUR:     1400,
				PerPersonEUR: 700,
				Breakdown:    "flights 2 x 180 = 360, hotel 4 x 140 = 560, food and transport 2 x 4 x 60 = 480",
				Risks:        []string{"A weekend flight adds 60 euros each", "Hotel prices rise on holiday weekends"},
			}))},
			Usage: usage.Usage{InputTokens: 529, OutputTokens: 131},
		},
	)
	return offline{
		"supervisor": model.Describe("scripted-large", supervisor),
		"researcher": model.Describe("scripted-small", researcher),
		"analyst":    model.Describe("scripted-small", analyst),
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
