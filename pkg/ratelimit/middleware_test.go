package ratelimit_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/cadrehq/cadre/pkg/assistant"
	"github.com/cadrehq/cadre/pkg/llmtest"
	"github.com/cadrehq/cadre/pkg/model"
	"github.com/cadrehq/cadre/pkg/ratelimit"
	"github.com/cadrehq/cadre/pkg/usage"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// replying returns a model that answers every request with "ok", at the cost of u.
func replying(u usage.Usage) *llmtest.Scripted {
	return llmtest.NewScripted(llmtest.Reply{Text: "ok", Usage: u}).Cycle()
}

// limited returns an assistant that answers with m, its requests held to limits with l.
func limited(l ratelimit.Limiter, limits ratelimit.Limits, opts ...assistant.Option) *assistant.Assistant[string] {
	opts = append([]assistant.Option{assistant.WithModel(replying(usage.Usage{}))}, opts...)
	opts = append(opts, assistant.WithMiddleware(ratelimit.Middleware(l, limits)))
	return assistant.New[string]("helper", opts...)
}

func as(tenant, user string, t *testing.T) context.Context {
	return ratelimit.WithCaller(t.Context(), tenant, user)
}

func mustRun(t *testing.T, ctx context.Context, a *assistant.Assistant[string]) *assistant.Result[string] {
	t.Helper()
	res, err := a.Run(ctx, assistant.Input{Prompt: "hi"})
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	return res
}

// refused fails t unless err is a *ratelimit.Error of the scope and limit given, and returns it.
func refused(t *testing.T, err error, scope, limit string) *ratelimit.Error {
	t.Helper()
	var rl *ratelimit.Error
	if !errors.As(err, &rl) {
		t.Fatalf("err = %v, want a *ratelimit.Error", err)
	}
	if rl.Scope != scope || rl.Limit != limit || rl.RetryAfter <= 0 {
		t.Fatalf("err = %+v, want %s's %s with RetryAfter > 0", rl, scope, limit)
	}
	return rl
}

func mustRefuse(t *testing.T, ctx context.Context, a *assistant.Assistant[string], scope, limit string) *ratelimit.Error {
	t.Helper()
	_, err := a.Run(ctx, assistant.Input{Prompt: "hi"})
	return refused(t, err, scope, limit)
}

func TestRequestsPerMinute(t *testing.T) {
	t.Parallel()
	m := replying(usage.Usage{})
	a := limited(ratelimit.NewLocal(), ratelimit.Limits{User: ratelimit.Quota{RequestsPerMinute: 2}}, assistant.WithModel(m))
	ctx := as("acme", "ana", t)
	mustRun(t, ctx, a)
	mustRun(t, ctx, a)
	_, err := a.Run(ctx, assistant.Input{Prompt: "hi"})
	rl := refused(t, err, ratelimit.ScopeUser, ratelimit.LimitRequestsPerMinute)
	want := &ratelimit.Error{Agent: "helper", Tenant: "acme", User: "ana", Scope: "user", Limit: "requests_per_minute", Max: 2}
	if diff := cmp.Diff(want, rl, cmpopts.IgnoreFields(ratelimit.Error{}, "RetryAfter"), cmpopts.IgnoreUnexported(ratelimit.Error{})); diff != "" {
		t.Errorf("Error mismatch (-want +got):\n%s", diff)
	}
	// Two per minute: one comes back every 30 s.
	if rl.RetryAfter > 30*time.Second || rl.RetryAfter < 29*time.Second {
		t.Errorf("RetryAfter = %s, want about 30s", rl.RetryAfter)
	}
	if n := len(m.Requests()); n != 2 {
		t.Errorf("the model got %d requests, want 2: a refused request is not sent", n)
	}
	// It ends the run as a usage limit does, with the same RetryAfter.
	var le *usage.LimitError
	if !errors.As(err, &le) || le.Limit != ratelimit.LimitRequestsPerMinute || le.Max != 2 || le.RetryAfter != rl.RetryAfter {
		t.Errorf("errors.As(err, *usage.LimitError): %+v, want the limit with its RetryAfter", le)
	}
	if model.CanFallback(err) {
		t.Error("model.CanFallback(err) = true, want false: another model meets the same limit")
	}
	for _, s := range []string{`assistant "helper"`, `user "ana" of tenant "acme"`, "2 requests per minute", "retry after 30s", "ratelimit.Limits.User.RequestsPerMinute"} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("the error %q does not say %q", err, s)
		}
	}
}

