package assistant

import (
	"context"
	"errors"
	"fmt"

	"github.com/cadrehq/cadre/internal/prompt"
)

// VarsFunc provides template vars for one run, from its context and input: today's date, the
// user's profile, what a retrieval found. See WithVarsFunc.
type VarsFunc func(ctx context.Context, in Input) (map[string]any, error)

// WithVarsFunc sets a function that provides template vars at the start of each run, before
// any request. Its vars go over WithVars' and under Input.Vars, key by key. It is called only
// for instructions with template actions (others use no vars), with the Input after
// WithInputParser. An error fails the run before any request, naming the assistant. Given
// again, the last one is used.
func WithVarsFunc(f VarsFunc) Option {
	return func(c *config) { c.varsFunc = f }
}

// InputParser rewrites a run's user turn. See WithInputParser.
type InputParser func(ctx context.Context, prompt string) (string, error)

// WithInputParser sets a function that rewrites the user's turn (Input.Prompt) before the run:
// trimming it, expanding a shortcut, refusing what the assistant must not be asked. The run
// sends, returns (Response.Messages) and stores the rewritten turn. An error, or an empty
// turn, fails the run before any request, naming the assistant. Given again, the last one is
// used.
func WithInputParser(f InputParser) Option {
	return func(c *config) { c.parseInput = f }
}

// prepare applies the input parser and the vars function to in.
func (p *plan[O]) prepare(ctx context.Context, in Input) (Input, error) {
	if p.cfg.parseInput != nil {
		prompt, err := p.cfg.parseInput(ctx, in.Prompt)
		if err == nil && prompt == "" {
			err = errors.New("it returned an empty turn")
		}
		if err != nil {
			return in, fmt.Errorf("assistant %q: parsing the input: %w", p.name, err)
		}
		in.Prompt = prompt
	}
	if p.cfg.varsFunc != nil && !p.instructions.Static() {
		vars, err := p.cfg.varsFunc(ctx, in)
		if err != nil {
			return in, fmt.Errorf("assistant %q: providing its vars (WithVarsFunc): %w", p.name, err)
		}
		in.Vars = prompt.Over(vars, in.Vars)
	}
	return in, nil
}
