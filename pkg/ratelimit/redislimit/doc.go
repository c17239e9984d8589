// Package redislimit keeps rate-limit buckets in Redis, through go-redis and
// github.com/go-redis/redis_rate: the ratelimit.Limiter for several instances of a program
// (behind a load balancer) that must share their callers' limits.
//
// # Keys
//
// A bucket's key is the Limiter's prefix (default "cadre:ratelimit:") and then the bucket's
// Key, after redis_rate's own prefix "rate:". The buckets of ratelimit.Middleware are:
//
//	rate:cadre:ratelimit:tenant:TENANT:rpm        requests per minute of a tenant
//	rate:cadre:ratelimit:user:TENANT:USER:rpm     requests per minute of a user of a tenant
//	rate:cadre:ratelimit:tenant:TENANT:tpd        tokens per day of a tenant
//	rate:cadre:ratelimit:user:TENANT:USER:tpd     tokens per day of a user of a tenant
//
// TENANT and USER are query-escaped (net/url). Each key is one string, the bucket's state as
// GCRA keeps it (the time at which it will be full), and expires when the bucket is full:
// Redis holds only the buckets in use.
//
// # How it counts
//
// Every Take and Charge is redis_rate's GCRA script, one key at a time, on the Redis server's
// clock, so that instances with different clocks agree. A Take across several buckets takes
// them in order; when one has no room, the ones taken before it are given back, so a refused
// request takes nothing. Each give-back is one script of this package's own, on the state
// redis_rate keeps: it moves the state back by one and deletes the key when that leaves the
// bucket full, in one step, so that another instance's take is never lost with the key.
// Between the taking and the giving back another instance may see those buckets one fuller
// than they end: the limit is never exceeded by that, and a request may be refused that a
// moment later would not be.
// Charge takes with a burst that admits any count, so that a reply's tokens are all counted
// and a bucket charged more than it holds is in debt until it refills.
package redislimit
