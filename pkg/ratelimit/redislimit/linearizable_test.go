package redislimit_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cadrehq/cadre/internal/redistest"
	"github.com/cadrehq/cadre/pkg/ratelimit"
	"github.com/cadrehq/cadre/pkg/ratelimit/ratelimittest"
	"github.com/cadrehq/cadre/pkg/ratelimit/redislimit"
	"github.com/go-redis/redis_rate/v10"
	"github.com/redis/go-redis/v9"
)

// The environment of a process of a linearizability check (TestLinearizabilityProcess):
// the limiter it runs (a name of limiterOf), and the prefix of its keys.
const (
	processLimiter = "CADRE_REDISLIMIT_PROCESS_LIMITER"
	processPrefix  = "CADRE_REDISLIMIT_PROCESS_PREFIX"
)

// The sizes of a history: goroutines in each of the two processes, and calls of each.
const clientsEach, callsEach = 3, 8

// checkTimeout bounds porcupine's search in one history, which takes milliseconds.
const checkTimeout = time.Minute

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

// TestLimiterIsLinearizable: two processes, each with goroutines of its own, call one
// Redis's buckets at once, in random histories of ratelimittest.Workload. A bucket of 5 an
// hour refills one in 12 minutes, and a history takes milliseconds: the buckets do not
// refill within one. Takes and Charges on one bucket at a time are linearizable against a
// counter per bucket (porcupine); Takes across buckets, taken bucket by bucket and given
// back on a refusal, are not meant to be, and hold ratelimittest.CheckInvariants instead.
func TestLimiterIsLinearizable(t *testing.T) {
	t.Parallel()
	c := startCheck(t, "redislimit")
	n := histories(t, 40)
	var tally, single, multi ratelimittest.Tally
	overlapping := 0
	start := time.Now()
	for h := range n {
		w, history, remaining := c.history(t, h)
		tally.Add(history)
		overlapping += overlaps(history)
		s, m := w.SingleOps(history), w.MultiOps(history)
		single.Add(s)
		multi.Add(m)
		if err := ratelimittest.CheckLinearizable(s, checkTimeout); err != nil {
			t.Fatalf("history %d of seed %d: %v", h, c.seed, err)
		}
		if err := ratelimittest.CheckInvariants(m, remaining); err != nil {
			t.Fatalf("history %d of seed %d: %v", h, c.seed, err)
		}
	}
	if overlapping == 0 {
		t.Fatal("no call of one process overlapped a call of the other: the histories tested no concurrency across processes")
	}
	t.Logf("figures: limiter linearizability, redislimit (2 processes × %d goroutines, one Redis): %v; %d calls overlapping one of the other process; calls on the buckets used one at a time, checked with porcupine: %d, on the buckets Takes share, checked for the invariants: %d; in %s",
		clientsEach, tally, overlapping, single.Ops, multi.Ops, time.Since(start).Round(time.Millisecond))
}

// TestLinearizabilityCatchesBrokenLimiters: the checks of TestLimiterIsLinearizable, across
// two processes, find the defects they are for in limiters that have them.
func TestLinearizabilityCatchesBrokenLimiters(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, limiter string
		check         func(w ratelimittest.Workload, history []ratelimittest.Op, remaining map[string]int) error
	}{
		// Reads what a bucket used, then writes: more Takes admitted than a bucket holds.
		{"a Take that reads then writes", "readThenWrite", func(w ratelimittest.Workload, history []ratelimittest.Op, _ map[string]int) error {
			return ratelimittest.CheckLinearizable(w.SingleOps(history), checkTimeout)
		}},
		// redislimit's give-back before it was one script: a take of another caller that
		// lands between its two round trips is erased.
		{"a give-back in two round trips", "twoStepGiveBack", func(w ratelimittest.Workload, history []ratelimittest.Op, remaining map[string]int) error {
			return ratelimittest.CheckInvariants(w.MultiOps(history), remaining)
		}},
		// Takes across buckets that keep what they took from the buckets before the one
		// that refuses.
		{"no give-back", "noGiveBack", func(w ratelimittest.Workload, history []ratelimittest.Op, remaining map[string]int) error {
			return ratelimittest.CheckInvariants(w.MultiOps(history), remaining)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := startCheck(t, tc.limiter)
			const tries = 2000
			for h := range tries {
				w, history, remaining := c.history(t, h)
				err := tc.check(w, history, remaining)
				if errors.Is(err, ratelimittest.ErrUndecided) {
					t.Fatal(err)
				}
				if err != nil {
					t.Logf("history %d of seed %d: found, as it should be: %.600s", h, c.seed, err)
					return
				}
			}
			t.Errorf("%d histories of %s (seed %d) pass the check: it would not catch the defect", tries, tc.limiter, c.seed)
		})
	}
}

