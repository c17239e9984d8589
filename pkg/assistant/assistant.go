package assistant

import (
	"context"
	"fmt"

	"github.com/cadrehq/cadre/pkg/model"
)

// Assistant is a model with instructions, tools and an output type O. Run sends the user's
// turn, runs the tools the model asks for (all calls of a turn in parallel) until the model
// answers, and parses the answer into O, asking the model once to correct an answer that
// cannot be used.
//
// An Assistant is immutable after New and safe for any number of concurrent runs.
type Assistant[O any] struct {
	name        string
	description string
	plan        *plan[O] // everything prepared once, used by runs without options
	cfg         config   // the options given to New, for runs with options of their own
}

// New makes an assistant named name that answers with a value of type O; a string O answers
// in prose. The name identifies the assistant in llm.yaml, usage reports, events and errors.
//
// New panics on programmer errors it can see (an empty name, template syntax, an invalid or
// duplicate tool name, a tool schema that is not an object, an O that has no JSON Schema, a
// validator of another type), as regexp.MustCompile and http.ServeMux.Handle do. Everything
// that depends on a run's data is an error from Run.
func New[O any](name string, opts ...Option) *Assistant[O] {
	if name == "" {
		panic("assistant.New: the name is empty")
	}
	a := &Assistant[O]{name: name}
	for _, o := range opts {
		if o != nil {
			o(&a.cfg)
		}
	}
	a.description = a.cfg.description
	p, err := newPlan[O](name, a.cfg, nil)
	if err != nil {
		panic("assistant.New: " + err.Error())
	}
	a.plan = p
	return a
}

// Name returns the assistant's name.
func (a *Assistant[O]) Name() string { return a.name }

// Description returns what the assistant does (WithDescription).
func (a *Assistant[O]) Description() string { return a.description }

// Run runs the assistant on in and returns its answer parsed into O.
//
// With any error that comes after the first model request, Run returns the Result so far (its
// Messages and Usage, Stop = StopError) so that what was paid for is never lost. Errors:
// *usage.LimitError when a limit stops the run, *OutputError when the answer cannot be used
// after the correction, *ModelStopError when the model stops at its token limit or refuses, the
// model's error (see model.ProviderError), or the context's error when ctx is done.
func (a *Assistant[O]) Run(ctx context.Context, in Input) (*Result[O], error) {
	p, err := a.planFor(ctx, in.Options)
	if err != nil {
		return nil, err
	}
	return p.run(ctx, in)
}

// Call is Run for callers that do not know O: the Response, with Text holding the answer.
func (a *Assistant[O]) Call(ctx context.Context, in Input) (*Response, error) {
	res, err := a.Run(ctx, in)
	if res == nil {
		return nil, err
	}
	return &res.Response, err
}

// planFor returns the plan of a run with opts: the assistant's own plan without options, or
// one prepared for the run from a copy of the assistant's configuration with opts applied,
// with the tools of its tool sets as they are now (see withToolSets). The instructions and the
// description cannot change for one run.
func (a *Assistant[O]) planFor(ctx context.Context, opts []Option) (*plan[O], error) {
	if len(opts) == 0 {
		return a.plan.withToolSets(ctx, a.plan)
	}
	cfg := a.cfg // options append to copies of its slices and maps (see each option)
	cfg.instructionsSet, cfg.descriptionSet = false, false
	for _, o := range opts {
		if o != nil {
			o(&cfg)
		}
	}
	switch {
	case cfg.instructionsSet:
		return nil, fmt.Errorf("assistant %q: WithInstructions cannot be given for one run: the instructions are fixed by New; use template vars (Input.Vars) to vary them", a.name)
	case cfg.descriptionSet:
		return nil, fmt.Errorf("assistant %q: WithDescription cannot be given for one run: the description is fixed by New", a.name)
	}
	cfg.instructions, cfg.description = a.cfg.instructions, a.cfg.description
	p, err := newPlan[O](a.name, cfg, a.plan, a.plan.tools.Box)
	if err != nil {
		return nil, fmt.Errorf("assistant %q: run options: %w", a.name, err)
	}
	return p.withToolSets(ctx, a.plan)
}

// resolve returns the run's model chain.
func (p *plan[O]) resolve(ctx context.Context) ([]model.Model, error) {
	if p.chain != nil {
		return p.chain, nil
	}
	if p.cfg.resolver == nil {
		return nil, fmt.Errorf("assistant %q: %w", p.name, ErrNoModel)
	}
	chain, err := p.cfg.resolver.Resolve(ctx, p.name)
	if err != nil {
		return nil, fmt.Errorf("assistant %q: resolving its model: %w", p.name, err)
	}
	if len(chain) == 0 {
		return nil, fmt.Errorf("assistant %q: the resolver gave no model", p.name)
	}
	for _, m := range chain {
		if m.LLM == nil {
			return nil, fmt.Errorf("assistant %q: model %q has no client", p.name, m.Name)
		}
	}
	return chain, nil
}

// Agent is any assistant whatever its output type, or a hand-written flow: what a supervisor
// delegates to and what MCP serves.
type Agent interface {
	Name() string
	Description() string
	Call(ctx context.Context, in Input) (*Response, error)
}

// Runner is an Agent with a known output type; *Assistant[O] is one.
type Runner[O any] interface {
	Agent
	Run(ctx context.Context, in Input) (*Result[O], error)
}

var _ Runner[string] = (*Assistant[string])(nil)
