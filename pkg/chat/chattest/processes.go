package chattest

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cadrehq/cadre/pkg/chat"
)

// The environment of the other process of CheckLinearizableAcrossProcesses: what share
// returned, and the test that runs it.
const (
	envShared = "CADRE_CHATTEST_LINEARIZABLE_SHARED"
	envTest   = "CADRE_CHATTEST_LINEARIZABLE_TEST"
)

// lineTag starts every line of the other process's side of the protocol; the test binary's
// own lines (PASS, ...) are not the protocol's.
const lineTag = "chattest-linearizable: "

// CheckLinearizableAcrossProcesses checks, as CheckLinearizable does, that two processes
// sharing a store — two Stores on one database file, one Redis key prefix, one PostgreSQL
// schema — see its chats as one chat at a time would: in each history, four goroutines of this
// process and four of another make random calls on the same chats, each stamped with
// CLOCK_MONOTONIC, which both processes read alike, and porcupine checks them together.
//
// share is called once, in this process: it returns what the two Stores share (a file's
// path, a prefix, a schema) and arranges its removal with t.Cleanup. open returns a Store on
// what share returned, and is called in both processes. The other process is this test binary
// run again with -test.run naming t, which calls CheckLinearizableAcrossProcesses as this one
// did: t's test must call it before anything else that it would do only once, and in a test
// (or subtest) of its own. The other process gets this one's environment: a test's resources
// that it finds there (a server's address) are the same in both.
//
// Sizes, failures and figures are as CheckLinearizable's; name names the store in the figures.
func CheckLinearizableAcrossProcesses(t *testing.T, name string, share func(t *testing.T) string, open func(t *testing.T, shared string) chat.Store) {
	t.Helper()
	if shared, ok := os.LookupEnv(envShared); ok {
		if test := os.Getenv(envTest); test != t.Name() {
			t.Fatalf("%s is set, for test %q, in test %q: the other process of a check runs one test", envShared, test, t.Name())
		}
		serveOther(t, open(t, shared))
		return
	}
	size := sizeOf(t)
	shared := share(t)
	s := open(t, shared)
	other := startOther(t, shared)
	const processes, clients = 2, 4
	perClient := opsPerHistory / (processes * clients)
	fig := figures{processes: true}
	for h := range size.histories {
		seed := size.seed + uint64(h)
		other.start(t, h, seed, clients, perClient)
		recs := workload{store: s, history: h, clients: clients, ops: perClient, seed: seed}.run(t.Context())
		recs = append(recs, other.records(t, h)...)
		checkHistory(t, recs, clients, h, seed, &fig)
	}
	if err := other.stop(); err != nil {
		t.Errorf("the other process: %v\n%s", err, other.stderr)
	}
	t.Logf("figures: chat store linearizability: %s, %d processes × %d goroutines: %s", name, processes, clients, fig)
}

// other is the other process of CheckLinearizableAcrossProcesses. Each line it reads, "run
// HISTORY SEED CLIENTS OPS", starts a workload of process 1; it answers "started HISTORY",
// then once the workload is done, a line "op JSON" for each of its records and "done HISTORY".
type other struct {
	in     io.WriteCloser
	out    *bufio.Scanner
	stderr *strings.Builder
	stop   func() error
}

// startOther runs this test binary again as the other process of t's check, and waits until
// it has a Store open on shared.
func startOther(t *testing.T, shared string) *other {
	t.Helper()
	args := []string{"-test.run=" + runPattern(t.Name()), "-test.count=1"}
	if deadline, ok := t.Deadline(); ok {
		args = append(args, "-test.timeout="+time.Until(deadline).String())
	}
	cmd := exec.CommandContext(t.Context(), os.Args[0], args...)
	cmd.Env = append(os.Environ(), envShared+"="+shared, envTest+"="+t.Name())
	cmd.WaitDelay = 5 * time.Second
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	o := &other{in: in, out: bufio.NewScanner(out), stderr: &strings.Builder{}}
	o.out.Buffer(nil, 16<<20) // a Load's texts can make a long line
	cmd.Stderr = o.stderr
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting the other process: %v", err)
	}
	o.stop = sync.OnceValue(func() error {
		in.Close()
		return cmd.Wait()
	})
	t.Cleanup(func() { o.stop() })
	o.expect(t, "ready")
	return o
}

// runPattern returns the -test.run pattern that runs the test named name, and no other.
func runPattern(name string) string {
	parts := strings.Split(name, "/")
	for i, p := range parts {
		parts[i] = "^" + regexp.QuoteMeta(p) + "$"
	}
	return strings.Join(parts, "/")
}

// start starts the other process's workload of history h, and returns once it has started.
func (o *other) start(t *testing.T, h int, seed uint64, clients, ops int) {
	t.Helper()
	if _, err := fmt.Fprintf(o.in, "run %d %d %d %d\n", h, seed, clients, ops); err != nil {
		t.Fatalf("the other process does not read: %v\n%s", err, o.stderr)
	}
	o.expect(t, fmt.Sprintf("started %d", h))
}

// records returns the records of the other process's workload of history h, once it is done.
func (o *other) records(t *testing.T, h int) []record {
	t.Helper()
	var recs []record
	for {
		line := o.line(t)
		if line == fmt.Sprintf("done %d", h) {
			return recs
		}
		js, ok := strings.CutPrefix(line, "op ")
		var r record
		if !ok || json.Unmarshal([]byte(js), &r) != nil {
			t.Fatalf("the other process says %q, want an operation of history %d or its end", line, h)
		}
		recs = append(recs, r)
	}
}

// expect reads the other process's next line, which must be want.
func (o *other) expect(t *testing.T, want string) {
	t.Helper()
	if line := o.line(t); line != want {
		t.Fatalf("the other process says %q, want %q", line, want)
	}
}

// line returns the other process's next line of the protocol.
func (o *other) line(t *testing.T) string {
	t.Helper()
	for o.out.Scan() {
		if line, ok := strings.CutPrefix(o.out.Text(), lineTag); ok {
			return line
		}
	}
	err := o.stop()
	t.Fatalf("the other process ended (%v, %v):\n%s", o.out.Err(), err, o.stderr)
	return ""
}

// serveOther is the other process: it runs the workloads its input asks for on s.
func serveOther(t *testing.T, s chat.Store) {
	t.Helper()
	out := bufio.NewWriter(os.Stdout)
	say := func(format string, args ...any) {
		fmt.Fprintf(out, lineTag+format+"\n", args...)
	}
	say("ready")
	out.Flush()
	in := bufio.NewScanner(os.Stdin)
	for in.Scan() {
		w := workload{store: s, process: 1}
		if _, err := fmt.Sscanf(in.Text(), "run %d %d %d %d", &w.history, &w.seed, &w.clients, &w.ops); err != nil {
			t.Fatalf("the checking process says %q: %v", in.Text(), err)
		}
		say("started %d", w.history)
		out.Flush()
		for _, r := range w.run(t.Context()) {
			js, err := json.Marshal(r)
			if err != nil {
				t.Fatal(err)
			}
			say("op %s", js)
		}
		say("done %d", w.history)
		if err := out.Flush(); err != nil {
			t.Fatal(err)
		}
	}
}
