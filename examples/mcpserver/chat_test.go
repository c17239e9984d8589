package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cadrehq/cadre/internal/redistest"

	"github.com/cadrehq/cadre/pkg/chat"
	"github.com/cadrehq/cadre/pkg/chat/redisstore"
	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/redis/go-redis/v9"
)

// ask gets prompt name with input, in chat chatID when it is not "", and returns the answer.
func ask(t *testing.T, c *client.Client, name, input, chatID string) string {
	t.Helper()
	var req mcp.GetPromptRequest
	req.Params.Name = name
	req.Params.Arguments = map[string]string{"input": input}
	if chatID != "" {
		req.Params.Arguments["chat_id"] = chatID
	}
	res, err := c.GetPrompt(testContext(t), req)
	if err != nil {
		t.Fatalf("prompt %s in chat %q: %v", name, chatID, err)
	}
	if len(res.Messages) != 2 {
		t.Fatalf("prompt %s: %d messages, want the user's and the answer", name, len(res.Messages))
	}
	return res.Messages[1].Content.(mcp.TextContent).Text
}

const rememberOne = "(I remember 1 earlier question.)"

// checkMemory fails the test unless answer remembers as many earlier questions as want says.
func checkMemory(t *testing.T, what, answer, want string) {
	t.Helper()
	if want == "" {
		if strings.Contains(answer, "I remember") {
			t.Errorf("%s: answer %q remembers, want a new conversation", what, answer)
		}
		return
	}
	if !strings.HasSuffix(answer, want) {
		t.Errorf("%s: answer %q, want it to end %q", what, answer, want)
	}
}

// httpClient connects to the server at url as tenant and user.
func httpClient(t *testing.T, url, tenant, user string) *client.Client {
	t.Helper()
	c, err := client.NewStreamableHttpClient(url, transport.WithHTTPHeaders(map[string]string{"X-Tenant": tenant, "X-User": user}))
	if err != nil {
		t.Fatal(err)
	}
	return initialize(t, c)
}

func TestChatsInMemory(t *testing.T) {
	t.Parallel()
	c := inProcess(t, "")
	checkMemory(t, "the guide, first", ask(t, c, "guide", "What do I say in Rome?", "c1"), "")
	checkMemory(t, "the guide, again", ask(t, c, "guide", "And in Paris?", "c1"), rememberOne)
	checkMemory(t, "the guide, a third time", ask(t, c, "guide", "And in Tokyo?", "c1"), "(I remember 2 earlier questions.)")
	checkMemory(t, "the guide, without chat_id", ask(t, c, "guide", "And in Lisbon?", ""), "")
	checkMemory(t, "the guide, another chat", ask(t, c, "guide", "And in Lisbon?", "c2"), "")

	// The planner keeps its own chats: the guide's chat c1 is not the planner's.
	var plan Plan
	for i, want := range []string{"", rememberOne} {
		answer := ask(t, c, "planner", "Plan 2 days in Oslo.", "c1")
		if err := json.Unmarshal([]byte(answer), &plan); err != nil {
			t.Fatalf("planner answered %q: %v", answer, err)
		}
		checkMemory(t, fmt.Sprintf("the planner, get %d", i+1), plan.Advice, want)
	}
}

