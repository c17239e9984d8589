package redislimit_test

import (
	"errors"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cadrehq/cadre/internal/redistest"

	"github.com/cadrehq/cadre/pkg/assistant"
	"github.com/cadrehq/cadre/pkg/llmtest"
	"github.com/cadrehq/cadre/pkg/ratelimit"
	"github.com/cadrehq/cadre/pkg/ratelimit/ratelimittest"
	"github.com/cadrehq/cadre/pkg/ratelimit/redislimit"
	"github.com/cadrehq/cadre/pkg/usage"
	"github.com/redis/go-redis/v9"
)

func TestLimiter(t *testing.T) {
	rdb := redistest.Client(t)
	ratelimittest.Run(t, func(t *testing.T) ratelimit.Limiter {
		return redislimit.New(rdb, redislimit.WithPrefix(redistest.Prefix(t, rdb)))
	})
}

// instance is one instance of a service: its own Redis client, its own limiter, its own
// assistant, whose every reply costs 99 tokens.
func instance(t *testing.T, prefix string, limits ratelimit.Limits) *assistant.Assistant[string] {
	t.Helper()
	redistest.SkipIfOff(t)
	rdb := redis.NewClient(&redis.Options{Addr: os.Getenv("CADRE_REDIS_ADDR")})
	t.Cleanup(func() { rdb.Close() })
	lim := redislimit.New(rdb, redislimit.WithPrefix(prefix))
	m := llmtest.NewScripted(llmtest.Reply{Text: "ok", Usage: usage.Usage{InputTokens: 90, OutputTokens: 9}}).Cycle().NoRecord()
	return assistant.New[string]("helper", assistant.WithModel(m), assistant.WithMiddleware(ratelimit.Middleware(lim, limits)))
}

func TestInstancesShareLimits(t *testing.T) {
	t.Parallel()
	rdb := redistest.Client(t)
	for _, tc := range []struct {
		name   string
		limits ratelimit.Limits
		runs   int // how many runs, alternating between the instances, fit
		limit  string
	}{
		{"requests per minute", ratelimit.Limits{User: ratelimit.Quota{RequestsPerMinute: 3}}, 3, ratelimit.LimitRequestsPerMinute},
		// Each run costs 99 tokens: the second starts with 1 left, and leaves the budget in debt.
		{"tokens per day", ratelimit.Limits{Tenant: ratelimit.Quota{TokensPerDay: 100}}, 2, ratelimit.LimitTokensPerDay},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			prefix := redistest.Prefix(t, rdb)
			instances := []*assistant.Assistant[string]{instance(t, prefix, tc.limits), instance(t, prefix, tc.limits)}
			ctx := ratelimit.WithCaller(t.Context(), "acme", "ana")
			for i := range tc.runs {
				if _, err := instances[i%2].Run(ctx, assistant.Input{Prompt: "hi"}); err != nil {
					t.Fatalf("run %d, on instance %d: %v", i+1, i%2, err)
				}
			}
			for i, a := range instances {
				_, err := a.Run(ctx, assistant.Input{Prompt: "hi"})
				var rl *ratelimit.Error
				if !errors.As(err, &rl) || rl.Limit != tc.limit || rl.RetryAfter <= 0 {
					t.Errorf("instance %d after %d runs: err = %v, want a *ratelimit.Error of %s with a RetryAfter", i, tc.runs, err, tc.limit)
				}
			}
		})
	}
}

func TestKeys(t *testing.T) {
	t.Parallel()
	rdb := redistest.Client(t)
	prefix := redistest.Prefix(t, rdb)
	limits := ratelimit.Limits{
		Tenant: ratelimit.Quota{RequestsPerMinute: 10, TokensPerDay: 1000},
		User:   ratelimit.Quota{RequestsPerMinute: 5, TokensPerDay: 500},
	}
	a := instance(t, prefix, limits)
	ctx := ratelimit.WithCaller(t.Context(), "a:b", "c d")
	if _, err := a.Run(ctx, assistant.Input{Prompt: "hi"}); err != nil {
		t.Fatal(err)
	}
	got := redistest.Scan(t, t.Context(), rdb, "*"+prefix+"*")
	slices.Sort(got)
	want := []string{
		"rate:" + prefix + "tenant:a%3Ab:rpm",
		"rate:" + prefix + "tenant:a%3Ab:tpd",
		"rate:" + prefix + "user:a%3Ab:c+d:rpm",
		"rate:" + prefix + "user:a%3Ab:c+d:tpd",
	}
	if !slices.Equal(got, want) {
		t.Errorf("keys = %q, want %q", got, want)
	}
	for _, key := range got {
		ttl, err := rdb.TTL(t.Context(), key).Result()
		if err != nil {
			t.Fatal(err)
		}
		// A bucket expires once full again: within a minute for requests, a day for tokens.
		maxTTL := time.Minute
		if strings.HasSuffix(key, ":tpd") {
			maxTTL = 24 * time.Hour
		}
		if ttl <= 0 || ttl > maxTTL {
			t.Errorf("TTL of %q = %s, want in (0, %s]", key, ttl, maxTTL)
		}
	}
}

func TestRedisDownFailsTheRequest(t *testing.T) {
	t.Parallel()
	rdb := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", MaxRetries: -1, DialTimeout: time.Second})
	t.Cleanup(func() { rdb.Close() })
	m := llmtest.NewScripted(llmtest.Text("ok"))
	a := assistant.New[string]("helper", assistant.WithModel(m),
		assistant.WithMiddleware(ratelimit.Middleware(redislimit.New(rdb), ratelimit.Limits{User: ratelimit.Quota{RequestsPerMinute: 1}})))
	_, err := a.Run(t.Context(), assistant.Input{Prompt: "hi"})
	var rl *ratelimit.Error
	if err == nil || errors.As(err, &rl) || !strings.Contains(err.Error(), "is the limiter's store reachable?") {
		t.Errorf("err = %v, want the limiter's failure, not a *ratelimit.Error", err)
	}
	if n := len(m.Requests()); n != 0 {
		t.Errorf("the model got %d requests, want none: a limiter that cannot be asked lets nothing through", n)
	}
}
