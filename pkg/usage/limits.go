package usage

import (
	"fmt"
	"time"
)

// Defaults for the zero fields of a Limits given to NewLedger (see Limits.Resolved).
const (
	DefaultMaxRequests  = 50
	DefaultMaxToolCalls = 200
)

// The values of LimitError.Limit, one for each field of Limits.
const (
	LimitRequests     = "requests"      // Limits.MaxRequests
	LimitToolCalls    = "tool_calls"    // Limits.MaxToolCalls
	LimitInputTokens  = "input_tokens"  // Limits.MaxInputTokens
	LimitOutputTokens = "output_tokens" // Limits.MaxOutputTokens
	LimitTotalTokens  = "total_tokens"  // Limits.MaxTotalTokens
)

// Limits hold for a whole delegation tree. A zero field takes the default (MaxRequests 50,
// MaxToolCalls 200, no token limits); a negative field means no limit.
//
// Limits given to NewLedger are resolved that way. Limits given to Ledger.Open for one run's
// subtree are extra bounds, where a zero field adds no limit (the ledger's still applies).
type Limits struct {
	MaxRequests, MaxToolCalls                       int
	MaxInputTokens, MaxOutputTokens, MaxTotalTokens int
}

// Resolved returns l with its zero fields replaced by their defaults: DefaultMaxRequests,
// DefaultMaxToolCalls, and -1 (no limit) for the token fields. Negative fields stay as they
// are and mean no limit. No field of the result is zero, so Resolved is idempotent.
func (l Limits) Resolved() Limits {
	l.MaxRequests = orDefault(l.MaxRequests, DefaultMaxRequests)
	l.MaxToolCalls = orDefault(l.MaxToolCalls, DefaultMaxToolCalls)
	l.MaxInputTokens = orDefault(l.MaxInputTokens, -1)
	l.MaxOutputTokens = orDefault(l.MaxOutputTokens, -1)
	l.MaxTotalTokens = orDefault(l.MaxTotalTokens, -1)
	return l
}

func orDefault(v, def int) int {
	if v == 0 {
		return def
	}
	return v
}

// LimitError is returned (find it with errors.As) when a limit stops a run. Limit is one of
// the Limit* constants, or the name of a limit kept outside the ledger (package ratelimit's
// "requests_per_minute" and "tokens_per_day", whose errors unwrap to a LimitError); Max is
// the limit that was hit; Agent is the assistant whose reservation failed, though the limit
// may belong to a run above it or to the ledger.
//
// Used is what had been used of that limit when the reservation failed: for requests it
// equals Max; for tool calls it is the calls reserved before the batch that did not fit (a
// batch is reserved whole or not at all, so Used may be below Max); for tokens it may exceed
// Max, because a response can overshoot a token limit and the next request is then refused.
//
// RetryAfter is zero for the ledger's limits, which hold for a whole tree and never free up.
// A limit that frees up with time (a rate limit) sets it to how long until a request would
// be taken again: a caller may try again after it, e.g. an HTTP server sends it as
// Retry-After. Whatever its value, a LimitError ends the whole tree of runs.
type LimitError struct {
	Limit      string // "requests", "tool_calls", "input_tokens", "output_tokens", "total_tokens"
	Max, Used  int
	Agent      string
	RetryAfter time.Duration // > 0 when the limit frees up by itself after that long
}

// Error says which limit stopped which assistant, how much was used, and which field of
// Limits to change; for a limit outside the ledger, when to retry (RetryAfter) if known.
func (e *LimitError) Error() string {
	prefix := "usage: "
	if e.Agent != "" {
		prefix = fmt.Sprintf("assistant %q: ", e.Agent)
	}
	var what, field string
	switch e.Limit {
	case LimitRequests:
		what = fmt.Sprintf("request limit reached (%d of %d used)", e.Used, e.Max)
		field = "MaxRequests"
	case LimitToolCalls:
		what = fmt.Sprintf("tool call limit reached: the model's batch of calls does not fit "+
			"(%d of %d used; a batch runs whole or not at all)", e.Used, e.Max)
		field = "MaxToolCalls"
	case LimitInputTokens:
		what, field = tokenLimit("input", e), "MaxInputTokens"
	case LimitOutputTokens:
		what, field = tokenLimit("output", e), "MaxOutputTokens"
	case LimitTotalTokens:
		what, field = tokenLimit("total", e), "MaxTotalTokens"
	default:
		what = fmt.Sprintf("limit %q reached (used %d of max %d)", e.Limit, e.Used, e.Max)
		if e.RetryAfter > 0 {
			what += fmt.Sprintf(": retry after %s", e.RetryAfter)
		}
		return prefix + what
	}
	return prefix + what + ": raise usage.Limits." + field + ", or set it negative for no limit"
}

func tokenLimit(kind string, e *LimitError) string {
	return fmt.Sprintf("%s token limit reached (used %d of max %d)", kind, e.Used, e.Max)
}