func TestTenantsAndUsersAreApart(t *testing.T) {
	t.Parallel()
	a := limited(ratelimit.NewLocal(), ratelimit.Limits{
		Tenant: ratelimit.Quota{RequestsPerMinute: 3},
		User:   ratelimit.Quota{RequestsPerMinute: 1},
	})
	mustRun(t, as("acme", "ana", t), a)
	mustRefuse(t, as("acme", "ana", t), a, ratelimit.ScopeUser, ratelimit.LimitRequestsPerMinute)
	// ana's refused request took nothing from acme: two are left for its other users.
	mustRun(t, as("acme", "bo", t), a)
	mustRun(t, as("acme", "cy", t), a)
	rl := mustRefuse(t, as("acme", "dee", t), a, ratelimit.ScopeTenant, ratelimit.LimitRequestsPerMinute)
	if !strings.Contains(rl.Error(), `tenant "acme" reached`) || !strings.Contains(rl.Error(), "Limits.Tenant.RequestsPerMinute") {
		t.Errorf("the error %q does not name the tenant and its field", rl)
	}
	// Another tenant's user of the same name is another user.
	mustRun(t, as("globex", "ana", t), a)
	// A tenant or a user that holds a ":" is not another's key.
	b := limited(ratelimit.NewLocal(), ratelimit.Limits{User: ratelimit.Quota{RequestsPerMinute: 1}})
	mustRun(t, as("a:b", "c", t), b)
	mustRun(t, as("a", "b:c", t), b)
}

func TestRunsWithoutACallerShareOneBucket(t *testing.T) {
	t.Parallel()
	a := limited(ratelimit.NewLocal(), ratelimit.Limits{User: ratelimit.Quota{RequestsPerMinute: 1}})
	if c, ok := ratelimit.CallerFrom(t.Context()); ok || c != (ratelimit.Caller{}) {
		t.Fatalf("CallerFrom(a context without one) = %+v, %v; want the zero Caller, false", c, ok)
	}
	mustRun(t, t.Context(), a)
	rl := mustRefuse(t, t.Context(), a, ratelimit.ScopeUser, ratelimit.LimitRequestsPerMinute)
	if rl.Tenant != "" || rl.User != "" {
		t.Errorf("Error names tenant %q and user %q, want both empty", rl.Tenant, rl.User)
	}
	// Tenant "" and user "" given by WithCaller are the same caller.
	mustRefuse(t, as("", "", t), a, ratelimit.ScopeUser, ratelimit.LimitRequestsPerMinute)
	mustRun(t, as("acme", "ana", t), a)
}

func TestNoFallbackAtALimit(t *testing.T) {
	t.Parallel()
	first, second := replying(usage.Usage{}), replying(usage.Usage{})
	a := limited(ratelimit.NewLocal(), ratelimit.Limits{User: ratelimit.Quota{RequestsPerMinute: 1}},
		assistant.WithModels(model.Fixed(model.Describe("a", first), model.Describe("b", second))))
	ctx := as("acme", "ana", t)
	if res := mustRun(t, ctx, a); res.Model != "a" {
		t.Fatalf("answered by %q, want a", res.Model)
	}
	mustRefuse(t, ctx, a, ratelimit.ScopeUser, ratelimit.LimitRequestsPerMinute)
	if n, m := len(first.Requests()), len(second.Requests()); n != 1 || m != 0 {
		t.Errorf("models a and b got %d and %d requests, want 1 and 0: a rate limit does not fall back", n, m)
	}
}

// TestATurnCountsOnce runs one-turn runs whose replies cost 99 tokens, under a limit of one
// request per minute, then under 100 tokens per day: the first run fits each, and the second
// is refused by the first and fits the second (with 1 token left), only if each turn counts
// once.
func TestATurnCountsOnce(t *testing.T) {
	t.Parallel()
	cost := usage.Usage{InputTokens: 90, OutputTokens: 9}
	down := &model.ProviderError{Provider: "openai", Model: "a", Status: 503, Message: "overloaded"}
	for _, tc := range []struct {
		name string
		make func(l ratelimit.Limiter, limits ratelimit.Limits) *assistant.Assistant[string]
		runs func(a *assistant.Assistant[string], ctx context.Context) error
	}{
		{
			name: "a fallback to the chain's next model",
			make: func(l ratelimit.Limiter, limits ratelimit.Limits) *assistant.Assistant[string] {
				chain := model.Fixed(model.Describe("a", llmtest.NewScripted(llmtest.Fail(down)).Cycle()), model.Describe("b", replying(cost)))
				return limited(l, limits, assistant.WithModels(chain))
			},
		},
		{
			name: "two middlewares of the same limiter",
			make: func(l ratelimit.Limiter, limits ratelimit.Limits) *assistant.Assistant[string] {
				return limited(l, limits, assistant.WithModel(replying(cost)), assistant.WithMiddleware(ratelimit.Middleware(l, limits)))
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx := as("acme", "ana", t)
			a := tc.make(ratelimit.NewLocal(), ratelimit.Limits{User: ratelimit.Quota{RequestsPerMinute: 1}})
			mustRun(t, ctx, a)
			mustRefuse(t, ctx, a, ratelimit.ScopeUser, ratelimit.LimitRequestsPerMinute)

			a = tc.make(ratelimit.NewLocal(), ratelimit.Limits{User: ratelimit.Quota{TokensPerDay: 100}})
			mustRun(t, ctx, a)
			mustRun(t, ctx, a)
			mustRefuse(t, ctx, a, ratelimit.ScopeUser, ratelimit.LimitTokensPerDay)
		})
	}
}

