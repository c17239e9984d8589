package assistant

import (
	"context"
	"fmt"
	"reflect"
	"slices"

	"github.com/cadrehq/cadre/pkg/tool"
)

// ToolSet is tools that may change while an assistant lives: an MCP server's, kept current by
// mcpbridge.Connect, or any other list that a program updates.
//
// Tools returns the set's tools as they are now. An assistant calls it at the start of every
// run and every resume (WithToolSet), from the run's goroutine; runs of one assistant call it
// concurrently, and a set shared by several assistants is called by all of them. The
// assistant prepares what it needs of the tools (their compiled argument schemas, their
// definitions for the model) once for as long as Tools returns the same tools — the same
// pointers, in the same order — so a set returns the tools it keeps, not new values each
// time. An error fails the run before any request.
type ToolSet interface {
	Tools(ctx context.Context) ([]tool.Tool, error)
}

// WithToolSet adds the tools of s to the assistant's, read at the start of each run and each
// resume: a run has the tools s had when it started, for all of its turns. The rules of
// WithTools given for one run apply to them (names unique among all the run's tools, schemas
// that describe an object), checked when the run starts; so does WithApproval, by name. A
// call of a tool that s no longer has when a paused run resumes is answered as a call of a
// tool that does not exist. Given for one run, s is added for that run. A nil s is ignored.
func WithToolSet(s ToolSet) Option {
	return func(c *config) {
		if s != nil {
			c.toolSets = append(c.toolSets[:len(c.toolSets):len(c.toolSets)], s)
		}
	}
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
	if len(p.cfg.toolSets) == 0 {
		return p, nil
	}
	tools, err := p.readToolSets(ctx)
	if err != nil || len(tools) == 0 {
		return p, err
	}
	last := p.setPlan.Load()
	if last != nil && sameTools(last.tools, tools) {
		return last.plan, nil
	}
	cfg := p.cfg
	cfg.toolSets = nil
	cfg.tools = append(cfg.tools[:len(cfg.tools):len(cfg.tools)], tools...)
	known := []*toolTable{p.tools}
	if last != nil {
		known = append(known, last.plan.tools)
	}
	if mine != nil && mine != p {
		if l := mine.setPlan.Load(); l != nil {
			known = append(known, l.plan.tools)
		}
	}
	q, err := newPlan[O](p.name, cfg, p, known...)
	if err != nil {
		return nil, fmt.Errorf("assistant %q: the tools of its tool set: %w", p.name, err)
	}
	p.setPlan.Store(&setPlan[O]{tools: slices.Clone(tools), plan: q})
	return q, nil
}

// readToolSets returns the tools of the plan's tool sets, in order.
func (p *plan[O]) readToolSets(ctx context.Context) ([]tool.Tool, error) {
	var all []tool.Tool
	for i, s := range p.cfg.toolSets {
		tools, err := s.Tools(ctx)
		if err != nil {
			return nil, fmt.Errorf("assistant %q: reading its tool set %d: %w", p.name, i+1, err)
		}
		if len(p.cfg.toolSets) == 1 {
			return tools, nil // the set's own slice: withToolSets keeps a copy
		}
		all = append(all, tools...)
	}
	return all, nil
}

// sameTools reports whether a and b hold the same tools in the same order.
func sameTools(a, b []tool.Tool) bool {
	return slices.EqualFunc(a, b, sameTool)
}

// sameTool reports whether a and b are the same pointer. Tools of other kinds are never the
// same: comparing two values of a type that is not comparable would panic.
func sameTool(a, b tool.Tool) bool {
	return a != nil && reflect.TypeOf(a).Kind() == reflect.Pointer && a == b
}

// entryOf returns the entry of tl in one of known, when one has it: what only depends on
// the tool (its compiled schema) is then not made again.
func entryOf(tl tool.Tool, known []*toolTable) *toolEntry {
	for _, t := range known {
		if t == nil {
			continue
		}
		if e, ok := t.byName[tl.Name()]; ok && sameTool(e.tool, tl) {
			return e
		}
	}
	return nil
}
