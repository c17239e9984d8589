package main

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"strings"

	"github.com/cadrehq/cadre/pkg/assistant"
	"github.com/cadrehq/cadre/pkg/chat"
	"github.com/cadrehq/cadre/pkg/skill"
	"github.com/cadrehq/cadre/pkg/tool"
)

// ForecastIn and Forecast are the forecast tool's arguments and result. Forecast is a struct,
// so the tool is a tool.Typed: MCP clients get its output schema and structured content.
type ForecastIn struct {
	City string `json:"city" jsonschema:"description=A city name such as Lisbon"`
}

type Forecast struct {
	City    string `json:"city"`
	Summary string `json:"summary"`
	HighC   int    `json:"high_c" jsonschema:"description=Highest temperature in °C"`
	LowC    int    `json:"low_c" jsonschema:"description=Lowest temperature in °C"`
	RainPct int    `json:"rain_pct" jsonschema:"description=Chance of rain in percent (0 to 100)"`
}

// PhrasebookIn is the phrasebook tool's arguments; its result is text.
type PhrasebookIn struct {
	City string `json:"city" jsonschema:"description=The city whose language the phrases are in"`
}

// TripRequest is what the plan_trip tool (the planner wrapped as a tool) takes.
type TripRequest struct {
	City string `json:"city" jsonschema:"description=Where the trip goes"`
	Days int    `json:"days" jsonschema:"description=How many days,minimum=1,maximum=30"`
}

// Plan is the planner's answer.
type Plan struct {
	City   string   `json:"city"`
	Days   int      `json:"days"`
	Pack   []string `json:"pack" jsonschema:"description=What to pack: most important first"`
	Advice string   `json:"advice" jsonschema:"description=One or two sentences of advice for the trip"`
}

// newPlanner and newGuide build the assistants; watch gives the handlers and the tracing that
// all runs share.
func newPlanner(model assistant.Option, chats chat.Store, watch assistant.Option, skills []*skill.Skill) *assistant.Assistant[Plan] {
	return assistant.New[Plan]("planner", model, assistant.WithStore(chats), watch,
		assistant.WithDescription("Plans a trip to a city: checks the forecast and says what to pack."),
		assistant.WithInstructions("You plan trips. Check the forecast of the city first, then say what to pack for the number of days asked (3 when not said), most important first, as the packing-list skill says, with a sentence of advice."),
		assistant.WithTools(forecastTool()),
		assistant.WithSkills(skills...), // packing-list: activate_skill and read_skill_resource
	)
}

func newGuide(model assistant.Option, chats chat.Store, watch assistant.Option) *assistant.Assistant[string] {
	return assistant.New[string]("guide", model, assistant.WithStore(chats), watch,
		assistant.WithDescription("Answers a traveller's questions about a city, in a few friendly sentences."),
		assistant.WithInstructions("You are a friendly city guide. Answer in a few sentences. When it helps, look up phrases in the local language with the phrasebook."),
		assistant.WithTools(phrasebookTool()),
	)
}

// newConcierge builds the assistant that delegates: it has planner plan the trip (plan_trip)
// and guide say what to say there (ask_guide), then answers with both. planner and guide are
// its own, without watch: it gives them its handlers, which would otherwise see their runs
// twice.
func newConcierge(model assistant.Option, chats chat.Store, watch assistant.Option, planner *assistant.Assistant[Plan], guide *assistant.Assistant[string]) *assistant.Assistant[string] {
	return assistant.New[string]("concierge", model, assistant.WithStore(chats), watch,
		assistant.WithDescription("Prepares a trip to a city: has the planner plan it and the guide teach a few phrases, then sums up."),
		assistant.WithInstructions("You prepare trips. Ask the planner (plan_trip) for the plan and the guide (ask_guide) for a few useful phrases in the city's language, at the same time, then sum both up in a few sentences."),
		assistant.WithTools(
			assistant.AsTool[TripRequest](planner, assistant.ToolName("plan_trip")),
			assistant.AsTool[string](guide, assistant.ToolName("ask_guide")),
		),
	)
}

// travelTools are the assistants' tools, served as MCP tools too.
func travelTools() []tool.Tool { return []tool.Tool{forecastTool(), phrasebookTool()} }

func forecastTool() tool.Tool {
	return tool.Func("forecast", "Tomorrow's weather forecast for a city.", forecast)
}

func phrasebookTool() tool.Tool {
	return tool.Func("phrasebook", "A few useful phrases in the language spoken in a city.", phrasebook)
}

// forecast makes up a forecast, the same for the same city every time: a real program would
// call a weather service here.
func forecast(_ context.Context, in ForecastIn) (Forecast, error) {
	city := strings.TrimSpace(in.City)
	if city == "" {
		return Forecast{}, errors.New("the city is empty: give a city name, e.g. Lisbon")
	}
	h := fnv.New32a()
	h.Write([]byte(strings.ToLower(city)))
	n := h.Sum32()
	f := Forecast{City: city, HighC: 8 + int(n%24), RainPct: int(n/24%10) * 10}
	f.LowC = f.HighC - 5 - int(n/240%5)
	switch {
	case f.RainPct >= 60:
		f.Summary = "rain most of the day"
	case f.RainPct >= 30:
		f.Summary = "clouds with some showers"
	default:
		f.Summary = "sunny spells, light wind"
	}
	return f, nil
}

// language returns the language spoken in a few cities, and hello, please and thank you in it.
func language(city string) (lang, phrases string, ok bool) {
	switch strings.ToLower(city) {
	case "lisbon", "porto":
		return "Portuguese", "Olá (hello), por favor (please), obrigado/obrigada (thank you)", true
	case "paris", "lyon":
		return "French", "Bonjour (hello), s'il vous plaît (please), merci (thank you)", true
	case "berlin", "vienna":
		return "German", "Hallo (hello), bitte (please), danke (thank you)", true
	case "madrid", "barcelona":
		return "Spanish", "Hola (hello), por favor (please), gracias (thank you)", true
	case "rome", "milan":
		return "Italian", "Ciao (hello), per favore (please), grazie (thank you)", true
	case "tokyo", "kyoto":
		return "Japanese", "Konnichiwa (hello), onegaishimasu (please), arigatō (thank you)", true
	}
	return "", "", false
}

func phrasebook(_ context.Context, in PhrasebookIn) (string, error) {
	city := strings.TrimSpace(in.City)
	lang, phrases, ok := language(city)
	if !ok {
		return fmt.Sprintf("No phrasebook for %q; English is widely understood in places that see many travellers.", city), nil
	}
	return fmt.Sprintf("In %s they speak %s: %s.", city, lang, phrases), nil
}