// check runs histories on a limiter in this process and in another, on one Redis.
type check struct {
	seed  uint64
	rng   *rand.Rand
	lim   ratelimit.Limiter // this process's
	other *process
}

// startCheck starts a check of the limiter named limiter (see limiterOf), and the other
// process of it, on keys of the test's own.
func startCheck(t *testing.T, limiter string) *check {
	t.Helper()
	if !haveMonotonic {
		t.Skip("no clock that processes share on this system (CLOCK_MONOTONIC)")
	}
	rdb := redistest.Client(t)
	prefix := redistest.Prefix(t, rdb)
	c := &check{seed: rand.Uint64(), lim: limiterOf(limiter, rdb, prefix)}
	c.rng = rand.New(rand.NewPCG(c.seed, 0))
	c.other = startProcess(t, limiter, prefix)
	return c
}

// history runs the h-th history: a Workload of its own, whose Ops the goroutines of both
// processes run at once. It returns the Workload, the history merged, and what the Workload's
// Multi buckets have left after it.
func (c *check) history(t *testing.T, h int) (ratelimittest.Workload, []ratelimittest.Op, map[string]int) {
	t.Helper()
	w := ratelimittest.NewWorkload(c.rng, fmt.Sprint("h", h))
	plan := w.Plan(c.rng, 2*clientsEach, callsEach)
	before := monotonic()
	c.other.send(t, plan[clientsEach:])
	history := ratelimittest.Record(t.Context(), c.lim, monotonic, plan[:clientsEach])
	theirs := c.other.receive(t)
	after := monotonic()
	for _, op := range theirs {
		if op.Call < before || op.Return > after || op.Call > op.Return {
			t.Fatalf("the other process stamped %v, outside [%d, %d], when this one sent its calls and got them back: the processes do not share a clock", op, before, after)
		}
	}
	history = append(history, theirs...)
	for _, op := range history {
		if op.Err != "" {
			t.Fatalf("history %d: %v", h, op)
		}
	}
	remaining := map[string]int{}
	for _, b := range w.Multi {
		n, err := ratelimittest.Remaining(t.Context(), c.lim, b)
		if err != nil {
			t.Fatal(err)
		}
		remaining[b.Key] = n
	}
	return w, history, remaining
}

// overlaps counts the calls of history that overlap in time a call of the other process
// (clients clientsEach and up are the other's).
func overlaps(history []ratelimittest.Op) int {
	n := 0
	for _, a := range history {
		for _, b := range history {
			if a.Client < clientsEach && b.Client >= clientsEach && a.Call <= b.Return && b.Call <= a.Return {
				n++
				break
			}
		}
	}
	return n
}

// process is the other process of a check: for each line it reads, the JSON of its clients'
// Ops, it runs them and writes a line, "history: " and the JSON of the Ops run.
type process struct {
	in   io.WriteCloser
	out  *bufio.Scanner
	logs *strings.Builder // its stderr, and the lines of its stdout that are not histories
	stop func() error
}

func startProcess(t *testing.T, limiter, prefix string) *process {
	t.Helper()
	// Killed when the test ends, after the cleanup below has let it end by itself.
	ctx, kill := context.WithCancel(context.Background())
	t.Cleanup(kill)
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestLinearizabilityProcess$", "-test.count=1", "-test.timeout=30m")
	cmd.Env = append(os.Environ(), processLimiter+"="+limiter, processPrefix+"="+prefix, "CADRE_REDIS_ADDR="+redistest.Addr(t))
	cmd.WaitDelay = 5 * time.Second
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	p := &process{in: in, out: bufio.NewScanner(out), logs: &strings.Builder{}}
	p.out.Buffer(nil, 1<<24)
	cmd.Stderr = p.logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p.stop = sync.OnceValue(func() error {
		in.Close()
		return cmd.Wait()
	})
	t.Cleanup(func() {
		if err := p.stop(); err != nil {
			t.Errorf("the other process: %v\n%s", err, p.logs)
		}
	})
	return p
}

func (p *process) send(t *testing.T, clients [][]ratelimittest.Op) {
	t.Helper()
	line, err := json.Marshal(clients)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.in.Write(append(line, '\n')); err != nil {
		t.Fatalf("the other process does not read: %v\n%s", err, p.logs)
	}
}

