package durable_test

import (
	"context"
	"crypto/rand"
	"slices"
	"sync"
	"testing"

	"github.com/cadrehq/cadre/pkg/assistant"
	"github.com/cadrehq/cadre/pkg/assistant/middlewaretest"
	"github.com/cadrehq/cadre/pkg/durable"
	"github.com/dbos-inc/dbos-transact-golang/dbos"
)

// TestTheMiddlewareKeepsTheContract: the engine's middleware keeps assistant.Middleware's
// contract inside a workflow, where it makes the requests and tool calls steps and runs a
// turn's calls itself, and outside one, where it passes every step through.
func TestTheMiddlewareKeepsTheContract(t *testing.T) {
	t.Parallel()
	dctx := newDBOS(t, dbos.Config{})
	eng, err := durable.New(dctx)
	if err != nil {
		t.Fatal(err)
	}
	// A workflow of the test's own runs each of the kit's assistants, handed over in memory:
	// the kit makes them as it goes, after dbos.Launch.
	type job struct {
		a   *assistant.Assistant[string]
		in  assistant.Input
		res *assistant.Response
		err error
	}
	var jobs sync.Map // by workflow ID
	kit := func(ctx dbos.Context, id string) (string, error) {
		v, _ := jobs.Load(id)
		j := v.(*job)
		j.res, j.err = j.a.Call(ctx, j.in)
		return "", nil
	}
	dbos.RegisterWorkflow(dctx, kit, dbos.WithWorkflowName("middlewaretest"))
	launch(t, dctx)

	t.Run("in a workflow", func(t *testing.T) {
		var steps []string
		middlewaretest.Run(t, eng.Middleware(), middlewaretest.WithRunner(
			func(_ context.Context, a *assistant.Assistant[string], in assistant.Input) (*assistant.Response, error) {
				id := "middlewaretest-" + rand.Text()
				j := &job{a: a, in: in}
				jobs.Store(id, j)
				h, err := dbos.RunWorkflow(dctx, kit, id, dbos.WithWorkflowID(id))
				if err != nil {
					return nil, err
				}
				if _, err := h.GetResult(); err != nil {
					return nil, err
				}
				steps = append(steps, stepNames(t, dctx, id)...)
				return j.res, j.err
			}))
		for _, want := range []string{"kit/req1/kit-down", "kit/tool/t1:echo", "kit/d2:specialist/tool/s1:echo"} {
			if !slices.Contains(steps, want) {
				t.Errorf("no step %s among the steps of the kit's runs: %q", want, steps)
			}
		}
	})
	t.Run("outside a workflow", func(t *testing.T) {
		middlewaretest.Run(t, eng.Middleware())
	})
}
