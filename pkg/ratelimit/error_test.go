package ratelimit_test

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/cadrehq/cadre/pkg/model"
	"github.com/cadrehq/cadre/pkg/ratelimit"
	"github.com/cadrehq/cadre/pkg/usage"
)

func TestErrorMessage(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		err  ratelimit.Error
		want string
	}{
		{ratelimit.Error{Agent: "support", Tenant: "acme", User: "ana", Scope: ratelimit.ScopeUser, Limit: ratelimit.LimitRequestsPerMinute, Max: 20, RetryAfter: 2100 * time.Millisecond},
			`assistant "support": user "ana" of tenant "acme" reached the rate limit of 20 requests per minute: retry after 3s, or raise ratelimit.Limits.User.RequestsPerMinute (Limits.MaxWait lets a request wait for room)`},
		{ratelimit.Error{Tenant: "acme", Scope: ratelimit.ScopeTenant, Limit: ratelimit.LimitTokensPerDay, Max: 5000, RetryAfter: 90 * time.Millisecond},
			`ratelimit: tenant "acme" reached the rate limit of 5000 tokens per day: retry after 90ms, or raise ratelimit.Limits.Tenant.TokensPerDay (Limits.MaxWait lets a request wait for room)`},
		{ratelimit.Error{Agent: "a", Scope: ratelimit.ScopeTenant, Limit: "widgets_per_hour", Max: 3, RetryAfter: time.Minute},
			`assistant "a": tenant "" reached the rate limit "widgets_per_hour" of 3: retry after 1m0s`},
	} {
		if got := tc.err.Error(); got != tc.want {
			t.Errorf("Error() =\n%s\nwant\n%s", got, tc.want)
		}
	}
}

// An Error made by hand, as a test of the program's own code makes one, ends a run as one
// from the middleware does.
func TestErrorMadeByHandIsAUsageLimit(t *testing.T) {
	t.Parallel()
	err := fmt.Errorf("model %q: %w", "fast", &ratelimit.Error{Agent: "a", Scope: ratelimit.ScopeUser, Limit: ratelimit.LimitRequestsPerMinute, Max: 2, RetryAfter: time.Second})
	var le *usage.LimitError
	if !errors.As(err, &le) {
		t.Fatalf("errors.As(%v, *usage.LimitError) = false", err)
	}
	if want := (usage.LimitError{Limit: "requests_per_minute", Max: 2, Used: 2, Agent: "a", RetryAfter: time.Second}); *le != want {
		t.Errorf("LimitError = %+v, want %+v", *le, want)
	}
	if model.CanFallback(err) {
		t.Error("model.CanFallback = true, want false")
	}
}
