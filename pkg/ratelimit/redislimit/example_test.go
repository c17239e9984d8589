package redislimit_test

import (
	"context"
	"fmt"

	"github.com/cadrehq/cadre/pkg/assistant"
	"github.com/cadrehq/cadre/pkg/llmtest"
	"github.com/cadrehq/cadre/pkg/ratelimit"
	"github.com/cadrehq/cadre/pkg/ratelimit/redislimit"
	"github.com/redis/go-redis/v9"
)

// Instances of a service behind a load balancer share their callers' limits through one
// Redis: each makes its Limiter from its own client, and a user's requests count the same
// whichever instance serves them.
func Example() {
	rdb := redis.NewClient(&redis.Options{Addr: "localhost:6379"})
	defer rdb.Close()
	limits := ratelimit.Limits{
		Tenant: ratelimit.Quota{RequestsPerMinute: 600, TokensPerDay: 5_000_000},
		User:   ratelimit.Quota{RequestsPerMinute: 20, TokensPerDay: 200_000},
	}
	helper := assistant.New[string]("helper",
		assistant.WithModel(llmtest.NewScripted(llmtest.Text("Hello!")).Cycle()),
		assistant.WithMiddleware(ratelimit.Middleware(redislimit.New(rdb), limits)))

	ctx := ratelimit.WithCaller(context.Background(), "acme", "ana")
	res, err := helper.Run(ctx, assistant.Input{Prompt: "Hi"})
	if err != nil {
		fmt.Println(err) // a *ratelimit.Error, or a Redis that does not answer: never let through
		return
	}
	fmt.Println(res.Output)
}
