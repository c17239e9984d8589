package assistant_test

import (
	"context"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"testing/fstest"

	"github.com/cadrehq/cadre/pkg/assistant"
	"github.com/cadrehq/cadre/pkg/chat"
	"github.com/cadrehq/cadre/pkg/llmtest"
	"github.com/cadrehq/cadre/pkg/skill"
	"github.com/cadrehq/cadre/pkg/tool"
	"github.com/google/go-cmp/cmp"
	"github.com/tmc/langchaingo/llms"
)

// The instructions of the test skills hold markers no other text has, so that a test can tell
// which requests carried them.
const (
	notesBody  = "NOTES-BODY: group the changes as Added, Changed and Fixed."
	styleText  = "STYLE-FILE: write in the past tense."
	triageBody = "TRIAGE-BODY: label each issue by its component."
)

// testSkills loads two skills: release-notes, with a file, and triage, without.
func testSkills(t *testing.T) []*skill.Skill {
	t.Helper()
	fsys := fstest.MapFS{
		"skills/release-notes/SKILL.md":            {Data: []byte("---\nname: release-notes\ndescription: Writes release notes from merged changes. Use it for release notes.\nallowed-tools: send_mail\n---\n" + notesBody + "\nRead references/style.md first.\n")},
		"skills/release-notes/references/style.md": {Data: []byte(styleText + "\n")},
		"skills/triage/SKILL.md":                   {Data: []byte("---\nname: triage\ndescription: Labels issues. Use it to triage.\n---\n" + triageBody + "\n")},
	}
	skills, problems, err := skill.Load(fsys, "skills")
	if err != nil || len(problems) > 0 {
		t.Fatalf("loading the test skills: %v %v", err, problems)
	}
	return skills
}

// requestText returns all the text a request carries: messages and tool results.
func requestText(req llmtest.Request) string {
	var b strings.Builder
	for _, m := range req.Messages {
		for _, p := range m.Parts {
			switch p := p.(type) {
			case llms.TextContent:
				b.WriteString(p.Text + "\n")
			case llms.ToolCallResponse:
				b.WriteString(p.Content + "\n")
			}
		}
	}
	return b.String()
}

// TestSkillsAreDisclosedProgressively: before activation a request holds each skill's name and
// description and no instructions; activate_skill brings one skill's instructions and the list
// of its files; read_skill_resource brings a file.
func TestSkillsAreDisclosedProgressively(t *testing.T) {
	t.Parallel()
	m := llmtest.NewScripted(
		llmtest.Calls(llmtest.Call("activate_skill", `{"name":"release-notes"}`)),
		llmtest.Calls(llmtest.Call("read_skill_resource", `{"skill":"release-notes","path":"references/style.md"}`)),
		llmtest.Text("Added: skills."),
	)
	a := assistant.New[string]("writer", assistant.WithInstructions("You write."), assistant.WithModel(m), assistant.WithSkills(testSkills(t)...))
	res, err := a.Run(testContext(t), assistant.Input{Prompt: "Release notes, please."})
	if err != nil {
		t.Fatal(err)
	}
	reqs := m.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want 3", len(reqs))
	}
	first := requestText(reqs[0])
	for _, want := range []string{"You write.", "<name>release-notes</name>", "Writes release notes from merged changes.", "<name>triage</name>", "activate_skill"} {
		if !strings.Contains(systemOf(reqs[0]), want) {
			t.Errorf("the system prompt does not hold %q:\n%s", want, systemOf(reqs[0]))
		}
	}
	if strings.Contains(first, "NOTES-BODY") || strings.Contains(first, "TRIAGE-BODY") || strings.Contains(first, "STYLE-FILE") {
		t.Errorf("the first request holds a skill's instructions or files before any activation:\n%s", first)
	}
	if got := toolNames(reqs[0]); !slices.Equal(got, []string{"activate_skill", "read_skill_resource"}) {
		t.Errorf("tools offered %q; want the two skill tools", got)
	}
	activated := toolResultsIn(reqs[1].Messages)[0].Content
	for _, want := range []string{`<skill_content name="release-notes">`, notesBody, "</skill_content>", "<skill_resources>\nreferences/style.md\n</skill_resources>"} {
		if !strings.Contains(activated, want) {
			t.Errorf("activate_skill answered\n%s\nwithout %q", activated, want)
		}
	}
	if strings.Contains(activated, "STYLE-FILE") || strings.Contains(requestText(reqs[1]), "TRIAGE-BODY") {
		t.Errorf("activation sent a file's content or another skill's instructions:\n%s", requestText(reqs[1]))
	}
	if got := lastToolResults(reqs[2].Messages); len(got) != 1 || got[0] != styleText+"\n" {
		t.Errorf("read_skill_resource answered %q; want the file", got)
	}
	if res.Output != "Added: skills." {
		t.Errorf("Output = %q", res.Output)
	}
}

