package prompt_test

import (
	"strings"
	"testing"

	"github.com/cadrehq/cadre/internal/prompt"
	"github.com/google/go-cmp/cmp"
	"github.com/tmc/langchaingo/llms"
)

func mustParse(t *testing.T, text string) *prompt.Instructions {
	t.Helper()
	in, err := prompt.Parse("test", text)
	if err != nil {
		t.Fatal(err)
	}
	return in
}

// TestParse: text without a template action is static and written as the template would
// write it, even where it looks like a template (a lone brace); a syntax error is refused.
func TestParse(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		text   string
		static bool
	}{
		{"", true},
		{"You answer in French. {not a template} 100% sure", true},
		{"You help {{.user}}.", false},
		{"{{/* a comment */}}Plain.", true},
		{"{{if .x}}a{{end}}", false},
	} {
		if got := mustParse(t, tt.text).Static(); got != tt.static {
			t.Errorf("Parse(%q).Static() = %t, want %t", tt.text, got, tt.static)
		}
	}
	if _, err := prompt.Parse("bad", "Hello {{.user"); err == nil {
		t.Error("Parse of a template with a syntax error succeeded")
	}
	// A template's comments are not sent to the model, with or without actions.
	for text, want := range map[string]string{"{{/* a comment */}}Plain.": "Plain.", "A {{- /* x */ -}} B": "AB"} {
		if got, err := mustParse(t, text).Write(nil, nil, ""); err != nil || got != want {
			t.Errorf("Parse(%q).Write = %q, %v; want %q", text, got, err, want)
		}
	}
}

// TestWrite: the run's vars go over the assistant's, the roster is a var under both and a
// paragraph of its own unless the instructions place it, and each part after them is a
// paragraph; a var the template uses but nobody gives is an error.
func TestWrite(t *testing.T) {
	t.Parallel()
	base := map[string]any{"user": "Ada", "lang": "French"}
	run := map[string]any{"user": "Bob"}
	for _, tt := range []struct {
		name, text string
		vars, over map[string]any
		roster     string
		after      []string
		want       string
		wantErr    string
	}{
		{"run's vars over the assistant's", "Help {{.user}} in {{.lang}}.", base, run, "", nil, "Help Bob in French.", ""},
		{"no vars at all", "Hi{{if .x}}!{{end}}", nil, nil, "", nil, "", "map has no entry for key \"x\""},
		{"missing var", "Help {{.who}}.", base, nil, "", nil, "", `"who"`},
		{"roster added after", "Lead.", nil, nil, "You lead a team.", nil, "Lead.\n\nYou lead a team.", ""},
		{"roster placed", "Lead.\n{{.roster}}\nGo.", nil, nil, "TEAM", nil, "Lead.\nTEAM\nGo.", ""},
		{"a var roster wins", "{{.roster}}", nil, map[string]any{"roster": "mine"}, "TEAM", nil, "mine", ""},
		{"parts after, empty ones left out", "Lead.", nil, nil, "", []string{"", "skills", "", "JSON please"}, "Lead.\n\nskills\n\nJSON please", ""},
		{"no instructions", "", nil, nil, "TEAM", []string{"JSON please"}, "TEAM\n\nJSON please", ""},
	} {
		got, err := mustParse(t, tt.text).Write(tt.vars, tt.over, tt.roster, tt.after...)
		switch {
		case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
			t.Errorf("%s: Write = %q, %v; want an error saying %s", tt.name, got, err, tt.wantErr)
		case tt.wantErr == "" && (err != nil || got != tt.want):
			t.Errorf("%s: Write = %q, %v; want %q", tt.name, got, err, tt.want)
		}
	}
	if base["user"] != "Ada" || len(run) != 1 {
		t.Errorf("Write changed the vars it was given: %v, %v", base, run)
	}
}

// TestOver: over's values win key by key, in a new map; base itself when over is empty.
func TestOver(t *testing.T) {
	t.Parallel()
	base := map[string]any{"a": 1, "b": 2}
	got := prompt.Over(base, map[string]any{"b": 3, "c": 4})
	if diff := cmp.Diff(map[string]any{"a": 1, "b": 3, "c": 4}, got); diff != "" {
		t.Errorf("Over (-want +got):\n%s", diff)
	}
	if base["b"] != 2 || len(base) != 2 {
		t.Errorf("Over changed base: %v", base)
	}
	if got := prompt.Over(nil, map[string]any{"c": 4}); got["c"] != 4 {
		t.Errorf("Over(nil, over) = %v; want over's values", got)
	}
	got = prompt.Over(base, nil)
	got["z"] = 0
	if _, same := base["z"]; !same {
		t.Error("Over(base, nil) is a copy; want base itself, at no cost")
	}
}

// TestRoster: one line per member, its description on that line; nothing for no member.
func TestRoster(t *testing.T) {
	t.Parallel()
	if got := prompt.Roster(nil); got != "" {
		t.Errorf("Roster(nil) = %q; want none", got)
	}
	got := prompt.Roster([]prompt.Member{{"researcher", "Finds\nsources."}, {"writer", "Writes."}, {"mailer", ""}})
	lines := strings.Split(got, "\n")
	if len(lines) != 4 || !strings.HasPrefix(lines[0], "You lead a team") ||
		lines[1] != "- researcher: Finds sources." || lines[2] != "- writer: Writes." || lines[3] != "- mailer" {
		t.Errorf("Roster = %q; want a header, then one line per member", got)
	}
}

func TestMessage(t *testing.T) {
	t.Parallel()
	want := llms.MessageContent{Role: llms.ChatMessageTypeSystem, Parts: []llms.ContentPart{llms.TextContent{Text: "Be brief."}}}
	if diff := cmp.Diff(want, prompt.Message("Be brief.")); diff != "" {
		t.Errorf("Message (-want +got):\n%s", diff)
	}
}
