package soak

import (
	"bufio"
	"context"
	"crypto/rand"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cadrehq/cadre/pkg/chat"
	"github.com/cadrehq/cadre/pkg/chat/redisstore"
	"github.com/cadrehq/cadre/pkg/chat/sqlitestore"
	"github.com/redis/go-redis/v9"
	"github.com/tmc/langchaingo/llms"
)

// Two processes append to one chat at the same instant, each from appenders goroutines, each
// goroutine appendsEach times in turn, each append a turn of turnLength messages. Every message
// names its process, goroutine, append and place in the turn, so that the chat read back
// shows whether an append was lost, stored twice, split by another, or put before an earlier
// append of its goroutine.
const (
	processes   = 2
	appenders   = 500 // per process: 1,000 appending at once in all
	appendsEach = 4
	turnLength  = 3
)

// theChat is the chat every appender appends to.
var theChat = chat.ID{Tenant: "soak", User: "u", Chat: "one"}

func soakAppends(ctx context.Context, t *testing.T) {
	for _, tc := range []struct {
		name string
		at   func(t *testing.T) (kind, at string)
	}{
		{"Redis", func(t *testing.T) (string, string) {
			addr := os.Getenv("CADRE_REDIS_ADDR")
			if addr == "" {
				t.Fatal("CADRE_REDIS_ADDR is not set: run make soak, which starts redis-server, or set it to the host:port of a Redis to soak")
			}
			return "redis", addr + "/cadresoak:" + rand.Text() + ":"
		}},
		{"SQLite", func(t *testing.T) (string, string) {
			return "sqlite", filepath.Join(t.TempDir(), "chats.db")
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			kind, at := tc.at(t)
			store, closeStore, err := openStore(kind, at)
			if err != nil {
				t.Fatal(err)
			}
			defer closeStore()
			defer store.Delete(context.Background(), theChat) // Redis outlives the test
			fig := appendFromProcesses(ctx, t, kind, at)
			checkChat(ctx, t, store, fig)
			fig.print(t, tc.name)
		})
	}
}

// appendFigures is what the processes did and what the chat holds.
type appendFigures struct {
	appends, errs                          int
	took                                   time.Duration // from the start instant to the last append's end
	latency                                durations     // of each append that succeeded
	ends                                   [processes]time.Duration
	messages                               int
	lost, twice, split, disordered, listed int
}

// appendFromProcesses starts the processes, which append from the same instant on, and
// waits for them.
func appendFromProcesses(ctx context.Context, t *testing.T, kind, at string) *appendFigures {
	t.Helper()
	start := time.Now().Add(2 * time.Second) // every process is up by then
	fig := &appendFigures{}
	var mu sync.Mutex
	var last int64
	var wg sync.WaitGroup
	for p := range processes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestAppendProcess$", "-test.count=1")
			cmd.Env = append(os.Environ(), "CADRE_SOAK_APPEND="+kind, "CADRE_SOAK_APPEND_AT="+at,
				"CADRE_SOAK_PROCESS="+strconv.Itoa(p), "CADRE_SOAK_START="+strconv.FormatInt(start.UnixNano(), 10))
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Errorf("process %d: %v\n%s", p, err, out)
			}
			mu.Lock()
			defer mu.Unlock()
			sc := bufio.NewScanner(strings.NewReader(string(out)))
			sc.Buffer(nil, len(out)+1) // the latencies are one long line
			for sc.Scan() {
				if rest, ok := strings.CutPrefix(sc.Text(), "error "); ok {
					t.Errorf("process %d: %s", p, rest)
				}
				if rest, ok := strings.CutPrefix(sc.Text(), "latencies "); ok {
					for _, f := range strings.Fields(rest) {
						us, _ := strconv.ParseInt(f, 10, 64)
						fig.latency.add(time.Duration(us) * time.Microsecond)
					}
				}
				var appends, errs int
				var end int64
				if n, _ := fmt.Sscanf(sc.Text(), "done %d %d %d", &appends, &errs, &end); n == 3 {
					fig.appends += appends
					fig.errs += errs
					last = max(last, end)
					fig.ends[p] = time.Unix(0, end).Sub(start)
				}
			}
		}()
	}
	wg.Wait()
	fig.took = time.Unix(0, last).Sub(start)
	if want := processes * appenders * appendsEach; fig.appends+fig.errs != want {
		t.Errorf("the processes made %d appends and %d failed, want %d in all", fig.appends, fig.errs, want)
	}
	if fig.errs > 0 {
		t.Errorf("%d appends failed", fig.errs)
	}
	return fig
}

// TestAppendProcess is one of the processes of soakAppends when it starts it; otherwise it
// does nothing. From the start instant, its appenders append their turns to theChat; it prints
// "error TEXT" for the first failures, "latencies US..." (of the appends that succeeded, in
// microseconds), then "done APPENDS ERRORS END" (END in Unix ns).
func TestAppendProcess(t *testing.T) {
	kind := os.Getenv("CADRE_SOAK_APPEND")
	if kind == "" {
		return
	}
	p := os.Getenv("CADRE_SOAK_PROCESS")
	start, _ := strconv.ParseInt(os.Getenv("CADRE_SOAK_START"), 10, 64)
	store, closeStore, err := openStore(kind, os.Getenv("CADRE_SOAK_APPEND_AT"))
	if err != nil {
		t.Fatal(err)
	}
	defer closeStore()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	var done, failed atomic.Int64
	var mu sync.Mutex
	var latencies strings.Builder
	time.Sleep(time.Until(time.Unix(0, start)))
	atOnce(appenders, func(g int) {
		for s := range appendsEach {
			began := time.Now()
			err := store.Append(ctx, theChat, turn(p, g, s))
			took := time.Since(began)
			if err != nil {
				if failed.Add(1) <= 5 {
					fmt.Printf("error g%d s%d: %v\n", g, s, err)
				}
				continue
			}
			done.Add(1)
			mu.Lock()
			fmt.Fprintf(&latencies, " %d", took.Microseconds())
			mu.Unlock()
		}
	})
	fmt.Printf("latencies%s\n", latencies.String())
	fmt.Printf("done %d %d %d\n", done.Load(), failed.Load(), time.Now().UnixNano())
}

