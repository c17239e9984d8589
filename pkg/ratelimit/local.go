package ratelimit

import (
	"context"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// Local is a Limiter that keeps its buckets in the process, each a golang.org/x/time/rate
// Limiter: for one instance of a program, or for limits that each instance keeps for itself.
// Processes that must share limits use a limiter kept in Redis (package redislimit).
//
// Local holds a bucket only while it is not full: a full bucket is the same as a new one, so
// Local drops full buckets whenever its number of buckets has doubled since it last did. Its
// memory is therefore bounded by the callers active within a period — the last minute for
// requests, the last day for tokens — about 200 bytes a bucket, times two at most.
//
// Local is safe for concurrent use. Its zero value is ready to use; NewLocal returns one.
type Local struct {
	mu      sync.Mutex // guards what follows, so that a Take across buckets is atomic
	buckets map[string]*localBucket
	kept    int // how many buckets the last sweep kept
}

// localBucket is one bucket of a Local.
type localBucket struct {
	lim    *rate.Limiter
	limit  int
	period time.Duration
}

// NewLocal returns an empty Local.
func NewLocal() *Local { return &Local{} }

// Take takes one from each of buckets, or from none of them (see Limiter). It reads the time
// with time.Now, so that a test can run it in a testing/synctest bubble.
func (l *Local) Take(ctx context.Context, buckets []Bucket) (*Refusal, error) {
	if err := check(ctx, buckets); err != nil {
		return nil, err
	}
	now := time.Now()
	l.mu.Lock()
	defer l.mu.Unlock()
	taken := make([]*rate.Reservation, 0, len(buckets))
	for _, b := range buckets {
		r := l.bucket(b, now).ReserveN(now, 1)
		if d := r.DelayFrom(now); d > 0 {
			r.CancelAt(now)
			for i := len(taken) - 1; i >= 0; i-- {
				taken[i].CancelAt(now) // exact: no reservation came after, under l.mu
			}
			return &Refusal{Bucket: b, RetryAfter: d}, nil
		}
		taken = append(taken, r)
	}
	l.sweep(now)
	return nil, nil
}

// Charge takes n more from each of buckets, into debt if need be (see Limiter).
func (l *Local) Charge(ctx context.Context, buckets []Bucket, n int) error {
	if n <= 0 {
		return nil
	}
	if err := check(ctx, buckets); err != nil {
		return err
	}
	now := time.Now()
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, b := range buckets {
		// A reservation that is never cancelled: what it takes beyond the tokens held is the
		// debt. rate.Limiter reserves at most its burst at once, so the burst is raised for
		// the charge, under l.mu, and set back: that keeps the debt.
		lim := l.bucket(b, now)
		lim.SetBurstAt(now, max(n, b.Limit))
		lim.ReserveN(now, n)
		lim.SetBurstAt(now, b.Limit)
	}
	l.sweep(now)
	return nil
}

// check returns the error of the first invalid bucket, or ctx's error.
func check(ctx context.Context, buckets []Bucket) error {
	for _, b := range buckets {
		if err := b.Check(); err != nil {
			return err
		}
	}
	return ctx.Err()
}

// bucket returns the rate.Limiter of b, made full when the key is new. l.mu is held.
func (l *Local) bucket(b Bucket, now time.Time) *rate.Limiter {
	if l.buckets == nil {
		l.buckets = map[string]*localBucket{}
	}
	every := rate.Limit(float64(b.Limit) / b.Period.Seconds())
	lb := l.buckets[b.Key]
	switch {
	case lb == nil:
		lb = &localBucket{lim: rate.NewLimiter(every, b.Limit), limit: b.Limit, period: b.Period}
		l.buckets[b.Key] = lb
	case lb.limit != b.Limit || lb.period != b.Period: // a key given other limits: keep what is used
		lb.lim.SetLimitAt(now, every)
		lb.lim.SetBurstAt(now, b.Limit)
		lb.limit, lb.period = b.Limit, b.Period
	}
	return lb.lim
}

// sweep drops the full buckets once their number has doubled since the last sweep, so that
// the work of sweeping is spread over the Takes and Charges that added them. l.mu is held.
func (l *Local) sweep(now time.Time) {
	if len(l.buckets) < 2*max(l.kept, 64) {
		return
	}
	for key, lb := range l.buckets {
		if lb.lim.TokensAt(now) >= float64(lb.limit) {
			delete(l.buckets, key)
		}
	}
	l.kept = len(l.buckets)
}

// size is the number of buckets held, for tests.
func (l *Local) size() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.buckets)
}
