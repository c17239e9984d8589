package redisstore_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"fmt"
	"net"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cadrehq/cadre/internal/redistest"

	"github.com/cadrehq/cadre/pkg/chat"
	"github.com/cadrehq/cadre/pkg/chat/chattest"
	"github.com/cadrehq/cadre/pkg/chat/redisstore"
	"github.com/redis/go-redis/v9"
	"github.com/tmc/langchaingo/llms"
)

func TestStore(t *testing.T) {
	rdb := redistest.Client(t)
	chattest.Run(t, func(t *testing.T) chat.Store {
		return redisstore.New(rdb, redisstore.WithPrefix(redistest.Prefix(t, rdb)))
	})
}

func hello(s string) []llms.MessageContent {
	return []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, s)}
}

func TestPrefixHoldsEveryKey(t *testing.T) {
	t.Parallel()
	rdb := redistest.Client(t)
	// The tenant names the keys this test makes, whatever their prefix.
	id := chat.ID{Tenant: "tenant-" + rand.Text(), User: "u", Chat: "c"}
	stores := map[string]*redisstore.Store{redisstore.DefaultPrefix: redisstore.New(rdb)}
	for range 2 {
		p := redistest.Prefix(t, rdb)
		stores[p] = redisstore.New(rdb, redisstore.WithPrefix(p))
	}
	t.Cleanup(func() { redistest.Delete(t, rdb, redisstore.DefaultPrefix+"{t:"+id.Tenant+"}*") })
	for prefix, s := range stores {
		if err := s.Append(t.Context(), id, hello(prefix)); err != nil {
			t.Fatal(err)
		}
		if err := s.SetState(t.Context(), id, []byte(prefix)); err != nil {
			t.Fatal(err)
		}
	}
	keys := redistest.Scan(t, t.Context(), rdb, "*"+id.Tenant+"*")
	for prefix, s := range stores {
		n := 0
		for _, key := range keys {
			if strings.HasPrefix(key, prefix) {
				n++
			}
		}
		if n != 4 {
			t.Errorf("%d keys start with prefix %q, want 4 (index, lengths, messages, state); all keys: %q", n, prefix, keys)
		}
		msgs, err := s.Load(t.Context(), id)
		if err != nil || len(msgs) != 1 || msgs[0].Parts[0] != (llms.TextContent{Text: prefix}) {
			t.Errorf("Load from the store with prefix %q = %v, %v: want only its own message", prefix, msgs, err)
		}
	}
	if len(keys) != 4*len(stores) {
		t.Errorf("the chat's keys = %q; want 4 under each of the %d prefixes", keys, len(stores))
	}
}

func TestAppendOfManyMessagesInOneCall(t *testing.T) {
	t.Parallel()
	rdb := redistest.Client(t)
	s := redisstore.New(rdb, redisstore.WithPrefix(redistest.Prefix(t, rdb)))
	id := chat.ID{Chat: "long"}
	const n = 2500 // more than one RPUSH of the script's
	msgs := make([]llms.MessageContent, n)
	for i := range msgs {
		msgs[i] = llms.TextParts(llms.ChatMessageTypeHuman, fmt.Sprint(i))
	}
	if err := s.Append(t.Context(), id, msgs); err != nil {
		t.Fatal(err)
	}
	got, err := s.Load(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != n {
		t.Fatalf("Load = %d messages, want %d", len(got), n)
	}
	for i, m := range got {
		if m.Parts[0] != (llms.TextContent{Text: fmt.Sprint(i)}) {
			t.Fatalf("message %d is %v", i, m)
		}
	}
	if infos, err := s.List(t.Context(), ""); err != nil || len(infos) != 1 || infos[0].Messages != n {
		t.Errorf("List = %+v, %v; want the chat with %d messages", infos, err, n)
	}
}

// TestRedisThatGoesAwayAnswersErrors runs a redis-server of its own, writes a chat, stops the
// server and checks every call fails rather than answer an empty history.
func TestRedisThatGoesAwayAnswersErrors(t *testing.T) {
	t.Parallel()
	redistest.SkipIfOff(t)
	addr, stop := startRedis(t)
	const timeout = 300 * time.Millisecond
	rdb := redis.NewClient(&redis.Options{Addr: addr, DialTimeout: timeout, ReadTimeout: timeout,
		WriteTimeout: timeout, PoolTimeout: timeout, MaxRetries: -1, DialerRetries: 1})
	t.Cleanup(func() { rdb.Close() })
	s := redisstore.New(rdb)
	id := chat.ID{Tenant: "t", User: "u", Chat: "c"}
	if err := s.Append(t.Context(), id, hello("before")); err != nil {
		t.Fatal(err)
	}
	if msgs, err := s.Load(t.Context(), id); err != nil || len(msgs) != 1 {
		t.Fatalf("Load while Redis runs = %v, %v", msgs, err)
	}

	stop()
	started := time.Now()
	chattest.CheckUnavailable(t, s, id)
	if elapsed := time.Since(started); elapsed > 20*timeout {
		t.Errorf("the calls after Redis went away took %v; want them to fail within the client's timeouts", elapsed)
	}
}

// startRedis starts a redis-server of the test's own on a free port of 127.0.0.1 and returns
// its address and a function that kills it (and waits for it), which t's cleanup calls too.
func startRedis(t *testing.T) (addr string, stop func()) {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		t.Fatal("redis-server is not installed: apt-get install redis-server (CADRE_NO_REDIS=1 skips the Redis tests)")
	}
	for attempt := 1; ; attempt++ {
		addr := freeAddr(t)
		host, port, _ := net.SplitHostPort(addr)
		var out bytes.Buffer
		cmd := exec.Command(bin, "--port", port, "--bind", host, "--save", "", "--appendonly", "no")
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			t.Fatalf("starting redis-server: %v", err)
		}
		exited := make(chan struct{})
		go func() {
			cmd.Wait()
			close(exited)
		}()
		stop := sync.OnceFunc(func() {
			cmd.Process.Kill()
			<-exited
		})
		t.Cleanup(stop)
		if awaitRedis(addr, exited) {
			return addr, stop
		}
		stop()
		if attempt == 3 {
			t.Fatalf("redis-server did not start on %s:\n%s", addr, out.String())
		}
	}
}

// freeAddr is an address of 127.0.0.1 whose port was free a moment ago.
func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// awaitRedis reports whether a Redis answers PING at addr within ten seconds, giving up when
// the server exits (another process took the port).
func awaitRedis(addr string, exited <-chan struct{}) bool {
	rdb := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1, DialerRetries: 1, DialTimeout: time.Second})
	defer rdb.Close()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(10 * time.Second)
	for {
		if rdb.Ping(context.Background()).Err() == nil {
			return true
		}
		select {
		case <-exited:
			return false
		case <-deadline:
			return false
		case <-tick.C:
		}
	}
}

func TestLinearizable(t *testing.T) {
	t.Parallel()
	rdb := redistest.Client(t)
	chattest.CheckLinearizable(t, "redisstore", func(t *testing.T) chat.Store {
		return redisstore.New(rdb, redisstore.WithPrefix(redistest.Prefix(t, rdb)))
	})
}

// TestLinearizableAcrossProcesses checks two processes with a Store each on one prefix.
func TestLinearizableAcrossProcesses(t *testing.T) {
	t.Parallel()
	rdb := redistest.Client(t)
	chattest.CheckLinearizableAcrossProcesses(t, "redisstore",
		func(t *testing.T) string { return redistest.Prefix(t, rdb) },
		func(t *testing.T, prefix string) chat.Store {
			return redisstore.New(rdb, redisstore.WithPrefix(prefix))
		})
}
