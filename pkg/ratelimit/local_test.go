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
