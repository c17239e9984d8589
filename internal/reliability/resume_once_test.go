package reliability_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
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

	"github.com/cadrehq/cadre/internal/redistest"

	"github.com/cadrehq/cadre/pkg/assistant"
	"github.com/cadrehq/cadre/pkg/chat"
	"github.com/cadrehq/cadre/pkg/chat/redisstore"
	"github.com/cadrehq/cadre/pkg/chat/sqlitestore"
	"github.com/cadrehq/cadre/pkg/llmtest"
	"github.com/cadrehq/cadre/pkg/tool"
	"github.com/redis/go-redis/v9"
	"github.com/tmc/langchaingo/llms"
)

// An approved call runs once, however many resumes of its pause start at the same instant: a
// double click, a retried webhook, two instances behind a load balancer. (These tests live here,
// not in pkg/assistant, so that the assistant's test binary — fuzzed in make test — does not
// link the SQLite and Redis stores.)

type mailArgs struct {
	To   string `json:"to"`
	Body string `json:"body"`
}

func fixed(d assistant.Decision) assistant.Approver {
	return assistant.ApproverFunc(func(context.Context, assistant.ToolCall) (assistant.Decision, error) { return d, nil })
}

// testContext returns a context that ends with the test, and at the latest after a minute.
func testContext(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// sender is an assistant whose model sends one mail that needs approval, then says it did.
// ran is called each time the mail goes out, with the chat's name.
func sender(store chat.Store, ran func(chatName string)) *assistant.Assistant[string] {
	m := llmtest.NewFunc(func(_ context.Context, req llmtest.Request) llmtest.Reply {
		if req.Messages[len(req.Messages)-1].Role == llms.ChatMessageTypeTool {
			return llmtest.Text("done")
		}
		return llmtest.Reply{ToolCalls: []llms.ToolCall{{ID: "call_mail", Type: "function",
			FunctionCall: &llms.FunctionCall{Name: "send_mail", Arguments: `{"to":"ana@example.com","body":"hi"}`}}}}
	})
	send := tool.Func("send_mail", "Sends a mail.", func(ctx context.Context, in mailArgs) (string, error) {
		id, _ := chat.IDFrom(ctx)
		ran(id.Chat)
		return "sent", nil
	})
	return assistant.New[string]("sender", assistant.WithModel(m), assistant.WithTools(send), assistant.WithStore(store),
		assistant.WithApproval(fixed(assistant.Pending()), "send_mail"))
}

// pauseChats pauses a run in each of n chats of store, and returns their IDs and the paused
// states.
func pauseChats(t *testing.T, store chat.Store, n int) ([]chat.ID, []*assistant.Paused) {
	t.Helper()
	a := sender(store, func(string) { t.Error("a mail went out before its approval") })
	ids := make([]chat.ID, n)
	states := make([]*assistant.Paused, n)
	for i := range ids {
		ids[i] = chat.ID{Tenant: "t", User: "u", Chat: "c" + strconv.Itoa(i)}
		res, err := a.Run(chat.WithID(testContext(t), ids[i]), assistant.Input{Prompt: "mail ana"})
		if err != nil || res.Stop != assistant.StopPending {
			t.Fatalf("chat %d: err %v, Stop %q", i, err, res.Stop)
		}
		states[i] = res.Paused
	}
	return ids, states
}

func TestSimultaneousResumesRunAnApprovedCallOnce(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		store func(t *testing.T) chat.Store // each call: the store of one resumer
		given bool                          // the paused state is given, not read from the chat
	}{
		{name: "memory", store: sharedStore(chat.NewMemory())},
		{name: "memory, the state given", store: sharedStore(chat.NewMemory()), given: true},
		{name: "one SQLite file", store: sqliteFile(t)},
		{name: "one SQLite file, the state given", store: sqliteFile(t), given: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			const rounds, resumers = 10, 6
			ids, states := pauseChats(t, tc.store(t), rounds)
			var mu sync.Mutex
			sent := map[string]int{}
			ran := func(name string) {
				mu.Lock()
				defer mu.Unlock()
				sent[name]++
			}
			agents := make([]*assistant.Assistant[string], resumers)
			for i := range agents {
				agents[i] = sender(tc.store(t), ran)
			}
			approve := map[string]assistant.Decision{"call_mail": assistant.Approved()}
			for round, id := range ids {
				var won atomic.Int64
				errs := make(chan error, resumers)
				start := make(chan struct{})
				var wg sync.WaitGroup
				for _, a := range agents {
					wg.Add(1)
					go func() {
						defer wg.Done()
						var p *assistant.Paused
						if tc.given {
							p = states[round]
						}
						<-start
						res, err := a.Resume(chat.WithID(testContext(t), id), p, approve)
						switch {
						case err == nil && res.Stop == assistant.StopAnswer:
							won.Add(1)
						case errors.Is(err, assistant.ErrNotPaused):
						default:
							errs <- fmt.Errorf("a resume: %v (Stop %v)", err, res)
						}
					}()
				}
				close(start)
				wg.Wait()
				close(errs)
				for err := range errs {
					t.Errorf("round %d: %v; want it to go on, or to fail with ErrNotPaused", round, err)
				}
				if won.Load() != 1 {
					t.Errorf("round %d: %d of %d resumes went on, want exactly 1", round, won.Load(), resumers)
				}
			}
			for _, id := range ids {
				if sent[id.Chat] != 1 {
					t.Errorf("chat %s: the approved mail went out %d times, want once", id.Chat, sent[id.Chat])
				}
			}
		})
	}
}

