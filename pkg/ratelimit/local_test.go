package ratelimit_test

import (
	"fmt"
	"testing"
	"testing/synctest"
	"time"

	"github.com/cadrehq/cadre/pkg/ratelimit"
	"github.com/cadrehq/cadre/pkg/ratelimit/ratelimittest"
)

func TestLocal(t *testing.T) {
	ratelimittest.Run(t, func(*testing.T) ratelimit.Limiter { return ratelimit.NewLocal() })
}

func TestLocalZeroValueIsReady(t *testing.T) {
	t.Parallel()
	ratelimittest.Run(t, func(*testing.T) ratelimit.Limiter { return new(ratelimit.Local) })
}

func TestLocalDropsFullBuckets(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		l := ratelimit.NewLocal()
		take := func(key string, period time.Duration) {
			t.Helper()
			if ref, err := l.Take(t.Context(), []ratelimit.Bucket{{Key: key, Limit: 1, Period: period}}); err != nil || ref != nil {
				t.Fatalf("Take(%q) = %+v, %v; want taken", key, ref, err)
			}
		}
		for i := range 100 {
			take(fmt.Sprint("busy", i), time.Hour)
		}
		// Ten rounds of 1000 callers each, who do not come back: at most 1100 buckets are in
		// use at once, and Local holds at most twice the buckets in use at its last sweep.
		for round := range 10 {
			for i := range 1000 {
				take(fmt.Sprintf("round%d-%d", round, i), time.Second)
			}
			time.Sleep(time.Second) // the round's buckets are full again
			if n := ratelimit.BucketsHeld(l); n > 2200 {
				t.Fatalf("after round %d Local holds %d buckets, want at most 2200: twice the 1100 in use", round, n)
			}
		}
		// A dropped bucket was a full one: taking from it again works as from a new one.
		take("round0-0", time.Second)
	})
}

// A charge larger than a bucket's limit puts it in debt, and the bucket holds no more than its
// limit once the debt is paid back.
func TestLocalDebtLeavesTheLimitAsItWas(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		l := ratelimit.NewLocal()
		b := ratelimit.Bucket{Key: "a", Limit: 2, Period: time.Minute}
		if err := l.Charge(t.Context(), []ratelimit.Bucket{b}, 10); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Hour) // long enough to refill ten times over
		for i := range 3 {
			ref, err := l.Take(t.Context(), []ratelimit.Bucket{b})
			if err != nil || (ref == nil) != (i < 2) {
				t.Fatalf("Take %d = %+v, %v; want the first two taken and the third refused", i+1, ref, err)
			}
		}
	})
}

// New limits for a key (a program deployed with others) hold from the next Take on, and
// carry over what the bucket had given.
func TestLocalNewLimitsHoldAtOnce(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		l := ratelimit.NewLocal()
		take := func(b ratelimit.Bucket) *ratelimit.Refusal {
			t.Helper()
			ref, err := l.Take(t.Context(), []ratelimit.Bucket{b})
			if err != nil {
				t.Fatal(err)
			}
			return ref
		}
		// Lowered from 5 to 2: one taken before, at most two now.
		take(ratelimit.Bucket{Key: "lowered", Limit: 5, Period: time.Hour})
		lowered := ratelimit.Bucket{Key: "lowered", Limit: 2, Period: time.Hour}
		for range 2 {
			if ref := take(lowered); ref != nil {
				t.Fatalf("Take under the lowered limit refused: %+v", ref)
			}
		}
		if ref := take(lowered); ref == nil {
			t.Fatal("a third Take under a limit of 2 was taken")
		}
		// Used up at 2 an hour, then 2 a minute: it refills at the new rate.
		hourly := ratelimit.Bucket{Key: "faster", Limit: 2, Period: time.Hour}
		take(hourly)
		take(hourly)
		if ref := take(ratelimit.Bucket{Key: "faster", Limit: 2, Period: time.Minute}); ref == nil || ref.RetryAfter != 30*time.Second {
			t.Fatalf("Take at 2 a minute of a used-up bucket = %+v, want refused for 30s", ref)
		}
	})
}
