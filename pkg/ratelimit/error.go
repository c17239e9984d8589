package ratelimit

import (
	"fmt"
	"time"

	"github.com/cadrehq/cadre/pkg/usage"
)

// Error is the error of a model request that a rate limit refused: the limit had no room, and
// would not have in Limits.MaxWait (nor before the request's deadline). Find it with
// errors.As.
//
// It unwraps to a *usage.LimitError with the same Limit, Max, Agent and RetryAfter (Used is
// Max), so that a rate limit ends a run as the ledger's limits do: the model chain does not
// fall back to its next model (the next would meet the same limit), and a limit reached in a
// delegated run ends the whole tree, whose top run returns the error.
type Error struct {
	Agent        string // the assistant whose request was refused
	Tenant, User string // the caller (CallerFrom)
	Scope        string // whose limit: ScopeTenant or ScopeUser
	Limit        string // which: LimitRequestsPerMinute or LimitTokensPerDay
	Max          int    // the limit: requests per minute, or tokens per day
	// RetryAfter is how long until the limit has room again, at least: retry no sooner. An
	// HTTP server sends it as Retry-After.
	RetryAfter time.Duration

	limit *usage.LimitError // what Unwrap returns
}

// newError returns the Error of a request refused by the limit scope/limit.
func newError(agent string, c Caller, scope, limit string, most int, retry time.Duration) *Error {
	return &Error{
		Agent: agent, Tenant: c.Tenant, User: c.User, Scope: scope, Limit: limit, Max: most, RetryAfter: retry,
		limit: &usage.LimitError{Limit: limit, Max: most, Used: most, Agent: agent, RetryAfter: retry},
	}
}

// Error says whose limit was reached, when to retry, and which field of Limits to change.
func (e *Error) Error() string {
	prefix := "ratelimit: "
	if e.Agent != "" {
		prefix = fmt.Sprintf("assistant %q: ", e.Agent)
	}
	who := fmt.Sprintf("tenant %q", e.Tenant)
	field := "Tenant."
	if e.Scope == ScopeUser {
		who = fmt.Sprintf("user %q of tenant %q", e.User, e.Tenant)
		field = "User."
	}
	var what string
	switch e.Limit {
	case LimitRequestsPerMinute:
		what, field = fmt.Sprintf("%d requests per minute", e.Max), field+"RequestsPerMinute"
	case LimitTokensPerDay:
		what, field = fmt.Sprintf("%d tokens per day", e.Max), field+"TokensPerDay"
	default:
		return fmt.Sprintf("%s%s reached the rate limit %q of %d: retry after %s", prefix, who, e.Limit, e.Max, roundRetry(e.RetryAfter))
	}
	return fmt.Sprintf("%s%s reached the rate limit of %s: retry after %s, or raise ratelimit.Limits.%s (Limits.MaxWait lets a request wait for room)",
		prefix, who, what, roundRetry(e.RetryAfter), field)
}

// Unwrap returns the *usage.LimitError that makes the error end a run as a usage limit does.
func (e *Error) Unwrap() error {
	if e.limit == nil { // an Error made by hand
		return &usage.LimitError{Limit: e.Limit, Max: e.Max, Used: e.Max, Agent: e.Agent, RetryAfter: e.RetryAfter}
	}
	return e.limit
}

// roundRetry rounds d up for a person to read: to the millisecond under a second, to the
// second above.
func roundRetry(d time.Duration) time.Duration {
	unit := time.Second
	if d < time.Second {
		unit = time.Millisecond
	}
	return (d + unit - 1).Truncate(unit)
}