func TestTokensPerDayFromTheReplies(t *testing.T) {
	t.Parallel()
	m := replying(usage.Usage{InputTokens: 60, OutputTokens: 50})
	a := limited(ratelimit.NewLocal(), ratelimit.Limits{User: ratelimit.Quota{TokensPerDay: 100}}, assistant.WithModel(m))
	// The budget is not spent before the first reply, which overshoots it by 10.
	mustRun(t, as("acme", "ana", t), a)
	rl := mustRefuse(t, as("acme", "ana", t), a, ratelimit.ScopeUser, ratelimit.LimitTokensPerDay)
	// 11 tokens must come back, a 100th of the day each: 2.64 h.
	if want := 11 * 24 * time.Hour / 100; rl.RetryAfter > want || rl.RetryAfter < want-time.Minute {
		t.Errorf("RetryAfter = %s, want about %s", rl.RetryAfter, want)
	}
	if !strings.Contains(rl.Error(), "100 tokens per day") || !strings.Contains(rl.Error(), "Limits.User.TokensPerDay") {
		t.Errorf("the error %q does not name the limit and its field", rl)
	}
	mustRun(t, as("acme", "bo", t), a)
	if n := len(m.Requests()); n != 2 {
		t.Errorf("the model got %d requests, want 2", n)
	}
}

func TestALimitInADelegatedRunEndsTheTree(t *testing.T) {
	t.Parallel()
	worker := assistant.New[string]("worker", assistant.WithModel(replying(usage.Usage{})),
		assistant.WithDescription("Does the work."))
	boss := llmtest.NewScripted(llmtest.Calls(llmtest.Call("worker", `{"input":"work"}`)), llmtest.Text("done"))
	supervisor := assistant.New[string]("supervisor", assistant.WithModel(boss),
		assistant.WithTools(assistant.AsTool[string](worker)),
		assistant.WithMiddleware(ratelimit.Middleware(ratelimit.NewLocal(), ratelimit.Limits{User: ratelimit.Quota{RequestsPerMinute: 1}})))
	_, err := supervisor.Run(as("acme", "ana", t), assistant.Input{Prompt: "go"})
	rl := refused(t, err, ratelimit.ScopeUser, ratelimit.LimitRequestsPerMinute)
	if rl.Agent != "worker" {
		t.Errorf("Error.Agent = %q, want worker: its request was refused", rl.Agent)
	}
	if n := len(boss.Requests()); n != 1 {
		t.Errorf("the supervisor's model got %d requests, want 1: the limit ends the tree instead of going back to it as the tool's error", n)
	}
}

func TestADelegatedRunCountsForTheSameCaller(t *testing.T) {
	t.Parallel()
	l := ratelimit.NewLocal()
	limits := ratelimit.Limits{User: ratelimit.Quota{RequestsPerMinute: 3}}
	// The worker has the middleware too, as when it also serves on its own: its request is
	// counted once, for the caller of the supervisor's run.
	worker := limited(l, limits, assistant.WithDescription("Does the work."))
	boss := llmtest.NewScripted(llmtest.Calls(llmtest.Call("helper", `{"input":"work"}`)), llmtest.Text("done")).Cycle()
	supervisor := assistant.New[string]("supervisor", assistant.WithModel(boss),
		assistant.WithTools(assistant.AsTool[string](worker)), assistant.WithMiddleware(ratelimit.Middleware(l, limits)))
	mustRun(t, as("acme", "ana", t), supervisor) // three requests: the supervisor's two, the worker's one
	mustRefuse(t, as("acme", "ana", t), worker, ratelimit.ScopeUser, ratelimit.LimitRequestsPerMinute)
}

