package assistant

// HistoryShape is how much of a chat's history a run loads (see WithHistoryShape).
type HistoryShape int

const (
	// HistoryFull loads the history as stored: tool calls and their results included.
	HistoryFull HistoryShape = iota
	// HistoryTextOnly loads the users' turns and the assistant's text: tool calls and their
	// results are left out together, never one without the other, and a final_result call
	// becomes assistant text holding the answer's JSON, so that answers given in tool mode
	// stay in the history. It costs fewer tokens, and the model no longer sees what its tools
	// said in earlier runs.
	HistoryTextOnly
)

// WithHistoryShape sets how much of a chat's history a run of the assistant loads (default
// HistoryFull). The chat's store keeps every message either way; the shape only changes what
// is loaded, before the history window (WithHistoryWindow) is applied.
func WithHistoryShape(s HistoryShape) Option {
	return func(c *config) { c.history = s }
}