// TestAnActiveSkillIsNotSentAgain: activating a skill already active in the run — in the same
// turn or a later one — answers briefly.
func TestAnActiveSkillIsNotSentAgain(t *testing.T) {
	t.Parallel()
	m := llmtest.NewScripted(
		llmtest.Calls(llmtest.Call("activate_skill", `{"name":"triage"}`), llmtest.Call("activate_skill", `{"name":"triage"}`)),
		llmtest.Calls(llmtest.Call("activate_skill", `{"name":"triage"}`)),
		llmtest.Text("done"),
	)
	a := assistant.New[string]("triager", assistant.WithModel(m), assistant.WithSkills(testSkills(t)...))
	res, err := a.Run(testContext(t), assistant.Input{Prompt: "Triage."})
	if err != nil {
		t.Fatal(err)
	}
	full := 0
	for _, r := range toolResultsIn(res.Messages) {
		switch {
		case strings.Contains(r.Content, triageBody):
			full++
			if strings.Contains(r.Content, "skill_resources") {
				t.Errorf("the activation of a skill without files lists files:\n%s", r.Content)
			}
		case !strings.Contains(r.Content, "already active"):
			t.Errorf("a repeated activation answered %q", r.Content)
		}
	}
	if full != 1 {
		t.Errorf("the instructions were sent %d times; want once", full)
	}
}

// TestSkillsActiveInAChatAreSentAfterTheSystemPrompt: a skill activated in an earlier run of a
// chat stays active: when the history window has dropped its activation, its instructions come
// after the system prompt; when the window still holds it, they are not sent twice.
func TestSkillsActiveInAChatAreSentAfterTheSystemPrompt(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		window   chat.Window
		inSystem bool
	}{
		{"dropped by the window", chat.Window{MaxMessages: 2}, true},
		{"still in the window", chat.Window{}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx := chat.WithID(testContext(t), chat.ID{Chat: "c"})
			m := llmtest.NewScripted(
				llmtest.Calls(llmtest.Call("activate_skill", `{"name":"triage"}`)),
				llmtest.Text("first done"),
				llmtest.Text("second done"),
				llmtest.Calls(llmtest.Call("activate_skill", `{"name":"triage"}`)),
				llmtest.Text("third done"),
			)
			a := assistant.New[string]("triager", assistant.WithInstructions("You triage."), assistant.WithModel(m),
				assistant.WithSkills(testSkills(t)...), assistant.WithStore(chat.NewMemory()), assistant.WithHistoryWindow(tc.window))
			for _, prompt := range []string{"Triage these.", "Thanks.", "And these."} {
				if _, err := a.Run(ctx, assistant.Input{Prompt: prompt}); err != nil {
					t.Fatal(err)
				}
			}
			reqs := m.Requests()
			third := reqs[3]
			system := systemOf(third)
			if got := strings.Contains(system, triageBody); got != tc.inSystem {
				t.Errorf("the system message holds the instructions: %v, want %v:\n%s", got, tc.inSystem, system)
			}
			if !strings.HasPrefix(system, "You triage.") {
				t.Errorf("the system prompt does not come first:\n%s", system)
			}
			if n := strings.Count(requestText(third), triageBody); n != 1 {
				t.Errorf("the third run's first request holds the instructions %d times; want once", n)
			}
			if again := lastToolResults(reqs[4].Messages); len(again) != 1 || !strings.Contains(again[0], "already active") {
				t.Errorf("activating the chat's active skill again answered %q; want it said to be active", again)
			}
		})
	}
}

