package main

// Report is the supervisor's answer.
type Report struct {
	Title     string   `json:"title" jsonschema:"description=A short title for the plan"`
	Summary   string   `json:"summary" jsonschema_description:"The plan and what it costs, in two or three sentences"`
	KeyPoints []string `json:"key_points" jsonschema_description:"What the travellers must know, most important first"`
}

// ResearchRequest is what the supervisor's model writes to ask the researcher: the arguments
// of the researcher as a tool, and the vars of its instructions.
type ResearchRequest struct {
	Destination string `json:"destination" jsonschema_description:"The city, e.g. Lisbon"`
	Month       string `json:"month" jsonschema_description:"The month of travel, e.g. May"`
}

// Findings is the researcher's answer, which the supervisor's model reads back as JSON.
type Findings struct {
	Destination string   `json:"destination"`
	Weather     string   `json:"weather" jsonschema:"description=The weather to expect that month"`
	Highlights  []string `json:"highlights" jsonschema_description:"What to see and do, best first"`
}

// CostRequest is what the supervisor's model writes to ask the analyst.
type CostRequest struct {
	Destination string `json:"destination" jsonschema_description:"The city, e.g. Lisbon"`
	Nights      int    `json:"nights" jsonschema:"minimum=1"`
	Travellers  int    `json:"travellers" jsonschema:"minimum=1"`
}

// Costs is the analyst's answer.
type Costs struct {
	TotalEUR     int      `json:"total_eur" jsonschema_description:"The whole trip for everyone, in euros"`
	PerPersonEUR int      `json:"per_person_eur"`
	Breakdown    string   `json:"breakdown" jsonschema_description:"Flights, hotel, food and transport, in euros"`
	Risks        []string `json:"risks" jsonschema:"description=What could make the trip cost more"`
}
