package ratelimit_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"time"

	"github.com/cadrehq/cadre/pkg/assistant"
	"github.com/cadrehq/cadre/pkg/llmfactory"
	"github.com/cadrehq/cadre/pkg/llmtest"
	"github.com/cadrehq/cadre/pkg/ratelimit"
)

// Two requests a minute for each user, a million tokens a day for each tenant, kept in the
// process. The third request of a minute is refused, with when to retry.
func Example() {
	limits := ratelimit.Limits{
		Tenant: ratelimit.Quota{TokensPerDay: 1_000_000},
		User:   ratelimit.Quota{RequestsPerMinute: 2},
	}
	helper := assistant.New[string]("helper",
		assistant.WithModel(llmtest.NewScripted(llmtest.Text("Hello!")).Cycle()),
		assistant.WithMiddleware(ratelimit.Middleware(ratelimit.NewLocal(), limits)))

	// Where the program knows who is asking: an HTTP handler, after authentication.
	ctx := ratelimit.WithCaller(context.Background(), "acme", "ana")
	for range 3 {
		res, err := helper.Run(ctx, assistant.Input{Prompt: "Hi"})
		var limit *ratelimit.Error
		switch {
		case errors.As(err, &limit):
			// An HTTP server answers 429, with Retry-After: limit.RetryAfter.
			fmt.Printf("refused: the %s limit of %d %s; retry within a minute: %v\n",
				limit.Scope, limit.Max, limit.Limit, limit.RetryAfter <= time.Minute)
		case err != nil:
			log.Fatal(err)
		default:
			fmt.Println(res.Output)
		}
	}
	// Output:
	// Hello!
	// Hello!
	// refused: the user limit of 2 requests_per_minute; retry within a minute: true
}

// The limits of llm.yaml's rate_limits section, for the middleware, with the limiter the
// program picks.
func ExampleLimitsFrom() {
	factory, err := llmfactory.Parse([]byte(`
providers: {openai: {api_key: sk-example}}
models: {fast: {provider: openai, model: gpt-5-mini}}
rate_limits:
  tenant: {requests_per_minute: 600, tokens_per_day: 5000000}
  user: {requests_per_minute: 20}
  max_wait: 2s
`))
	if err != nil {
		log.Fatal(err)
	}
	defer factory.Close()

	limits := ratelimit.LimitsFrom(factory.RateLimits())
	fmt.Printf("%+v\n", limits)
	// Given to the assistants that use the factory's models:
	_ = assistant.New[string]("support", assistant.WithModels(factory),
		assistant.WithMiddleware(ratelimit.Middleware(ratelimit.NewLocal(), limits)))
	// Output:
	// {Tenant:{RequestsPerMinute:600 TokensPerDay:5000000} User:{RequestsPerMinute:20 TokensPerDay:0} MaxWait:2s}
}
