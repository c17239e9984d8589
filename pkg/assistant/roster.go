package assistant

import "github.com/cadrehq/cadre/internal/prompt"

// WithRoster turns the roster on or off (default on). The roster lists, in the system prompt,
// the assistants this one can delegate to — the tools made by AsTool, by name and
// description — so that a supervisor's model sees its specialists as a team, not only as
// tools among others. Instructions that are a template get it as the var "roster" (a var of
// that name given by WithVars or Input.Vars wins); instructions that use {{.roster}} place it
// themselves, and others have it added after them. An assistant that delegates to no one has
// no roster. It costs the tokens of the specialists' descriptions in every request, which the
// tools' definitions hold too: turn it off when the instructions say enough.
func WithRoster(on bool) Option {
	return func(c *config) { c.noRoster = !on }
}

// delegate is implemented by the tools AsTool makes.
type delegate interface{ delegates() }

// newRoster returns the roster of the delegates among the plan's tools, or "" for none.
func (p *plan[O]) newRoster() string {
	if p.cfg.noRoster {
		return ""
	}
	var team []prompt.Member
	for _, tl := range p.tools.Tools() {
		if _, ok := tl.(delegate); ok {
			team = append(team, prompt.Member{Name: tl.Name(), Description: tl.Description()})
		}
	}
	return prompt.Roster(team)
}
