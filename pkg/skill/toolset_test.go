package skill_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/tmc/langchaingo/llms"

	"github.com/cadrehq/cadre/pkg/skill"
	"github.com/cadrehq/cadre/pkg/tool"
)

// twoSkills parses triage and notes, each with a marker in its instructions.
func twoSkills(t *testing.T) []*skill.Skill {
	t.Helper()
	var out []*skill.Skill
	for _, name := range []string{"triage", "notes"} {
		s, problems := skill.Parse(name+"/SKILL.md", name, []byte("---\nname: "+name+"\ndescription: Does "+name+".\n---\n"+strings.ToUpper(name)+"-BODY\n"))
		if s == nil || len(problems) > 0 {
			t.Fatalf("parsing %s: %v", name, problems)
		}
		out = append(out, s)
	}
	return out
}

// activate calls activate_skill of set for name, as call id of the model's turn that ends msgs.
func activate(t *testing.T, set *skill.ToolSet, id, name string, msgs []llms.MessageContent) string {
	t.Helper()
	tools, err := set.FixedTools()
	if err != nil {
		t.Fatal(err)
	}
	ctx := tool.WithCall(context.Background(), &tool.Call{ID: id, Messages: msgs})
	out, err := tools[0].Call(ctx, json.RawMessage(`{"name":"`+name+`"}`))
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func turnOf(calls ...llms.ToolCall) llms.MessageContent {
	m := llms.MessageContent{Role: llms.ChatMessageTypeAI}
	for _, c := range calls {
		m.Parts = append(m.Parts, c)
	}
	return m
}

func activation(id, args string) llms.ToolCall {
	return llms.ToolCall{ID: id, Type: "function", FunctionCall: &llms.FunctionCall{Name: skill.ActivateTool, Arguments: args}}
}

// TestActivateSkillKnowsWhatIsActive: activate_skill brings a skill's instructions once: not
// when the run's messages hold them, nor when an earlier call of the same turn, in the model's
// order, activates the skill with valid arguments.
func TestActivateSkillKnowsWhatIsActive(t *testing.T) {
	t.Parallel()
	set := skill.NewToolSet(twoSkills(t)...)
	user := llms.TextParts(llms.ChatMessageTypeHuman, "go")
	first := activate(t, set, "a1", "triage", []llms.MessageContent{user, turnOf(activation("a1", `{"name":"triage"}`))})
	if !strings.Contains(first, "TRIAGE-BODY") {
		t.Fatalf("the first activation answered %q; want the instructions", first)
	}
	result := llms.MessageContent{Role: llms.ChatMessageTypeTool, Parts: []llms.ContentPart{llms.ToolCallResponse{ToolCallID: "a1", Name: skill.ActivateTool, Content: first}}}
	for _, tc := range []struct {
		name, id, skill string
		msgs            []llms.MessageContent
		active          bool
	}{
		{"its instructions earlier in the run", "a2", "triage",
			[]llms.MessageContent{user, turnOf(activation("a1", `{"name":"triage"}`)), result, turnOf(activation("a2", `{"name":"triage"}`))}, true},
		{"another skill's earlier", "a2", "notes",
			[]llms.MessageContent{user, turnOf(activation("a1", `{"name":"triage"}`)), result, turnOf(activation("a2", `{"name":"notes"}`))}, false},
		{"the second of the turn", "a2", "triage",
			[]llms.MessageContent{user, turnOf(activation("a1", `{"name":"triage"}`), activation("a2", `{"name":"triage"}`))}, true},
		{"the first of the turn", "a1", "triage",
			[]llms.MessageContent{user, turnOf(activation("a1", `{"name":"triage"}`), activation("a2", `{"name":"triage"}`))}, false},
		{"after an invalid one", "a2", "triage",
			[]llms.MessageContent{user, turnOf(activation("a1", `{"name":"triage","why":"?"}`), activation("a2", `{"name":"triage"}`))}, false},
		{"after an activation of an earlier turn that failed", "a3", "triage",
			[]llms.MessageContent{user, turnOf(activation("a1", `{"name":"triage"}`)),
				{Role: llms.ChatMessageTypeTool, Parts: []llms.ContentPart{llms.ToolCallResponse{ToolCallID: "a1", Name: skill.ActivateTool, Content: "error: refused"}}},
				turnOf(activation("a3", `{"name":"triage"}`))}, false},
	} {
		got := activate(t, set, tc.id, tc.skill, tc.msgs)
		if active := strings.Contains(got, "already active"); active != tc.active {
			t.Errorf("%s: activation answered %q; want active %v", tc.name, got, tc.active)
		}
	}
	if got, err := mustTools(t, set)[0].Call(context.Background(), json.RawMessage(`{"name":"triage"}`)); err != nil || !strings.Contains(got, "TRIAGE-BODY") {
		t.Errorf("an activation outside a run answered %q, %v; want the instructions", got, err)
	}
}

func mustTools(t *testing.T, set *skill.ToolSet) []tool.Tool {
	t.Helper()
	tools, err := set.Tools(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return tools
}

// TestToolSetPrompt: the prompt is the catalog, and, for the skills activated in the chat's
// history that the run's messages no longer hold, their instructions after it, which the next
// activation then counts as active.
func TestToolSetPrompt(t *testing.T) {
	t.Parallel()
	set := skill.NewToolSet(twoSkills(t)...)
	catalog, err := set.Prompt(context.Background(), nil, nil)
	if err != nil || !strings.Contains(catalog, "<name>triage</name>") || !strings.Contains(catalog, "<name>notes</name>") || strings.Contains(catalog, "BODY") {
		t.Fatalf("Prompt outside a chat = %q, %v; want the catalog, without instructions", catalog, err)
	}
	earlier := activate(t, set, "a1", "notes", nil)
	history := []llms.MessageContent{
		llms.TextParts(llms.ChatMessageTypeHuman, "take notes"),
		turnOf(activation("a1", `{"name":"notes"}`)),
		{Role: llms.ChatMessageTypeTool, Parts: []llms.ContentPart{llms.ToolCallResponse{ToolCallID: "a1", Name: skill.ActivateTool, Content: earlier}}},
	}
	got, err := set.Prompt(context.Background(), history, history[2:])
	if err != nil || got != catalog {
		t.Errorf("Prompt with the activation in the window = %q, %v; want the catalog alone", got, err)
	}
	got, err = set.Prompt(context.Background(), history, []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, "more")})
	if err != nil || !strings.HasPrefix(got, catalog+"\n\n") || !strings.Contains(got, "NOTES-BODY") || strings.Contains(got, "TRIAGE-BODY") {
		t.Fatalf("Prompt with the activation out of the window = %q, %v; want the catalog, then the notes' instructions", got, err)
	}
	system := llms.TextParts(llms.ChatMessageTypeSystem, "You write.\n\n"+got)
	if again := activate(t, set, "b1", "notes", []llms.MessageContent{system, turnOf(activation("b1", `{"name":"notes"}`))}); !strings.Contains(again, "already active") {
		t.Errorf("activating a skill the system prompt holds answered %q; want it active", again)
	}
}

// TestToolSetRefusesBadSkills: a nil skill, one without a name, or two of one name are the
// set's error, from each of its methods.
func TestToolSetRefusesBadSkills(t *testing.T) {
	t.Parallel()
	skills := twoSkills(t)
	for _, tc := range []struct {
		name   string
		skills []*skill.Skill
		want   string
	}{
		{"nil", []*skill.Skill{skills[0], nil}, "skill 1 is nil"},
		{"unnamed", []*skill.Skill{{Description: "?"}}, "skill 0 has no name"},
		{"twice", []*skill.Skill{skills[0], skills[0]}, `two skills are named "triage"`},
	} {
		set := skill.NewToolSet(tc.skills...)
		_, err1 := set.FixedTools()
		_, err2 := set.Tools(context.Background())
		_, err3 := set.Prompt(context.Background(), nil, nil)
		for _, err := range []error{err1, err2, err3} {
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%s: error %v; want one saying %q", tc.name, err, tc.want)
			}
		}
	}
	tools := mustTools(t, skill.NewToolSet(skills...))
	if len(tools) != 1 || tools[0].Name() != skill.ActivateTool {
		t.Errorf("the tools of skills without files: %d; want activate_skill alone", len(tools))
	}
}
