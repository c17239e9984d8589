package redisstore

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/cadrehq/cadre/pkg/chat"
	"github.com/redis/go-redis/v9"
	"github.com/tmc/langchaingo/llms"
)

// Store is a chat.Store in Redis. It is safe for concurrent use by any number of goroutines,
// and any number of Stores, in any number of processes, may share a Redis with the same
// prefix. It does not own its client: close the client when done with the Store.
type Store struct {
	rdb          redis.UniversalClient
	prefix       string
	appendScript *redis.Script
	stateScript  *redis.Script
	takeScript   *redis.Script
	takeIfScript *redis.Script
}

// Option configures a Store.
type Option func(*Store)

// DefaultPrefix starts every key of a Store made without WithPrefix.
const DefaultPrefix = "cadre:chat:"

// WithPrefix starts every key of the Store with p instead of DefaultPrefix: to keep
// applications, or tests, that share a Redis apart. Stores with different prefixes see none
// of each other's chats. Under Redis Cluster, p must not hold "{" or "}", which would change
// the hash tag that keeps a tenant's keys in one slot.
func WithPrefix(p string) Option {
	return func(s *Store) { s.prefix = p }
}

// New returns a Store that keeps chats in the Redis rdb talks to: a *redis.Client, a
// *redis.ClusterClient or a failover client. Every call takes its time limits from rdb's
// options and the call's context; a Redis that cannot be reached is an error, never an empty
// history.
func New(rdb redis.UniversalClient, opts ...Option) *Store {
	s := &Store{
		rdb:          rdb,
		prefix:       DefaultPrefix,
		appendScript: redis.NewScript(touchLua + appendLua),
		stateScript:  redis.NewScript(touchLua + stateLua),
		takeScript:   redis.NewScript(touchLua + takeLua),
		takeIfScript: redis.NewScript(touchLua + takeIfLua),
	}
	for _, opt := range opts {
		opt(s)
	}
	return s
}

// touchLua marks chat ARGV[1] changed now in the tenant's index KEYS[2], later than every
// other chat of the tenant so that List's order is the order of changes, and adds n to its
// length in KEYS[3] (creating it).
const touchLua = `
local function touch(n)
	local t = redis.call('TIME')
	local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
	local last = redis.call('ZREVRANGE', KEYS[2], 0, 0, 'WITHSCORES')[2]
	if last and tonumber(last) >= now then now = tonumber(last) + 1 end
	redis.call('ZADD', KEYS[2], now, ARGV[1])
	redis.call('HINCRBY', KEYS[3], ARGV[1], n)
end
`

// appendLua pushes ARGV[2:] onto the messages list KEYS[1], in chunks that Lua's stack holds,
// then counts them.
const appendLua = `
for i = 2, #ARGV, 1000 do
	redis.call('RPUSH', KEYS[1], unpack(ARGV, i, math.min(i + 999, #ARGV)))
end
touch(#ARGV - 1)
return #ARGV - 1
`

// stateLua sets the state KEYS[1] to ARGV[2], or removes it when there is no ARGV[2].
const stateLua = `
touch(0)
if #ARGV > 1 then redis.call('SET', KEYS[1], ARGV[2]) else redis.call('DEL', KEYS[1]) end
return 1
`

// takeLua returns the state KEYS[1] of chat ARGV[1] and removes it; 0 when it has none, and -1
// when the chat is not in its tenant's index KEYS[2].
const takeLua = `
if not redis.call('ZSCORE', KEYS[2], ARGV[1]) then return -1 end
local state = redis.call('GET', KEYS[1])
if not state then return 0 end
redis.call('DEL', KEYS[1])
touch(0)
return state
`

// takeIfLua removes the state KEYS[1] of chat ARGV[1] when it is ARGV[2], byte for byte, and
// returns 1; 0 when its state is another, or none, or ARGV[2] is empty, and -1 when the chat is
// not in its tenant's index KEYS[2].
const takeIfLua = `
if not redis.call('ZSCORE', KEYS[2], ARGV[1]) then return -1 end
if ARGV[2] == '' or redis.call('GET', KEYS[1]) ~= ARGV[2] then return 0 end
redis.call('DEL', KEYS[1])
touch(0)
return 1
`

// keys are the Redis keys of one chat, and its name in its tenant's index and lengths.
type keys struct {
	messages, state, index, lengths, member string
}

