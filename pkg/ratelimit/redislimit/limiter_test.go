package redislimit_test

import (
	"context"
	"crypto/rand"
	"errors"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cadrehq/cadre/pkg/assistant"
	"github.com/cadrehq/cadre/pkg/llmtest"
	"github.com/cadrehq/cadre/pkg/ratelimit"
	"github.com/cadrehq/cadre/pkg/ratelimit/ratelimittest"
	"github.com/cadrehq/cadre/pkg/ratelimit/redislimit"
	"github.com/cadrehq/cadre/pkg/usage"
	"github.com/redis/go-redis/v9"
)

// sharedRedis is a client of the Redis at CADRE_REDIS_ADDR, which make test starts. Without
// it the test fails, so that a missing Redis is never mistaken for a passing limiter, unless
// CADRE_NO_REDIS=1 says to skip.
func sharedRedis(t *testing.T) *redis.Client {
	t.Helper()
	skipWithoutRedis(t)
	addr := os.Getenv("CADRE_REDIS_ADDR")
	if addr == "" {
		t.Fatal("CADRE_REDIS_ADDR is not set: run make test, which starts redis-server, or set CADRE_REDIS_ADDR " +
			"to a Redis's host:port (CADRE_NO_REDIS=1 skips the Redis tests)")
	}
	rdb := redis.NewClient(&redis.Options{Addr: addr})
	t.Cleanup(func() { rdb.Close() })
	if err := rdb.Ping(t.Context()).Err(); err != nil {
		t.Fatalf("the Redis at CADRE_REDIS_ADDR=%s does not answer: %v", addr, err)
	}
	return rdb
}

func skipWithoutRedis(t *testing.T) {
	t.Helper()
	if os.Getenv("CADRE_NO_REDIS") == "1" {
		t.Skip("CADRE_NO_REDIS=1: the Redis tests are skipped")
	}
}

// testPrefix returns a key prefix no other test uses, and removes its keys when t ends.
func testPrefix(t *testing.T, rdb *redis.Client) string {
	t.Helper()
	prefix := "cadretest:" + rand.Text() + ":"
	t.Cleanup(func() {
		ctx := context.Background() // t's context is done by the time cleanups run
		for _, key := range scan(t, ctx, rdb, "*"+prefix+"*") {
			if err := rdb.Del(ctx, key).Err(); err != nil {
				t.Errorf("removing the test's key %q: %v", key, err)
			}
		}
	})
	return prefix
}

func scan(t *testing.T, ctx context.Context, rdb *redis.Client, pattern string) []string {
	t.Helper()
	var keys []string
	iter := rdb.Scan(ctx, 0, pattern, 1000).Iterator()
	for iter.Next(ctx) {
		keys = append(keys, iter.Val())
	}
	if err := iter.Err(); err != nil {
		t.Fatalf("SCAN %q: %v", pattern, err)
	}
	return keys
}

func TestLimiter(t *testing.T) {
	rdb := sharedRedis(t)
	ratelimittest.Run(t, func(t *testing.T) ratelimit.Limiter {
		return redislimit.New(rdb, redislimit.WithPrefix(testPrefix(t, rdb)))
	})
}

// instance is one instance of a service: its own Redis client, its own limiter, its own
// assistant, whose every reply costs 99 tokens.
func instance(t *testing.T, prefix string, limits ratelimit.Limits) *assistant.Assistant[string] {
	t.Helper()
	skipWithoutRedis(t)
	rdb := redis.NewClient(&redis.Options{Addr: os.Getenv("CADRE_REDIS_ADDR")})
	t.Cleanup(func() { rdb.Close() })
	lim := redislimit.New(rdb, redislimit.WithPrefix(prefix))
	m := llmtest.NewScripted(llmtest.Reply{Text: "ok", Usage: usage.Usage{InputTokens: 90, OutputTokens: 9}}).Cycle().NoRecord()
	return assistant.New[string]("helper", assistant.WithModel(m), assistant.WithMiddleware(ratelimit.Middleware(lim, limits)))
}

func TestInstancesShareLimits(t *testing.T) {
	t.Parallel()
	rdb := sharedRedis(t)
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
			prefix := testPrefix(t, rdb)
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
	rdb := sharedRedis(t)
	prefix := testPrefix(t, rdb)
	limits := ratelimit.Limits{
		Tenant: ratelimit.Quota{RequestsPerMinute: 10, TokensPerDay: 1000},
		User:   ratelimit.Quota{RequestsPerMinute: 5, TokensPerDay: 500},
	}
	a := instance(t, prefix, limits)
	ctx := ratelimit.WithCaller(t.Context(), "a:b", "c d")
	if _, err := a.Run(ctx, assistant.Input{Prompt: "hi"}); err != nil {
		t.Fatal(err)
	}
	got := scan(t, t.Context(), rdb, "*"+prefix+"*")
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
