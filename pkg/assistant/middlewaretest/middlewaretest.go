package middlewaretest

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/cadrehq/cadre/pkg/assistant"
)

// Test checks mw against the contract of assistant.Middleware: it runs the kit's assistants
// through it — an answer, a turn of parallel tool calls, a tool that fails, a delegation, an
// answer corrected, a model that fails and one that falls back, and, for a middleware that
// wraps tool turns, a turn whose next fails — and watches every step from both sides of mw. It returns every
// violation it saw, joined with errors.Join, each naming its rule and its run; nil when there
// is none.
//
// The same mw wraps every run, one run after the other, as one Middleware value wraps the runs
// of a program: a middleware with state (a tracer, a limiter) keeps it across them. mw must let
// the kit's runs through to their models and tools — a guard, a cache or a limit set so that
// the runs pass: a run that does not end as it does without mw is a violation of its own
// (RunsGoThrough), since nothing else can be checked of it. The runs are made with the
// package llmtest's models, on this goroutine and those of the runs' tool calls; Test returns
// when they have ended.
func Test(mw assistant.Middleware, opts ...Option) error {
	found := newConfig(opts).check(context.Background(), mw)
	errs := make([]error, len(found))
	for i, v := range found {
		errs[i] = v
	}
	return errors.Join(errs...)
}

// Run is Test for a test: it checks mw, with t's context, and reports the violations in a
// subtest of t for each rule of the contract — NextAtMostOnce, OneResultPerCallInOrder,
// RequestAsItWas, ContextPassedOn, ErrorsAsDocumented — and RunsGoThrough for the runs that
// did not end as they do without mw. A subtest fails with one error per violation.
func Run(t *testing.T, mw assistant.Middleware, opts ...Option) {
	t.Helper()
	found := newConfig(opts).check(t.Context(), mw)
	for r := range rule(len(ruleNames)) {
		t.Run(ruleNames[r], func(t *testing.T) {
			for _, v := range found {
				if v.rule == r {
					t.Errorf("in the run %q: %s", v.scenario, v.detail)
				}
			}
		})
	}
}

// Option configures Test and Run.
type Option func(*config)

// WithRunner makes the kit run each of its assistants, with its input, by calling run, instead
// of calling a.Call(ctx, in): for a middleware that works only in a setting the run must be
// given, such as a durable engine's, which makes steps only inside a DBOS workflow. a carries
// the middleware under test already (with the kit's probe around it); run runs a, once, with
// in, as a.Call does — inside the workflow, say — and returns what a.Call returned: the kit
// reads the run's answer and error from it. ctx is the context of Test (context.Background())
// or of Run (t.Context()). run is called from one goroutine at a time.
func WithRunner(run func(ctx context.Context, a *assistant.Assistant[string], in assistant.Input) (*assistant.Response, error)) Option {
	return func(c *config) { c.run = run }
}

type config struct {
	run func(ctx context.Context, a *assistant.Assistant[string], in assistant.Input) (*assistant.Response, error)
}

func newConfig(opts []Option) config {
	c := config{run: func(ctx context.Context, a *assistant.Assistant[string], in assistant.Input) (*assistant.Response, error) {
		return a.Call(ctx, in)
	}}
	for _, o := range opts {
		if o != nil {
			o(&c)
		}
	}
	return c
}

// rule is a rule of the contract of assistant.Middleware, or RunsGoThrough.
type rule int

const (
	ruleNextOnce rule = iota
	ruleResults
	ruleRequest
	ruleContext
	ruleErrors
	ruleRuns
)

// ruleNames are the rules' names, as Run's subtests and Test's errors give them.
var ruleNames = [...]string{
	ruleNextOnce: "NextAtMostOnce",
	ruleResults:  "OneResultPerCallInOrder",
	ruleRequest:  "RequestAsItWas",
	ruleContext:  "ContextPassedOn",
	ruleErrors:   "ErrorsAsDocumented",
	ruleRuns:     "RunsGoThrough",
}

// violation is a breach of a rule, seen in one of the kit's runs.
type violation struct {
	rule     rule
	scenario string
	detail   string
}

func (v violation) Error() string {
	return fmt.Sprintf("middlewaretest: %s, in the run %q: %s", ruleNames[v.rule], v.scenario, v.detail)
}

// check runs every scenario through mw and returns the violations seen, run by run.
func (c config) check(ctx context.Context, mw assistant.Middleware) []violation {
	var found []violation
	for _, sc := range scenarios {
		if sc.failTurn && mw.ToolTurn == nil {
			continue // nothing wraps the turn: no rule to check
		}
		p := &probe{scenario: sc.name, failTurn: sc.failTurn}
		res, err := c.run(ctx, sc.build(p.wrap(mw)), assistant.Input{Prompt: "middlewaretest: the run " + sc.name})
		p.ended(sc, res, err)
		found = append(found, p.found...)
	}
	return found
}
