package main

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/cadrehq/cadre/pkg/llmtest"
	"github.com/tmc/langchaingo/llms"
)

// The offline models play the models' part without a network. They decide each reply from the
// request (llmtest.NewFunc), so that they answer any number of requests, in any order: first
// they call the assistant's tool for the city the user names, then they answer from the
// tool's result. They keep no record of the requests, so a long-running server does not grow.
// In a chat, their answer ends by saying how many of the user's earlier questions the request
// held as history: "(I remember 1 earlier question.)". The concierge's model delegates: it
// calls plan_trip and ask_guide at once, then sums up their answers. Each reply takes the
// latency given (-latency), none by default.

func offlinePlanner(latency time.Duration) llms.Model {
	return llmtest.NewFunc(thinking(latency, func(_ context.Context, req llmtest.Request) llmtest.Reply {
		trip := tripOf(userTurn(req))
		result, ok := toolResult(req)
		if !ok {
			return llmtest.Calls(llmtest.Call("forecast", fmt.Sprintf(`{"city":%q}`, trip.City)))
		}
		var f Forecast
		if err := json.Unmarshal([]byte(result), &f); err != nil {
			f = Forecast{City: trip.City, Summary: "unknown", HighC: 20, LowC: 12}
		}
		tip := "the weather is for walking, so see the city on foot"
		if f.RainPct >= 30 {
			tip = "keep museums and cafés for the wettest hours"
		}
		plan := Plan{City: trip.City, Days: trip.Days, Pack: packFor(f, trip.Days),
			Advice: fmt.Sprintf("Expect %s, %d to %d °C: %s.", f.Summary, f.LowC, f.HighC, tip) + remembered(req)}
		b, _ := json.Marshal(plan)
		return llmtest.Text(string(b))
	})).NoRecord()
}

func offlineGuide(latency time.Duration) llms.Model {
	return llmtest.NewFunc(thinking(latency, func(_ context.Context, req llmtest.Request) llmtest.Reply {
		city := cityIn(userTurn(req))
		result, ok := toolResult(req)
		if !ok {
			return llmtest.Calls(llmtest.Call("phrasebook", fmt.Sprintf(`{"city":%q}`, city)))
		}
		return llmtest.Text(fmt.Sprintf("%s is best seen on foot: start early, and take the side streets. %s", city, result) + remembered(req))
	})).NoRecord()
}

// offlineConcierge delegates: it asks the planner and the guide at once, then sums up their
// answers.
func offlineConcierge(latency time.Duration) llms.Model {
	return llmtest.NewFunc(thinking(latency, func(_ context.Context, req llmtest.Request) llmtest.Reply {
		trip := tripOf(userTurn(req))
		results := toolResults(req)
		if len(results) == 0 {
			plan, _ := json.Marshal(trip)
			return llmtest.Calls(
				llmtest.Call("plan_trip", string(plan)),
				llmtest.Call("ask_guide", fmt.Sprintf(`{"input":"What should I say in %s?"}`, trip.City)),
			)
		}
		var p Plan
		advice := "the planner could not plan it"
		if json.Unmarshal([]byte(results["plan_trip"]), &p) == nil && p.Advice != "" {
			advice = fmt.Sprintf("%s Pack: %s.", p.Advice, strings.Join(p.Pack, ", "))
		}
		return llmtest.Text(fmt.Sprintf("Your %d days in %s: %s %s", trip.Days, trip.City, advice, results["ask_guide"]) + remembered(req))
	})).NoRecord()
}

// thinking has each reply of f take latency to come, as a real model's would: the offline
// models answer at once by default, too fast to watch a run's progress or to cancel it.
func thinking(latency time.Duration, f func(context.Context, llmtest.Request) llmtest.Reply) func(context.Context, llmtest.Request) llmtest.Reply {
	return func(ctx context.Context, req llmtest.Request) llmtest.Reply {
		r := f(ctx, req)
		r.Latency = latency
		return r
	}
}

