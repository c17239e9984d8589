package usage_test

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/cadrehq/cadre/pkg/usage"
)

func TestLimitsResolved(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   usage.Limits
		want usage.Limits
	}{
		{"zero takes defaults", usage.Limits{},
			usage.Limits{MaxRequests: 50, MaxToolCalls: 200, MaxInputTokens: -1, MaxOutputTokens: -1, MaxTotalTokens: -1}},
		{"negative stays", usage.Limits{MaxRequests: -1, MaxToolCalls: -5, MaxInputTokens: -2},
			usage.Limits{MaxRequests: -1, MaxToolCalls: -5, MaxInputTokens: -2, MaxOutputTokens: -1, MaxTotalTokens: -1}},
		{"positive stays", usage.Limits{MaxRequests: 3, MaxToolCalls: 4, MaxInputTokens: 5, MaxOutputTokens: 6, MaxTotalTokens: 7},
			usage.Limits{MaxRequests: 3, MaxToolCalls: 4, MaxInputTokens: 5, MaxOutputTokens: 6, MaxTotalTokens: 7}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := tt.in.Resolved()
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Resolved() mismatch (-want +got):\n%s", diff)
			}
			if again := got.Resolved(); again != got {
				t.Errorf("Resolved() is not idempotent: %+v, then %+v", got, again)
			}
			if l := usage.NewLedger(tt.in).Limits(); l != tt.want {
				t.Errorf("NewLedger(%+v).Limits() = %+v, want %+v", tt.in, l, tt.want)
			}
		})
	}
}

func TestLimitErrorMessage(t *testing.T) {
	t.Parallel()
	tests := []struct {
		err  usage.LimitError
		want string
	}{
		{usage.LimitError{Limit: usage.LimitRequests, Max: 50, Used: 50, Agent: "analyst"},
			`assistant "analyst": request limit reached (50 of 50 used): raise usage.Limits.MaxRequests, or set it negative for no limit`},
		{usage.LimitError{Limit: usage.LimitToolCalls, Max: 5, Used: 3, Agent: "analyst"},
			`assistant "analyst": tool call limit reached: the model's batch of calls does not fit (3 of 5 used; a batch runs whole or not at all): raise usage.Limits.MaxToolCalls, or set it negative for no limit`},
		{usage.LimitError{Limit: usage.LimitInputTokens, Max: 1000, Used: 1234, Agent: "a"},
			`assistant "a": input token limit reached (used 1234 of max 1000): raise usage.Limits.MaxInputTokens, or set it negative for no limit`},
		{usage.LimitError{Limit: usage.LimitOutputTokens, Max: 10, Used: 10, Agent: "a"},
			`assistant "a": output token limit reached (used 10 of max 10): raise usage.Limits.MaxOutputTokens, or set it negative for no limit`},
		{usage.LimitError{Limit: usage.LimitTotalTokens, Max: 10, Used: 11, Agent: "a"},
			`assistant "a": total token limit reached (used 11 of max 10): raise usage.Limits.MaxTotalTokens, or set it negative for no limit`},
		{usage.LimitError{Limit: usage.LimitRequests, Max: 1, Used: 1},
			`usage: request limit reached (1 of 1 used): raise usage.Limits.MaxRequests, or set it negative for no limit`},
		{usage.LimitError{Limit: "widgets", Max: 2, Used: 3, Agent: "a"},
			`assistant "a": limit "widgets" reached (used 3 of max 2)`},
		{usage.LimitError{Limit: "requests_per_minute", Max: 60, Used: 60, Agent: "a", RetryAfter: 1500 * time.Millisecond},
			`assistant "a": limit "requests_per_minute" reached (used 60 of max 60): retry after 1.5s`},
	}
	for _, tt := range tests {
		t.Run(tt.err.Limit+"/"+tt.err.Agent, func(t *testing.T) {
			t.Parallel()
			if got := tt.err.Error(); got != tt.want {
				t.Errorf("Error() =\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
}

func TestLimitErrorAs(t *testing.T) {
	t.Parallel()
	a := usage.NewLedger(usage.Limits{MaxRequests: 1}).Open(nil, "analyst", nil)
	if err := a.ReserveRequest(); err != nil {
		t.Fatalf("first ReserveRequest: %v", err)
	}
	err := fmt.Errorf("run: %w", a.ReserveRequest())
	var le *usage.LimitError
	if !errors.As(err, &le) {
		t.Fatalf("errors.As(%v, *LimitError) = false", err)
	}
	want := &usage.LimitError{Limit: usage.LimitRequests, Max: 1, Used: 1, Agent: "analyst"}
	if diff := cmp.Diff(want, le); diff != "" {
		t.Errorf("LimitError mismatch (-want +got):\n%s", diff)
	}
}
