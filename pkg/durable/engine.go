package durable

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/cadrehq/cadre/pkg/assistant"
	"github.com/cadrehq/cadre/pkg/usage"
	"github.com/dbos-inc/dbos-transact-golang/dbos"
)

// Engine runs assistants' runs as DBOS workflows: each run is the workflow "cadre.run", each
// continuation of a paused run the workflow "cadre.resume", and each model request and tool
// call of a run a step of its workflow, so that a run interrupted by the end of its process is
// taken up again — by the next process that launches with the same executor ID and application
// version, or by any process on a queue — without repeating the requests and calls that
// completed.
//
// An Engine is made by New before dbos.Launch, the assistants it runs are given to it by
// Register before dbos.Launch too, and it is safe for concurrent use after that.
type Engine struct {
	root        dbos.Context
	name        string
	queue       dbos.Queue // nil: Start runs the workflow in the process that starts it
	maxParallel int
	poll        time.Duration
	restore     func(ctx context.Context, meta map[string]string) context.Context
	mw          assistant.Middleware

	mu         sync.RWMutex
	assistants map[string]*entry
}

// entry is a registered assistant: how the workflows run and resume it.
type entry struct {
	call   func(ctx context.Context, in assistant.Input, opts []assistant.Option) (*assistant.Response, error)
	resume func(ctx context.Context, p *assistant.Paused, d map[string]assistant.Decision, opts []assistant.Option) (*assistant.Response, error)
}

// Option configures New.
type Option func(*Engine)

// WithName names the engine (default "cadre"). DBOS records it with every run, and finds the
// engine that runs a recovered run by it: engines sharing one dbos.Context need names of their
// own, and a name must not change between deployments while runs are in flight.
func WithName(name string) Option { return func(e *Engine) { e.name = name } }

// WithDefaultQueue makes Start put runs on q (see OnQueue) unless told otherwise.
func WithDefaultQueue(q dbos.Queue) Option { return func(e *Engine) { e.queue = q } }

// WithMaxParallelTools bounds how many calls of one tool turn run at once (default 10, as
// assistant.WithMaxParallelTools). The engine runs the turns of its runs itself, so an
// assistant's own bound does not apply in them.
func WithMaxParallelTools(n int) Option { return func(e *Engine) { e.maxParallel = max(n, 1) } }

// WithPollInterval sets how often Await looks whether a run has ended (default 100ms); a d of
// zero or less keeps the default.
func WithPollInterval(d time.Duration) Option {
	return func(e *Engine) {
		if d > 0 {
			e.poll = d
		}
	}
}

// WithRestore gives the engine a function that puts back, into a run's context, the values a
// run needs that a context does not keep across processes: a recovered run starts from the
// context of the process that recovers it. restore is called at the start of every execution
// of a run's workflow with the Meta of the run's Input, and must return ctx or a context
// derived from it — with a tenant, a user, a rate-limit caller (ratelimit.WithCaller), a
// ledger of its own...
func WithRestore(restore func(ctx context.Context, meta map[string]string) context.Context) Option {
	return func(e *Engine) { e.restore = restore }
}

// The names DBOS records for the engine's workflows.
const (
	runWorkflow      = "cadre.run"
	resumeWorkflow   = "cadre.resume"
	appendedWorkflow = "cadre.appended"
)

// New makes an Engine on dctx and registers its workflows there. It must be called before
// dbos.Launch(dctx), which recovers the runs that were in flight: register the assistants
// (Register) between the two.
func New(dctx dbos.Context, opts ...Option) (e *Engine, err error) {
	if dctx == nil {
		return nil, errors.New("durable.New: the dbos.Context is nil")
	}
	e = &Engine{root: dctx, name: "cadre", maxParallel: 10, poll: 100 * time.Millisecond, assistants: map[string]*entry{}}
	for _, o := range opts {
		if o != nil {
			o(e)
		}
	}
	if e.name == "" {
		return nil, errors.New("durable.New: the engine's name is empty")
	}
	e.mw = assistant.Middleware{Run: e.runHook, Request: e.requestHook, ToolTurn: e.toolTurnHook}
	// DBOS panics on a registration it refuses: after Launch, or a second engine of one name.
	name := e.name
	defer func() {
		if v := recover(); v != nil {
			e, err = nil, fmt.Errorf("durable.New: registering the workflows of engine %q: %v", name, v)
		}
	}()
	dbos.RegisterWorkflow(dctx, e.runWorkflow, dbos.WithInstance(e), dbos.WithWorkflowName(runWorkflow))
	dbos.RegisterWorkflow(dctx, e.resumeWorkflow, dbos.WithInstance(e), dbos.WithWorkflowName(resumeWorkflow))
	dbos.RegisterWorkflow(dctx, e.appendedWorkflow, dbos.WithInstance(e), dbos.WithWorkflowName(appendedWorkflow))
	return e, nil
}

// ConfigName is the engine's name (WithName): DBOS records it with the engine's runs
// (dbos.ConfiguredInstance).
func (e *Engine) ConfigName() string { return e.name }

// Middleware returns the middleware that makes a run's model requests and tool calls steps of
// its workflow. Register gives it to every run the engine starts; give it to assistant.New too,
// first, when the assistant has middleware of its own, so that it is the outermost (see the
// package documentation). Outside a workflow it passes everything through.
func (e *Engine) Middleware() assistant.Middleware { return e.mw }

// Register makes a available to the engine's runs under its name, with opts given to each of
// its runs (see assistant.Input.Options) after the engine's middleware. It must be called
// before dbos.Launch, in every process that runs or recovers a's runs, and panics when another
// assistant of the same name is registered, as http.ServeMux.Handle does.
func Register[O any](e *Engine, a *assistant.Assistant[O], opts ...assistant.Option) {
	base := append([]assistant.Option{assistant.WithMiddleware(e.mw)}, opts...)
	with := func(more []assistant.Option) []assistant.Option {
		return append(base[:len(base):len(base)], more...)
	}
	ent := &entry{
		call: func(ctx context.Context, in assistant.Input, more []assistant.Option) (*assistant.Response, error) {
			in.Options = with(more)
			return a.Call(ctx, in)
		},
		resume: func(ctx context.Context, p *assistant.Paused, d map[string]assistant.Decision, more []assistant.Option) (*assistant.Response, error) {
			res, err := a.Resume(ctx, p, d, with(more)...)
			if res == nil {
				return nil, err
			}
			return &res.Response, err
		},
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if _, dup := e.assistants[a.Name()]; dup {
		panic(fmt.Sprintf("durable.Register: engine %q has an assistant named %q already", e.name, a.Name()))
	}
	e.assistants[a.Name()] = ent
}

// entry returns the registered assistant named name.
func (e *Engine) entry(name string) (*entry, error) {
	e.mu.RLock()
	defer e.mu.RUnlock()
	ent, ok := e.assistants[name]
	if !ok {
		return nil, fmt.Errorf("durable: engine %q has no assistant named %q: Register it before dbos.Launch", e.name, name)
	}
	return ent, nil
}

// runOptions are the per-run options a run's Input asks for.
func runOptions(limits *usage.Limits) []assistant.Option {
	if limits == nil {
		return nil
	}
	return []assistant.Option{assistant.WithLimits(*limits)}
}
