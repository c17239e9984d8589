// Package ratelimittest checks a ratelimit.Limiter against the promises of its contract, the
// same way for every limiter: call [Run] from a test of the limiter's package with a function
// that opens a fresh, empty limiter.
//
// The suite covers what ratelimit.Middleware relies on: a bucket gives what it holds and then
// refuses, saying how long until it has room; a Take across buckets takes all or none, and a
// refused Take leaves every bucket as it was; a Charge is counted in full, into debt; a bucket
// refills with time; concurrent Takes never take more than a bucket holds; invalid buckets
// and cancelled contexts are errors. It runs on the real clock, with waits of a fraction of a
// second at most.
//
// # Histories
//
// The suite's calls follow one another. Under concurrency a limiter is checked with histories:
// a [Workload] draws random calls for goroutines, [Record] runs them at once on a limiter,
// stamping each call with a clock every goroutine (or process) shares, and two checks take the
// history. [CheckLinearizable] checks, with github.com/anishathalye/porcupine, that the calls
// could have taken effect one at a time, each between its call and its return, in a counter
// per bucket that does not refill; [CheckInvariants] checks what a limiter whose Take across
// buckets is not atomic must still keep, with what each bucket has left afterwards
// ([Remaining]). Run a history in far less time than a bucket takes to refill a unit, or in a
// testing/synctest bubble, where time stands still.
package ratelimittest

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cadrehq/cadre/pkg/ratelimit"
)

// Run runs the behaviour suite on the limiters open returns, as subtests of t.
//
// Each subtest calls open once, with its own *testing.T, for a fresh limiter whose buckets
// no other limiter of the suite sees, and most run in parallel: open must be safe for
// concurrent use, and should release what it opened through t.Cleanup. A subtest that fails
// names the promise of ratelimit.Limiter it checks.
func Run(t *testing.T, open func(t *testing.T) ratelimit.Limiter) {
	t.Helper()
	tests := []struct {
		name string
		run  func(t *testing.T, l ratelimit.Limiter)
	}{
		{"GivesWhatItHoldsThenRefuses", givesWhatItHoldsThenRefuses},
		{"TakeIsAllOrNone", takeIsAllOrNone},
		{"RefusedTakeKeepsOthersUse", refusedTakeKeepsOthersUse},
		{"BucketsAreApart", bucketsAreApart},
		{"ChargeWithinWhatItHolds", chargeWithinWhatItHolds},
		{"ChargeIntoDebt", chargeIntoDebt},
		{"RefillsWithTime", refillsWithTime},
		{"ConcurrentTakesNeverOvertake", concurrentTakesNeverOvertake},
		{"InvalidBucketsAreErrors", invalidBucketsAreErrors},
		{"CancelledContextIsAnError", cancelledContextIsAnError},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tt.run(t, open(t))
		})
	}
}

func hourly(key string, limit int) ratelimit.Bucket {
	return ratelimit.Bucket{Key: key, Limit: limit, Period: time.Hour}
}

// mustTake fails t unless Take takes from buckets.
func mustTake(t *testing.T, l ratelimit.Limiter, buckets ...ratelimit.Bucket) {
	t.Helper()
	ref, err := l.Take(t.Context(), buckets)
	if err != nil {
		t.Fatalf("Take(%v): %v", keys(buckets), err)
	}
	if ref != nil {
		t.Fatalf("Take(%v) refused by %q (retry after %s), want taken", keys(buckets), ref.Bucket.Key, ref.RetryAfter)
	}
}

// mustRefuse fails t unless Take is refused by the bucket named want, and returns the refusal.
func mustRefuse(t *testing.T, l ratelimit.Limiter, want string, buckets ...ratelimit.Bucket) *ratelimit.Refusal {
	t.Helper()
	ref, err := l.Take(t.Context(), buckets)
	if err != nil {
		t.Fatalf("Take(%v): %v", keys(buckets), err)
	}
	if ref == nil {
		t.Fatalf("Take(%v) took, want refused by %q", keys(buckets), want)
	}
	if ref.Bucket.Key != want {
		t.Fatalf("Take(%v) refused by %q, want by %q", keys(buckets), ref.Bucket.Key, want)
	}
	if ref.RetryAfter <= 0 {
		t.Fatalf("Take(%v): RetryAfter = %s, want > 0", keys(buckets), ref.RetryAfter)
	}
	return ref
}

func keys(buckets []ratelimit.Bucket) []string {
	out := make([]string, len(buckets))
	for i, b := range buckets {
		out[i] = b.Key
	}
	return out
}

// within fails t unless lo < d <= hi.
func within(t *testing.T, what string, d, lo, hi time.Duration) {
	t.Helper()
	if d <= lo || d > hi {
		t.Errorf("%s = %s, want more than %s and at most %s", what, d, lo, hi)
	}
}

func givesWhatItHoldsThenRefuses(t *testing.T, l ratelimit.Limiter) {
	b := hourly("a", 3)
	for range 3 {
		mustTake(t, l, b)
	}
	ref := mustRefuse(t, l, "a", b)
	// One of three per hour comes back every 20 minutes.
	within(t, "RetryAfter", ref.RetryAfter, 19*time.Minute, 20*time.Minute)
	if ref.Bucket != b {
		t.Errorf("Refusal.Bucket = %+v, want %+v", ref.Bucket, b)
	}
}

