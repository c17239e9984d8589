package main

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/cadrehq/cadre/pkg/chat"
	"github.com/cadrehq/cadre/pkg/chat/redisstore"
	"github.com/redis/go-redis/v9"
)

// redisPrefix begins the keys of the server's chats in Redis; each assistant adds its name, so
// that the planner's chat "x" and the guide's chat "x" are two conversations. A program run in
// several environments on one Redis gives each its own prefix.
const redisPrefix = "cadre:mcpserver:"

// chatStores gives each assistant a store for its chats: in memory, or in one Redis.
type chatStores struct {
	rdb *redis.Client // nil: in memory
}

// openChats returns the stores of the Redis at addr, checked to answer, or in memory when addr
// is "".
func openChats(ctx context.Context, addr string) (*chatStores, error) {
	if addr == "" {
		return &chatStores{}, nil
	}
	rdb := redis.NewClient(&redis.Options{Addr: addr})
	ping, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if err := rdb.Ping(ping).Err(); err != nil {
		_ = rdb.Close()
		return nil, fmt.Errorf("the Redis at %s does not answer (%w): start redis-server there, or leave -redis out to keep chats in memory", addr, err)
	}
	return &chatStores{rdb: rdb}, nil
}

// where says where the chats are kept, and how to keep them elsewhere.
func (c *chatStores) where() string {
	if c.rdb == nil {
		return "chats are kept in memory until the server stops; give -redis host:port to keep them in Redis"
	}
	return "chats are kept in the Redis at " + c.rdb.Options().Addr
}

// of returns the store of assistant name's chats.
func (c *chatStores) of(name string) chat.Store {
	if c.rdb == nil {
		return chat.NewMemory()
	}
	return redisstore.New(c.rdb, redisstore.WithPrefix(redisPrefix+name+":"))
}

func (c *chatStores) close() {
	if c.rdb != nil {
		_ = c.rdb.Close()
	}
}

// caller is who a request comes from: over HTTP, what its token's claims say or, without an
// issuer, its X-Tenant and X-User headers; err says why a token names nobody.
type caller struct {
	tenant, user string
	err          error
}

type callerKey struct{}

// callerFromHeaders puts the request's caller in its context (server.WithHTTPContextFunc).
// It trusts the headers, which any caller can set: serveHTTP uses it only without an issuer,
// on a loopback address (see authorize).
func callerFromHeaders(ctx context.Context, r *http.Request) context.Context {
	return context.WithValue(ctx, callerKey{}, caller{tenant: r.Header.Get("X-Tenant"), user: r.Header.Get("X-User")})
}

// callerOf is the prompts' identity (mcpbridge.WithIdentity): the tenant and the user of the
// request's caller, or "" and "" over stdio, where whoever started the server is the only
// caller.
func callerOf(ctx context.Context) (tenant, user string, err error) {
	c, _ := ctx.Value(callerKey{}).(caller)
	return c.tenant, c.user, c.err
}
