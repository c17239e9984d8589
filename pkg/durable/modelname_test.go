package durable_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cadrehq/cadre/pkg/assistant"
	"github.com/cadrehq/cadre/pkg/durable"
	"github.com/cadrehq/cadre/pkg/llmtest"
	"github.com/cadrehq/cadre/pkg/tool"
	"github.com/dbos-inc/dbos-transact-golang/dbos"
	"github.com/google/go-cmp/cmp"
	"github.com/tmc/langchaingo/llms"
)

// namedCustom is a model named as cadre named every model given to assistant.WithModel before
// it named them by what they are: "custom". Its steps are recorded as that cadre recorded them.
type namedCustom struct{ *llmtest.FuncModel }

func (namedCustom) ModelName() string { return "custom" }

// TestARunRecordedUnderTheOldModelNameIsReplayed: a run recorded when a WithModel model was
// named "custom" replays in a process where the same model has its new name (here "func"): the
// recorded requests are found by their old names and not made again, and the requests still to
// make are recorded under the new name. Without it DBOS fails the replay with UnexpectedStep.
func TestARunRecordedUnderTheOldModelNameIsReplayed(t *testing.T) {
	t.Parallel()
	ctx := testContext(t, 2*time.Minute)
	app := appName()

	// writer returns the assistant as each process builds it, and counts the requests its
	// model answers: it looks a topic up, then answers.
	writer := func(old bool, asked *atomic.Int32) *assistant.Assistant[string] {
		lookup := tool.Func("lookup", "Looks a topic up.", func(_ context.Context, in query) (string, error) {
			return "found " + in.Q, nil
		})
		var llm llms.Model = llmtest.NewFunc(func(_ context.Context, req llmtest.Request) llmtest.Reply {
			asked.Add(1)
			if r := results(req.Messages); len(r) > 0 {
				return llmtest.Text("Fjords are deep (" + r[0] + ").")
			}
			return llmtest.Calls(call("c1", "lookup", `{"q":"fjords"}`))
		})
		if old {
			llm = namedCustom{llm.(*llmtest.FuncModel)}
		}
		return assistant.New[string]("writer", assistant.WithModel(llm), assistant.WithTools(lookup))
	}

	// The process of the old version records the run.
	var oldAsked atomic.Int32
	oldCtx := newDBOS(t, dbos.Config{AppName: app})
	oldEng, err := durable.New(oldCtx)
	if err != nil {
		t.Fatal(err)
	}
	durable.Register(oldEng, writer(true, &oldAsked))
	launch(t, oldCtx)
	want, err := oldEng.Run(ctx, "writer", durable.Input{Prompt: "Fjords?"})
	if err != nil {
		t.Fatal(err)
	}
	recorded := []string{"writer/req1/custom", "writer/tool/c1:lookup", "writer/req2/custom"}
	if d := cmp.Diff(recorded, stepNames(t, oldCtx, want.ID)); d != "" {
		t.Fatalf("the old version's steps (-want +got):\n%s", d)
	}

	// The old version's process is replaced by the new one's, as in a deployment: it stops.
	// Running, it would take forks too: DBOS 1.8 keeps queues in the database, and every
	// process of the application serves them all unless told which (dbos.ListenQueues).
	if err := dbos.Shutdown(oldCtx, 20*time.Second); err != nil {
		t.Fatal(err)
	}

	// The process of the new version replays it from each step: DBOS copies the records of the
	// steps before it and runs the workflow again, as a recovery does.
	var newAsked atomic.Int32
	newCtx := newDBOS(t, dbos.Config{AppName: app})
	newEng, err := durable.New(newCtx)
	if err != nil {
		t.Fatal(err)
	}
	durable.Register(newEng, writer(false, &newAsked))
	q := replayQueue(t, newCtx)
	launch(t, newCtx)
	for k := range len(recorded) + 1 {
		t.Run(fmt.Sprintf("from step %d", k), func(t *testing.T) {
			h, err := dbos.ForkWorkflow[any](newCtx, dbos.ForkWorkflowInput{OriginalWorkflowID: want.ID, StartStep: uint(k), QueueName: q.GetName()})
			if err != nil {
				t.Fatalf("ForkWorkflow: %v", err)
			}
			before := newAsked.Load()
			got, err := newEng.Await(ctx, h.GetWorkflowID())
			if err != nil {
				t.Fatalf("the replay failed: %v", err)
			}
			if got.Text != want.Text {
				t.Errorf("the replay answered %q; the run answered %q", got.Text, want.Text)
			}
			// The requests before step k are replayed from their records; the others are made.
			wantAsked := 0
			steps := append([]string(nil), recorded[:k]...)
			for _, s := range recorded[k:] {
				if s == "writer/tool/c1:lookup" {
					steps = append(steps, s)
					continue
				}
				wantAsked++
				steps = append(steps, s[:len(s)-len("custom")]+"func")
			}
			if n := newAsked.Load() - before; int(n) != wantAsked {
				t.Errorf("the new model was asked %d times; want %d", n, wantAsked)
			}
			if d := cmp.Diff(steps, stepNames(t, newCtx, h.GetWorkflowID())); d != "" {
				t.Errorf("the replay's steps (-want +got):\n%s", d)
			}
			if u := got.Usage.ByModel["func"]; u.Requests != 2 || len(got.Usage.ByModel) != 1 {
				t.Errorf("Usage.ByModel = %v; want both requests under the model's name now, func", got.Usage.ByModel)
			}
		})
	}
	if oldAsked.Load() != 2 {
		t.Errorf("the old model was asked %d times; want 2, in the run only", oldAsked.Load())
	}
}
