package ratelimit_test

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/cadrehq/cadre/pkg/assistant/middlewaretest"
	"github.com/cadrehq/cadre/pkg/ratelimit"
)

// counting is a Limiter that counts the Takes it is asked for.
type counting struct {
	ratelimit.Limiter
	takes atomic.Int64
}

func (c *counting) Take(ctx context.Context, buckets []ratelimit.Bucket) (*ratelimit.Refusal, error) {
	c.takes.Add(1)
	return c.Limiter.Take(ctx, buckets)
}

// TestTheMiddlewareKeepsTheContract: the rate-limit middleware keeps assistant.Middleware's
// contract, with limits that the kit's runs keep within.
func TestTheMiddlewareKeepsTheContract(t *testing.T) {
	t.Parallel()
	l := &counting{Limiter: ratelimit.NewLocal()}
	quota := ratelimit.Quota{RequestsPerMinute: 1000, TokensPerDay: 1_000_000}
	middlewaretest.Run(t, ratelimit.Middleware(l, ratelimit.Limits{Tenant: quota, User: quota}))
	if l.takes.Load() == 0 {
		t.Error("the kit's requests took nothing from the limiter")
	}
}
