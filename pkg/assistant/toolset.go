package assistant

import (
	"context"
	"fmt"
	"slices"

	"github.com/cadrehq/cadre/internal/prompt"
	"github.com/cadrehq/cadre/internal/toolbox"
	"github.com/cadrehq/cadre/pkg/skill"
	"github.com/cadrehq/cadre/pkg/tool"
	"github.com/tmc/langchaingo/llms"
)

// ToolSet is tool.Set: tools that go together, and that may change while an assistant lives.
// It is declared in package tool, below assistant, so that the packages that make tool sets
// (package skill) need not import assistant.
type ToolSet = tool.Set

// WithToolSet adds the tools of s to the assistant's, read at the start of each run and each
// resume: a run has the tools s had when it started, for all of its turns. The rules of
// WithTools given for one run apply to them (names unique among all the run's tools, schemas
// that describe an object), checked when the run starts; so does WithApproval, by name. A
// call of a tool that s no longer has when a paused run resumes is answered as a call of a
// tool that does not exist. Given for one run, s is added for that run. A nil s is ignored.
//
// A tool.FixedSet's tools are taken once, by New, as if given with WithTools. A
// tool.Prompter also writes a part of the system prompt of each run, after the instructions
// (see tool.Prompter).
func WithToolSet(s ToolSet) Option {
	return func(c *config) {
		if s != nil {
			c.toolSets = append(c.toolSets[:len(c.toolSets):len(c.toolSets)], s)
		}
	}
}

// WithSkills gives the assistant skills (see package skill; load them with skill.Load): the
// model sees each skill's name and description in the system prompt, and loads a skill's
// instructions through the tool activate_skill only when a task needs them (see
// skill.ToolSet). New fails on two skills of one name, and on a tool of the assistant named
// like one of the skill tools. Skills need a model that calls tools. A specialist's skills are
// its own: a supervisor sees them only through the specialist's description.
func WithSkills(skills ...*skill.Skill) Option { return WithToolSet(skill.NewToolSet(skills...)) }

// takeSets sorts the tool sets of cfg: a fixed set's tools are added to tools, and the others
// are read by each run (withToolSets); every Prompter writes a part of each run's system
// prompt.
func (p *plan[O]) takeSets(tools []tool.Tool) ([]tool.Tool, error) {
	for i, s := range p.cfg.toolSets {
		if pr, ok := s.(tool.Prompter); ok {
			p.prompters = append(p.prompters, pr)
		}
		f, ok := s.(tool.FixedSet)
		if !ok {
			p.sets = append(p.sets, s)
			continue
		}
		fixed, err := f.FixedTools()
		if err != nil {
			return nil, fmt.Errorf("tool set %d: %w", i+1, err)
		}
		tools = append(tools[:len(tools):len(tools)], fixed...)
	}
	return tools, nil
}

// prompt returns the parts of the system prompt that the Prompters write for a run: history
// is its chat's, msgs what it sends after its system prompt.
func (p *plan[O]) prompt(ctx context.Context, history, msgs []llms.MessageContent) (string, error) {
	var text string
	for i, pr := range p.prompters {
		t, err := pr.Prompt(ctx, history, msgs)
		if err != nil {
			return "", fmt.Errorf("assistant %q: the prompt of its tool set %d: %w", p.name, i+1, err)
		}
		text = prompt.Join(text, t)
	}
	return text, nil
}

// setPlan is a plan made for the tools that the tool sets returned.
type setPlan[O any] struct {
	tools []tool.Tool // what the sets returned, in order: a copy
	plan  *plan[O]
}

// withToolSets returns the plan of a run of p with its tool sets' tools as they are now: p
// itself when p has no tool set (at no cost) or the sets have no tool. The plan made for the
// sets' tools is kept while they return the same tools; another plan, mine, is searched for
// the tools' compiled schemas too (the assistant's own, for a run with options).
func (p *plan[O]) withToolSets(ctx context.Context, mine *plan[O]) (*plan[O], error) {
	if len(p.sets) == 0 {
		return p, nil
	}
	tools, err := p.readToolSets(ctx)
	if err != nil || len(tools) == 0 {
		return p, err
	}
	last := p.setPlan.Load()
	if last != nil && toolbox.Same(last.tools, tools) {
		return last.plan, nil
	}
	cfg := p.cfg
	cfg.toolSets = nil
	cfg.tools = append(p.own[:len(p.own):len(p.own)], tools...)
	known := []*toolbox.Box{p.tools.Box}
	if last != nil {
		known = append(known, last.plan.tools.Box)
	}
	if mine != nil && mine != p {
		if l := mine.setPlan.Load(); l != nil {
			known = append(known, l.plan.tools.Box)
		}
	}
	q, err := newPlan[O](p.name, cfg, p, known...)
	if err != nil {
		return nil, fmt.Errorf("assistant %q: the tools of its tool set: %w", p.name, err)
	}
	q.prompters = p.prompters
	p.setPlan.Store(&setPlan[O]{tools: slices.Clone(tools), plan: q})
	return q, nil
}

// readToolSets returns the tools of the plan's tool sets that are read by each run, in order.
func (p *plan[O]) readToolSets(ctx context.Context) ([]tool.Tool, error) {
	var all []tool.Tool
	for i, s := range p.sets {
		tools, err := s.Tools(ctx)
		if err != nil {
			return nil, fmt.Errorf("assistant %q: reading its tool set %d: %w", p.name, i+1, err)
		}
		if len(p.sets) == 1 {
			return tools, nil // the set's own slice: withToolSets keeps a copy
		}
		all = append(all, tools...)
	}
	return all, nil
}
