package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cadrehq/cadre/pkg/llmtest"
	"github.com/cadrehq/cadre/pkg/providertest"
	"github.com/cadrehq/cadre/pkg/skill"
	"github.com/google/go-cmp/cmp"
	"github.com/tmc/langchaingo/llms"
)

// The bundled skills follow the specification to the letter: a problem fails the build.
func TestBundledSkillsAreStrictlyValid(t *testing.T) {
	skills, err := skill.LoadStrict(bundled, "skills")
	if err != nil {
		t.Fatal(err)
	}
	if len(skills) != 2 {
		t.Errorf("%d skills bundled, want 2", len(skills))
	}
}

// With -otel, the spans of the run and of the skill tools' calls go to the traces writer.
func TestSkillsOtel(t *testing.T) {
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "") // the spans to the writer, not to a collector
	t.Setenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "")
	var out, progress, traces bytes.Buffer
	if err := run(context.Background(), &out, &progress, "", &traces); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"invoke_agent writer", "execute_tool activate_skill", "execute_tool read_skill_resource"} {
		if !strings.Contains(traces.String(), `"Name": "`+name+`"`) {
			t.Errorf("no span or event %q in the traces:\n%s", name, traces.String())
		}
	}
}

func TestSkillsOffline(t *testing.T) {
	var out, progress bytes.Buffer
	if err := run(context.Background(), &out, &progress, "", nil); err != nil {
		t.Fatal(err)
	}
	checkLines(t, "output", out.String(),
		"skills: offline, with a function model playing the model's part (no API key needed)",
		"skills loaded: incident-summary, release-notes",
		"release notes of v1.4",
		"  Added: Added exporting a chat as Markdown (#415)",
		"  Changed: Breaking: Made search return pages of results; give a page size (#420)",
		"  Fixed: Fixed a crash when a chat is empty (#412)",
		"usage: 3 requests, 2 tool calls, 1364 input + 130 output tokens",
	)
	checkLines(t, "progress", progress.String(),
		"writer: started",
		"writer: asking func",
		"writer: func answered: 320 tokens (320 so far)",
		"writer: running activate_skill",
		"writer: activate_skill returned",
		"writer: asking func",
		"writer: func answered: 498 tokens (818 so far)",
		"writer: running read_skill_resource",
		"writer: read_skill_resource returned",
		"writer: asking func",
		"writer: func answered: 676 tokens (1494 so far)",
		"writer: done",
	)
}

// The same program through an llm.yaml, against a fake OpenAI server: what goes over the wire
// is the skills' names and descriptions first, a skill's instructions only once it is
// activated, and its file only once it is read.
func TestSkillsWithConfig(t *testing.T) {
	m := llmtest.NewScripted(
		llmtest.Calls(llmtest.Call("activate_skill", `{"name":"release-notes"}`)),
		llmtest.Calls(llmtest.Call("read_skill_resource", `{"skill":"release-notes","path":"references/style.md"}`)),
		llmtest.Text(`{"version":"v1.4","added":["Added Markdown export (#415)"],"changed":[],"fixed":[]}`),
	)
	srv := providertest.NewOpenAI(m)
	defer srv.Close()
	config := filepath.Join(t.TempDir(), "llm.yaml")
	doc := "providers:\n  openai:\n    api_key: test-key\n    base_url: " + srv.URL() + "/v1\nmodels:\n  fast: { provider: openai, model: gpt-test }\ndefault: fast\n"
	if err := os.WriteFile(config, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	var out, progress bytes.Buffer
	if err := run(context.Background(), &out, &progress, config, nil); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "  Added: Added Markdown export (#415)") {
		t.Errorf("output:\n%s", out.String())
	}
	reqs := m.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want 3", len(reqs))
	}
	const instructions, style = "Sort each merged change into one section", "# House style for release notes"
	for i, want := range []struct{ instructions, style bool }{{false, false}, {true, false}, {true, true}} {
		text := wireText(reqs[i])
		if !strings.Contains(text, "<name>release-notes</name>") || !strings.Contains(text, "<name>incident-summary</name>") {
			t.Errorf("request %d does not list the skills", i)
		}
		if got := strings.Contains(text, instructions); got != want.instructions {
			t.Errorf("request %d holds the skill's instructions: %v, want %v", i, got, want.instructions)
		}
		if got := strings.Contains(text, style); got != want.style {
			t.Errorf("request %d holds the style file: %v, want %v", i, got, want.style)
		}
		if strings.Contains(text, "Times in UTC") {
			t.Errorf("request %d holds the instructions of incident-summary, which was never activated", i)
		}
	}
}

// wireText returns the text of a request's messages and tool results.
func wireText(req llmtest.Request) string {
	var b strings.Builder
	for _, msg := range req.Messages {
		for _, p := range msg.Parts {
			switch p := p.(type) {
			case llms.TextContent:
				b.WriteString(p.Text)
			case llms.ToolCallResponse:
				b.WriteString(p.Content)
			}
		}
	}
	return b.String()
}

// checkLines fails the test unless got is the lines want.
func checkLines(t *testing.T, what, got string, want ...string) {
	t.Helper()
	if diff := cmp.Diff(want, strings.Split(strings.TrimSuffix(got, "\n"), "\n")); diff != "" {
		t.Errorf("%s (-want +got):\n%s", what, diff)
	}
}