func (s *Store) keysOf(id chat.ID) keys {
	tenant := s.tenantKey(id.Tenant)
	member := url.QueryEscape(id.User) + ":" + url.QueryEscape(id.Chat)
	return keys{
		messages: tenant + "m:" + member,
		state:    tenant + "s:" + member,
		index:    tenant + "chats",
		lengths:  tenant + "lengths",
		member:   member,
	}
}

// tenantKey starts every key of the tenant's. The hash tag is never empty, since Redis
// Cluster hashes the whole key for an empty one.
func (s *Store) tenantKey(tenant string) string {
	return s.prefix + "{t:" + url.QueryEscape(tenant) + "}:"
}

// Load implements chat.Store.
func (s *Store) Load(ctx context.Context, id chat.ID) ([]llms.MessageContent, error) {
	if err := chat.Check(ctx, id); err != nil {
		return nil, err
	}
	k := s.keysOf(id)
	var list *redis.StringSliceCmd
	if err := s.readChat(ctx, id, "loading chat", func(p redis.Pipeliner) {
		list = p.LRange(ctx, k.messages, 0, -1)
	}); err != nil {
		return nil, err
	}
	var msgs []llms.MessageContent
	for i, data := range list.Val() {
		m, err := chat.UnmarshalMessages([]byte(data))
		if err != nil {
			return nil, fmt.Errorf("redisstore: loading chat %s, message %d: %w", id, i, err)
		}
		msgs = append(msgs, m...)
	}
	return msgs, nil
}

// readChat runs the reads queue adds to its pipeline in one MULTI/EXEC with a check that the
// chat exists: its error is chat.NotFound when it does not, or says what failed while doing.
func (s *Store) readChat(ctx context.Context, id chat.ID, doing string, queue func(redis.Pipeliner)) error {
	k := s.keysOf(id)
	var exists *redis.FloatCmd
	if err := s.read(ctx, func(p redis.Pipeliner) {
		exists = p.ZScore(ctx, k.index, k.member)
		queue(p)
	}); err != nil {
		return fmt.Errorf("redisstore: %s %s: %w", doing, id, err)
	}
	if errors.Is(exists.Err(), redis.Nil) {
		return chat.NotFound(id)
	}
	return nil
}

// read runs the reads queue adds to its pipeline in one MULTI/EXEC, and returns the first
// error that is not a missing key or member (redis.Nil, which the caller reads from its
// command).
func (s *Store) read(ctx context.Context, queue func(redis.Pipeliner)) error {
	cmds, err := s.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		queue(p)
		return nil
	})
	for _, cmd := range cmds {
		if err := cmd.Err(); err != nil && !errors.Is(err, redis.Nil) {
			return err
		}
	}
	if err != nil && !errors.Is(err, redis.Nil) {
		return err
	}
	return nil
}

// Append implements chat.Store. The messages are pushed by one script, which Redis runs with
// no other command between its own: they stand together, after every message of the Appends
// that ran before it.
func (s *Store) Append(ctx context.Context, id chat.ID, msgs []llms.MessageContent) error {
	if err := chat.Check(ctx, id); err != nil {
		return err
	}
	k := s.keysOf(id)
	args := make([]any, 1, 1+len(msgs))
	args[0] = k.member
	for i := range msgs {
		data, err := chat.MarshalMessages(msgs[i : i+1])
		if err != nil {
			return fmt.Errorf("redisstore: appending to chat %s: message %d: %w", id, i, err)
		}
		args = append(args, data)
	}
	if err := s.appendScript.Run(ctx, s.rdb, []string{k.messages, k.index, k.lengths}, args...).Err(); err != nil {
		return fmt.Errorf("redisstore: appending to chat %s: %w", id, err)
	}
	return nil
}

// List implements chat.Store.
func (s *Store) List(ctx context.Context, tenant string) ([]chat.Info, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	k := s.keysOf(chat.ID{Tenant: tenant})
	var index *redis.ZSliceCmd
	var lengths *redis.MapStringStringCmd
	if err := s.read(ctx, func(p redis.Pipeliner) {
		index = p.ZRevRangeWithScores(ctx, k.index, 0, -1)
		lengths = p.HGetAll(ctx, k.lengths)
	}); err != nil {
		return nil, fmt.Errorf("redisstore: listing the chats of tenant %q: %w", tenant, err)
	}
	var infos []chat.Info
	for _, z := range index.Val() {
		member, _ := z.Member.(string)
		info, err := parseInfo(tenant, member, lengths.Val()[member], z.Score)
		if err != nil {
			return nil, fmt.Errorf("redisstore: listing the chats of tenant %q: %w", tenant, err)
		}
		infos = append(infos, info)
	}
	return infos, nil
}