// TestSkillResourcesStayInTheSkillsFolder: read_skill_resource refuses paths out of the
// skill's folder, and the model is told why.
func TestSkillResourcesStayInTheSkillsFolder(t *testing.T) {
	t.Parallel()
	for _, path := range []string{"../triage/SKILL.md", "/etc/passwd", "references/../../triage/SKILL.md"} {
		m := llmtest.NewScripted(
			llmtest.Calls(llmtest.Call("read_skill_resource", `{"skill":"release-notes","path":"`+path+`"}`)),
			llmtest.Text("sorry"),
		)
		a := assistant.New[string]("writer", assistant.WithModel(m), assistant.WithSkills(testSkills(t)...))
		if _, err := a.Run(testContext(t), assistant.Input{Prompt: "Read."}); err != nil {
			t.Fatal(err)
		}
		got := lastToolResults(m.Requests()[1].Messages)
		if len(got) != 1 || !strings.HasPrefix(got[0], "error:") || !strings.Contains(got[0], skill.ErrOutside.Error()) || strings.Contains(got[0], "TRIAGE-BODY") {
			t.Errorf("reading %q answered %q; want it refused as out of the skill's folder", path, got)
		}
	}
}

// TestASpecialistsSkillsAreItsOwn: a supervisor delegating to a specialist with skills sees
// neither the skills nor their tools; the specialist does.
func TestASpecialistsSkillsAreItsOwn(t *testing.T) {
	t.Parallel()
	specModel := llmtest.NewScripted(
		llmtest.Calls(llmtest.Call("activate_skill", `{"name":"triage"}`)),
		llmtest.Text("labelled"),
	)
	spec := assistant.New[string]("triager", assistant.WithDescription("Triages issues."), assistant.WithModel(specModel),
		assistant.WithSkills(testSkills(t)...))
	supModel := llmtest.NewScripted(llmtest.Calls(llmtest.Call("triager", `{"input":"triage #1"}`)), llmtest.Text("done"))
	sup := assistant.New[string]("lead", assistant.WithModel(supModel), assistant.WithTools(assistant.AsTool[string](spec)))
	if _, err := sup.Run(testContext(t), assistant.Input{Prompt: "Triage #1."}); err != nil {
		t.Fatal(err)
	}
	for i, req := range supModel.Requests() {
		if text := requestText(req); strings.Contains(text, "available_skills") || strings.Contains(text, "TRIAGE-BODY") {
			t.Errorf("the supervisor's request %d holds the specialist's skills:\n%s", i, text)
		}
		if got := toolNames(req); !slices.Equal(got, []string{"triager"}) {
			t.Errorf("the supervisor was offered %q; want only the specialist", got)
		}
	}
	if got := toolNames(specModel.Requests()[0]); !slices.Contains(got, "activate_skill") {
		t.Errorf("the specialist was offered %q; want its skill tools", got)
	}
	if !strings.Contains(requestText(specModel.Requests()[1]), triageBody) {
		t.Error("the specialist's activation did not bring the instructions")
	}
}

