package durable_test

import (
	"bufio"
	"context"
	"crypto/rand"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/cadrehq/cadre/internal/pgtest"
	"github.com/cadrehq/cadre/pkg/assistant"
	"github.com/cadrehq/cadre/pkg/durable"
	"github.com/dbos-inc/dbos-transact-golang/dbos"
)

// The crash tests run the application in child processes — this test binary again, running
// TestChildProcess — against the tests' PostgreSQL, kill them, start others, and check what
// the runs did from the outside: from the database, and from a file where the children append
// every execution of a model or a tool (see executions).

// The environment of a child process: what it does, as which application, executor and
// version, where it writes, and the run it works on. envSchema marks the process as a child.
const (
	envRole     = "CADRE_DURABLE_ROLE"     // run, pause, resume, enqueue or serve (see TestChildProcess)
	envApp      = "CADRE_DURABLE_APP"      // dbos.Config.AppName
	envExecutor = "CADRE_DURABLE_EXECUTOR" // dbos.Config.ExecutorID
	envVersion  = "CADRE_DURABLE_VERSION"  // dbos.Config.ApplicationVersion
	envDir      = "CADRE_DURABLE_DIR"      // the files: ran, blocked
	envRun      = "CADRE_DURABLE_RUN"      // the run's ID; for enqueue, how many runs
	envBlock    = "CADRE_DURABLE_BLOCK"    // the city whose weather blocks the process
	envSlow     = "CADRE_DURABLE_SLOW"     // how long every weather call takes
)

// crashApp is a crash test's application: its name, and the directory of its files.
type crashApp struct {
	name, dir string
}

func newCrashApp(t *testing.T) crashApp {
	t.Helper()
	return crashApp{name: appName(), dir: t.TempDir()}
}

// ran reads the executions the children appended.
func (a crashApp) ran(t *testing.T) *executions {
	t.Helper()
	x, err := readRan(filepath.Join(a.dir, "ran"))
	if err != nil {
		t.Fatal(err)
	}
	return x
}

// engine returns an engine on a dbos.Context of the application that is never launched: the
// test awaits runs with it, and reads the database, as a process of the application that runs
// nothing.
func (a crashApp) engine(t *testing.T) (*durable.Engine, dbos.Context) {
	t.Helper()
	dctx := newDBOS(t, dbos.Config{AppName: a.name, ExecutorID: "observer"})
	eng, err := durable.New(dctx)
	if err != nil {
		t.Fatal(err)
	}
	return eng, dctx
}

// child is a child process: a process of the application until its input ends or it is killed.
type child struct {
	cmd    *exec.Cmd
	in     io.WriteCloser
	out    chan string // its protocol's lines ("durable: ..."), without the prefix
	stderr *lockedBuffer
	done   chan struct{} // closed when it has ended
	err    error         // how it ended, once done is closed
}

// startChild starts a child process of app in role, as executor with version, with more
// environment, and waits until it says it is ready.
func startChild(ctx context.Context, t *testing.T, app crashApp, role, executor, version string, env ...string) *child {
	t.Helper()
	return startChildOf(ctx, t, os.Args[0], app, role, executor, version, env...)
}

// startChildOf is startChild with the test binary bin, a build of this package's tests.
func startChildOf(ctx context.Context, t *testing.T, bin string, app crashApp, role, executor, version string, env ...string) *child {
	t.Helper()
	cmd := exec.CommandContext(ctx, bin, "-test.run=^TestChildProcess$", "-test.count=1", "-test.timeout=2m")
	cmd.Env = append(os.Environ(), pgtest.EnvURL+"="+postgres.url, envSchema+"="+postgres.schema,
		envRole+"="+role, envApp+"="+app.name, envExecutor+"="+executor, envVersion+"="+version, envDir+"="+app.dir)
	cmd.Env = append(cmd.Env, env...)
	cmd.WaitDelay = 5 * time.Second
	return runChild(ctx, t, cmd)
}

// runChild starts cmd, a child process, and waits until it says it is ready.
func runChild(ctx context.Context, t *testing.T, cmd *exec.Cmd) *child {
	t.Helper()
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	c := &child{cmd: cmd, in: in, out: make(chan string, 16), stderr: &lockedBuffer{}, done: make(chan struct{})}
	cmd.Stderr = c.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		lines := bufio.NewScanner(out)
		for lines.Scan() {
			if line, ok := strings.CutPrefix(lines.Text(), "durable: "); ok {
				c.out <- line
			} else {
				fmt.Fprintln(c.stderr, lines.Text()) // the test binary's own words: why it failed
			}
		}
		close(c.out)
		c.err = cmd.Wait()
		close(c.done)
	}()
	t.Cleanup(c.stop)
	if line := c.line(ctx, t); line != "ready" {
		t.Fatalf("a child process says %q; want ready", line)
	}
	return c
}

