package main

import (
	"context"
	"fmt"
	"strings"
)

// Wish is what the concierge asks the researcher.
type Wish struct {
	City string `json:"city"`
	Wish string `json:"wish" jsonschema_description:"What the guests want, e.g. good fish, quiet, open late"`
}

// Findings is the researcher's answer.
type Findings struct {
	Restaurant string `json:"restaurant"`
	Why        string `json:"why" jsonschema_description:"Why it fits the wish, in one sentence"`
}

// Query and Restaurant are find_restaurants' arguments and result.
type Query struct {
	City    string `json:"city"`
	Cuisine string `json:"cuisine" jsonschema_description:"e.g. fish, vegetarian, pastry"`
}

type Restaurant struct {
	Name  string `json:"name"`
	Known string `json:"known_for"`
}

// findRestaurants looks restaurants up in a small guide. It runs without asking: it reads.
func findRestaurants(_ context.Context, q Query) ([]Restaurant, error) {
	if !strings.EqualFold(q.City, "Porto") {
		return nil, fmt.Errorf("the guide has no restaurants in %q", q.City)
	}
	return []Restaurant{
		{Name: "Casa Marinha", Known: "grilled sea bass, by the river"},
		{Name: "O Gaveto", Known: "seafood rice"},
	}, nil
}

// Booking and Confirmation are book_table's arguments and result.
type Booking struct {
	Restaurant string `json:"restaurant"`
	Time       string `json:"time" jsonschema_description:"Local time, e.g. 20:00"`
	People     int    `json:"people"`
}

type Confirmation struct {
	Reference string `json:"reference"`
	Booking
}

// bookTable books a table: the tool that waits for a person's approval.
func bookTable(_ context.Context, b Booking) (Confirmation, error) {
	// A real program would call the restaurant's booking service here.
	return Confirmation{Reference: "PT-4417", Booking: b}, nil
}
