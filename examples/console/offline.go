package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
	"unicode"

	"github.com/cadrehq/cadre/pkg/llmtest"
	"github.com/cadrehq/cadre/pkg/model"
	"github.com/cadrehq/cadre/pkg/usage"
	"github.com/tmc/langchaingo/llms"
)

// prices are the offline models' prices, in US dollars per million tokens, as llm.yaml's
// price keys would give them: the console shows what each request cost.
var prices = map[string]model.Price{
	"offline-large": {Input: 2.5, CacheRead: 2.5, CacheWrite: 2.5, Output: 10},
	"offline-small": {Input: 0.15, CacheRead: 0.15, CacheWrite: 0.15, Output: 0.6},
	"offline-busy":  {Input: 0.15, CacheRead: 0.15, CacheWrite: 0.15, Output: 0.6},
}

// offlineModels returns the assistants' models when no llm.yaml is given: function models
// playing the models' parts, each answering by the conversation, so that any number of chats
// work. Each takes about latency to answer, and streams its text in a few pieces over that
// time; 0 answers at once. They keep no record of the requests, as the program serves for
// long.
//
// The weather specialist's chain starts with "offline-busy", which answers the first request
// of each of its runs with 503, as an overloaded provider does: the run falls back to
// "offline-small", and the console marks the fallback.
func offlineModels(latency time.Duration) offline {
	p := pace(latency)
	weatherCall := callIDs("call_w")
	return offline{
		"planner": {model.Describe("offline-large", plannerModel(p))},
		"weather": {model.Describe("offline-busy", busyModel(p, weatherCall)), model.Describe("offline-small", weatherModel(p, weatherCall))},
		"hotels":  {model.Describe("offline-small", hotelsModel(p))},
	}
}

// offline resolves each assistant's model chain by its name, as llm.yaml's factory does.
type offline map[string][]model.Model

func (o offline) Resolve(_ context.Context, name string) ([]model.Model, error) {
	chain, ok := o[name]
	if !ok {
		return nil, fmt.Errorf("no offline model for assistant %q", name)
	}
	return chain, nil
}

// plannerModel plays the planner's model: it asks the person where they go when their message
// names no city (with ask_user, when the console offers it, else in its answer), then asks
// both specialists at once, then sums up what they said.
func plannerModel(p pace) llms.Model {
	call := callIDs("call_p")
	return llmtest.NewFunc(func(ctx context.Context, req llmtest.Request) llmtest.Reply {
		t := lastTurn(req.Messages)
		city, nights := cityOf(t.prompt, t.before == whereTo), nightsOf(t.prompt)
		answer, asked := t.results[askUser.Name]
		if asked {
			if city = cityOf(answer, true); city == "" {
				city = strings.Trim(strings.TrimSpace(answer), ".!?")
			}
			if n := nightsOf(answer); n > 0 {
				nights = n
			}
		}
		if nights == 0 {
			nights = 2
		}
		weather, hasWeather := t.results["weather"]
		hotels, hasHotels := t.results["hotels"]
		switch {
		case city == "" && !asked && offered(req, askUser.Name):
			return p.reply(ctx, req, "", call(askUser.Name, jsonOf(Question{Question: whereTo})))
		case city == "":
			return p.reply(ctx, req, whereTo)
		case !hasWeather && !hasHotels:
			return p.reply(ctx, req, fmt.Sprintf("I'll ask the weather and hotels specialists about %s.", city),
				call("weather", jsonOf(Trip{City: city})), call("hotels", jsonOf(Stay{City: city, Nights: nights})))
		case !hasWeather:
			return p.reply(ctx, req, "", call("weather", jsonOf(Trip{City: city})))
		case !hasHotels:
			return p.reply(ctx, req, "", call("hotels", jsonOf(Stay{City: city, Nights: nights})))
		}
		return p.reply(ctx, req, fmt.Sprintf("Your trip to %s, %d nights. The weather: %s The hotel: %s", city, nights, weather, hotels))
	}).NoRecord()
}

// whereTo is the planner's question when a message names no city.
const whereTo = "Which city are you going to, and for how many nights?"

// weatherModel plays the weather specialist's model: it looks the forecast up, then says it.
func weatherModel(p pace, call func(name, args string) llms.ToolCall) llms.Model {
	return llmtest.NewFunc(func(ctx context.Context, req llmtest.Request) llmtest.Reply {
		return weatherReply(ctx, p, req, lastTurn(req.Messages), call)
	}).NoRecord()
}

