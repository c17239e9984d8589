package assistant_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/cadrehq/cadre/pkg/assistant"
	"github.com/cadrehq/cadre/pkg/llmfactory"
	"github.com/cadrehq/cadre/pkg/llmtest"
	"github.com/cadrehq/cadre/pkg/tool"
)

// The errors a newcomer meets first in a run each say which assistant, what is wrong, and
// what to do.
func TestNewcomerRunErrorsSayWhatToDo(t *testing.T) {
	t.Parallel()
	unsetKey, err := llmfactory.Parse([]byte("providers:\n  openai: { api_key: '${OPENAI_API_KEY}' }\n"+
		"models:\n  fast: { provider: openai, model: gpt-5-mini }\ndefault: fast\n"),
		llmfactory.WithEnv(func(string) (string, bool) { return "", false }))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		opts []assistant.Option
		in   assistant.Input
		want []string // each in the message
	}{{
		name: "missing template var: names it and says where to give it",
		opts: []assistant.Option{
			assistant.WithModel(llmtest.NewScripted(llmtest.Text("never sent"))),
			assistant.WithInstructions("Write for {{.audience}}, in {{.tone}} words."),
			assistant.WithVars(map[string]any{"tone": "plain"}),
		},
		in:   assistant.Input{Prompt: "Explain DNS."},
		want: []string{`assistant "writer"`, `"audience"`, "give every var the template uses in WithVars or Input.Vars"},
	}, {
		name: "unset API key: names the variable and the provider, and says to set it",
		opts: []assistant.Option{assistant.WithModels(unsetKey)},
		in:   assistant.Input{Prompt: "Explain DNS."},
		want: []string{`assistant "writer"`, `provider "openai"`, "OPENAI_API_KEY is not set: set it"},
	}, {
		name: "no model: says how to give one",
		in:   assistant.Input{Prompt: "Explain DNS."},
		want: []string{`assistant "writer"`, "give the assistant one with WithModel or WithModels"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := assistant.New[string]("writer", tt.opts...).Run(context.Background(), tt.in)
			if err == nil {
				t.Fatal("Run succeeded, want an error")
			}
			wantSays(t, err.Error(), tt.want)
		})
	}
}

// A var given for the run (Input.Vars) is enough: the advice in the error is right.
func TestNewcomerMissingVarGivenInInput(t *testing.T) {
	t.Parallel()
	a := assistant.New[string]("writer",
		assistant.WithModel(llmtest.NewScripted(llmtest.Text("DNS turns names into addresses."))),
		assistant.WithInstructions("Write for {{.audience}}."))
	if _, err := a.Run(context.Background(), assistant.Input{Prompt: "Explain DNS.", Vars: map[string]any{"audience": "children"}}); err != nil {
		t.Fatal(err)
	}
}

// An invalid tool name panics where it is written, saying which characters a name may hold
// and suggesting one that works.
func TestNewcomerInvalidToolNameSaysWhatIsAllowed(t *testing.T) {
	t.Parallel()
	allowed := "use only ASCII letters (a-z, A-Z), digits, '_' or '-'"
	noop := func(context.Context, struct{}) (string, error) { return "", nil }
	tests := []struct {
		name string
		make func()
		want []string // each in the panic's text
	}{{
		name: "tool.Func",
		make: func() { tool.Func("get weather", "The forecast.", noop) },
		want: []string{`tool.Func: tool name "get weather" has ' ' at byte 3`, allowed, `e.g. "get_weather"`},
	}, {
		name: "tool.Func with a non-ASCII letter",
		make: func() { tool.Func("météo", "The forecast.", noop) },
		want: []string{`has 'é' at byte 1`, allowed, `e.g. "m_t_o"`},
	}, {
		name: "assistant.New with a hand-written tool",
		make: func() {
			assistant.New[string]("writer", assistant.WithTools(rawTool{name: "look.up", schema: `{"type":"object"}`}))
		},
		want: []string{`assistant.New: tool name "look.up" has '.'`, allowed, `e.g. "look_up"`},
	}, {
		name: "assistant.New with an empty tool name",
		make: func() {
			assistant.New[string]("writer", assistant.WithTools(rawTool{schema: `{"type":"object"}`}))
		},
		want: []string{"tool name is empty", "1 to 64 ASCII letters (a-z, A-Z), digits, '_' or '-'"},
	}, {
		name: "AsTool of an assistant whose name cannot name a tool",
		make: func() { assistant.AsTool[string](assistant.New[string]("trip planner")) },
		want: []string{`tool name "trip planner"`, allowed, "give the tool a valid name with ToolName"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			msg, panicked := panicText(tt.make)
			if !panicked {
				t.Fatal("no panic")
			}
			wantSays(t, msg, tt.want)
		})
	}
}

// wantSays fails the test unless msg holds each of want.
func wantSays(t *testing.T, msg string, want []string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(msg, w) {
			t.Errorf("%q\ndoes not say %q", msg, w)
		}
	}
}

func TestOutputErrorNumbersItsAttempts(t *testing.T) {
	t.Parallel()
	e := &assistant.OutputError{Assistant: "a", Attempts: []error{errors.New("first"), errors.New("second")}}
	if s := e.Error(); !strings.Contains(s, "could not be used: attempt 1: first; attempt 2: second") {
		t.Errorf("Error() = %q; want each attempt numbered from 1 with its error", s)
	}
}
