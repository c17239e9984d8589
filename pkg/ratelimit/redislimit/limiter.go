package redislimit

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/cadrehq/cadre/pkg/ratelimit"
	"github.com/go-redis/redis_rate/v10"
	"github.com/redis/go-redis/v9"
)

// DefaultPrefix starts the key of every bucket of a Limiter made without WithPrefix (after
// redis_rate's own "rate:").
const DefaultPrefix = "cadre:ratelimit:"

// Limiter is a ratelimit.Limiter whose buckets are in Redis. It is safe for concurrent use,
// and any number of Limiters, in any number of processes, with the same Redis and prefix
// share their buckets. It does not own its client: close the client when done with the
// Limiter.
type Limiter struct {
	rdb    redis.Scripter
	rl     *redis_rate.Limiter
	prefix string
}

// Option configures a Limiter.
type Option func(*Limiter)

// WithPrefix starts the key of every bucket with p instead of DefaultPrefix: to keep
// applications, or tests, that share a Redis apart. Limiters with different prefixes share
// no bucket.
func WithPrefix(p string) Option {
	return func(l *Limiter) { l.prefix = p }
}

// New returns a Limiter that keeps its buckets in the Redis rdb talks to: a *redis.Client, a
// *redis.ClusterClient or a failover client (every call uses one key). Every call takes its
// time limits from rdb's options and the call's context; a Redis that cannot be reached is an
// error, never a request let through.
func New(rdb redis.UniversalClient, opts ...Option) *Limiter {
	l := &Limiter{rdb: rdb, rl: redis_rate.NewLimiter(rdb), prefix: DefaultPrefix}
	for _, opt := range opts {
		opt(l)
	}
	return l
}

// limit is redis_rate's form of b.
func limit(b ratelimit.Bucket) redis_rate.Limit {
	return redis_rate.Limit{Rate: b.Limit, Burst: b.Limit, Period: b.Period}
}

// Take takes one from each of buckets, or from none of them (see ratelimit.Limiter).
func (l *Limiter) Take(ctx context.Context, buckets []ratelimit.Bucket) (*ratelimit.Refusal, error) {
	if err := check(buckets); err != nil {
		return nil, err
	}
	for i, b := range buckets {
		res, err := l.rl.AllowN(ctx, l.prefix+b.Key, limit(b), 1)
		if err != nil {
			return nil, errors.Join(fmt.Errorf("redislimit: taking from %q: %w", b.Key, err), l.giveBack(ctx, buckets[:i]))
		}
		if res.Allowed == 0 {
			if err := l.giveBack(ctx, buckets[:i]); err != nil {
				return nil, err
			}
			return &ratelimit.Refusal{Bucket: b, RetryAfter: max(res.RetryAfter, time.Millisecond)}, nil
		}
	}
	return nil, nil
}

// giveBack gives back the one taken from each of buckets, each in one step (giveBackScript):
// another caller's take, from any process, lands before it or after it, never in between.
func (l *Limiter) giveBack(ctx context.Context, buckets []ratelimit.Bucket) error {
	ctx = context.WithoutCancel(ctx) // what was taken is given back, whatever happens to ctx
	var errs []error
	for _, b := range buckets {
		key := rateKeyPrefix + l.prefix + b.Key
		if err := giveBackScript.Run(ctx, l.rdb, []string{key}, b.Limit, b.Period.Seconds()).Err(); err != nil {
			errs = append(errs, fmt.Errorf("redislimit: giving back to %q the one taken: %w", b.Key, err))
		}
	}
	return errors.Join(errs...)
}

// rateKeyPrefix is redis_rate's own prefix of the keys it keeps.
const rateKeyPrefix = "rate:"

// giveBackScript gives back one to the bucket at KEYS[1], which holds ARGV[1] per ARGV[2]
// seconds. The key holds the state of redis_rate's GCRA script: the time, in seconds from
// 2017-01-01 on the server's clock, at which the bucket is full (its theoretical arrival
// time). Giving back one moves it an emission interval earlier; a state that is then in the
// past is a full bucket, whose key is deleted, as redis_rate writes no state in the past. The
// reading, the writing and the deleting are one script, so that no take from another caller
// can land between them and be erased with the key. A bucket whose key has gone (expired: it
// refilled) has nothing to give back to.
var giveBackScript = redis.NewScript(`
redis.replicate_commands() -- reads the clock before writing (needed up to Redis 4)

local key = KEYS[1]
local emission_interval = tonumber(ARGV[2]) / tonumber(ARGV[1])

local tat = redis.call("GET", key)
if not tat then
  return 0
end

local now = redis.call("TIME")
now = (now[1] - 1483228800) + (now[2] / 1000000) -- as redis_rate reads it: from 2017-01-01

local new_tat = tonumber(tat) - emission_interval
local full_after = new_tat - now
if full_after > 0 then
  redis.call("SET", key, new_tat, "EX", math.ceil(full_after))
else
  redis.call("DEL", key)
end
return 1
`)

// debtBurst is the burst of a charge: large enough that GCRA admits any charge, so that
// the whole charge is recorded. The bucket's rate and period stay its own, and so does the
// state the next Take reads.
const debtBurst = math.MaxInt32

// Charge takes n more from each of buckets, into debt if need be (see ratelimit.Limiter).
func (l *Limiter) Charge(ctx context.Context, buckets []ratelimit.Bucket, n int) error {
	if n <= 0 {
		return nil
	}
	if err := check(buckets); err != nil {
		return err
	}
	for _, b := range buckets {
		lim := limit(b)
		lim.Burst = debtBurst
		if _, err := l.rl.AllowN(ctx, l.prefix+b.Key, lim, n); err != nil {
			return fmt.Errorf("redislimit: charging %d to %q: %w", n, b.Key, err)
		}
	}
	return nil
}

func check(buckets []ratelimit.Bucket) error {
	for _, b := range buckets {
		if err := b.Check(); err != nil {
			return err
		}
	}
	return nil
}