func TestWaitsUpToMaxWait(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		a := limited(ratelimit.NewLocal(), ratelimit.Limits{User: ratelimit.Quota{RequestsPerMinute: 1}, MaxWait: 90 * time.Second})
		ctx := ratelimit.WithCaller(t.Context(), "acme", "ana")
		mustRun(t, ctx, a)
		// Each run waits for the minute its request frees, and counts once: the third waits
		// a minute too, not two.
		for i := range 2 {
			start := time.Now()
			mustRun(t, ctx, a)
			if waited := time.Since(start); waited != time.Minute {
				t.Errorf("run %d waited %s, want 1m0s", i+2, waited)
			}
		}
	})
}

func TestFailsAtOnceWhenTheWaitIsTooLong(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		a := limited(ratelimit.NewLocal(), ratelimit.Limits{User: ratelimit.Quota{RequestsPerMinute: 1}, MaxWait: 30 * time.Second})
		ctx := ratelimit.WithCaller(t.Context(), "acme", "ana")
		mustRun(t, ctx, a)
		start := time.Now()
		mustRefuse(t, ctx, a, ratelimit.ScopeUser, ratelimit.LimitRequestsPerMinute)
		// Nor does a run wait past its deadline.
		a = limited(ratelimit.NewLocal(), ratelimit.Limits{User: ratelimit.Quota{RequestsPerMinute: 1}, MaxWait: time.Hour})
		mustRun(t, ctx, a)
		short, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		mustRefuse(t, short, a, ratelimit.ScopeUser, ratelimit.LimitRequestsPerMinute)
		if waited := time.Since(start); waited != 0 {
			t.Errorf("the refused runs waited %s, want none", waited)
		}
	})
}

func TestAWaitEndsWithItsRun(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		a := limited(ratelimit.NewLocal(), ratelimit.Limits{User: ratelimit.Quota{RequestsPerMinute: 1}, MaxWait: time.Hour})
		ctx, cancel := context.WithCancel(ratelimit.WithCaller(t.Context(), "acme", "ana"))
		mustRun(t, ctx, a)
		go func() {
			time.Sleep(10 * time.Second)
			cancel()
		}()
		_, err := a.Run(ctx, assistant.Input{Prompt: "hi"})
		var rl *ratelimit.Error
		if !errors.Is(err, context.Canceled) || errors.As(err, &rl) {
			t.Errorf("err = %v, want the run's cancellation", err)
		}
	})
}

