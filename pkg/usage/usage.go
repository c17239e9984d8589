package usage

// Usage counts model requests, tool calls and tokens. The zero value is no usage.
type Usage struct {
	Requests, ToolCalls       int // ToolCalls: every call the model made except final_result
	InputTokens, OutputTokens int // all input (cached included); all output (reasoning included)
	// Breakdowns of the two above: cached input read and written, and reasoning output.
	CacheReadTokens, CacheWriteTokens, ReasoningTokens int
}

// TotalTokens returns InputTokens + OutputTokens. The breakdown fields are parts of those two
// and are not added again.
func (u Usage) TotalTokens() int { return u.InputTokens + u.OutputTokens }

// Add returns the field-by-field sum of u and v.
func (u Usage) Add(v Usage) Usage {
	return Usage{
		Requests:         u.Requests + v.Requests,
		ToolCalls:        u.ToolCalls + v.ToolCalls,
		InputTokens:      u.InputTokens + v.InputTokens,
		OutputTokens:     u.OutputTokens + v.OutputTokens,
		CacheReadTokens:  u.CacheReadTokens + v.CacheReadTokens,
		CacheWriteTokens: u.CacheWriteTokens + v.CacheWriteTokens,
		ReasoningTokens:  u.ReasoningTokens + v.ReasoningTokens,
	}
}

// Report is the usage of a run's subtree, or of a whole ledger. The values of ByAgent add up
// to Total exactly, and so do the values of ByModel.
type Report struct {
	Total   Usage
	ByAgent map[string]Usage // by assistant name, each request counted once
	ByModel map[string]Usage // by model name
}

// AddsUp reports whether the values of ByAgent add up to Total, and those of ByModel too, as
// in every report a Ledger gives. A report read back from JSON, or made by hand, may not.
func (r Report) AddsUp() bool {
	var agents, models Usage
	for _, u := range r.ByAgent {
		agents = agents.Add(u)
	}
	for _, u := range r.ByModel {
		models = models.Add(u)
	}
	return agents == r.Total && models == r.Total
}

// tally is the usage recorded under one name (an agent or a model).
type tally struct {
	name  string
	usage Usage
}

// tallies is a short list of tallies, searched linearly: a tree has few agents and models, and
// a slice costs less than a map on the run loop's path. The first tally is held inline: a run
// usually has one agent and one model, and then recording allocates nothing.
type tallies struct {
	n     int   // how many tallies: first, then more
	first tally // valid when n > 0
	more  []tally
}

func (t *tallies) add(name string, u Usage) {
	if t.n == 0 {
		t.first, t.n = tally{name: name, usage: u}, 1
		return
	}
	if t.first.name == name {
		t.first.usage = t.first.usage.Add(u)
		return
	}
	for i := range t.more {
		if t.more[i].name == name {
			t.more[i].usage = t.more[i].usage.Add(u)
			return
		}
	}
	t.more = append(t.more, tally{name: name, usage: u})
	t.n++
}

func (t *tallies) toMap() map[string]Usage {
	m := make(map[string]Usage, t.n)
	if t.n > 0 {
		m[t.first.name] = t.first.usage
	}
	for _, x := range t.more {
		m[x.name] = x.usage
	}
	return m
}
