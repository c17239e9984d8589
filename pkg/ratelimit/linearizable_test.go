package ratelimit_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/cadrehq/cadre/pkg/ratelimit"
	"github.com/cadrehq/cadre/pkg/ratelimit/ratelimittest"
)

// histories is how many histories a linearizability check runs: CADRE_LIMITER_HISTORIES
// (scripts/reliability sets it), or def.
func histories(t *testing.T, def int) int {
	t.Helper()
	s := os.Getenv("CADRE_LIMITER_HISTORIES")
	if s == "" {
		return def
	}
	n, err := strconv.Atoi(s)
	if err != nil || n <= 0 {
		t.Fatalf("CADRE_LIMITER_HISTORIES=%q: want a positive number of histories", s)
	}
	return n
}

// The sizes of a history: goroutines, and calls of each.
const clients, callsEach = 4, 8

// checkTimeout bounds porcupine's search in one history of clients*callsEach calls, which
// takes milliseconds.
const checkTimeout = time.Minute

// bubbleHistory records a history of w's calls on the limiter open returns, from clients
// goroutines at once, inside a testing/synctest bubble, where time stands still: the buckets
// do not refill, as the model of ratelimittest's checks has it. It returns the history and
// what each of w's Multi buckets has left after it.
//
// In the bubble time.Now does not move, so the calls are stamped with a logical clock
// instead: a counter that each call increments just before it starts and just after it
// returns. A call that returned before another was called has incremented the counter at its
// return before the other did at its call, so its Return is smaller than the other's Call —
// the real-time order porcupine needs between calls that do not overlap; calls that overlap
// get overlapping stamps.
func bubbleHistory(t *testing.T, open func() ratelimit.Limiter, w ratelimittest.Workload, plan [][]ratelimittest.Op) (history []ratelimittest.Op, remaining map[string]int) {
	t.Helper()
	synctest.Test(t, func(t *testing.T) {
		var counter atomic.Int64
		clock := func() int64 { return counter.Add(1) }
		start := time.Now()
		l := open()
		history = ratelimittest.Record(t.Context(), l, clock, plan)
		remaining = map[string]int{}
		for _, b := range w.Multi {
			n, err := ratelimittest.Remaining(t.Context(), l, b)
			if err != nil {
				t.Fatal(err)
			}
			remaining[b.Key] = n
		}
		if !time.Now().Equal(start) {
			t.Fatal("time moved in the bubble: the buckets may have refilled")
		}
	})
	return history, remaining
}

// TestLocalIsLinearizable: Local's Takes, across buckets too, and Charges, from goroutines at
// once, in random histories, are linearizable against a counter per bucket, and its Takes
// hold the invariants redislimit is held to.
func TestLocalIsLinearizable(t *testing.T) {
	t.Parallel()
	n := histories(t, 200)
	seed := rand.Uint64()
	rng := rand.New(rand.NewPCG(seed, 0))
	var tally ratelimittest.Tally
	start := time.Now()
	for h := range n {
		w := ratelimittest.NewWorkload(rng, fmt.Sprint("h", h))
		history, remaining := bubbleHistory(t, func() ratelimit.Limiter { return ratelimit.NewLocal() }, w, w.Plan(rng, clients, callsEach))
		if t.Failed() {
			return
		}
		tally.Add(history)
		if err := ratelimittest.CheckLinearizable(history, checkTimeout); err != nil {
			t.Fatalf("history %d of seed %d: %v", h, seed, err)
		}
		if err := ratelimittest.CheckInvariants(w.MultiOps(history), remaining); err != nil {
			t.Fatalf("history %d of seed %d: %v", h, seed, err)
		}
	}
	t.Logf("figures: limiter linearizability, Local (goroutines in a synctest bubble): %v, each checked whole with porcupine and for the invariants, in %s",
		tally, time.Since(start).Round(time.Millisecond))
}

// TestLinearizabilityCatchesARace: the check of TestLocalIsLinearizable finds a limiter that
// reads what a bucket has used and writes it back in two steps, letting other goroutines run
// between them, not linearizable.
func TestLinearizabilityCatchesARace(t *testing.T) {
	t.Parallel()
	seed := rand.Uint64()
	rng := rand.New(rand.NewPCG(seed, 0))
	const tries = 200
	for h := range tries {
		w := ratelimittest.NewWorkload(rng, fmt.Sprint("h", h))
		history, _ := bubbleHistory(t, func() ratelimit.Limiter { return &racy{used: map[string]int{}} }, w, w.Plan(rng, clients, callsEach))
		if t.Failed() {
			return
		}
		err := ratelimittest.CheckLinearizable(history, checkTimeout)
		if errors.Is(err, ratelimittest.ErrUndecided) {
			t.Fatal(err)
		}
		if err != nil {
			t.Logf("history %d of seed %d is not linearizable, as it should not be: %v", h, seed, err)
			return
		}
	}
	t.Errorf("%d histories of a racy limiter (seed %d) all linearizable: the check would not catch a race", tries, seed)
}

// racy is a Limiter with the defect a linearizability check is for: a Take reads what its
// buckets have used, lets other goroutines run, and then writes what it took.
type racy struct {
	mu   sync.Mutex
	used map[string]int
}

func (r *racy) Take(_ context.Context, buckets []ratelimit.Bucket) (*ratelimit.Refusal, error) {
	r.mu.Lock()
	var refusal *ratelimit.Refusal
	for _, b := range buckets {
		if r.used[b.Key] >= b.Limit {
			refusal = &ratelimit.Refusal{Bucket: b, RetryAfter: b.Period}
			break
		}
	}
	r.mu.Unlock()
	if refusal != nil {
		return refusal, nil
	}
	runtime.Gosched()
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, b := range buckets {
		r.used[b.Key]++
	}
	return nil, nil
}

func (r *racy) Charge(_ context.Context, buckets []ratelimit.Bucket, n int) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, b := range buckets {
		r.used[b.Key] += max(n, 0)
	}
	return nil
}
