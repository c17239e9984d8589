package ratelimit

import (
	"context"
	"fmt"
	"log/slog"
	"net/url"
	"reflect"
	"sync"
	"time"

	"github.com/cadrehq/cadre/pkg/assistant"
	"github.com/cadrehq/cadre/pkg/model"
)

// Middleware returns the assistant.Middleware that holds every model request of the runs it
// wraps to limits, for the caller in the run's context (WithCaller; a run without one is
// tenant "" and user "", whose buckets all unidentified runs share), with the buckets of l.
// Give it to the top assistant (assistant.WithMiddleware), or to one run in Input.Options: it
// wraps the runs the tree delegates to as well, so that their requests count for the same
// caller.
//
// Before a request is sent it takes one request from the caller's tenant and user buckets of
// requests per minute, and one token from their buckets of tokens per day, all or none. When
// a bucket has no room the request waits, up to limits.MaxWait, and then fails with an *Error
// that ends the whole tree as a usage limit does: no fallback to the chain's next model. After
// the reply, its other tokens (usage.Usage.TotalTokens, less the one taken) are charged.
//
// A request is counted once: a turn that falls back to the chain's next model is one request,
// as in the run's usage; HTTP retries are below the seam, in the model's transport; a request
// refused, or waiting, takes nothing; and when two middlewares of the same Limiter (compared
// with ==) wrap the same run — one given to a supervisor, one to the specialist it delegates
// to — the outer one counts. The middleware's Run step keeps what a run's turns have counted:
// use the Middleware as returned, not its Request step alone.
//
// Middleware panics when l is nil or limits.Validate fails: both are the program's to fix.
// With limits that limit nothing it returns an empty Middleware, which costs nothing.
func Middleware(l Limiter, limits Limits, opts ...Option) assistant.Middleware {
	if l == nil {
		panic("ratelimit: Middleware needs a Limiter: ratelimit.NewLocal() for one process, redislimit.New(rdb) for many")
	}
	if err := limits.Validate(); err != nil {
		panic(err)
	}
	if limits.IsZero() {
		return assistant.Middleware{}
	}
	m := &middleware{lim: l, limits: limits}
	m.id = any(m)
	if reflect.TypeOf(l).Comparable() {
		m.id = l
	}
	for _, opt := range opts {
		opt(m)
	}
	return assistant.Middleware{Run: m.run, Request: m.request}
}

// Option configures Middleware.
type Option func(*middleware)

// WithErrorHandler has Middleware call h when a reply's tokens could not be charged (a Redis
// that does not answer): the reply stands, since it was paid for, and its tokens are not
// counted. h is called on the run's goroutine, from many at once. Without it the error is
// logged with slog.Default().
func WithErrorHandler(h func(ctx context.Context, err error)) Option {
	return func(m *middleware) { m.onError = h }
}

// middleware is the state of one Middleware: immutable after Middleware returns.
type middleware struct {
	lim     Limiter
	limits  Limits
	id      any // the limiter, or the middleware when the limiter cannot be compared
	onError func(ctx context.Context, err error)
}

// run gives the run's requests a record of the turns they counted, unless an outer
// middleware already gave this run one.
func (m *middleware) run(ctx context.Context, info assistant.RunInfo, next assistant.RunNext) (*assistant.Response, error) {
	if t, _ := ctx.Value(turnsKey{}).(*turns); t == nil || t.runID != info.RunID {
		ctx = context.WithValue(ctx, turnsKey{}, &turns{runID: info.RunID})
	}
	return next(ctx)
}

// request takes the request from the caller's buckets, unless its turn has already been
// counted, sends it, and charges the reply's tokens.
func (m *middleware) request(ctx context.Context, req *assistant.ModelRequest, next assistant.RequestNext) (model.Reply, error) {
	mark := countedKey{m.id}
	if ctx.Value(mark) != nil {
		return next(ctx, req) // an outer middleware of the same limiter counts this request
	}
	ctx = context.WithValue(ctx, mark, true)
	c, _ := CallerFrom(ctx)
	slots, tokens := m.buckets(c)
	t, _ := ctx.Value(turnsKey{}).(*turns)
	if t == nil || t.runID != req.RunID {
		t = nil // Request used without Run: every request counts
	}
	if !t.counted(m.id, req.Attempt) {
		if err := m.take(ctx, req.Assistant, c, slots); err != nil {
			return model.Reply{}, err
		}
		t.count(m.id, req.Attempt)
	}
	reply, err := next(ctx, req)
	if err == nil && len(tokens) > 0 {
		m.charge(ctx, c, tokens, reply.Usage.TotalTokens()-1) // the request took one token
	}
	return reply, err
}