// TestASkillsAllowedToolsGrantNothing: allowed-tools is exposed; a tool it names that the
// assistant has still waits for approval, and one the assistant lacks stays unknown.
func TestASkillsAllowedToolsGrantNothing(t *testing.T) {
	t.Parallel()
	skills := testSkills(t)
	if !slices.Equal(skills[0].AllowedTools, []string{"send_mail"}) {
		t.Fatalf("AllowedTools = %q", skills[0].AllowedTools)
	}
	var sent atomic.Int64
	send := tool.Func("send_mail", "Sends a mail.", func(_ context.Context, in mailArgs) (string, error) {
		sent.Add(1)
		return "sent", nil
	})
	m := llmtest.NewScripted(
		llmtest.Calls(llmtest.Call("activate_skill", `{"name":"release-notes"}`)),
		llmtest.Calls(llmtest.Call("send_mail", `{"to":"ana@example.com","body":"notes"}`)),
	)
	a := assistant.New[string]("writer", assistant.WithModel(m), assistant.WithTools(send), assistant.WithSkills(skills...),
		assistant.WithApproval(fixed(assistant.Pending()), "send_mail"))
	res, err := a.Run(testContext(t), assistant.Input{Prompt: "Mail the notes."})
	if err != nil {
		t.Fatal(err)
	}
	if res.Stop != assistant.StopPending || sent.Load() != 0 {
		t.Errorf("Stop = %q with %d mails sent; want the run waiting for approval, nothing sent", res.Stop, sent.Load())
	}

	m = llmtest.NewScripted(llmtest.Calls(llmtest.Call("send_mail", `{"to":"ana@example.com","body":"notes"}`)), llmtest.Text("could not"))
	a = assistant.New[string]("writer", assistant.WithModel(m), assistant.WithSkills(skills...))
	if _, err := a.Run(testContext(t), assistant.Input{Prompt: "Mail the notes."}); err != nil {
		t.Fatal(err)
	}
	if got := lastToolResults(m.Requests()[1].Messages); len(got) != 1 || !strings.Contains(got[0], "no tool") && !strings.Contains(got[0], "unknown") {
		t.Errorf("a call of a tool only allowed-tools names answered %q; want it unknown", got)
	}
}

// TestAResumedRunKnowsItsActiveSkills: after a pause, a skill activated before it is still
// active.
func TestAResumedRunKnowsItsActiveSkills(t *testing.T) {
	t.Parallel()
	var sent atomic.Int64
	send := tool.Func("send_mail", "Sends a mail.", func(_ context.Context, in mailArgs) (string, error) {
		sent.Add(1)
		return "sent", nil
	})
	m := llmtest.NewScripted(
		llmtest.Calls(llmtest.Call("activate_skill", `{"name":"triage"}`)),
		llmtest.Calls(llmtest.Call("send_mail", `{"to":"ana@example.com","body":"labels"}`)),
		llmtest.Calls(llmtest.Call("activate_skill", `{"name":"triage"}`)),
		llmtest.Text("done"),
	)
	opts := []assistant.Option{assistant.WithModel(m), assistant.WithTools(send), assistant.WithSkills(testSkills(t)...),
		assistant.WithApproval(fixed(assistant.Pending()), "send_mail")}
	res, err := assistant.New[string]("triager", opts...).Run(testContext(t), assistant.Input{Prompt: "Triage and mail."})
	if err != nil || res.Paused == nil {
		t.Fatalf("Run = %v, %v; want a pause", res, err)
	}
	if _, err := assistant.New[string]("triager", opts...).Resume(testContext(t), res.Paused, map[string]assistant.Decision{res.Paused.Waiting()[0].ID: assistant.Approved()}); err != nil {
		t.Fatal(err)
	}
	if sent.Load() != 1 {
		t.Errorf("%d mails sent; want the approved one", sent.Load())
	}
	if got := lastToolResults(m.Requests()[3].Messages); len(got) != 1 || !strings.Contains(got[0], "already active") {
		t.Errorf("activating again after the resume answered %q; want it said to be active", got)
	}
}

