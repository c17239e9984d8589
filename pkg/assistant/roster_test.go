package assistant_test

import (
	"sync/atomic"
	"testing"

	"github.com/cadrehq/cadre/pkg/assistant"
	"github.com/cadrehq/cadre/pkg/llmtest"
)

// TestTheRosterListsTheSpecialists: a supervisor's system prompt lists the assistants it
// delegates to, by name and description, after its instructions — its other tools are not
// listed; instructions that use {{.roster}} place it themselves; WithRoster(false) leaves it
// out; a var named roster wins; an assistant without delegates has none.
func TestTheRosterListsTheSpecialists(t *testing.T) {
	t.Parallel()
	var n atomic.Int64
	historian := assistant.New[string]("historian", assistant.WithDescription("Knows the history of a city."), assistant.WithModel(llmtest.NewScripted()))
	scientist := assistant.New[string]("scientist", assistant.WithDescription("Explains tides\nand weather."), assistant.WithModel(llmtest.NewScripted()))
	team := assistant.WithTools(assistant.AsTool[string](historian), countingTool("lookup", &n), assistant.AsTool[string](scientist))
	const roster = "You lead a team: these assistants work for you, each called as the tool of its name. Give each the part of the task it does best.\n" +
		"- historian: Knows the history of a city.\n" +
		"- scientist: Explains tides and weather."
	for _, tc := range []struct {
		name string
		opts []assistant.Option
		vars map[string]any
		want string
	}{
		{"after the instructions", []assistant.Option{team, assistant.WithInstructions("You plan trips.")}, nil, "You plan trips.\n\n" + roster},
		{"in a template", []assistant.Option{team, assistant.WithInstructions("You plan trips for {{.who}}.")}, map[string]any{"who": "Ana"}, "You plan trips for Ana.\n\n" + roster},
		{"placed by the template", []assistant.Option{team, assistant.WithInstructions("{{.roster}}\n\nYou plan trips.")}, nil, roster + "\n\nYou plan trips."},
		{"a var of that name wins", []assistant.Option{team, assistant.WithInstructions("Team: {{.roster}}")}, map[string]any{"roster": "none today"}, "Team: none today"},
		{"turned off", []assistant.Option{team, assistant.WithInstructions("You plan trips."), assistant.WithRoster(false)}, nil, "You plan trips."},
		{"no delegates", []assistant.Option{assistant.WithTools(countingTool("lookup", &n)), assistant.WithInstructions("You plan trips.")}, nil, "You plan trips."},
		{"no instructions", []assistant.Option{team}, nil, roster},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			m := llmtest.NewScripted(llmtest.Text("ok"))
			a := assistant.New[string]("planner", append(tc.opts, assistant.WithModel(m))...)
			if _, err := a.Run(testContext(t), assistant.Input{Prompt: "Plan.", Vars: tc.vars}); err != nil {
				t.Fatal(err)
			}
			if got := systemOf(m.Requests()[0]); got != tc.want {
				t.Errorf("system prompt:\n%s\nwant:\n%s", got, tc.want)
			}
		})
	}
}