// busyModel is overloaded at the start of each run of the weather specialist: it answers its
// first request with 503, and the others as weatherModel does.
func busyModel(p pace, call func(name, args string) llms.ToolCall) llms.Model {
	return llmtest.NewFunc(func(ctx context.Context, req llmtest.Request) llmtest.Reply {
		t := lastTurn(req.Messages)
		if len(t.results) == 0 {
			return llmtest.Reply{Latency: time.Duration(p) / 2,
				Err: &model.ProviderError{Model: "offline-busy", Status: 503, Message: "overloaded, try again later"}}
		}
		return weatherReply(ctx, p, req, t, call)
	}).NoRecord()
}

func weatherReply(ctx context.Context, p pace, req llmtest.Request, t turn, call func(name, args string) llms.ToolCall) llmtest.Reply {
	result, ok := t.results["forecast"]
	if !ok {
		return p.reply(ctx, req, "", call("forecast", jsonOf(Trip{City: stayOf(t.prompt).City})))
	}
	var f Forecast
	if json.Unmarshal([]byte(result), &f) != nil || f.Weather == "" {
		return p.reply(ctx, req, "I could not get a forecast: "+result)
	}
	return p.reply(ctx, req, fmt.Sprintf("In %s expect %s. Pack %s.", f.City, f.Weather, f.Pack))
}

// hotelsModel plays the hotels specialist's model: it looks the city's hotels up, books the
// first (which waits for a person), then says what happened — booked, or not, as book_hotel's
// result tells it.
func hotelsModel(p pace) llms.Model {
	call := callIDs("call_h")
	return llmtest.NewFunc(func(ctx context.Context, req llmtest.Request) llmtest.Reply {
		t := lastTurn(req.Messages)
		stay := stayOf(t.prompt)
		found, hasFound := t.results["find_hotels"]
		booked, hasBooked := t.results["book_hotel"]
		switch {
		case !hasFound:
			return p.reply(ctx, req, "", call("find_hotels", jsonOf(Trip{City: stay.City})))
		case !hasBooked:
			var hotels []Hotel
			if json.Unmarshal([]byte(found), &hotels) != nil || len(hotels) == 0 {
				return p.reply(ctx, req, "I found no hotel with a room: "+found)
			}
			return p.reply(ctx, req, "", call("book_hotel", jsonOf(Booking{Hotel: hotels[0].Name, City: stay.City, Nights: stay.Nights})))
		}
		var c Confirmation
		if json.Unmarshal([]byte(booked), &c) != nil || c.Reference == "" {
			return p.reply(ctx, req, "I did not book a hotel: "+booked)
		}
		return p.reply(ctx, req, fmt.Sprintf("Booked %s in %s for %d nights, reference %s.", c.Hotel, c.City, c.Nights, c.Reference))
	}).NoRecord()
}

// pace is how long a model takes to answer.
type pace time.Duration

// reply answers req with text and calls after the model's latency: text is streamed in a few
// pieces over that time through the request's streaming function (when it has one, as a run
// served to the console does); a reply without text waits the latency whole.
func (p pace) reply(ctx context.Context, req llmtest.Request, text string, calls ...llms.ToolCall) llmtest.Reply {
	r := llmtest.Reply{Text: text, ToolCalls: calls, Usage: usageOf(req, text, calls)}
	stream := req.Options.StreamingFunc
	if text == "" || stream == nil {
		r.Latency = time.Duration(p)
		return r
	}
	pieces := split(text, 4)
	for _, piece := range pieces {
		if err := sleep(ctx, time.Duration(p)/time.Duration(len(pieces))); err != nil {
			return llmtest.Fail(err)
		}
		if err := stream(ctx, []byte(piece)); err != nil {
			return llmtest.Fail(err)
		}
	}
	return r
}

// split cuts text into at most n pieces at spaces, each piece keeping its space.
func split(text string, n int) []string {
	words := strings.SplitAfter(text, " ")
	size := (len(words) + n - 1) / n
	var pieces []string
	for i := 0; i < len(words); i += size {
		pieces = append(pieces, strings.Join(words[i:min(i+size, len(words))], ""))
	}
	return pieces
}

