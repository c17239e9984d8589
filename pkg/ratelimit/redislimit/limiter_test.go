package redislimit_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
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

// TestGiveBackKeepsATakeInBetween: another instance takes one from a bucket right after one of
// the round trips of a Take that takes from it and is refused by the next bucket, so gives it
// back. Wherever it lands, what it took stays taken: the bucket of 5 admits 5 in all.
func TestGiveBackKeepsATakeInBetween(t *testing.T) {
	t.Parallel()
	rdb := redistest.Client(t)
	prefix := redistest.Prefix(t, rdb)
	other := redislimit.New(rdb, redislimit.WithPrefix(prefix))
	spent := ratelimit.Bucket{Key: "spent", Limit: 1, Period: time.Hour}
	if r, err := other.Take(t.Context(), []ratelimit.Bucket{spent}); r != nil || err != nil {
		t.Fatalf("taking the one of %q: %v, %v", spent.Key, r, err)
	}
	for n := 1; n <= 6; n++ { // a Take that gives back makes 3 or 4 round trips (5 or 6 if its script is not loaded)
		t.Run(fmt.Sprintf("after round trip %d", n), func(t *testing.T) {
			t.Parallel()
			ctx := t.Context()
			bucket := ratelimit.Bucket{Key: fmt.Sprintf("bucket-%d", n), Limit: 5, Period: time.Hour}
			admitted := 0
			takeOther := func() {
				r, err := other.Take(ctx, []ratelimit.Bucket{bucket})
				if err != nil {
					t.Error(err)
				}
				if r == nil {
					admitted++
				}
			}
			hook := &afterRoundTrip{n: n, f: takeOther}
			client := redis.NewClient(&redis.Options{Addr: redistest.Addr(t)})
			t.Cleanup(func() { client.Close() })
			if err := client.Ping(ctx).Err(); err != nil { // connected before the hook counts
				t.Fatal(err)
			}
			client.AddHook(hook)
			r, err := redislimit.New(client, redislimit.WithPrefix(prefix)).Take(ctx, []ratelimit.Bucket{bucket, spent})
			if err != nil || r == nil || r.Bucket != spent {
				t.Fatalf("Take(bucket, spent) = %v, %v; want spent's refusal", r, err)
			}
			if hook.sent < n {
				takeOther() // the Take made fewer round trips: the other takes after it
			}
			if admitted != 1 {
				t.Fatalf("the other instance's take was refused: a bucket of 5 holds room for it")
			}
			for admitted <= bucket.Limit {
				before := admitted
				if takeOther(); admitted == before {
					break
				}
			}
			if admitted != bucket.Limit {
				t.Errorf("the bucket of %d admitted %d in all, the other instance's take in between included: the give-back erased it", bucket.Limit, admitted)
			}
		})
	}
}

// afterRoundTrip is a go-redis hook that calls f right after the n-th round trip its client
// makes (a command or a pipeline).
type afterRoundTrip struct {
	n, sent int
	f       func()
}

func (h *afterRoundTrip) DialHook(next redis.DialHook) redis.DialHook { return next }

func (h *afterRoundTrip) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		err := next(ctx, cmd)
		h.done()
		return err
	}
}

func (h *afterRoundTrip) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		err := next(ctx, cmds)
		h.done()
		return err
	}
}

func (h *afterRoundTrip) done() {
	if h.sent++; h.sent == h.n {
		h.f()
	}
}

// TestGiveBackKeepsOthersTakes: a Take refused by its second bucket gives back what it took
// from the first while other clients take from that bucket. What they took stays taken: a
// bucket of 5 an hour admits 5 in all, however the give-back and their takes interleave.
func TestGiveBackKeepsOthersTakes(t *testing.T) {
	t.Parallel()
	rdb := redistest.Client(t)
	other := redistest.Client(t) // another instance: its own client, its own connections
	prefix := redistest.Prefix(t, rdb)
	limiters := []*redislimit.Limiter{redislimit.New(rdb, redislimit.WithPrefix(prefix)), redislimit.New(other, redislimit.WithPrefix(prefix))}
	ctx := t.Context()
	spent := ratelimit.Bucket{Key: "spent", Limit: 1, Period: time.Hour}
	if r, err := limiters[0].Take(ctx, []ratelimit.Bucket{spent}); r != nil || err != nil {
		t.Fatalf("taking the one of %q: %v, %v", spent.Key, r, err)
	}
	const trials, takers, takesEach = 200, 2, 4 // 8 takes of a bucket of 5
	var over []string
	for trial := range trials {
		bucket := ratelimit.Bucket{Key: fmt.Sprintf("trial-%d", trial), Limit: 5, Period: time.Hour}
		start := make(chan struct{})
		var wg sync.WaitGroup
		admitted := make([]int, takers)
		errs := make(chan error, takers*takesEach+3)
		wg.Go(func() { // takes from bucket, is refused by spent, and gives bucket back (or finds bucket empty)
			<-start
			for range 3 {
				r, err := limiters[0].Take(ctx, []ratelimit.Bucket{bucket, spent})
				if err != nil || r == nil {
					errs <- fmt.Errorf("Take(bucket, spent) = %v, %v; want a refusal", r, err)
				}
			}
		})
		for i := range takers {
			wg.Go(func() {
				<-start
				for range takesEach {
					r, err := limiters[i%2].Take(ctx, []ratelimit.Bucket{bucket})
					switch {
					case err != nil:
						errs <- err
					case r == nil:
						admitted[i]++
					}
				}
			})
		}
		close(start)
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatalf("trial %d: %v", trial, err)
		}
		total := admitted[0] + admitted[1]
		for { // what is left: the 5 the bucket holds, less what the takers got
			r, err := limiters[0].Take(ctx, []ratelimit.Bucket{bucket})
			if err != nil {
				t.Fatal(err)
			}
			if r != nil {
				break
			}
			if total++; total > 10 {
				break
			}
		}
		if total != bucket.Limit {
			over = append(over, fmt.Sprintf("trial %d: %d admitted (%d by the takers)", trial, total, admitted[0]+admitted[1]))
		}
	}
	if len(over) > 0 {
		t.Errorf("in %d of %d trials a bucket of 5 an hour did not admit exactly 5, e.g. %s", len(over), trials, over[0])
	}
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
