package ratelimit

import (
	"context"
	"fmt"
	"time"
)

// Bucket is one limit of one caller, as a Limiter keeps it: it holds Limit, and refills
// evenly, Limit in each Period (a token bucket, or in other words GCRA). A full bucket is the
// same as one never used.
type Bucket struct {
	// Key names the bucket in its Limiter: every Take and Charge with the same Key, from any
	// goroutine or, for a shared limiter, from any process, uses the same bucket. A key is
	// given with the same Limit and Period each time; when they change (new limits are
	// deployed), a limiter carries over what the bucket held as well as it can.
	Key    string
	Limit  int
	Period time.Duration
}

// Check reports what is wrong with b, if anything: a Limiter refuses a bucket with no key, or
// with a Limit or a Period that is not positive.
func (b Bucket) Check() error {
	if b.Key == "" || b.Limit <= 0 || b.Period <= 0 {
		return fmt.Errorf("ratelimit: bucket %q holds %d per %s: a bucket needs a key, a positive limit and a positive period", b.Key, b.Limit, b.Period)
	}
	return nil
}

// Refusal says that a bucket had no room for a Take, and how long until it has.
type Refusal struct {
	Bucket     Bucket
	RetryAfter time.Duration // > 0
}

// Limiter keeps buckets and takes from them. Middleware uses it: it takes one request from
// the request buckets and one token from the token buckets before a model request
// (Take), and charges the reply's other tokens after it (Charge). ratelimit's Local keeps
// the buckets in the process; package redislimit keeps them in Redis, shared by every
// process that uses the same Redis and prefix.
//
// A Limiter is safe for concurrent use by any number of goroutines. Its methods return when
// ctx is done, with an error; they never wait for room. Middleware compares limiters with ==
// to count a request once when two of its middlewares share one: make Limiter a pointer.
type Limiter interface {
	// Take takes one from each of buckets, or from none of them: it returns nil when it took
	// one from each, and otherwise a Refusal naming a bucket that had no room, having taken
	// nothing. An error (an invalid bucket, a store that does not answer) takes nothing
	// either, as far as the limiter can tell.
	Take(ctx context.Context, buckets []Bucket) (*Refusal, error)

	// Charge takes n more from each of buckets, beyond what a bucket holds if need be: a
	// bucket charged more than it holds is in debt, and refuses every Take until it has
	// refilled past the debt. n <= 0 charges nothing.
	Charge(ctx context.Context, buckets []Bucket, n int) error
}
