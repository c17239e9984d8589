package ratelimit

import (
	"errors"
	"fmt"
	"time"
)

// The values of Error.Limit (and of the usage.LimitError it unwraps to).
const (
	LimitRequestsPerMinute = "requests_per_minute" // Quota.RequestsPerMinute
	LimitTokensPerDay      = "tokens_per_day"      // Quota.TokensPerDay
)

// The values of Error.Scope: whose limit was reached.
const (
	ScopeTenant = "tenant" // Limits.Tenant, shared by the tenant's users
	ScopeUser   = "user"   // Limits.User, each user of a tenant
)

// Quota is what one caller may use. A zero field is no limit; no field may be negative.
//
// Each limit is a bucket that holds the whole quota and refills evenly: 60 requests per minute
// allow 60 requests at once, then one a second; a day's tokens refill by a 24th each hour.
type Quota struct {
	// RequestsPerMinute counts model requests: one per turn of the model, whichever model of
	// the fallback chain answers it. A request is taken before it is sent.
	RequestsPerMinute int
	// TokensPerDay counts input and output tokens (usage.Usage.TotalTokens), as the replies
	// report them. A request is refused while the budget is spent; a reply is charged its
	// tokens after it arrives, in full: a reply that overshoots the budget leaves it in debt,
	// and requests are refused until it has refilled past the debt.
	TokensPerDay int
}

// Limits are the rate limits of Middleware: a quota for each tenant, shared by its users, and
// one for each user of a tenant. A request must fit both.
type Limits struct {
	Tenant Quota
	User   Quota
	// MaxWait is how long a request may wait for room before it fails with an *Error. The
	// default, 0, fails at once. A request never waits past its context's deadline: one that
	// could not get room before it fails at once too.
	MaxWait time.Duration
}

// IsZero reports whether l limits nothing.
func (l Limits) IsZero() bool { return l.Tenant == Quota{} && l.User == Quota{} }

// Validate reports the fields of l that are negative, naming each: they must be zero (no
// limit) or more.
func (l Limits) Validate() error {
	var errs []error
	check := func(field string, v int64) {
		if v < 0 {
			errs = append(errs, fmt.Errorf("ratelimit: Limits.%s is %d: give 0 for no limit, or a positive number", field, v))
		}
	}
	check("Tenant.RequestsPerMinute", int64(l.Tenant.RequestsPerMinute))
	check("Tenant.TokensPerDay", int64(l.Tenant.TokensPerDay))
	check("User.RequestsPerMinute", int64(l.User.RequestsPerMinute))
	check("User.TokensPerDay", int64(l.User.TokensPerDay))
	if l.MaxWait < 0 {
		errs = append(errs, fmt.Errorf("ratelimit: Limits.MaxWait is %s: give 0 to fail at once, or a positive duration", l.MaxWait))
	}
	return errors.Join(errs...)
}

// LimitsFrom returns the limits of llm.yaml's rate_limits section, as
// llmfactory.Factory.RateLimits returns them (an llmfactory.RateLimits), field for field:
//
//	limits := ratelimit.LimitsFrom(factory.RateLimits())
//
// It takes any struct of the same shape, so that neither package imports the other: llmfactory
// links no part of the packages that run assistants, and ratelimit no provider client. A file
// without the section gives the zero Limits, which limit nothing.
func LimitsFrom[R ~struct {
	Tenant, User Q
	MaxWait      time.Duration
}, Q ~struct{ RequestsPerMinute, TokensPerDay int }](r R) Limits {
	f := struct {
		Tenant, User Q
		MaxWait      time.Duration
	}(r)
	return Limits{Tenant: Quota(f.Tenant), User: Quota(f.User), MaxWait: f.MaxWait}
}