// turn is the append s of goroutine g of process p: turnLength messages, each naming them and
// its place in the turn.
func turn(p string, g, s int) []llms.MessageContent {
	msgs := make([]llms.MessageContent, turnLength)
	for m := range msgs {
		role := llms.ChatMessageTypeAI
		if m == 0 {
			role = llms.ChatMessageTypeHuman
		}
		msgs[m] = llms.TextParts(role, fmt.Sprintf("p%s g%d s%d m%d", p, g, s, m))
	}
	return msgs
}

// checkChat reads the chat back and checks that it holds every append once, each whole, and
// each goroutine's appends in the order it made them.
func checkChat(ctx context.Context, t *testing.T, store chat.Store, fig *appendFigures) {
	t.Helper()
	msgs, err := store.Load(ctx, theChat)
	if err != nil {
		t.Fatal(err)
	}
	fig.messages = len(msgs)
	type appender struct{ p, g int }
	seen := map[[3]int]int{}   // {p, g, s} -> how many times its turn starts
	next := map[appender]int{} // the append each goroutine is expected at, at the least
	for i := 0; i < len(msgs); {
		var p, g, s, m int
		if _, err := fmt.Sscanf(text(msgs[i]), "p%d g%d s%d m%d", &p, &g, &s, &m); err != nil || m != 0 {
			fig.split++ // a turn's later message where a turn must start
			i++
			continue
		}
		whole := i+turnLength <= len(msgs)
		for k := 1; whole && k < turnLength; k++ {
			whole = text(msgs[i+k]) == fmt.Sprintf("p%d g%d s%d m%d", p, g, s, k)
		}
		if !whole {
			fig.split++
			i++
			continue
		}
		seen[[3]int{p, g, s}]++
		if s < next[appender{p, g}] {
			fig.disordered++
		}
		next[appender{p, g}] = s + 1
		i += turnLength
	}
	for p := range processes {
		for g := range appenders {
			for s := range appendsEach {
				switch n := seen[[3]int{p, g, s}]; {
				case n == 0:
					fig.lost++
				case n > 1:
					fig.twice += n - 1
				}
			}
		}
	}
	infos, err := store.List(ctx, theChat.Tenant)
	if err != nil {
		t.Fatal(err)
	}
	for _, info := range infos {
		if info.ID == theChat {
			fig.listed = info.Messages
		}
	}
	want := processes * appenders * appendsEach * turnLength
	if fig.messages != want || fig.listed != want || fig.lost+fig.twice+fig.split+fig.disordered > 0 {
		t.Errorf("the chat holds %d messages (List says %d), want %d: %d appends lost, %d stored twice, %d split, %d out of their goroutine's order",
			fig.messages, fig.listed, want, fig.lost, fig.twice, fig.split, fig.disordered)
	}
}

func text(m llms.MessageContent) string {
	if len(m.Parts) != 1 {
		return ""
	}
	tc, _ := m.Parts[0].(llms.TextContent)
	return tc.Text
}

func (f *appendFigures) print(t *testing.T, store string) {
	t.Helper()
	tb := &table{title: fmt.Sprintf("1,000 concurrent appenders to one chat from 2 processes, %s", store)}
	tb.add("appends (of 3 messages) made / failed", "%d / %d", f.appends, f.errs)
	tb.add("time from the start to the last append", "%s", ms(f.took))
	tb.add("appends per second", "%s", rate(f.appends, f.took))
	tb.add("latency of an append p50 / p99 / max", "%s / %s / %s", ms(f.latency.percentile(50)), ms(f.latency.percentile(99)), ms(f.latency.max()))
	tb.add("each process's last append, after the start", "%s / %s", ms(f.ends[0]), ms(f.ends[1]))
	tb.add("messages in the chat (Load / List)", "%d / %d", f.messages, f.listed)
	tb.add("appends lost / stored twice", "%d / %d", f.lost, f.twice)
	tb.add("appends split by another / out of order", "%d / %d", f.split, f.disordered)
	tb.print(t)
}

// openStore opens the store of kind "redis" (at "ADDR/PREFIX") or "sqlite" (at a file's path).
func openStore(kind, at string) (chat.Store, func(), error) {
	if kind == "sqlite" {
		s, err := sqlitestore.Open(at)
		if err != nil {
			return nil, nil, err
		}
		return s, func() { s.Close() }, nil
	}
	addr, prefix, _ := strings.Cut(at, "/")
	rdb := redis.NewClient(&redis.Options{Addr: addr})
	return redisstore.New(rdb, redisstore.WithPrefix(prefix)), func() { rdb.Close() }, nil
}