// line returns the child's next line.
func (c *child) line(ctx context.Context, t *testing.T) string {
	t.Helper()
	select {
	case line, ok := <-c.out:
		if ok {
			return line
		}
		<-c.done
		t.Fatalf("a child process ended (%v):\n%s", c.err, c.stderr)
	case <-ctx.Done():
		t.Fatalf("a child process did not answer in time:\n%s", c.stderr)
	}
	return ""
}

// stop ends the child as a process ends when it is told to: DBOS shuts down.
func (c *child) stop() {
	c.in.Close()
	<-c.done
}

// kill ends the child at once, as kill -9 does: nothing it was doing is finished.
func (c *child) kill(t *testing.T) {
	t.Helper()
	if err := c.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-c.done
	if ws, ok := c.cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || ws.Signal() != syscall.SIGKILL {
		t.Fatalf("the child process ended otherwise than killed: %v\n%s", c.err, c.stderr)
	}
}

// lockedBuffer is a strings.Builder that exec's copying goroutine writes while a test reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// TestChildProcess is a process of a crash test's application, when a crash test runs this
// test binary as one. It launches DBOS with the application's engine and assistants (recovering
// the runs of its executor that were in flight), does what its role says, says "ready", and
// serves until its input ends:
//
//   - run: starts a run of the supervisor with the ID of envRun;
//   - pause: starts a run of the cashier with the ID of envRun, which pauses;
//   - resume: approves the refund of the paused run envRun, and says the continuation's ID;
//   - enqueue: puts envRun runs of the supervisor on the application's queue, and says their IDs;
//   - serve: nothing more.
func TestChildProcess(t *testing.T) {
	role := os.Getenv(envRole)
	if role == "" {
		t.Skip("a process of the crash tests' application")
	}
	if build != "" {
		t.Logf("build %s", build)
	}
	ctx := context.Background()
	dctx := newDBOS(t, dbos.Config{AppName: os.Getenv(envApp), ExecutorID: os.Getenv(envExecutor), ApplicationVersion: os.Getenv(envVersion)})
	// Queue names are one namespace for every application of a schema.
	q, err := dbos.RegisterQueue(dctx, "runs-"+os.Getenv(envApp), dbos.WithWorkerConcurrency(1), dbos.WithQueueBasePollingInterval(50*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	eng, err := durable.New(dctx, durable.WithRestore(restoreTenant))
	if err != nil {
		t.Fatal(err)
	}
	dir := os.Getenv(envDir)
	ran, err := os.OpenFile(filepath.Join(dir, "ran"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer ran.Close()
	w := &world{eng: eng, ran: executions{file: ran}, block: os.Getenv(envBlock), blocked: filepath.Join(dir, "blocked")}
	if s := os.Getenv(envSlow); s != "" {
		if w.slow, err = time.ParseDuration(s); err != nil {
			t.Fatal(err)
		}
	}
	durable.Register(eng, w.supervisor())
	durable.Register(eng, w.cashier(eng.Approver(w.approver())))
	launch(t, dctx)

	id := os.Getenv(envRun)
	var said []string
	switch role {
	case "run":
		_, err = eng.Start(ctx, "supervisor", durable.Input{Prompt: question1}, durable.WithID(id))
	case "pause":
		_, err = eng.Start(ctx, "cashier", durable.Input{Prompt: "Refund me", Meta: map[string]string{"tenant": "acme"}}, durable.WithID(id))
	case "resume":
		var next string
		next, err = eng.Resume(ctx, id, map[string]assistant.Decision{"p1": assistant.Approved()})
		said = append(said, next)
	case "enqueue":
		n, _ := strconv.Atoi(id)
		for range n {
			var one string
			if one, err = eng.Start(ctx, "supervisor", durable.Input{Prompt: question1}, durable.OnQueue(q)); err != nil {
				break
			}
			said = append(said, one)
		}
	case "serve":
	default:
		err = fmt.Errorf("no role %q", role)
	}
	if err != nil {
		t.Fatal(err)
	}
	fmt.Println("durable: ready")
	for _, s := range said {
		fmt.Println("durable: " + s)
	}
	io.Copy(io.Discard, os.Stdin) // until the test ends the process
}

// waitFor polls cond until it holds, or fails the test when ctx is done first.
func waitFor(ctx context.Context, t *testing.T, what string, cond func() bool) {
	t.Helper()
	for !cond() {
		select {
		case <-ctx.Done():
			t.Fatalf("waiting for %s: %v", what, ctx.Err())
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// TestARunKilledMidTurnIsRecoveredByTheNextProcess: a process is killed with SIGKILL while a
// tool call of a parallel turn runs (after the turn's other call completed; the delegated run
// waits for the turn's calls); the next process of the same executor and version recovers the
// run at launch.
// Every model request and tool call that completed ran once — only the call that was running
// ran again — and the answer and the usage are an uninterrupted run's.
func TestARunKilledMidTurnIsRecoveredByTheNextProcess(t *testing.T) {
	t.Parallel()
	ctx := testContext(t, 2*time.Minute)
	want, err := (&world{}).supervisor().Run(ctx, assistant.Input{Prompt: question1})
	if err != nil {
		t.Fatal(err)
	}
	app := newCrashApp(t)
	eng, dctx := app.engine(t)
	id := "run-" + rand.Text()
	first := startChild(ctx, t, app, "run", "instance-1", "v1", envRun+"="+id, envBlock+"=Paris")
	// Paris blocks; the request and Oslo are recorded, and the researcher waits for Paris.
	waitFor(ctx, t, "the turn to be under way", func() bool {
		_, err := os.Stat(filepath.Join(app.dir, "blocked"))
		steps, _ := dbos.GetWorkflowSteps(dctx, id)
		return err == nil && len(steps) == 3
	})
	first.kill(t)
	if st := status(t, dctx, id); st != dbos.WorkflowStatusPending {
		t.Fatalf("the killed process's run is %s; want PENDING", st)
	}

	second := startChild(ctx, t, app, "serve", "instance-1", "v1")
	got, err := eng.Await(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	second.stop()
	if d := sameResponse(want.Response, got.Response); d != "" {
		t.Errorf("the recovered run differs from an uninterrupted one (-uninterrupted +recovered):\n%s", d)
	}
	names := stepNames(t, dctx, id)
	ran := app.ran(t).of(id)
	for step, name := range names {
		n := len(ran[step])
		if name == "supervisor/tool/w2:weather" {
			if n != 2 {
				t.Errorf("step %d (%s), running when the process was killed, ran %d times; want twice", step, name, n)
			}
		} else if n != 1 {
			t.Errorf("step %d (%s) ran %d times (%q); want once", step, name, n, ran[step])
		}
	}
}

// TestAnApprovalWaitsAcrossRestarts: a run pauses in one process; both processes of the
// application restart; the other one decides, and the continuation runs the approved call once.
func TestAnApprovalWaitsAcrossRestarts(t *testing.T) {
	t.Parallel()
	ctx := testContext(t, 2*time.Minute)
	app := newCrashApp(t)
	eng, _ := app.engine(t)
	id := "refund-" + rand.Text()
	a := startChild(ctx, t, app, "pause", "instance-1", "v1", envRun+"="+id)
	b := startChild(ctx, t, app, "serve", "instance-2", "v1")
	paused, err := eng.Await(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if paused.Stop != assistant.StopPending {
		t.Fatalf("stop %q; want the run paused", paused.Stop)
	}
	a.kill(t)
	b.stop()

	startChild(ctx, t, app, "serve", "instance-1", "v1")
	decider := startChild(ctx, t, app, "resume", "instance-2", "v1", envRun+"="+id)
	next := decider.line(ctx, t)
	if next != id+"#2" {
		t.Fatalf("the continuation is %q; want %q", next, id+"#2")
	}
	res, err := eng.Await(ctx, next)
	if err != nil {
		t.Fatal(err)
	}
	if want := "done: refunded 30; noted for acme"; res.Text != want {
		t.Errorf("answer %q; want %q", res.Text, want)
	}
	if n := app.ran(t).count("refund 30", id, next); n != 1 {
		t.Errorf("the refund ran %d times; want once", n)
	}
}

// TestTwoInstancesShareAQueueOfRuns: two processes of the application, each an executor of its
// own, take the runs put on a queue: every run completes, once, and both processes run some.
func TestTwoInstancesShareAQueueOfRuns(t *testing.T) {
	t.Parallel()
	ctx := testContext(t, 2*time.Minute)
	app := newCrashApp(t)
	eng, dctx := app.engine(t)
	startChild(ctx, t, app, "serve", "instance-2", "v1", envSlow+"=100ms")
	const runs = 6
	producer := startChild(ctx, t, app, "enqueue", "instance-1", "v1", envRun+"="+strconv.Itoa(runs), envSlow+"=100ms")
	ids := make([]string, runs)
	for i := range ids {
		ids[i] = producer.line(ctx, t)
	}
	want, err := (&world{}).supervisor().Run(ctx, assistant.Input{Prompt: question1})
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range ids {
		got, err := eng.Await(ctx, id)
		if err != nil {
			t.Fatalf("run %s: %v", id, err)
		}
		if d := sameResponse(want.Response, got.Response); d != "" {
			t.Errorf("run %s differs from a run in one process (-want +got):\n%s", id, d)
		}
	}
	ran := app.ran(t)
	for _, id := range ids {
		steps := ran.of(id)
		if len(steps) != len(wantSteps) {
			t.Errorf("run %s: %d steps ran; want %d", id, len(steps), len(wantSteps))
		}
		for step, what := range steps {
			if len(what) != 1 {
				t.Errorf("run %s: step %d ran %q; want once", id, step, what)
			}
		}
	}
	statuses, err := dbos.ListWorkflows(dctx, dbos.WithFilterWorkflowIDs(ids...))
	if err != nil {
		t.Fatal(err)
	}
	by := map[string]int{}
	for _, s := range statuses {
		by[s.ExecutorID]++
	}
	if by["instance-1"] == 0 || by["instance-2"] == 0 || by["instance-1"]+by["instance-2"] != runs {
		t.Errorf("runs by executor %v; want all %d, some on each instance", by, runs)
	}
}
