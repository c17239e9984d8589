package main

import (
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"strings"

	"github.com/cadrehq/cadre/pkg/agui"
	"github.com/cadrehq/cadre/pkg/assistant"
	"github.com/cadrehq/cadre/pkg/model"
	"github.com/cadrehq/cadre/pkg/tool"
)

// team is the console's assistants: the planner, and the two specialists it delegates to.
type team struct {
	planner, weather, hotels *assistant.Assistant[string]
}

// newTeam makes the assistants, their models resolved from models. opts go to the planner
// alone: they reach the specialists' runs it delegates to, not the specialists' own runs.
func newTeam(models model.Resolver, opts ...assistant.Option) team {
	weather := assistant.New[string]("weather",
		assistant.WithModels(models),
		assistant.WithDescription("Says what weather to expect in a city, and what to pack."),
		assistant.WithInstructions("You forecast the weather. Look it up with forecast, then say in two sentences what to expect and what to pack."),
		assistant.WithTools(tool.Func("forecast", "Gives the weather forecast of a city for the coming days.", forecast)))

	// Every booking waits for a person: the run pauses, and the console shows the call with
	// Approve and Deny.
	askFirst := assistant.ApproverFunc(func(context.Context, assistant.ToolCall) (assistant.Decision, error) {
		return assistant.Pending(), nil
	})
	hotels := assistant.New[string]("hotels",
		assistant.WithModels(models),
		assistant.WithDescription("Finds a hotel in a city and books it, once a person approves."),
		assistant.WithInstructions("You book hotels. Find them with find_hotels, book the best with book_hotel, and say what you booked."),
		assistant.WithTools(
			tool.Func("find_hotels", "Lists the hotels of a city with a room free, the best first.", findHotels),
			tool.Func("book_hotel", "Books a hotel. A person approves every booking.", bookHotel)),
		assistant.WithApproval(askFirst, "book_hotel"))

	planner := assistant.New[string]("planner",
		append([]assistant.Option{
			assistant.WithModels(models),
			assistant.WithDescription("Plans a trip: asks where to, then the weather and hotels specialists."),
			assistant.WithInstructions("You plan trips. When the person has not said where they go, ask them with ask_user. " +
				"Then ask the weather and hotels specialists, both at once, and sum up what they said."),
			assistant.WithTools(assistant.AsTool[Trip](weather), assistant.AsTool[Stay](hotels)),
		}, opts...)...)
	return team{planner: planner, weather: weather, hotels: hotels}
}

// askUser is the client tool: the person at the console answers it.
var askUser = agui.Tool{
	Name:        "ask_user",
	Description: "Asks the person at the console a question, and gives their answer.",
	Parameters:  json.RawMessage(`{"type":"object","properties":{"question":{"type":"string","description":"The question, in one sentence"}},"required":["question"]}`),
}

// Question is ask_user's arguments.
type Question struct {
	Question string `json:"question"`
}

// Trip is what the planner asks the weather specialist.
type Trip struct {
	City string `json:"city"`
}

// Stay is what the planner asks the hotels specialist.
type Stay struct {
	City   string `json:"city"`
	Nights int    `json:"nights"`
}

// Forecast is forecast's result.
type Forecast struct {
	City    string `json:"city"`
	Weather string `json:"weather"`
	Pack    string `json:"pack"`
}

// forecasts is what forecast knows; other cities get a mild forecast.
var forecasts = map[string]Forecast{
	"Lisbon":    {Weather: "sunny, 24°C by day and 16°C at night", Pack: "sunglasses and a light jacket"},
	"Porto":     {Weather: "cloudy with showers, 18°C", Pack: "an umbrella"},
	"Kyoto":     {Weather: "mild, 20°C, light rain on Sunday", Pack: "comfortable shoes and an umbrella"},
	"Reykjavik": {Weather: "cold and windy, 3°C", Pack: "a warm coat, a hat and gloves"},
	"Marrakesh": {Weather: "hot and dry, 33°C", Pack: "a hat and sun cream"},
	"Paris":     {Weather: "mild, 19°C, some clouds", Pack: "a light jacket"},
}

func forecast(_ context.Context, t Trip) (Forecast, error) {
	city := strings.TrimSpace(t.City)
	if city == "" {
		return Forecast{}, fmt.Errorf("no city given")
	}
	f, ok := forecasts[city]
	if !ok {
		f = Forecast{Weather: "mild, 18°C, some clouds", Pack: "a light jacket"}
	}
	f.City = city
	return f, nil
}

// Hotel is one of find_hotels' results.
type Hotel struct {
	Name  string `json:"name"`
	Price int    `json:"price_per_night"`
}

func findHotels(_ context.Context, t Trip) ([]Hotel, error) {
	city := strings.TrimSpace(t.City)
	if city == "" {
		return nil, fmt.Errorf("no city given")
	}
	return []Hotel{{Name: city + " Grand Hotel", Price: 120}, {Name: city + " Garden Inn", Price: 95}}, nil
}

// Booking and Confirmation are book_hotel's arguments and result.
type Booking struct {
	Hotel  string `json:"hotel"`
	City   string `json:"city"`
	Nights int    `json:"nights"`
}

type Confirmation struct {
	Reference string `json:"reference"`
	Booking
}

// bookHotel books a room: the tool that waits for a person's approval.
func bookHotel(_ context.Context, b Booking) (Confirmation, error) {
	if b.Nights < 1 {
		return Confirmation{}, fmt.Errorf("a booking is for one night at least, not %d", b.Nights)
	}
	// A real program would call the hotel's booking service here.
	h := fnv.New32a()
	fmt.Fprintf(h, "%s/%s/%d", b.Hotel, b.City, b.Nights)
	return Confirmation{Reference: fmt.Sprintf("HT-%04d", h.Sum32()%10000), Booking: b}, nil
}
