package ratelimit_test

import (
	"strings"
	"testing"
	"time"

	"github.com/cadrehq/cadre/pkg/llmfactory"
	"github.com/cadrehq/cadre/pkg/ratelimit"
)

func TestLimitsValidate(t *testing.T) {
	t.Parallel()
	valid := ratelimit.Limits{Tenant: ratelimit.Quota{RequestsPerMinute: 1, TokensPerDay: 1}, MaxWait: time.Second}
	if err := valid.Validate(); err != nil {
		t.Errorf("Validate(%+v) = %v, want nil", valid, err)
	}
	if err := (ratelimit.Limits{}).Validate(); err != nil {
		t.Errorf("Validate of the zero Limits = %v, want nil", err)
	}
	bad := ratelimit.Limits{User: ratelimit.Quota{RequestsPerMinute: -1, TokensPerDay: -2}, MaxWait: -time.Second}
	err := bad.Validate()
	for _, want := range []string{"Limits.User.RequestsPerMinute is -1", "Limits.User.TokensPerDay is -2", "Limits.MaxWait is -1s", "give 0 for no limit"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Validate(%+v) = %v, want an error saying %q", bad, err, want)
		}
	}
}

func TestLimitsFromLLMYAML(t *testing.T) {
	t.Parallel()
	f, err := llmfactory.Parse([]byte(`
providers: {openai: {api_key: k}}
models: {fast: {provider: openai, model: m}}
rate_limits:
  tenant: {requests_per_minute: 600, tokens_per_day: 5000000}
  user: {requests_per_minute: 20}
  max_wait: 2s
`))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	got := ratelimit.LimitsFrom(f.RateLimits())
	want := ratelimit.Limits{
		Tenant:  ratelimit.Quota{RequestsPerMinute: 600, TokensPerDay: 5_000_000},
		User:    ratelimit.Quota{RequestsPerMinute: 20},
		MaxWait: 2 * time.Second,
	}
	if got != want {
		t.Errorf("limits from llm.yaml = %+v, want %+v", got, want)
	}
	if got := ratelimit.LimitsFrom(llmfactory.RateLimits{}); !got.IsZero() || got.MaxWait != 0 {
		t.Errorf("limits from an llm.yaml without rate_limits = %+v, want none", got)
	}
}