// TestSkillsConfigurationErrors: New refuses two skills of one name and a tool named like a
// skill tool; an assistant whose skills have no files is not offered read_skill_resource.
func TestSkillsConfigurationErrors(t *testing.T) {
	t.Parallel()
	skills := testSkills(t)
	m := llmtest.NewScripted(llmtest.Text("ok")).Cycle()
	if msg, panicked := panicText(func() {
		assistant.New[string]("a", assistant.WithModel(m), assistant.WithSkills(skills[1], skills[1]))
	}); !panicked || !strings.Contains(msg, `two skills are named "triage"`) {
		t.Errorf("two skills of one name: panic %q; want one naming the skill", msg)
	}
	if msg, panicked := panicText(func() {
		assistant.New[string]("a", assistant.WithModel(m), assistant.WithSkills(skills...), assistant.WithTools(rawTool{name: "activate_skill", schema: `{"type":"object"}`}))
	}); !panicked || !strings.Contains(msg, `"activate_skill" is taken`) {
		t.Errorf("a tool named activate_skill: panic %q; want one saying the name is taken", msg)
	}
	a := assistant.New[string]("a", assistant.WithModel(m), assistant.WithSkills(skills[1]))
	if _, err := a.Run(testContext(t), assistant.Input{Prompt: "go"}); err != nil {
		t.Fatal(err)
	}
	if got := toolNames(m.Requests()[0]); !slices.Equal(got, []string{"activate_skill"}) {
		t.Errorf("tools offered %q; want only activate_skill for skills without files", got)
	}
	per := assistant.New[string]("b", assistant.WithModel(m))
	if _, err := per.Run(testContext(t), assistant.Input{Prompt: "go", Options: []assistant.Option{assistant.WithSkills(skills...)}}); err != nil {
		t.Fatal(err)
	}
	if got := toolNames(m.Requests()[1]); !slices.Contains(got, "activate_skill") {
		t.Errorf("a run with WithSkills among its options was offered %q", got)
	}
	if _, err := per.Run(testContext(t), assistant.Input{Prompt: "go"}); err != nil {
		t.Fatal(err)
	}
	if got := toolNames(m.Requests()[2]); len(got) != 0 {
		t.Errorf("a run without the option was offered %q; want the assistant's own tools, none", got)
	}
}

// TestAResumedRunKnowsTheChatsActiveSkills: a run that got a chat's active skills after its
// system prompt, then paused, still knows them when it resumes; a skill whose instructions
// merely quote another's tag does not make that one active.
func TestAResumedRunKnowsTheChatsActiveSkills(t *testing.T) {
	t.Parallel()
	var sent atomic.Int64
	send := tool.Func("send_mail", "Sends a mail.", func(_ context.Context, in mailArgs) (string, error) {
		sent.Add(1)
		return "sent", nil
	})
	ctx := chat.WithID(testContext(t), chat.ID{Chat: "c"})
	m := llmtest.NewScripted(
		llmtest.Calls(llmtest.Call("activate_skill", `{"name":"triage"}`), llmtest.Call("activate_skill", `{"name":"release-notes"}`)),
		llmtest.Text("first done"),
		llmtest.Text("second done"),
		llmtest.Calls(llmtest.Call("send_mail", `{"to":"ana@example.com","body":"labels"}`)),
		llmtest.Calls(llmtest.Call("activate_skill", `{"name":"triage"}`), llmtest.Call("activate_skill", `{"name":"release-notes"}`)),
		llmtest.Text("done"),
	)
	opts := []assistant.Option{assistant.WithModel(m), assistant.WithTools(send), assistant.WithSkills(testSkills(t)...),
		assistant.WithStore(chat.NewMemory()), assistant.WithHistoryWindow(chat.Window{MaxMessages: 2}),
		assistant.WithApproval(fixed(assistant.Pending()), "send_mail")}
	a := assistant.New[string]("triager", opts...)
	for _, prompt := range []string{"Triage.", "Thanks."} {
		if _, err := a.Run(ctx, assistant.Input{Prompt: prompt}); err != nil {
			t.Fatal(err)
		}
	}
	res, err := a.Run(ctx, assistant.Input{Prompt: "Mail the labels."})
	if err != nil || res.Paused == nil {
		t.Fatalf("Run = %v, %v; want a pause", res, err)
	}
	if _, err := assistant.New[string]("triager", opts...).Resume(ctx, nil, map[string]assistant.Decision{res.Paused.Waiting()[0].ID: assistant.Approved()}); err != nil {
		t.Fatal(err)
	}
	results := toolResultsIn(m.Requests()[5].Messages)
	var got []string
	for _, r := range results[len(results)-2:] {
		got = append(got, r.Content)
	}
	if !strings.Contains(got[0], "already active") || !strings.Contains(got[1], "already active") {
		t.Errorf("activating the chat's skills after the resume answered %q; want both said to be active", got)
	}
}

