// Package ratelimit holds model requests to rate limits per tenant and per user: requests per
// minute and tokens per day, for the caller of a tree of runs, in one process or shared by
// many through Redis. It is built on the run loop's seam, assistant.Middleware: package
// assistant knows nothing of it.
//
// # The caller
//
// [WithCaller] puts whom a run is for — a tenant and a user of it — in its context. Set once
// on the top run's context, it reaches every run the tree delegates to, whether or not the run
// has a chat: the limits follow the person, not the conversation. An MCP server sets it where
// it authenticates a request (server.WithHTTPContextFunc over streamable HTTP), as it does
// for mcpbridge.WithIdentity's chats. A run with no caller is limited as tenant "" and user
// "": all unidentified runs share those buckets, so forgetting WithCaller never lifts the
// limits.
//
// # The limits
//
// [Limits] gives a [Quota] to each tenant, shared by its users, and one to each user of a
// tenant: requests per minute, tokens per day (zero: no limit). [Middleware] takes one
// request, and one token, from each of the caller's buckets before a model request, all or
// none, and charges the reply's other tokens after it. A request that finds no room waits up
// to Limits.MaxWait (default: not at all), then fails with an [*Error] that says whose limit
// it met and when to retry (RetryAfter). The error unwraps to a *usage.LimitError: the chain
// does not fall back to its next model, and a limit met in a delegated run ends the whole
// tree, as the ledger's limits do.
//
// A request counts once: a turn that falls back to the next model of its chain is one
// request, as in the run's usage; HTTP retries are below the seam; a refused request takes
// nothing; and middlewares of the same limiter that wrap the same run (a supervisor's and its
// specialist's) count it once between them.
//
// # The limiters
//
// A [Limiter] keeps the buckets. [Local] keeps them in the process, with
// golang.org/x/time/rate, in memory bounded by the callers active within a period. Package
// redislimit keeps them in Redis with github.com/go-redis/redis_rate, shared by every
// instance of a program. Package ratelimittest checks any Limiter against the contract.
package ratelimit