// packFor follows the rules of the planner's skill, skills/packing-list/SKILL.md. The offline
// planner knows them already: it neither activates the skill nor reads its files, so its
// answers are the same with the skill as without it. A real model activates it.
func packFor(f Forecast, days int) []string {
	var pack []string
	if f.RainPct >= 30 {
		pack = append(pack, "umbrella")
	}
	if f.HighC >= 24 {
		pack = append(pack, "sunscreen", "sunglasses")
	}
	if f.LowC <= 10 {
		pack = append(pack, "warm jacket")
	} else {
		pack = append(pack, "light jacket")
	}
	return append(pack, "comfortable shoes", fmt.Sprintf("clothes for %d days", days))
}

// remembered says how many user messages came before the user's turn, when any did: the
// chat's history that the run loaded.
func remembered(req llmtest.Request) string {
	n := -1
	for _, m := range req.Messages {
		if m.Role == llms.ChatMessageTypeHuman {
			n++
		}
	}
	switch {
	case n < 1:
		return ""
	case n == 1:
		return " (I remember 1 earlier question.)"
	}
	return fmt.Sprintf(" (I remember %d earlier questions.)", n)
}

// userTurn returns the text of the last user message.
func userTurn(req llmtest.Request) string {
	for i := len(req.Messages) - 1; i >= 0; i-- {
		if m := req.Messages[i]; m.Role == llms.ChatMessageTypeHuman {
			var b strings.Builder
			for _, p := range m.Parts {
				if t, ok := p.(llms.TextContent); ok {
					b.WriteString(t.Text)
				}
			}
			return b.String()
		}
	}
	return ""
}

// toolResult returns the result of a tool called since the user's turn.
func toolResult(req llmtest.Request) (string, bool) {
	for i := len(req.Messages) - 1; i >= 0; i-- {
		m := req.Messages[i]
		if m.Role == llms.ChatMessageTypeHuman {
			break
		}
		for _, p := range m.Parts {
			if r, ok := p.(llms.ToolCallResponse); ok {
				return r.Content, true
			}
		}
	}
	return "", false
}

// toolResults returns the results of the tools called since the user's turn, by tool.
func toolResults(req llmtest.Request) map[string]string {
	results := map[string]string{}
	for i := len(req.Messages) - 1; i >= 0; i-- {
		m := req.Messages[i]
		if m.Role == llms.ChatMessageTypeHuman {
			break
		}
		for _, p := range m.Parts {
			if r, ok := p.(llms.ToolCallResponse); ok {
				results[r.Name] = r.Content
			}
		}
	}
	return results
}

var daysPattern = regexp.MustCompile(`(\d+)\s*(?:-\s*)?days?`)

// tripOf reads a trip from the user's turn: the JSON of a TripRequest (from plan_trip), or
// prose such as "Plan 4 days in Lisbon".
func tripOf(text string) TripRequest {
	var t TripRequest
	if json.Unmarshal([]byte(text), &t) != nil || t.City == "" {
		t = TripRequest{City: cityIn(text)}
		if m := daysPattern.FindStringSubmatch(text); m != nil {
			t.Days, _ = strconv.Atoi(m[1])
		}
	}
	if t.Days < 1 || t.Days > 30 {
		t.Days = 3
	}
	return t
}

// cityIn finds the city a text names: one the phrasebook knows, else the last capitalised
// word after the first, else Lisbon.
func cityIn(text string) string {
	words := strings.FieldsFunc(text, func(r rune) bool { return !unicode.IsLetter(r) && r != '-' })
	for _, w := range words {
		if _, _, ok := language(w); ok {
			return w
		}
	}
	for i := len(words) - 1; i > 0; i-- {
		if r := []rune(words[i]); unicode.IsUpper(r[0]) {
			return words[i]
		}
	}
	return "Lisbon"
}
