package eval

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"time"

	"github.com/cadrehq/cadre/pkg/assistant"
	"github.com/cadrehq/cadre/pkg/chat"
	"github.com/cadrehq/cadre/pkg/model"
	"github.com/cadrehq/cadre/pkg/usage"
	"go.opentelemetry.io/otel/trace"
)

// Case is one task of a dataset: an input, what the answer should be when that is known, and
// evaluators of its own beside the dataset's.
type Case[I, O any] struct {
	Name       string
	Input      I
	Expected   *O // nil when the case has no expected output
	Metadata   map[string]any
	Evaluators []Evaluator[O]
}

// Dataset is a named list of cases and the evaluators every case gets.
type Dataset[I, O any] struct {
	Name       string
	Cases      []Case[I, O]
	Evaluators []Evaluator[O]
}

// check reports what makes d one that cannot be run: no case, a case without a name, two
// cases of one name, two evaluators of one name in a case.
func (d *Dataset[I, O]) check() error {
	if len(d.Cases) == 0 {
		return fmt.Errorf("eval: dataset %q has no case", d.Name)
	}
	names := map[string]bool{}
	for i, c := range d.Cases {
		if c.Name == "" {
			return fmt.Errorf("eval: dataset %q: case %d has no name", d.Name, i+1)
		}
		if names[c.Name] {
			return fmt.Errorf("eval: dataset %q: two cases are named %q", d.Name, c.Name)
		}
		names[c.Name] = true
		evs := map[string]bool{}
		for _, e := range append(d.Evaluators[:len(d.Evaluators):len(d.Evaluators)], c.Evaluators...) {
			if e == nil {
				return fmt.Errorf("eval: dataset %q, case %q: a nil evaluator", d.Name, c.Name)
			}
			if evs[e.Name()] {
				return fmt.Errorf("eval: dataset %q, case %q: two evaluators are named %q", d.Name, c.Name, e.Name())
			}
			evs[e.Name()] = true
		}
	}
	return nil
}

// Option configures Evaluate.
type Option func(*config)

type config struct {
	concurrency int
	repeat      int
	budget      *usage.Limits
	prices      map[string]model.Price
	ks          []int
	options     []assistant.Option
	variant     string // the Variant's name, under Matrix
	tracer      trace.Tracer
}

// WithConcurrency runs at most n runs at once (default 4).
func WithConcurrency(n int) Option { return func(c *config) { c.concurrency = n } }

// WithRepeat runs each case n times (default 1), to tell a pass rate from luck: a case's
// report gives the rate with its 95 % Wilson interval, and pass@k.
func WithRepeat(n int) Option { return func(c *config) { c.repeat = n } }

// WithBudget bounds the whole eval — every run of every case, and the LLM judges — with l,
// held in one usage ledger. A zero field means no limit (not the ledger's defaults of 50
// requests and 200 tool calls, which would stop an eval of many cases). Once a limit is met,
// the runs under way end with it, no run starts, and Evaluate returns the report so far with a
// *usage.LimitError.
func WithBudget(l usage.Limits) Option { return func(c *config) { c.budget = &l } }

// WithPrices prices the runs: the usage of each model, by its name in usage reports, at its
// price (see llmfactory.Factory.Prices).
func WithPrices(prices map[string]model.Price) Option { return func(c *config) { c.prices = prices } }

// WithPassAtK reports pass@k for these k (default 1 and the number of repeats), those at most
// the number of repeats.
func WithPassAtK(ks ...int) Option { return func(c *config) { c.ks = ks } }

// WithRunOptions gives every run of the eval these options, after the assistant's own (see
// assistant.Input.Options): another model (assistant.WithModels), limits, handlers.
func WithRunOptions(opts ...assistant.Option) Option {
	return func(c *config) { c.options = append(c.options, opts...) }
}

