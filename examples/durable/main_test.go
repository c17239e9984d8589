package main

import (
	"context"
	"crypto/rand"
	"errors"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cadrehq/cadre/internal/pgtest"
	"github.com/cadrehq/cadre/pkg/assistant/middlewaretest"
	"github.com/jackc/pgx/v5"
)

// TestTheRunGoesOnAfterARestart stops the program in the middle of the run — DBOS shuts down,
// as it does when the process ends, and the run is left where it was — and starts it again: the
// run goes on, the downloads that completed are not done again, and the answer and the usage
// are those of a run that was never stopped.
func TestTheRunGoesOnAfterARestart(t *testing.T) {
	if os.Getenv(pgtest.EnvSkip) == "1" {
		t.Skip(pgtest.EnvSkip + "=1: the tests with PostgreSQL are skipped")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	url, stopServer, err := pgtest.Shared(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer stopServer()
	schema := "cadretest_example_" + strings.ToLower(rand.Text()[:12])
	defer func() {
		conn, err := pgx.Connect(context.Background(), url)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close(context.Background())
		if _, err := conn.Exec(context.Background(), "DROP SCHEMA IF EXISTS "+pgx.Identifier{schema}.Sanitize()+" CASCADE"); err != nil {
			t.Error(err)
		}
	}()
	o := options{url: url, schema: schema, id: "report-" + strings.ToLower(rand.Text()[:8]), executor: "test", slow: 100 * time.Millisecond}

	// Stopped while it analyzes: the downloads are done.
	stop := make(chan struct{})
	first := &watcher{on: "running analyze", then: func() { close(stop) }}
	o.stop = stop
	var out strings.Builder
	if err := run(ctx, &out, first, o); !errors.Is(err, errStopped) {
		t.Fatalf("the first process: %v; want it stopped\n%s", err, first)
	}
	if n := strings.Count(first.String(), "running download"); n != 2 {
		t.Fatalf("the first process downloaded %d times; want 2:\n%s", n, first)
	}
	if !strings.Contains(first.String(), "analyst: asking offline (request 2)") {
		t.Fatalf("the first process did not make the analyst's second request:\n%s", first)
	}

	o.stop = nil
	second := &watcher{}
	out.Reset()
	if err := run(ctx, &out, second, o); err != nil {
		t.Fatalf("the second process: %v\n%s", err, second)
	}
	if !strings.Contains(out.String(), "taking it up where it is") {
		t.Errorf("the second process did not find the run:\n%s", out.String())
	}
	if strings.Contains(second.String(), "download") || strings.Contains(second.String(), "analyst: asking offline (request 1)") ||
		strings.Contains(second.String(), "analyst: asking offline (request 2)") {
		t.Errorf("the second process did again what the first had done:\n%s", second)
	}
	if !strings.Contains(second.String(), "running analyze") || !strings.Contains(second.String(), "writer: running check") {
		t.Errorf("the second process did not go on with the run:\n%s", second)
	}

	// A run that was never stopped answers the same, with the same usage.
	o.id += "-straight"
	var straight strings.Builder
	if err := run(ctx, &straight, &watcher{}, o); err != nil {
		t.Fatal(err)
	}
	_, got, _ := strings.Cut(out.String(), "\n\n")
	_, want, _ := strings.Cut(straight.String(), "\n\n")
	if got != want || !strings.Contains(want, "run      requests 6  tool calls 5") {
		t.Errorf("the restarted run's answer and usage:\n%s\nthe uninterrupted run's:\n%s", got, want)
	}
}

// TestTheProgressMiddlewareKeepsTheContract: the example's own middleware, which writes each
// request and tool call it sees, keeps assistant.Middleware's contract.
func TestTheProgressMiddlewareKeepsTheContract(t *testing.T) {
	var progress watcher
	middlewaretest.Run(t, shown(&progress))
	if out := progress.String(); !strings.Contains(out, "kit: asking kit-model (request 2)") || !strings.Contains(out, "specialist: running echo") {
		t.Errorf("the middleware did not write the kit's requests and calls:\n%s", out)
	}
}

// watcher is a progress writer that calls then, once, when a line holds on.
type watcher struct {
	mu     sync.Mutex
	b      strings.Builder
	on     string
	then   func()
	called bool
}

func (w *watcher) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.b.Write(p)
	if w.then != nil && !w.called && strings.Contains(w.b.String(), w.on) {
		w.called = true
		w.then()
	}
	return len(p), nil
}

func (w *watcher) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.String()
}
