// Package redisstore keeps chats in Redis, through go-redis: the chat.Store for several
// processes that serve the same conversations (instances behind a load balancer) and must
// share history.
//
// # Keys
//
// Every key starts with the Store's prefix (default "cadre:chat:"), then the tenant in a hash
// tag, so that all of a tenant's keys live in one Redis Cluster slot and a call's keys can be
// changed in one transaction:
//
//	cadre:chat:{t:TENANT}:chats            sorted set: USER:CHAT, scored by when it last changed (µs)
//	cadre:chat:{t:TENANT}:lengths          hash: USER:CHAT → how many messages it holds
//	cadre:chat:{t:TENANT}:m:USER:CHAT      list: the messages, each encoded by chat.MarshalMessages
//	cadre:chat:{t:TENANT}:s:USER:CHAT      string: the state
//
// TENANT, USER and CHAT are query-escaped (net/url), so no ID part holds ":", "{" or "}" and
// IDs that differ never share a key, whatever bytes they hold: tenant "a:b" with user "c" is
// not tenant "a" with user "b:c".
//
// # Atomicity
//
// An Append is one Lua script: it pushes all of the call's messages and marks the chat
// changed, so another Append's messages never land between them, and a chat is never listed
// without its messages. Reads run in MULTI/EXEC and see one moment of the chat. A chat's time
// comes from the Redis server's clock, so instances with different clocks agree on List's
// order.
package redisstore