func sharedStore(s chat.Store) func(*testing.T) chat.Store {
	return func(*testing.T) chat.Store { return s }
}

// sqliteFile returns a function that opens a Store on one SQLite file each time it is called,
// as separate instances of a service would.
func sqliteFile(t *testing.T) func(*testing.T) chat.Store {
	path := filepath.Join(t.TempDir(), "chats.db")
	return func(t *testing.T) chat.Store {
		s, err := sqlitestore.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}
}

// Two processes resume the same paused chats at the same instants, through one SQLite file or
// one Redis: each approved mail goes out once, and the resume that loses says ErrNotPaused.
func TestResumesFromTwoProcessesRunAnApprovedCallOnce(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		spec func(t *testing.T) string // the store, as resumeHelper reads it
	}{
		{"SQLite", func(t *testing.T) string { return "sqlite:" + filepath.Join(t.TempDir(), "chats.db") }},
		{"Redis", func(t *testing.T) string {
			return "redis:" + redistest.Addr(t) + "/cadretest:resume:" + strconv.FormatInt(time.Now().UnixNano(), 36) + ":"
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			const chats = 30
			spec := tc.spec(t)
			store, closeStore, err := openSpec(spec)
			if err != nil {
				t.Fatal(err)
			}
			defer closeStore()
			ids, _ := pauseChats(t, store, chats)
			log := filepath.Join(t.TempDir(), "sent.log")
			start := time.Now().Add(2 * time.Second).UnixNano() // both processes up by then
			outs := make([]string, 2)
			var wg sync.WaitGroup
			for i := range outs {
				wg.Add(1)
				go func() {
					defer wg.Done()
					cmd := exec.Command(os.Args[0], "-test.run=^TestResumeHelperProcess$", "-test.count=1")
					cmd.Env = append(os.Environ(), "CADRE_RESUME_HELPER="+spec, "CADRE_RESUME_LOG="+log,
						"CADRE_RESUME_CHATS="+strconv.Itoa(chats), "CADRE_RESUME_START="+strconv.FormatInt(start, 10))
					out, err := cmd.CombinedOutput()
					if err != nil {
						t.Errorf("process %d: %v\n%s", i, err, out)
					}
					outs[i] = string(out)
				}()
			}
			wg.Wait()
			won := map[string]int{}
			for i, out := range outs {
				sc := bufio.NewScanner(strings.NewReader(out))
				for sc.Scan() {
					name, outcome, ok := strings.Cut(sc.Text(), " ")
					if !ok || !strings.HasPrefix(name, "c") {
						continue // the testing package's own lines
					}
					switch outcome {
					case "won":
						won[name]++
					case "lost":
					default:
						t.Errorf("process %d, chat %s: %s", i, name, outcome)
					}
				}
			}
			data, err := os.ReadFile(log)
			if err != nil {
				t.Fatal(err)
			}
			sent := map[string]int{}
			for _, name := range strings.Fields(string(data)) {
				sent[name]++
			}
			for _, id := range ids {
				if won[id.Chat] != 1 || sent[id.Chat] != 1 {
					t.Errorf("chat %s: %d resumes went on and the mail went out %d times; want 1 and 1", id.Chat, won[id.Chat], sent[id.Chat])
				}
			}
		})
	}
}

