package main

import "context"

// SearchIn and SearchResult are the researcher's tool.
type SearchIn struct {
	Query string `json:"query" jsonschema:"description=What to search the web for"`
}

type SearchResult struct {
	Snippets []string `json:"snippets"`
}

func search(_ context.Context, in SearchIn) (SearchResult, error) {
	// A real program would call a search API with in.Query here.
	return SearchResult{Snippets: []string{
		"Lisbon in May: 17-24 °C, about five days of rain in the month, evenings cool by the river.",
		"Tram 28 crosses Alfama and Graça; ride it at opening time to avoid the queues.",
		"Belém: the tower, the Jerónimos monastery and the original pastéis de nata.",
		"Sintra is 40 minutes by train from Rossio station, a day trip of palaces and gardens.",
	}}, nil
}

// PriceIn and Prices are the analyst's tool.
type PriceIn struct {
	Destination string `json:"destination" jsonschema_description:"The city, e.g. Lisbon"`
	Nights      int    `json:"nights" jsonschema:"minimum=1"`
}

type Prices struct {
	FlightEUR       int `json:"flight_eur"`        // a return flight, per person, midweek
	WeekendExtraEUR int `json:"weekend_extra_eur"` // added to a flight at the weekend
	HotelNightEUR   int `json:"hotel_night_eur"`   // a double room, per night
	DailyEUR        int `json:"daily_eur"`         // food and transport, per person and day
}

func priceLookup(_ context.Context, in PriceIn) (Prices, error) {
	// A real program would ask a travel API for prices of in.Destination here.
	return Prices{FlightEUR: 180, WeekendExtraEUR: 60, HotelNightEUR: 140, DailyEUR: 60}, nil
}
