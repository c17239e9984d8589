package assistant_test

import (
	"strings"
	"testing"

	"github.com/cadrehq/cadre/pkg/assistant"
	"github.com/cadrehq/cadre/pkg/llmtest"
	"github.com/google/go-cmp/cmp"
	"github.com/tmc/langchaingo/llms"
)

func TestTemplateVarsRenderedIntoSystemMessage(t *testing.T) {
	t.Parallel()
	m := llmtest.NewScripted(llmtest.Text("bonjour"))
	a := assistant.New[string]("greeter",
		assistant.WithInstructions("Greet {{.user}} in a {{.tone}} tone, in {{.lang}}."),
		assistant.WithVars(map[string]any{"user": "the static user", "tone": "dry"}),
		assistant.WithModel(m),
	)
	_, err := a.Run(testContext(t), assistant.Input{
		Prompt: "hello",
		Vars:   map[string]any{"user": "Ana", "lang": "French"},
	})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	reqs := m.Requests()
	if len(reqs) != 1 {
		t.Fatalf("the model got %d requests, want 1", len(reqs))
	}
	want := []llms.MessageContent{
		llms.TextParts(llms.ChatMessageTypeSystem, "Greet Ana in a dry tone, in French."),
		llms.TextParts(llms.ChatMessageTypeHuman, "hello"),
	}
	if diff := cmp.Diff(want, reqs[0].Messages); diff != "" {
		t.Errorf("request messages (-want +got): Input.Vars must win over WithVars, and WithVars fill the rest\n%s", diff)
	}
}

func TestTemplateMissingVarFailsBeforeAnyRequest(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		with    map[string]any // WithVars
		in      map[string]any // Input.Vars
		missing string         // the first var the template misses
	}{
		{name: "no vars", missing: "user"},
		{name: "others given", with: map[string]any{"user": "Ana"}, in: map[string]any{"lang": "fr"}, missing: "hometown"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			m := llmtest.NewScripted(llmtest.Text("never sent"))
			a := assistant.New[string]("greeter",
				assistant.WithInstructions("Greet {{.user}} in {{.lang}}; say the weather in {{.hometown}}."),
				assistant.WithVars(tc.with),
				assistant.WithModel(m),
			)
			res, err := a.Run(testContext(t), assistant.Input{Prompt: "hello", Vars: tc.in})
			if err == nil {
				t.Fatalf("Run succeeded (%+v); want an error for the missing var", res)
			}
			if !strings.Contains(err.Error(), tc.missing) {
				t.Errorf("error %q does not name the missing var %q", err, tc.missing)
			}
			if res != nil {
				t.Errorf("Run returned a Result %+v with an error before any request; want nil", res)
			}
			if n := len(m.Requests()); n != 0 {
				t.Errorf("the model got %d requests; a missing var must fail the run before any", n)
			}
		})
	}
}

// TestInstructionsOfOnlyAnAction: instructions that are a template action and nothing else are
// rendered, not sent as written.
func TestInstructionsOfOnlyAnAction(t *testing.T) {
	t.Parallel()
	m := llmtest.NewScripted(llmtest.Text("bonjour"))
	a := assistant.New[string]("greeter", assistant.WithInstructions("{{.rules}}"), assistant.WithModel(m))
	if _, err := a.Run(testContext(t), assistant.Input{Prompt: "hello", Vars: map[string]any{"rules": "Be brief."}}); err != nil {
		t.Fatal(err)
	}
	if got := systemOf(m.Requests()[0]); got != "Be brief." {
		t.Errorf("system message = %q, want the rendered template", got)
	}
}

// A template's comments are notes for whoever keeps the instructions: the model never sees
// them, whether or not the instructions have an action.
func TestTemplateCommentsAreNotSent(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ instructions, want string }{
		{"{{/* keep this short: it costs tokens */}}Be brief.", "Be brief."},
		{"Be {{- /* trimmed */ -}} brief, {{.user}}.", "Bebrief, Ana."},
	} {
		m := llmtest.NewScripted(llmtest.Text("ok"))
		a := assistant.New[string]("terse", assistant.WithInstructions(tc.instructions), assistant.WithModel(m))
		if _, err := a.Run(testContext(t), assistant.Input{Prompt: "hi", Vars: map[string]any{"user": "Ana"}}); err != nil {
			t.Fatalf("Run: %v", err)
		}
		if got := m.Requests()[0].Messages[0]; !cmp.Equal(got, llms.TextParts(llms.ChatMessageTypeSystem, tc.want)) {
			t.Errorf("instructions %q: the system message is %v; want %q", tc.instructions, got.Parts, tc.want)
		}
	}
}