// Evaluate runs every case of d through r, each WithRepeat times, grades each run with the
// dataset's evaluators and the case's, and reports. The runs go concurrently, bounded by
// WithConcurrency, each with r's options and WithRunOptions', and a middleware that records
// the run tree's tool calls (Observation.Calls): a Runner that takes no options from its Input
// gives no calls.
//
// A case's input goes to r as the prompt: a string as it is, anything else as its JSON, its
// fields also as the run's vars. A run that fails is the result of that run, graded as failed.
// Evaluate returns an error with the report so far when ctx ends or the budget is spent; an
// error without a report for a dataset that cannot run.
func Evaluate[I, O any](ctx context.Context, d *Dataset[I, O], r assistant.Runner[O], opts ...Option) (*Report, error) {
	cfg, inputs, err := prepare(d, opts)
	if err != nil {
		return nil, err
	}
	return evaluate(cfg.withBudget(ctx), d, r, inputs, cfg)
}

// prepare checks d and opts, and makes the runs' inputs of the cases.
func prepare[I, O any](d *Dataset[I, O], opts []Option) (*config, []assistant.Input, error) {
	if err := d.check(); err != nil {
		return nil, nil, err
	}
	cfg := &config{concurrency: 4, repeat: 1}
	for _, o := range opts {
		if o != nil {
			o(cfg)
		}
	}
	if cfg.concurrency < 1 || cfg.repeat < 1 {
		return nil, nil, fmt.Errorf("eval: WithConcurrency and WithRepeat take 1 or more (got %d and %d)", cfg.concurrency, cfg.repeat)
	}
	inputs := make([]assistant.Input, len(d.Cases))
	for i, c := range d.Cases {
		in, err := inputOf(c.Input)
		if err != nil {
			return nil, nil, fmt.Errorf("eval: dataset %q, case %q: %w", d.Name, c.Name, err)
		}
		inputs[i] = in
	}
	return cfg, inputs, nil
}

// withBudget returns ctx with the ledger of WithBudget, if given: one ledger for every run
// made in the context it returns.
func (c *config) withBudget(ctx context.Context) context.Context {
	if c.budget == nil {
		return ctx
	}
	return usage.WithLedger(ctx, usage.NewLedger(unlimited(*c.budget)))
}

// evaluate runs the cases of d, under the ledger of ctx if any, and reports.
func evaluate[I, O any](ctx context.Context, d *Dataset[I, O], r assistant.Runner[O], inputs []assistant.Input, cfg *config) (*Report, error) {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)

	rep := &Report{Version: ReportVersion, Dataset: d.Name, Subject: r.Name(), Variant: cfg.variant, Repeat: cfg.repeat, Started: time.Now()}
	rep.Cases = make([]CaseReport, len(d.Cases))
	type job struct{ c, k int }
	jobs := make(chan job)
	var wg sync.WaitGroup
	for range min(cfg.concurrency, len(d.Cases)*cfg.repeat) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				run := runCase(ctx, d, &d.Cases[j.c], inputs[j.c], j.k, r, cfg)
				if isBudget(run.err) {
					cancel(run.err)
				}
				rep.Cases[j.c].runs[j.k] = run
			}
		}()
	}
	for i, c := range d.Cases {
		rep.Cases[i].Name, rep.Cases[i].Metadata = c.Name, c.Metadata
		rep.Cases[i].runs = make([]runResult, cfg.repeat)
	}
send:
	for k := range cfg.repeat {
		for i := range d.Cases {
			select {
			case jobs <- job{i, k}:
			case <-ctx.Done():
				break send
			}
		}
	}
	close(jobs)
	wg.Wait()
	rep.Duration = time.Since(rep.Started)
	ks := cfg.ks
	if ks == nil {
		ks = []int{1, cfg.repeat}
	}
	rep.finish(ks)
	if ctx.Err() != nil { // the caller's context ended, or the budget is spent
		cause := context.Cause(ctx)
		rep.Stopped = cause.Error()
		return rep, cause
	}
	return rep, nil
}

// unlimited is l with its zero fields no limit.
func unlimited(l usage.Limits) usage.Limits {
	for _, f := range []*int{&l.MaxRequests, &l.MaxToolCalls, &l.MaxInputTokens, &l.MaxOutputTokens, &l.MaxTotalTokens} {
		if *f == 0 {
			*f = -1
		}
	}
	return l
}

func isBudget(err error) bool {
	var le *usage.LimitError
	return errors.As(err, &le)
}