// parseInfo reads what List found of a chat: its member of the index, its length and score.
func parseInfo(tenant, member, length string, score float64) (chat.Info, error) {
	user, name, ok := strings.Cut(member, ":")
	if !ok {
		return chat.Info{}, fmt.Errorf("the index holds %q, which is not USER:CHAT", member)
	}
	id := chat.ID{Tenant: tenant}
	var err1, err2 error
	id.User, err1 = url.QueryUnescape(user)
	id.Chat, err2 = url.QueryUnescape(name)
	n, err3 := strconv.Atoi(length)
	if err := errors.Join(err1, err2, err3); err != nil {
		return chat.Info{}, fmt.Errorf("the index entry %q (length %q): %w", member, length, err)
	}
	return chat.Info{ID: id, Messages: n, Updated: time.UnixMicro(int64(score))}, nil
}

// Delete implements chat.Store.
func (s *Store) Delete(ctx context.Context, id chat.ID) error {
	if err := chat.Check(ctx, id); err != nil {
		return err
	}
	k := s.keysOf(id)
	var removed *redis.IntCmd
	_, err := s.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		removed = p.ZRem(ctx, k.index, k.member)
		p.HDel(ctx, k.lengths, k.member)
		p.Del(ctx, k.messages, k.state)
		return nil
	})
	if err != nil {
		return fmt.Errorf("redisstore: deleting chat %s: %w", id, err)
	}
	if removed.Val() == 0 {
		return chat.NotFound(id)
	}
	return nil
}

// State implements chat.Store.
func (s *Store) State(ctx context.Context, id chat.ID) ([]byte, error) {
	if err := chat.Check(ctx, id); err != nil {
		return nil, err
	}
	var state *redis.StringCmd
	if err := s.readChat(ctx, id, "reading the state of chat", func(p redis.Pipeliner) {
		state = p.Get(ctx, s.keysOf(id).state)
	}); err != nil {
		return nil, err
	}
	if errors.Is(state.Err(), redis.Nil) {
		return nil, nil
	}
	return state.Bytes()
}

// SetState implements chat.Store.
func (s *Store) SetState(ctx context.Context, id chat.ID, state []byte) error {
	if err := chat.Check(ctx, id); err != nil {
		return err
	}
	k := s.keysOf(id)
	args := []any{k.member}
	if state != nil {
		args = append(args, state)
	}
	if err := s.stateScript.Run(ctx, s.rdb, []string{k.state, k.index, k.lengths}, args...).Err(); err != nil {
		return fmt.Errorf("redisstore: keeping the state of chat %s: %w", id, err)
	}
	return nil
}

// TakeState implements chat.Store: one script reads and removes the state, and Redis runs no
// other command between a script's own.
func (s *Store) TakeState(ctx context.Context, id chat.ID) ([]byte, error) {
	if err := chat.Check(ctx, id); err != nil {
		return nil, err
	}
	k := s.keysOf(id)
	v, err := s.takeScript.Run(ctx, s.rdb, []string{k.state, k.index, k.lengths}, k.member).Result()
	if err != nil {
		return nil, fmt.Errorf("redisstore: taking the state of chat %s: %w", id, err)
	}
	switch v := v.(type) {
	case string:
		return []byte(v), nil
	case int64:
		if v < 0 {
			return nil, chat.NotFound(id)
		}
		return nil, nil
	}
	return nil, fmt.Errorf("redisstore: taking the state of chat %s: the script answered %T", id, v)
}

// TakeStateIf implements chat.Store: one script reads the state, compares it with want and
// removes it, and Redis runs no other command between a script's own.
func (s *Store) TakeStateIf(ctx context.Context, id chat.ID, want []byte) (bool, error) {
	if err := chat.Check(ctx, id); err != nil {
		return false, err
	}
	k := s.keysOf(id)
	n, err := s.takeIfScript.Run(ctx, s.rdb, []string{k.state, k.index, k.lengths}, k.member, want).Int()
	if err != nil {
		return false, fmt.Errorf("redisstore: taking the state of chat %s: %w", id, err)
	}
	if n < 0 {
		return false, chat.NotFound(id)
	}
	return n == 1, nil
}

var _ chat.Store = (*Store)(nil)