// replayTurns is a tool-turn middleware that runs a turn as a durable engine replays it: a call
// whose result it has recorded (by call ID) gets that result without the tool being called; the
// others run, last first, so that no answer can depend on the order calls start in.
func replayTurns(recorded map[string]string) assistant.Middleware {
	return assistant.Middleware{ToolTurn: func(ctx context.Context, turn *assistant.ToolTurn, _ assistant.ToolTurnNext) ([]string, error) {
		results := make([]string, len(turn.Calls))
		for k := len(turn.Calls) - 1; k >= 0; k-- {
			if r, ok := recorded[turn.Calls[k].ID]; ok {
				results[k] = r
			} else {
				results[k] = turn.Call(ctx, k)
			}
		}
		return results, nil
	}}
}

// TestAReplayedActivationKeepsTheSkillActive: a run whose activations are given back from a
// record, the tool not called (a durable recovery or fork), answers a later activation of the
// same skill — in the same turn or a later one — as the run that called the tool did: the
// skill is active. Within a turn, the first activation in the model's order brings the
// instructions, whichever call runs first.
func TestAReplayedActivationKeepsTheSkillActive(t *testing.T) {
	t.Parallel()
	script := func() *llmtest.Scripted {
		return llmtest.NewScripted(
			llmtest.Calls(llmtest.Call("activate_skill", `{"name":"triage"}`), llmtest.Call("activate_skill", `{"name":"triage"}`)),
			llmtest.Calls(llmtest.Call("activate_skill", `{"name":"triage"}`)),
			llmtest.Text("done"),
		)
	}
	run := func(t *testing.T, mw ...assistant.Middleware) *assistant.Result[string] {
		t.Helper()
		a := assistant.New[string]("triager", assistant.WithModel(script()), assistant.WithSkills(testSkills(t)...), assistant.WithMiddleware(mw...))
		res, err := a.Run(testContext(t), assistant.Input{Prompt: "Triage."})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	want := run(t)
	results := toolResultsIn(want.Messages)
	if len(results) != 3 || !strings.Contains(results[0].Content, triageBody) || !strings.Contains(results[1].Content, "already active") || !strings.Contains(results[2].Content, "already active") {
		t.Fatalf("the run's activations answered %q; want the instructions first, then 'already active' twice", results)
	}
	for _, tc := range []struct {
		name     string
		recorded int // how many of the run's results are given back from the record
	}{
		{"nothing recorded", 0},
		{"the first activation recorded", 1},
		{"the first turn recorded", 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			recorded := map[string]string{}
			for _, r := range results[:tc.recorded] {
				recorded[r.ToolCallID] = r.Content
			}
			got := run(t, replayTurns(recorded))
			if d := cmp.Diff(want.Messages, got.Messages); d != "" {
				t.Errorf("the replayed run's messages differ (-run +replay):\n%s", d)
			}
		})
	}
}