// inputOf makes the run's Input of a case's input: a string as the prompt; anything else as
// its JSON, with the fields of an object as vars.
func inputOf(in any) (assistant.Input, error) {
	if s, ok := in.(string); ok && reflect.TypeOf(in).Kind() == reflect.String {
		return assistant.Input{Prompt: s}, nil
	}
	doc, err := json.Marshal(in)
	if err != nil {
		return assistant.Input{}, fmt.Errorf("the input does not marshal: %w", err)
	}
	var vars map[string]any
	_ = json.Unmarshal(doc, &vars) // nil for an input that is not an object
	return assistant.Input{Prompt: string(doc), Vars: vars}, nil
}

// runResult is one run of a case, graded.
type runResult struct {
	err      error
	output   any
	text     string
	messages json.RawMessage
	model    string
	duration time.Duration
	usage    usage.Report
	cost     float64
	priced   bool
	calls    []ToolCall
	grades   []Grade
	ran      bool
}

// runCase runs case c (its k-th run) and grades it.
func runCase[I, O any](ctx context.Context, d *Dataset[I, O], c *Case[I, O], in assistant.Input, k int, r assistant.Runner[O], cfg *config) runResult {
	if ctx.Err() != nil {
		return runResult{}
	}
	ctx, span := cfg.startCase(ctx, d.Name, c.Name, k)
	rec := &recorder{}
	in.Options = append(append([]assistant.Option{}, cfg.options...), assistant.WithMiddleware(rec.middleware()))
	start := time.Now()
	res, err := r.Run(ctx, in)
	if res == nil && err == nil {
		err = errors.New("the runner returned no result and no error")
	}
	out := runResult{ran: true, err: err, duration: time.Since(start), calls: rec.list()}
	o := &Observation[O]{Case: c.Name, Repeat: k, Input: c.Input, Prompt: in.Prompt, Expected: c.Expected, Metadata: c.Metadata,
		Result: res, Duration: out.duration, Calls: out.calls}
	if res != nil {
		o.Output, o.Usage = res.Output, res.Usage
		out.output, out.text, out.usage, out.model = res.Output, res.Text, res.Usage, res.Model
		out.messages, _ = chat.MarshalMessages(res.Messages)
		var missing []string
		o.Cost, _, missing = model.Costs(res.Usage, cfg.prices)
		o.CostKnown = missing == nil
		out.cost, out.priced = o.Cost, o.CostKnown
	}
	for _, e := range append(d.Evaluators[:len(d.Evaluators):len(d.Evaluators)], c.Evaluators...) {
		g := Failed("the run failed")
		if err != nil {
			g.Reason += ": " + err.Error()
		} else if res != nil {
			var gerr error
			if g, gerr = grade(ctx, e, o); gerr != nil {
				spent := g.Usage // a judge that failed spent it all the same
				g = Failed("the evaluator failed: " + gerr.Error())
				g.Usage = spent
			}
		}
		g.Evaluator = e.Name()
		out.grades = append(out.grades, g)
	}
	if span != nil {
		endCase(span, &out)
	}
	return out
}

// grade runs e on o, a panic in it being its error.
func grade[O any](ctx context.Context, e Evaluator[O], o *Observation[O]) (g Grade, err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("panic: %v", v)
		}
	}()
	g, err = e.Evaluate(ctx, o)
	if err == nil && g.Kind == "" {
		err = errors.New("its grade has no kind")
	}
	return g, err
}

// recorder records the tool calls of a run's tree, each turn's in the model's order.
type recorder struct {
	mu    sync.Mutex
	calls []ToolCall
}

func (r *recorder) middleware() assistant.Middleware {
	return assistant.Middleware{ToolTurn: func(ctx context.Context, turn *assistant.ToolTurn, next assistant.ToolTurnNext) ([]string, error) {
		r.mu.Lock()
		first := len(r.calls)
		for _, c := range turn.Calls {
			r.calls = append(r.calls, ToolCall{Assistant: c.Assistant, Tool: c.Tool, Arguments: c.Arguments})
		}
		r.mu.Unlock()
		results, err := next(ctx, turn)
		r.mu.Lock()
		for i := range results {
			if first+i < len(r.calls) {
				r.calls[first+i].Result = results[i]
			}
		}
		r.mu.Unlock()
		return results, err
	}}
}

func (r *recorder) list() []ToolCall {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]ToolCall(nil), r.calls...)
}
