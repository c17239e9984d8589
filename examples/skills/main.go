// Command skills shows an assistant with Agent Skills (agentskills.io): two skills bundled in
// the binary with embed.FS, of which the model sees only the names and descriptions until a
// task needs one. Asked for release notes, the model activates the release-notes skill, reads
// the house style the skill points it to, and answers with typed notes.
//
// It runs offline, with a function model that plays the model's part, so it needs no key:
//
//	go run ./examples/skills
//
// With -config it uses the model llm.yaml gives the assistant "writer" (or the default one):
//
//	cp llm.yaml.example llm.yaml   # and set the key it names, e.g. OPENAI_API_KEY
//	go run ./examples/skills -config llm.yaml
//
// With -otel it traces the run with OpenTelemetry (docs/observability.md): the spans go to
// stderr as indented JSON when the program ends, or over OTLP/HTTP to the collector that
// OTEL_EXPORTER_OTLP_ENDPOINT names:
//
//	go run ./examples/skills -otel
package main

import (
	"context"
	"embed"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/cadrehq/cadre/examples/internal/exampleotel"
	"github.com/cadrehq/cadre/pkg/assistant"
	"github.com/cadrehq/cadre/pkg/callback"
	"github.com/cadrehq/cadre/pkg/llmfactory"
	"github.com/cadrehq/cadre/pkg/llmtest"
	"github.com/cadrehq/cadre/pkg/skill"
	"github.com/cadrehq/cadre/pkg/usage"
	"github.com/tmc/langchaingo/llms"
)

// bundled holds the skills: each folder under skills/ with a SKILL.md is one.
//
//go:embed skills
var bundled embed.FS

// Notes is the assistant's answer.
type Notes struct {
	Version string   `json:"version"`
	Added   []string `json:"added" jsonschema_description:"One line per new ability"`
	Changed []string `json:"changed" jsonschema_description:"One line per ability that works differently"`
	Fixed   []string `json:"fixed" jsonschema_description:"One line per defect removed"`
}

const prompt = `Write the release notes of v1.4. Merged since v1.3:
#412 fix: loader crashed on an empty chat
#415 feat: export a chat as Markdown
#418 refactor: split the store package
#420 feat!: the search endpoint takes a page size and no longer returns everything`

func main() {
	config := flag.String("config", "", "an llm.yaml to take the model from (default: offline, with a function model)")
	otel := flag.Bool("otel", false, exampleotel.Usage)
	flag.Parse()
	var traces io.Writer // nil: no tracing
	if *otel {
		traces = os.Stderr
	}
	if err := run(context.Background(), os.Stdout, os.Stderr, *config, traces); err != nil {
		fmt.Fprintln(os.Stderr, "skills:", err)
		os.Exit(1)
	}
}

// run loads the bundled skills, asks the writer for release notes, and writes the notes and
// their usage to w, and the progress of the run to progress. With traces not nil it traces the
// run, and its spans go to traces (or to the collector the environment names) before it
// returns.
func run(ctx context.Context, w, progress io.Writer, config string, traces io.Writer) (err error) {
	skills, problems, err := skill.Load(bundled, "skills")
	if err != nil {
		return err
	}
	for _, p := range problems { // a skill with a problem that does not stop it still loads
		fmt.Fprintln(progress, "skill problem:", p)
	}
	models := assistant.WithModel(offlineModel())
	if config == "" {
		fmt.Fprintln(w, "skills: offline, with a function model playing the model's part (no API key needed)")
	} else {
		f, err := llmfactory.Load(config)
		if err != nil {
			return err
		}
		models = assistant.WithModels(f)
		fmt.Fprintln(w, "skills: with the models of", config)
	}
	names := make([]string, len(skills))
	for i, s := range skills {
		names[i] = s.Name
	}
	fmt.Fprintln(w, "skills loaded:", strings.Join(names, ", "))
	tracing, err := exampleotel.Start(ctx, "skills", traces)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, tracing.Shutdown(ctx)) }()

	writer := assistant.New[Notes]("writer",
		models,
		assistant.WithInstructions("You help a software team with its writing."),
		assistant.WithSkills(skills...),
		assistant.WithCallback(callback.NewProgress(progress)),
		tracing.Option(),
	)
	res, err := writer.Run(ctx, assistant.Input{Prompt: prompt})
	if err != nil {
		return err
	}
	fmt.Fprintln(w, "release notes of", res.Output.Version)
	for _, section := range []struct {
		name  string
		lines []string
	}{{"Added", res.Output.Added}, {"Changed", res.Output.Changed}, {"Fixed", res.Output.Fixed}} {
		for _, l := range section.lines {
			fmt.Fprintf(w, "  %s: %s\n", section.name, l)
		}
	}
	t := res.Usage.Total
	fmt.Fprintf(w, "usage: %d requests, %d tool calls, %d input + %d output tokens\n", t.Requests, t.ToolCalls, t.InputTokens, t.OutputTokens)
	return nil
}

// offlineModel plays the model as a good one would: it activates the skill the task needs,
// reads the file the skill sends it to, then writes the notes in the house style.
func offlineModel() llms.Model {
	return llmtest.NewFunc(func(_ context.Context, req llmtest.Request) llmtest.Reply {
		var seen strings.Builder
		for _, m := range req.Messages {
			for _, p := range m.Parts {
				if r, ok := p.(llms.ToolCallResponse); ok {
					seen.WriteString(r.Content)
				}
			}
		}
		u := usage.Usage{InputTokens: 300 + seen.Len()/4, OutputTokens: 20}
		switch {
		case !strings.Contains(seen.String(), `<skill_content name="release-notes">`):
			return llmtest.Reply{ToolCalls: []llms.ToolCall{llmtest.Call("activate_skill", `{"name":"release-notes"}`)}, Usage: u}
		case !strings.Contains(seen.String(), "# House style for release notes"):
			return llmtest.Reply{ToolCalls: []llms.ToolCall{llmtest.Call("read_skill_resource", `{"skill":"release-notes","path":"references/style.md"}`)}, Usage: u}
		}
		u.OutputTokens = 90
		return llmtest.Reply{Text: `{"version":"v1.4",` +
			`"added":["Added exporting a chat as Markdown (#415)"],` +
			`"changed":["Breaking: Made search return pages of results; give a page size (#420)"],` +
			`"fixed":["Fixed a crash when a chat is empty (#412)"]}`, Usage: u}
	})
}