func (p *process) receive(t *testing.T) []ratelimittest.Op {
	t.Helper()
	for p.out.Scan() {
		if line, ok := strings.CutPrefix(p.out.Text(), "history: "); ok {
			var history []ratelimittest.Op
			if err := json.Unmarshal([]byte(line), &history); err != nil {
				t.Fatalf("the other process's history: %v", err)
			}
			return history
		}
		p.logs.WriteString(p.out.Text() + "\n")
	}
	err := p.stop()
	t.Fatalf("the other process ended (%v, %v):\n%s", p.out.Err(), err, p.logs)
	return nil
}

// TestLinearizabilityProcess is the other process of a linearizability check, when a test of
// this file runs this test binary as one.
func TestLinearizabilityProcess(t *testing.T) {
	name := os.Getenv(processLimiter)
	if name == "" {
		t.Skip("the other process of TestLimiterIsLinearizable and TestLinearizabilityCatchesBrokenLimiters")
	}
	rdb := redistest.Client(t)
	lim := limiterOf(name, rdb, os.Getenv(processPrefix))
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(nil, 1<<24)
	for in.Scan() {
		var clients [][]ratelimittest.Op
		if err := json.Unmarshal(in.Bytes(), &clients); err != nil {
			t.Fatal(err)
		}
		out, err := json.Marshal(ratelimittest.Record(t.Context(), lim, monotonic, clients))
		if err != nil {
			t.Fatal(err)
		}
		fmt.Printf("history: %s\n", out)
	}
}

// limiterOf returns the limiter named name on rdb, its keys starting with prefix: redislimit,
// or one of the broken limiters that prove the checks can fail.
func limiterOf(name string, rdb *redis.Client, prefix string) ratelimit.Limiter {
	shared := redislimit.New(rdb, redislimit.WithPrefix(prefix))
	switch name {
	case "redislimit":
		return shared
	case "readThenWrite":
		return &readThenWrite{rdb: rdb, prefix: prefix}
	case "twoStepGiveBack":
		return &takeAcross{Limiter: shared, rl: redis_rate.NewLimiter(rdb), prefix: prefix, giveBack: true}
	case "noGiveBack":
		return &takeAcross{Limiter: shared, rl: redis_rate.NewLimiter(rdb), prefix: prefix}
	}
	panic("no limiter " + name)
}

// readThenWrite keeps a count of what each bucket used, and takes in two round trips: it
// reads the counts, then adds to them.
type readThenWrite struct {
	rdb    *redis.Client
	prefix string
}

func (l *readThenWrite) Take(ctx context.Context, buckets []ratelimit.Bucket) (*ratelimit.Refusal, error) {
	for _, b := range buckets {
		used, err := l.rdb.Get(ctx, l.prefix+b.Key).Int()
		if err != nil && !errors.Is(err, redis.Nil) {
			return nil, err
		}
		if used >= b.Limit {
			return &ratelimit.Refusal{Bucket: b, RetryAfter: b.Period}, nil
		}
	}
	return nil, l.Charge(ctx, buckets, 1)
}

func (l *readThenWrite) Charge(ctx context.Context, buckets []ratelimit.Bucket, n int) error {
	for _, b := range buckets {
		if err := l.rdb.IncrBy(ctx, l.prefix+b.Key, int64(max(n, 0))).Err(); err != nil {
			return err
		}
	}
	return nil
}

// takeAcross is redislimit's Limiter but for Takes across buckets: it takes them one by one
// with redis_rate, as redislimit does, and on a refusal gives back what it took the way
// redislimit did before its give-back was one script — AllowN of -1, then, when that leaves
// the bucket full, a DEL in a second round trip — or, without giveBack, not at all.
type takeAcross struct {
	*redislimit.Limiter
	rl       *redis_rate.Limiter
	prefix   string
	giveBack bool
}

func (l *takeAcross) Take(ctx context.Context, buckets []ratelimit.Bucket) (*ratelimit.Refusal, error) {
	for i, b := range buckets {
		lim := redis_rate.Limit{Rate: b.Limit, Burst: b.Limit, Period: b.Period}
		res, err := l.rl.AllowN(ctx, l.prefix+b.Key, lim, 1)
		if err != nil {
			return nil, err
		}
		if res.Allowed > 0 {
			continue
		}
		for _, g := range buckets[:i] {
			if !l.giveBack {
				break
			}
			lim := redis_rate.Limit{Rate: g.Limit, Burst: g.Limit, Period: g.Period}
			res, err := l.rl.AllowN(ctx, l.prefix+g.Key, lim, -1)
			if err == nil && res.ResetAfter <= 0 {
				err = l.rl.Reset(ctx, l.prefix+g.Key)
			}
			if err != nil {
				return nil, err
			}
		}
		return &ratelimit.Refusal{Bucket: b, RetryAfter: max(res.RetryAfter, time.Millisecond)}, nil
	}
	return nil, nil
}