// sleep waits d, or until ctx is done.
func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// usageOf is the usage a model would report: about four characters a token, and a prompt of
// a few hundred tokens.
func usageOf(req llmtest.Request, text string, calls []llms.ToolCall) usage.Usage {
	in := 0
	for _, m := range req.Messages {
		for _, p := range m.Parts {
			switch p := p.(type) {
			case llms.TextContent:
				in += len(p.Text)
			case llms.ToolCall:
				in += len(p.FunctionCall.Arguments)
			case llms.ToolCallResponse:
				in += len(p.Content)
			}
		}
	}
	out := len(text)
	for _, c := range calls {
		out += len(c.FunctionCall.Name) + len(c.FunctionCall.Arguments)
	}
	return usage.Usage{InputTokens: 240 + 60*len(req.Options.Tools) + in/4, OutputTokens: 8 + out/4}
}

// turn is the part of a conversation since the last user message: the message, the text of
// the assistant's message before it, and the results of the calls made since, by tool.
type turn struct {
	prompt, before string
	results        map[string]string
}

func lastTurn(msgs []llms.MessageContent) turn {
	t := turn{results: map[string]string{}}
	before := ""
	for _, m := range msgs {
		switch m.Role {
		case llms.ChatMessageTypeHuman:
			t = turn{prompt: textOf(m), before: before, results: map[string]string{}}
		case llms.ChatMessageTypeAI:
			before = textOf(m)
		case llms.ChatMessageTypeTool:
			for _, p := range m.Parts {
				if r, ok := p.(llms.ToolCallResponse); ok {
					t.results[r.Name] = r.Content
				}
			}
		}
	}
	return t
}

func textOf(m llms.MessageContent) string {
	var b strings.Builder
	for _, p := range m.Parts {
		if t, ok := p.(llms.TextContent); ok {
			b.WriteString(t.Text)
		}
	}
	return b.String()
}

// stayOf reads a specialist's prompt: the planner's arguments, as JSON, or a person's message
// in the console.
func stayOf(prompt string) Stay {
	var s Stay
	if json.Unmarshal([]byte(prompt), &s) != nil || s.City == "" {
		s = Stay{City: cityOf(prompt, true), Nights: nightsOf(prompt)}
	}
	if s.Nights < 1 {
		s.Nights = 2
	}
	return s
}

// cities are the cities the offline models know by name.
var cities = []string{"Lisbon", "Porto", "Kyoto", "Reykjavik", "Marrakesh", "Paris"}

// cityOf returns the city a message names: one the models know, else its last capitalized
// words after the first ("a hotel in New York"); for an answer to "which city?", the answer
// itself when it is a name of one or two words. It returns "" when the message names none.
func cityOf(s string, answer bool) string {
	lower := strings.ToLower(s)
	for _, c := range cities {
		if strings.Contains(lower, strings.ToLower(c)) {
			return c
		}
	}
	words := strings.FieldsFunc(s, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsPunct(r) && r != '-' && r != '\'' })
	if answer && len(words) > 0 && len(words) <= 2 && unicode.IsUpper([]rune(words[0])[0]) {
		return strings.Join(words, " ")
	}
	capital := func(w string) bool { return w != "I" && unicode.IsUpper([]rune(w)[0]) }
	for end := len(words) - 1; end > 0; end-- {
		if capital(words[end]) {
			begin := end
			for begin > 1 && capital(words[begin-1]) {
				begin--
			}
			return strings.Join(words[begin:end+1], " ")
		}
	}
	return ""
}

// nightsOf returns the first number of a message, 0 when it has none.
func nightsOf(s string) int {
	for _, w := range strings.FieldsFunc(s, func(r rune) bool { return r < '0' || r > '9' }) {
		if n, err := strconv.Atoi(w); err == nil && n > 0 && n < 100 {
			return n
		}
	}
	return 0
}

// offered reports whether the request offers the model the tool name.
func offered(req llmtest.Request, name string) bool {
	for _, t := range req.Options.Tools {
		if t.Function != nil && t.Function.Name == name {
			return true
		}
	}
	return false
}

// callIDs returns a function making tool calls with ids of the given prefix, numbered. The
// ids of one AG-UI stream must differ, and it carries the calls of every assistant of the
// tree, whose models would otherwise each number theirs from call_1.
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
		panic(err) // only the types of this example, which always encode
	}
	return string(b)
}