// Over HTTP, the X-Tenant and X-User headers say whose a chat is.
func TestChatsOverHTTPStayWithTheirCaller(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s, err := newServer(settings{}, &chatStores{}, io.Discard, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- serveHTTP(ctx, s, ln, nil, io.Discard) }()
	url := "http://" + ln.Addr().String() + "/mcp"

	steps := []struct {
		tenant, user, want string
	}{
		{"acme", "ana", ""},
		{"acme", "ana", rememberOne},
		{"globex", "ana", ""}, // the same chat_id, another tenant
		{"acme", "bo", ""},    // another user
		{"", "", ""},          // no headers
		{"globex", "ana", rememberOne},
	}
	for _, st := range steps {
		c := httpClient(t, url, st.tenant, st.user)
		checkMemory(t, st.tenant+"/"+st.user, ask(t, c, "guide", "What do I say in Rome?", "trip"), st.want)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

var urlLine = regexp.MustCompile(`serving MCP over streamable HTTP at (http://\S+)`)

// startServer starts the binary bin with args and returns the URL it serves at; the server is
// interrupted, and must stop cleanly, when the test ends.
func startServer(t *testing.T, bin string, args ...string) string {
	t.Helper()
	cmd := exec.Command(bin, args...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var log strings.Builder
	logged := func() string { mu.Lock(); defer mu.Unlock(); return log.String() }
	urls, exited := make(chan string, 1), make(chan error, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			mu.Lock()
			log.WriteString(sc.Text() + "\n")
			mu.Unlock()
			if m := urlLine.FindStringSubmatch(sc.Text()); m != nil {
				urls <- m[1]
			}
		}
		exited <- cmd.Wait()
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		select {
		case err := <-exited:
			if err != nil {
				t.Errorf("%s %v exited with %v:\n%s", bin, args, err, logged())
			}
		case <-time.After(30 * time.Second):
			_ = cmd.Process.Kill()
			t.Errorf("%s %v did not stop within 30s of an interrupt:\n%s", bin, args, logged())
		}
	})
	select {
	case url := <-urls:
		return url
	case err := <-exited:
		t.Fatalf("%s %v exited before serving: %v\n%s", bin, args, err, logged())
	case <-time.After(time.Minute):
		t.Fatalf("%s %v did not say where it serves within a minute:\n%s", bin, args, logged())
	}
	return ""
}

// Two server processes on one Redis continue each other's chats over MCP.
func TestChatsSharedByTwoProcessesThroughRedis(t *testing.T) {
	t.Parallel()
	addr := redistest.Addr(t)
	bin := filepath.Join(t.TempDir(), "mcpserver")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	// A tenant of this run's own, so that a Redis kept between runs holds no chat of it yet.
	tenant := fmt.Sprintf("test-%d", time.Now().UnixNano())
	other := tenant + "-other"
	t.Cleanup(func() { deleteChats(t, addr, tenant, other) })

	one := startServer(t, bin, "-http", "127.0.0.1:0", "-redis", addr)
	two := startServer(t, bin, "-http", "127.0.0.1:0", "-redis", addr)

	checkMemory(t, "the first process", ask(t, httpClient(t, one, tenant, "ana"), "guide", "What do I say in Rome?", "X"), "")
	checkMemory(t, "the second process", ask(t, httpClient(t, two, tenant, "ana"), "guide", "And in Paris?", "X"), rememberOne)
	checkMemory(t, "the first process again", ask(t, httpClient(t, one, tenant, "ana"), "guide", "And in Tokyo?", "X"), "(I remember 2 earlier questions.)")
	checkMemory(t, "another tenant", ask(t, httpClient(t, two, other, "ana"), "guide", "What do I say in Rome?", "X"), "")

	// The history is in Redis: the user's turns and the answers, tool calls and results included.
	rdb := redis.NewClient(&redis.Options{Addr: addr})
	defer rdb.Close()
	msgs, err := redisstore.New(rdb, redisstore.WithPrefix(redisPrefix+"guide:")).Load(testContext(t), chat.ID{Tenant: tenant, User: "ana", Chat: "X"})
	if err != nil {
		t.Fatal(err)
	}
	if len(msgs) != 12 { // three times: the question, the phrasebook call, its result, the answer
		t.Errorf("the chat holds %d messages, want 12", len(msgs))
	}
}

// deleteChats deletes the chats of the tenants that a test made in the Redis at addr.
func deleteChats(t *testing.T, addr string, tenants ...string) {
	t.Helper()
	rdb := redis.NewClient(&redis.Options{Addr: addr})
	defer rdb.Close()
	ctx := context.Background()
	for _, name := range []string{"planner", "guide"} {
		store := redisstore.New(rdb, redisstore.WithPrefix(redisPrefix+name+":"))
		for _, tenant := range tenants {
			chats, err := store.List(ctx, tenant)
			if err != nil {
				t.Errorf("listing the test's chats: %v", err)
				return
			}
			for _, c := range chats {
				if err := store.Delete(ctx, c.ID); err != nil {
					t.Errorf("deleting chat %s: %v", c.ID, err)
				}
			}
		}
	}
}

func TestRedisThatDoesNotAnswer(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens there now
	err = run(testContext(t), settings{http: "127.0.0.1:0", redis: addr}, strings.NewReader(""), io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "the Redis at "+addr+" does not answer") || !strings.Contains(err.Error(), "leave -redis out") {
		t.Errorf("error %v, want one naming the Redis and what to do", err)
	}
}
