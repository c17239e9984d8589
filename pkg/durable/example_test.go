package durable_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"log/slog"
	"os"
	"time"

	"github.com/cadrehq/cadre/pkg/assistant"
	"github.com/cadrehq/cadre/pkg/durable"
	"github.com/cadrehq/cadre/pkg/llmfactory"
	"github.com/dbos-inc/dbos-transact-golang/dbos"
)

// A program makes a DBOS context, an engine on it, registers the assistants the engine runs,
// and launches DBOS, which takes up the runs its last process left in flight. A run with an ID
// of its own is started once, however many times it is asked for.
func Example() {
	ctx := context.Background()
	dctx, err := dbos.NewContext(ctx, dbos.Config{
		AppName:            "support",
		DatabaseURL:        os.Getenv("DATABASE_URL"),
		ApplicationVersion: "support-7",           // pinned: a new build takes up the last one's runs
		ExecutorID:         os.Getenv("HOSTNAME"), // stable, one for each instance
		Logger:             slog.Default(),
	})
	if err != nil {
		log.Fatal(err)
	}
	eng, err := durable.New(dctx)
	if err != nil {
		log.Fatal(err)
	}
	factory, err := llmfactory.Load("llm.yaml")
	if err != nil {
		log.Fatal(err)
	}
	durable.Register(eng, assistant.New[string]("support", assistant.WithModels(factory)))
	if err := dbos.Launch(dctx); err != nil {
		log.Fatal(err)
	}
	defer dbos.Shutdown(dctx, 30*time.Second)

	res, err := eng.Run(ctx, "support", durable.Input{Prompt: "Where is my order?"}, durable.WithID("request-8f3a"))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Text)
}

// A run that waits for a person's decision has ended its workflow: any process resumes it, once.
func ExampleEngine_Resume() {
	ctx := context.Background()
	var eng *durable.Engine // durable.New(dctx), with the assistant registered
	res, err := eng.Await(ctx, "refund-42")
	if err != nil {
		log.Fatal(err)
	}
	if res.Stop != assistant.StopPending {
		fmt.Println(res.Text)
		return
	}
	decisions := map[string]assistant.Decision{}
	for _, c := range res.Paused.Waiting() {
		decisions[c.ID] = assistant.Approved() // as a person decided
	}
	next, err := eng.Resume(ctx, res.ID, decisions)
	if errors.Is(err, assistant.ErrNotPaused) {
		return // decided already, in this process or another
	}
	if err != nil {
		log.Fatal(err)
	}
	if res, err = eng.Await(ctx, next); err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Text)
}