// slot is a bucket of a caller, with the limit it keeps.
type slot struct {
	Bucket
	scope, limit string
}

// buckets returns the caller's buckets with a limit: those a request takes from, and the
// tokens' among them, which its reply is charged to.
func (m *middleware) buckets(c Caller) (slots []slot, tokens []Bucket) {
	tenant := "tenant:" + url.QueryEscape(c.Tenant) + ":"
	user := "user:" + url.QueryEscape(c.Tenant) + ":" + url.QueryEscape(c.User) + ":"
	add := func(key string, limit int, period time.Duration, scope, name string) {
		if limit > 0 {
			slots = append(slots, slot{Bucket{Key: key, Limit: limit, Period: period}, scope, name})
		}
	}
	add(tenant+"rpm", m.limits.Tenant.RequestsPerMinute, time.Minute, ScopeTenant, LimitRequestsPerMinute)
	add(user+"rpm", m.limits.User.RequestsPerMinute, time.Minute, ScopeUser, LimitRequestsPerMinute)
	add(tenant+"tpd", m.limits.Tenant.TokensPerDay, 24*time.Hour, ScopeTenant, LimitTokensPerDay)
	add(user+"tpd", m.limits.User.TokensPerDay, 24*time.Hour, ScopeUser, LimitTokensPerDay)
	for _, s := range slots {
		if s.limit == LimitTokensPerDay {
			tokens = append(tokens, s.Bucket)
		}
	}
	return slots, tokens
}

// take takes one from each of slots, waiting for room up to MaxWait and the context's
// deadline, or returns an *Error naming the limit that had none.
func (m *middleware) take(ctx context.Context, agent string, c Caller, slots []slot) error {
	buckets := make([]Bucket, len(slots))
	for i, s := range slots {
		buckets[i] = s.Bucket
	}
	var deadline time.Time // MaxWait after the first refusal
	for {
		ref, err := m.lim.Take(ctx, buckets)
		if err != nil {
			if cerr := ctx.Err(); cerr != nil {
				return cerr
			}
			return fmt.Errorf("ratelimit: taking a request of tenant %q, user %q: %w (is the limiter's store reachable?)", c.Tenant, c.User, err)
		}
		if ref == nil {
			return nil
		}
		now := time.Now()
		if deadline.IsZero() {
			deadline = now.Add(m.limits.MaxWait)
		}
		at := now.Add(ref.RetryAfter)
		if d, ok := ctx.Deadline(); at.After(deadline) || ok && !at.Before(d) {
			return refused(agent, c, slots, ref)
		}
		if err := sleep(ctx, ref.RetryAfter); err != nil {
			return err
		}
	}
}

// refused returns the Error of the slot that ref names.
func refused(agent string, c Caller, slots []slot, ref *Refusal) *Error {
	s := slots[0]
	for _, t := range slots {
		if t.Key == ref.Bucket.Key {
			s = t
			break
		}
	}
	return newError(agent, c, s.scope, s.limit, s.Limit, ref.RetryAfter)
}

// sleep waits d, or until ctx is done.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// charge charges n tokens to the token buckets. The reply arrived: the charge is made even
// when the run is being cancelled.
func (m *middleware) charge(ctx context.Context, c Caller, tokens []Bucket, n int) {
	if n <= 0 {
		return
	}
	err := m.lim.Charge(context.WithoutCancel(ctx), tokens, n)
	if err == nil {
		return
	}
	err = fmt.Errorf("ratelimit: charging %d tokens to tenant %q, user %q: %w (the tokens are not counted)", n, c.Tenant, c.User, err)
	if m.onError != nil {
		m.onError(ctx, err)
		return
	}
	slog.Default().WarnContext(ctx, "ratelimit: a reply's tokens were not charged", "err", err)
}

// countedKey marks the context of a request that a middleware of the limiter counts.
type countedKey struct{ limiter any }

// turnsKey is the context key of a run's turns.
type turnsKey struct{}

// turns records, for one run, the turn whose request each limiter last counted, so that a
// turn that falls back to the chain's next model is not counted again. A nil *turns records
// nothing.
type turns struct {
	runID string
	mu    sync.Mutex
	last  map[any]int // by limiter: the Attempt it counted last
}

func (t *turns) counted(limiter any, attempt int) bool {
	if t == nil {
		return false
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.last[limiter] == attempt
}

func (t *turns) count(limiter any, attempt int) {
	if t == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.last == nil {
		t.last = map[any]int{}
	}
	t.last[limiter] = attempt
}