// TestResumeHelperProcess is one of the processes of TestResumesFromTwoProcessesRunAnApprovedCallOnce,
// when that test starts it; otherwise it does nothing. It resumes chats c0 to cN-1 of the
// store from the start time on, and prints "NAME won", "NAME lost" or "NAME error: ..." for each.
func TestResumeHelperProcess(t *testing.T) {
	spec := os.Getenv("CADRE_RESUME_HELPER")
	if spec == "" {
		return
	}
	chats, _ := strconv.Atoi(os.Getenv("CADRE_RESUME_CHATS"))
	start, _ := strconv.ParseInt(os.Getenv("CADRE_RESUME_START"), 10, 64)
	store, closeStore, err := openSpec(spec)
	if err != nil {
		t.Fatal(err)
	}
	defer closeStore()
	log, err := os.OpenFile(os.Getenv("CADRE_RESUME_LOG"), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer log.Close()
	a := sender(store, func(name string) { fmt.Fprintln(log, name) })
	time.Sleep(time.Until(time.Unix(0, start)))
	approve := map[string]assistant.Decision{"call_mail": assistant.Approved()}
	for i := range chats {
		id := chat.ID{Tenant: "t", User: "u", Chat: "c" + strconv.Itoa(i)}
		res, err := a.Resume(chat.WithID(context.Background(), id), nil, approve)
		switch {
		case err == nil && res.Stop == assistant.StopAnswer:
			fmt.Println(id.Chat, "won")
		case errors.Is(err, assistant.ErrNotPaused):
			fmt.Println(id.Chat, "lost")
		default:
			b, _ := json.Marshal(fmt.Sprint(err))
			fmt.Println(id.Chat, "error:", string(b))
		}
	}
}

// openSpec opens the store "sqlite:PATH" or "redis:ADDR/PREFIX".
func openSpec(spec string) (chat.Store, func(), error) {
	kind, rest, _ := strings.Cut(spec, ":")
	switch kind {
	case "sqlite":
		s, err := sqlitestore.Open(rest)
		if err != nil {
			return nil, nil, err
		}
		return s, func() { s.Close() }, nil
	case "redis":
		addr, prefix, _ := strings.Cut(rest, "/")
		rdb := redis.NewClient(&redis.Options{Addr: addr})
		return redisstore.New(rdb, redisstore.WithPrefix(prefix)), func() { rdb.Close() }, nil
	}
	return nil, nil, fmt.Errorf("unknown store %q", spec)
}

// A Paused given to Resume after its chat paused again at a later turn does not take the later
// pause: it fails with ErrNotPaused and leaves the chat's pause to be resumed.
func TestAStalePausedLeavesTheChatsPause(t *testing.T) {
	t.Parallel()
	var n atomic.Int64
	m := llmtest.NewFunc(func(_ context.Context, req llmtest.Request) llmtest.Reply {
		if n.Add(1) > 2 {
			return llmtest.Text("done")
		}
		return llmtest.Reply{ToolCalls: []llms.ToolCall{{ID: "call_" + strconv.FormatInt(n.Load(), 10), Type: "function",
			FunctionCall: &llms.FunctionCall{Name: "send_mail", Arguments: `{"to":"ana@example.com","body":"hi"}`}}}}
	})
	var sent atomic.Int64
	send := tool.Func("send_mail", "Sends a mail.", func(context.Context, mailArgs) (string, error) { sent.Add(1); return "sent", nil })
	store := chat.NewMemory()
	a := assistant.New[string]("sender", assistant.WithModel(m), assistant.WithTools(send), assistant.WithStore(store),
		assistant.WithApproval(fixed(assistant.Pending()), "send_mail"))
	ctx := chat.WithID(testContext(t), chat.ID{Chat: "c"})
	first, err := a.Run(ctx, assistant.Input{Prompt: "mail ana twice"})
	if err != nil || first.Stop != assistant.StopPending {
		t.Fatalf("err %v, Stop %q", err, first.Stop)
	}
	second, err := a.Resume(ctx, first.Paused, map[string]assistant.Decision{"call_1": assistant.Approved()})
	if err != nil || second.Stop != assistant.StopPending {
		t.Fatalf("err %v, Stop %q", err, second.Stop)
	}
	if _, err := a.Resume(ctx, first.Paused, map[string]assistant.Decision{"call_1": assistant.Approved()}); !errors.Is(err, assistant.ErrNotPaused) {
		t.Errorf("the first pause resumed again: %v; want ErrNotPaused", err)
	}
	final, err := a.Resume(ctx, nil, map[string]assistant.Decision{"call_2": assistant.Approved()})
	if err != nil || final.Stop != assistant.StopAnswer {
		t.Fatalf("the chat's pause: err %v, Stop %q", err, final.Stop)
	}
	if sent.Load() != 2 {
		t.Errorf("%d mails sent, want 2", sent.Load())
	}
}
