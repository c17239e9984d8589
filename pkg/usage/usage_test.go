package usage_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cadrehq/cadre/pkg/usage"
)

func TestUsageAdd(t *testing.T) {
	t.Parallel()
	a := usage.Usage{Requests: 1, ToolCalls: 2, InputTokens: 3, OutputTokens: 4,
		CacheReadTokens: 5, CacheWriteTokens: 6, ReasoningTokens: 7}
	b := usage.Usage{Requests: 10, ToolCalls: 20, InputTokens: 30, OutputTokens: 40,
		CacheReadTokens: 50, CacheWriteTokens: 60, ReasoningTokens: 70}
	want := usage.Usage{Requests: 11, ToolCalls: 22, InputTokens: 33, OutputTokens: 44,
		CacheReadTokens: 55, CacheWriteTokens: 66, ReasoningTokens: 77}
	if diff := cmp.Diff(want, a.Add(b)); diff != "" {
		t.Errorf("a.Add(b) mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(want, b.Add(a)); diff != "" {
		t.Errorf("b.Add(a) mismatch (-want +got):\n%s", diff)
	}
	if got := a.Add(usage.Usage{}); got != a {
		t.Errorf("a.Add(zero) = %+v, want %+v", got, a)
	}
}

func TestUsageTotalTokens(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		u    usage.Usage
		want int
	}{
		{"zero", usage.Usage{}, 0},
		{"input and output", usage.Usage{InputTokens: 100, OutputTokens: 20}, 120},
		{"breakdowns not added again", usage.Usage{InputTokens: 100, OutputTokens: 20,
			CacheReadTokens: 80, CacheWriteTokens: 10, ReasoningTokens: 15, Requests: 3, ToolCalls: 4}, 120},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := tt.u.TotalTokens(); got != tt.want {
				t.Errorf("TotalTokens() = %d, want %d", got, tt.want)
			}
		})
	}
}