func takeIsAllOrNone(t *testing.T, l ratelimit.Limiter) {
	a, b := hourly("a", 1), hourly("b", 1)
	mustTake(t, l, a)
	mustRefuse(t, l, "a", b, a) // b, full before, is given back whole
	mustTake(t, l, b)
	mustRefuse(t, l, "b", b)
}

func refusedTakeKeepsOthersUse(t *testing.T, l ratelimit.Limiter) {
	a, c := hourly("a", 2), hourly("c", 1)
	mustTake(t, l, a) // a has one left
	mustTake(t, l, c)
	mustRefuse(t, l, "c", a, c) // a's one is taken, then given back
	mustTake(t, l, a)
	mustRefuse(t, l, "a", a)
}

func bucketsAreApart(t *testing.T, l ratelimit.Limiter) {
	for _, key := range []string{"tenant:x:rpm", "tenant:x:tpd", "tenant:y:rpm", "user:x:y:rpm"} {
		b := hourly(key, 1)
		mustTake(t, l, b)
		mustRefuse(t, l, key, b)
	}
}

func chargeWithinWhatItHolds(t *testing.T, l ratelimit.Limiter) {
	b := hourly("a", 10)
	for _, n := range []int{0, -3} {
		if err := l.Charge(t.Context(), []ratelimit.Bucket{b}, n); err != nil {
			t.Fatalf("Charge(%d): %v", n, err)
		}
	}
	if err := l.Charge(t.Context(), []ratelimit.Bucket{b}, 6); err != nil {
		t.Fatal(err)
	}
	for range 4 {
		mustTake(t, l, b)
	}
	mustRefuse(t, l, "a", b)
}

func chargeIntoDebt(t *testing.T, l ratelimit.Limiter) {
	a, b := hourly("a", 10), hourly("b", 100)
	if err := l.Charge(t.Context(), []ratelimit.Bucket{a, b}, 25); err != nil {
		t.Fatal(err)
	}
	// a is 15 in debt: one more takes the 16 that come back in 1.6 h.
	ref := mustRefuse(t, l, "a", a)
	within(t, "RetryAfter after the debt", ref.RetryAfter, 95*time.Minute, 96*time.Minute)
	// b had room for all of it.
	for range 75 {
		mustTake(t, l, b)
	}
	mustRefuse(t, l, "b", b)
}

func refillsWithTime(t *testing.T, l ratelimit.Limiter) {
	b := ratelimit.Bucket{Key: "a", Limit: 1, Period: 200 * time.Millisecond}
	mustTake(t, l, b)
	ref := mustRefuse(t, l, "a", b)
	within(t, "RetryAfter", ref.RetryAfter, 0, 200*time.Millisecond)
	time.Sleep(ref.RetryAfter + 10*time.Millisecond)
	mustTake(t, l, b)
}

func concurrentTakesNeverOvertake(t *testing.T, l ratelimit.Limiter) {
	a, b := hourly("a", 10), hourly("b", 25)
	var taken, errs atomic.Int32
	var wg sync.WaitGroup
	for range 40 {
		wg.Go(func() {
			ref, err := l.Take(t.Context(), []ratelimit.Bucket{b, a})
			switch {
			case err != nil:
				t.Error(err)
				errs.Add(1)
			case ref == nil:
				taken.Add(1)
			}
		})
	}
	wg.Wait()
	if errs.Load() > 0 {
		return
	}
	if n := taken.Load(); n != 10 {
		t.Fatalf("%d of 40 concurrent Takes took from a bucket of 10, want 10", n)
	}
	// The 30 refused gave b back what they took: 15 are left.
	for range 15 {
		mustTake(t, l, b)
	}
	mustRefuse(t, l, "b", b)
}

func invalidBucketsAreErrors(t *testing.T, l ratelimit.Limiter) {
	for _, b := range []ratelimit.Bucket{
		{Key: "", Limit: 1, Period: time.Minute},
		{Key: "a", Limit: 0, Period: time.Minute},
		{Key: "a", Limit: -1, Period: time.Minute},
		{Key: "a", Limit: 1, Period: 0},
	} {
		if ref, err := l.Take(t.Context(), []ratelimit.Bucket{hourly("ok", 1), b}); err == nil {
			t.Errorf("Take of %+v: refusal %+v, no error; want an error", b, ref)
		}
		if err := l.Charge(t.Context(), []ratelimit.Bucket{b}, 1); err == nil {
			t.Errorf("Charge of %+v: no error, want one", b)
		}
	}
	mustTake(t, l, hourly("ok", 1)) // the invalid Takes took nothing
}

func cancelledContextIsAnError(t *testing.T, l ratelimit.Limiter) {
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := l.Take(ctx, []ratelimit.Bucket{hourly("a", 1)}); err == nil {
		t.Error("Take with a cancelled context: no error, want one")
	}
	if err := l.Charge(ctx, []ratelimit.Bucket{hourly("a", 1)}, 1); err == nil {
		t.Error("Charge with a cancelled context: no error, want one")
	}
}
