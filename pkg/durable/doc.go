// Package durable runs assistants' runs as durable workflows on PostgreSQL, through DBOS
// Transact (github.com/dbos-inc/dbos-transact-golang), so that a run survives the end of its
// process: another process — the same program restarted, or another instance — takes it up
// where it was, without sending again the model requests that were answered nor running again
// the tool calls that completed, and its usage comes out as if it had never stopped.
//
// A program makes a dbos.Context, an Engine on it, registers the assistants the engine runs,
// and launches DBOS, which takes up the runs that were in flight:
//
//	dctx, err := dbos.NewContext(ctx, dbos.Config{AppName: "support", DatabaseURL: url,
//		ApplicationVersion: version, ExecutorID: hostname, Logger: logger})
//	eng, err := durable.New(dctx)
//	durable.Register(eng, supervisor)
//	err = dbos.Launch(dctx)
//	defer dbos.Shutdown(dctx, 30*time.Second)
//
//	res, err := eng.Run(ctx, "supervisor", durable.Input{Prompt: question}, durable.WithID(requestID))
//
// A run is the workflow cadre.run. Each model request of the run, of every model tried along a
// fallback chain, is a step, and so is each tool call; the calls of a turn run in parallel, as
// steps started in the model's order. A call of a tool made by assistant.AsTool is not a step:
// the run it delegates to is run by the workflow itself, once the turn's other calls have
// ended, and its requests and calls are steps of the workflow in turn. A step's outcome is recorded when it ends; a replay — a recovery, or
// a dbos.ForkWorkflow — gives the recorded outcome back instead of doing the step again. What
// is not a step runs again in a replay, the same way since the inputs are the same: the run
// loop, and with it the usage ledger and the limits, which come out as they were.
//
// # What is guaranteed
//
// A model request that was answered is not sent again, and its reply — its text, tool calls,
// reasoning (model.Reasoning, with its signature) and usage — comes back as it was; a request
// that failed comes back as the same failure, so that a fallback is taken again (errors.As
// and model.CanFallback answer as they did). A tool call that completed is not run again. A
// tool call that was running when the process died is run again: a tool with effects outside
// the process must be idempotent — Engine.IdempotencyKey gives it a key that is the same in
// every execution of the call — or be put behind an approval. A run's answer, usage and error
// (Engine.Await) are the same whichever process ran it and however many times it was taken up.
//
// What is not a step — the run loop, the resolver, validators, the events of callback handlers
// — runs again in a replay. A tool decides from its arguments and keeps no state in memory that
// the run reads back (a count of its calls, a cache the run fills): a replay gives back the
// results of the calls that completed without calling the tool, and calls it again only from
// where it takes up, so that such a tool answers a replay otherwise than the run. A run's context is the engine's, in every execution: what a run
// needs from its caller's context goes in Input.Meta, and the engine's restore function
// (WithRestore) puts it back. A run's chat (Input.Chat) is kept by a store wrapped by
// Engine.Store, whose calls are steps.
//
// # The middleware
//
// The engine works through the run loop's seam, assistant.Middleware (Engine.Middleware). It
// must be the outermost middleware of the run: a middleware outside it sees every request of
// a replay again (a tracer makes spans for them, a rate limiter charges them), and one that
// runs a turn's calls itself keeps them from being steps. Register gives it to each run the
// engine starts, inside the assistant's own middleware: an assistant with middleware of its
// own (assistant.WithMiddleware in assistant.New) must be given Engine.Middleware first there.
// The engine's middleware passes through whatever is not in a workflow, so that the assistant
// runs as before outside the engine.
//
// # Deployments
//
// DBOS takes up, at Launch, the runs in flight of the process's executor ID and application
// version only. Pin both: dbos.Config.ApplicationVersion (or the environment variable
// DBOS__APPVERSION) to a version that changes only when the runs' steps do — DBOS's default is
// a hash of the executable, so that any new build strands the runs of the last — and give each
// instance a stable ExecutorID of its own (or DBOS__VMID): two instances that share one take
// each other's live runs. See docs/durable-runs.md.
package durable
