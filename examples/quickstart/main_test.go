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
	"github.com/cadrehq/cadre/pkg/usage"
	"github.com/google/go-cmp/cmp"
	"github.com/tmc/langchaingo/llms"
)

func TestQuickstartOffline(t *testing.T) {
	var out, progress bytes.Buffer
	if err := run(context.Background(), &out, &progress, "", nil); err != nil {
		t.Fatal(err)
	}
	checkLines(t, "output", out.String(),
		"quickstart: offline, with a scripted model (no API key needed)",
		"pack for Lisbon: sunglasses, light jacket, umbrella",
		"usage: 2 requests, 1 tool calls, 472 input + 42 output tokens",
	)
	checkLines(t, "progress", progress.String(),
		"packer: started",
		"packer: asking scripted",
		"packer: scripted answered: 228 tokens (228 so far)",
		"packer: running forecast",
		"packer: forecast returned",
		"packer: asking scripted",
		"packer: scripted answered: 286 tokens (514 so far)",
		"packer: done",
	)
}

// With -otel, the spans of the run, its requests and its tool call go to the traces writer.
func TestQuickstartOtel(t *testing.T) {
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "") // the spans to the writer, not to a collector
	t.Setenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "")
	var out, progress, traces bytes.Buffer
	if err := run(context.Background(), &out, &progress, "", &traces); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"invoke_agent packer", "chat scripted", "execute_tool forecast"} {
		if !strings.Contains(traces.String(), `"Name": "`+name+`"`) {
			t.Errorf("no span or event %q in the traces:\n%s", name, traces.String())
		}
	}
}

// The same program through an llm.yaml, against a fake OpenAI server: the real client, the
// factory and the wire.
func TestQuickstartWithConfig(t *testing.T) {
	m := llmtest.NewScripted(
		llmtest.Reply{ToolCalls: []llms.ToolCall{llmtest.Call("forecast", `{"city":"Porto"}`)}, Usage: usage.Usage{InputTokens: 100, OutputTokens: 10}},
		llmtest.Reply{Text: `{"city":"Porto","items":["raincoat"]}`, Usage: usage.Usage{InputTokens: 150, OutputTokens: 12}},
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
	checkLines(t, "output", out.String(),
		"quickstart: with the models of "+config,
		"pack for Porto: raincoat",
		"usage: 2 requests, 1 tool calls, 250 input + 22 output tokens",
	)
	// The model's name is llm.yaml's; the tokens are those the fake server reported.
	checkLines(t, "progress", progress.String(),
		"packer: started",
		"packer: asking fast",
		"packer: fast answered: 110 tokens (110 so far)",
		"packer: running forecast",
		"packer: forecast returned",
		"packer: asking fast",
		"packer: fast answered: 162 tokens (272 so far)",
		"packer: done",
	)
}

// checkLines fails the test unless got is the lines want.
func checkLines(t *testing.T, what, got string, want ...string) {
	t.Helper()
	if diff := cmp.Diff(want, strings.Split(strings.TrimSuffix(got, "\n"), "\n")); diff != "" {
		t.Errorf("%s (-want +got):\n%s", what, diff)
	}
}
