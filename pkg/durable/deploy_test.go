package durable_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cadrehq/cadre/pkg/assistant"
	"github.com/dbos-inc/dbos-transact-golang/dbos"
)

// build is set at link time in the binaries that TestADeployRecoversTheRunsOfItsVersionOnly
// builds (-ldflags -X), so that they differ as two builds of a program do.
var build string

// buildTests builds this package's tests again, as the binary path, stamped with stamp.
func buildTests(ctx context.Context, t *testing.T, path, stamp string) {
	t.Helper()
	args := []string{"test", "-c", "-o", path, "-ldflags=-X=github.com/cadrehq/cadre/pkg/durable_test.build=" + stamp}
	if raceBuild {
		args = append(args, "-race")
	}
	out, err := exec.CommandContext(ctx, "go", append(args, ".")...).CombinedOutput()
	if err != nil {
		t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// TestADeployRecoversTheRunsOfItsVersionOnly: a run is killed in a process of one build; a
// process of another build, with the same executor ID, recovers it when the application version
// is pinned, and does not when the version is DBOS's default, a hash of the executable — the
// run then waits for a process of its own build.
func TestADeployRecoversTheRunsOfItsVersionOnly(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds the tests twice")
	}
	ctx := testContext(t, 4*time.Minute)
	dir := t.TempDir()
	old, next := filepath.Join(dir, "old"), filepath.Join(dir, "next")
	buildTests(ctx, t, old, "old")
	buildTests(ctx, t, next, "next")
	a, err := os.ReadFile(old)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(next)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(a, b) {
		t.Fatal("the two builds are the same binary")
	}
	want, err := (&world{}).supervisor().Run(ctx, assistant.Input{Prompt: question1})
	if err != nil {
		t.Fatal(err)
	}

	// killed starts a run of app in a process of the old build, of version, and kills it mid
	// turn.
	killed := func(t *testing.T, app crashApp, dctx dbos.Context, version string) string {
		t.Helper()
		id := "run-" + rand.Text()
		c := startChildOf(ctx, t, old, app, "run", "instance-1", version, envRun+"="+id, envBlock+"=Paris")
		waitFor(ctx, t, "the turn to be under way", func() bool {
			_, err := os.Stat(filepath.Join(app.dir, "blocked"))
			steps, _ := dbos.GetWorkflowSteps(dctx, id)
			return err == nil && len(steps) == 3 // the request, its fallback, Oslo
		})
		c.kill(t)
		return id
	}

	t.Run("pinned", func(t *testing.T) {
		app := newCrashApp(t)
		eng, dctx := app.engine(t)
		id := killed(t, app, dctx, "v1")
		startChildOf(ctx, t, next, app, "serve", "instance-1", "v1")
		got, err := eng.Await(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if d := sameResponse(want.Response, got.Response); d != "" {
			t.Errorf("the run recovered by the next build differs (-uninterrupted +recovered):\n%s", d)
		}
	})

	t.Run("unpinned", func(t *testing.T) {
		app := newCrashApp(t)
		eng, dctx := app.engine(t)
		id := killed(t, app, dctx, unpinned)
		before := workflow(t, dctx, id)
		nextBuild := startChildOf(ctx, t, next, app, "serve", "instance-1", unpinned)
		// Recovery re-enqueues at launch, and the internal queue is polled every second.
		time.Sleep(2500 * time.Millisecond)
		after := workflow(t, dctx, id)
		if after.Status != dbos.WorkflowStatusPending || after.Attempts != before.Attempts || after.ApplicationVersion != before.ApplicationVersion {
			t.Errorf("after a launch of the next build, the run is %s, attempt %d, version %.8s; want it left PENDING, attempt %d, version %.8s",
				after.Status, after.Attempts, after.ApplicationVersion, before.Attempts, before.ApplicationVersion)
		}
		if steps, _ := dbos.GetWorkflowSteps(dctx, id); len(steps) != 3 {
			t.Errorf("the next build ran steps of the run: %d steps; want the 3 of the killed process", len(steps))
		}
		nextBuild.stop()
		startChildOf(ctx, t, old, app, "serve", "instance-1", unpinned)
		got, err := eng.Await(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if d := sameResponse(want.Response, got.Response); d != "" {
			t.Errorf("the run recovered by its own build differs (-uninterrupted +recovered):\n%s", d)
		}
	})
}

// workflow returns the status of the workflow id.
func workflow(t *testing.T, dctx dbos.Context, id string) dbos.WorkflowStatus {
	t.Helper()
	st, err := dbos.ListWorkflows(dctx, dbos.WithFilterWorkflowIDs(id))
	if err != nil || len(st) != 1 {
		t.Fatalf("ListWorkflows(%s): %v, %d", id, err, len(st))
	}
	return st[0]
}