func TestConcurrentRuns(t *testing.T) {
	t.Parallel()
	a := limited(ratelimit.NewLocal(), ratelimit.Limits{Tenant: ratelimit.Quota{RequestsPerMinute: 5}, User: ratelimit.Quota{RequestsPerMinute: 100}})
	var ok, limited atomic.Int32
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Go(func() {
			_, err := a.Run(as("acme", string(rune('a'+i)), t), assistant.Input{Prompt: "hi"})
			var rl *ratelimit.Error
			switch {
			case err == nil:
				ok.Add(1)
			case errors.As(err, &rl):
				limited.Add(1)
			default:
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if ok.Load() != 5 || limited.Load() != 15 {
		t.Errorf("%d runs answered and %d were refused, want 5 and 15", ok.Load(), limited.Load())
	}
}

// failing is a Limiter whose calls fail.
type failing struct{ take, charge error }

func (f *failing) Take(context.Context, []ratelimit.Bucket) (*ratelimit.Refusal, error) {
	return nil, f.take
}

func (f *failing) Charge(context.Context, []ratelimit.Bucket, int) error { return f.charge }

func TestLimiterFailures(t *testing.T) {
	t.Parallel()
	limits := ratelimit.Limits{User: ratelimit.Quota{RequestsPerMinute: 10, TokensPerDay: 1000}}
	down := errors.New("connection refused")

	m := replying(usage.Usage{InputTokens: 5})
	a := limited(&failing{take: down}, limits, assistant.WithModel(m))
	_, err := a.Run(as("acme", "ana", t), assistant.Input{Prompt: "hi"})
	var rl *ratelimit.Error
	if !errors.Is(err, down) || errors.As(err, &rl) {
		t.Errorf("err = %v, want the limiter's error, not a *ratelimit.Error", err)
	}
	if len(m.Requests()) != 0 {
		t.Error("the request was sent, want it not sent when the limiter cannot take it")
	}

	// A reply whose tokens cannot be charged stands: it was paid for.
	var got []error
	l := &failing{charge: down}
	a = assistant.New[string]("helper", assistant.WithModel(replying(usage.Usage{InputTokens: 5})),
		assistant.WithMiddleware(ratelimit.Middleware(l, limits, ratelimit.WithErrorHandler(func(_ context.Context, err error) { got = append(got, err) }))))
	mustRun(t, as("acme", "ana", t), a)
	if len(got) != 1 || !errors.Is(got[0], down) || !strings.Contains(got[0].Error(), "charging 4 tokens") {
		t.Errorf("errors handled = %v, want the charge's, of the 4 tokens not taken before the request", got)
	}
}

func TestMiddlewareRefusesWhatTheProgramMustFix(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		l      ratelimit.Limiter
		limits ratelimit.Limits
		want   string
	}{
		{"no limiter", nil, ratelimit.Limits{User: ratelimit.Quota{RequestsPerMinute: 1}}, "needs a Limiter"},
		{"a negative limit", ratelimit.NewLocal(), ratelimit.Limits{Tenant: ratelimit.Quota{TokensPerDay: -1}}, "Limits.Tenant.TokensPerDay is -1"},
		{"a negative wait", ratelimit.NewLocal(), ratelimit.Limits{MaxWait: -time.Second}, "Limits.MaxWait is -1s"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			defer func() {
				if v := recover(); v == nil || !strings.Contains(fmtValue(v), tc.want) {
					t.Errorf("panic = %v, want one saying %q", v, tc.want)
				}
			}()
			ratelimit.Middleware(tc.l, tc.limits)
		})
	}
}

func fmtValue(v any) string {
	if err, ok := v.(error); ok {
		return err.Error()
	}
	s, _ := v.(string)
	return s
}

func TestNoLimitsIsAnEmptyMiddleware(t *testing.T) {
	t.Parallel()
	mw := ratelimit.Middleware(ratelimit.NewLocal(), ratelimit.Limits{MaxWait: time.Minute})
	if mw.Run != nil || mw.Request != nil || mw.ToolTurn != nil || mw.ToolCall != nil {
		t.Error("Middleware with no limit wraps some step, want none")
	}
}

// A delegated run's turn that falls back to its chain's next model is one request, as its
// supervisor's turns are.
func TestAFallbackInADelegatedRunCountsOnce(t *testing.T) {
	t.Parallel()
	l := ratelimit.NewLocal()
	limits := ratelimit.Limits{User: ratelimit.Quota{RequestsPerMinute: 3}}
	down := &model.ProviderError{Provider: "openai", Model: "a", Status: 503, Message: "overloaded"}
	chain := model.Fixed(model.Describe("a", llmtest.NewScripted(llmtest.Fail(down)).Cycle()), model.Describe("b", replying(usage.Usage{})))
	worker := limited(l, limits, assistant.WithModels(chain), assistant.WithDescription("Does the work."))
	boss := llmtest.NewScripted(llmtest.Calls(llmtest.Call("helper", `{"input":"work"}`)), llmtest.Text("done")).Cycle()
	supervisor := assistant.New[string]("supervisor", assistant.WithModel(boss),
		assistant.WithTools(assistant.AsTool[string](worker)), assistant.WithMiddleware(ratelimit.Middleware(l, limits)))
	mustRun(t, as("acme", "ana", t), supervisor) // the supervisor's two requests, the worker's one turn
	mustRefuse(t, as("acme", "ana", t), worker, ratelimit.ScopeUser, ratelimit.LimitRequestsPerMinute)
}

// The Request step used alone, without the Run step that records a run's turns, still holds
// requests to the limits: each request counts.
func TestTheRequestStepAloneCountsEveryRequest(t *testing.T) {
	t.Parallel()
	mw := ratelimit.Middleware(ratelimit.NewLocal(), ratelimit.Limits{User: ratelimit.Quota{RequestsPerMinute: 2}})
	down := &model.ProviderError{Provider: "openai", Model: "a", Status: 503, Message: "overloaded"}
	chain := model.Fixed(model.Describe("a", llmtest.NewScripted(llmtest.Fail(down)).Cycle()), model.Describe("b", replying(usage.Usage{})))
	a := assistant.New[string]("helper", assistant.WithModels(chain), assistant.WithMiddleware(assistant.Middleware{Request: mw.Request}))
	mustRun(t, as("acme", "ana", t), a) // two requests: to a, then to b
	mustRefuse(t, as("acme", "ana", t), a, ratelimit.ScopeUser, ratelimit.LimitRequestsPerMinute)
}
