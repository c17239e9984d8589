// Package redistest gives tests the Redis that make test starts (scripts/with-redis), as the
// tests of every package that talks to Redis need it: its address from CADRE_REDIS_ADDR, a
// client, and a key prefix of the test's own that is cleaned up after it.
package redistest

import (
	"context"
	"crypto/rand"
	"os"
	"testing"

	"github.com/redis/go-redis/v9"
)

// Addr returns the address of the Redis at CADRE_REDIS_ADDR. Without it the test fails, so
// that a missing Redis is never mistaken for a pass, unless CADRE_NO_REDIS=1 says to skip.
func Addr(t testing.TB) string {
	t.Helper()
	SkipIfOff(t)
	addr := os.Getenv("CADRE_REDIS_ADDR")
	if addr == "" {
		t.Fatal("CADRE_REDIS_ADDR is not set: run make test, which starts redis-server, or set CADRE_REDIS_ADDR " +
			"to a Redis's host:port (CADRE_NO_REDIS=1 skips the Redis tests)")
	}
	return addr
}

// SkipIfOff skips t when CADRE_NO_REDIS=1 says to leave the tests with Redis out: for a test
// that starts a redis-server of its own.
func SkipIfOff(t testing.TB) {
	t.Helper()
	if os.Getenv("CADRE_NO_REDIS") == "1" {
		t.Skip("CADRE_NO_REDIS=1: the Redis tests are skipped")
	}
}

// Client returns a client of the Redis at Addr, closed when t ends; it fails t when the Redis
// does not answer.
func Client(t testing.TB) *redis.Client {
	t.Helper()
	addr := Addr(t)
	rdb := redis.NewClient(&redis.Options{Addr: addr})
	t.Cleanup(func() { rdb.Close() })
	if err := rdb.Ping(context.Background()).Err(); err != nil {
		t.Fatalf("the Redis at CADRE_REDIS_ADDR=%s does not answer: %v", addr, err)
	}
	return rdb
}

// Prefix returns a key prefix no other test uses; when t ends, every key that holds it is
// removed.
func Prefix(t testing.TB, rdb *redis.Client) string {
	t.Helper()
	prefix := "cadretest:" + rand.Text() + ":"
	t.Cleanup(func() { Delete(t, rdb, "*"+prefix+"*") })
	return prefix
}

// Delete removes the keys that match pattern.
func Delete(t testing.TB, rdb *redis.Client, pattern string) {
	t.Helper()
	ctx := context.Background() // t's context is done by the time cleanups run
	for _, key := range Scan(t, ctx, rdb, pattern) {
		if err := rdb.Del(ctx, key).Err(); err != nil {
			t.Errorf("removing the test's key %q: %v", key, err)
		}
	}
}

// Scan returns the keys that match pattern.
func Scan(t testing.TB, ctx context.Context, rdb *redis.Client, pattern string) []string {
	t.Helper()
	var keys []string
	iter := rdb.Scan(ctx, 0, pattern, 1000).Iterator()
	for iter.Next(ctx) {
		keys = append(keys, iter.Val())
	}
	if err := iter.Err(); err != nil {
		t.Fatalf("SCAN %q: %v", pattern, err)
	}
	return keys
}
