package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cadrehq/cadre/pkg/llmtest"
	"github.com/cadrehq/cadre/pkg/usage"
	"github.com/tmc/langchaingo/llms"
)

func TestQuickstartOffline(t *testing.T) {
	var out bytes.Buffer
	if err := run(context.Background(), &out, ""); err != nil {
		t.Fatal(err)
	}
	want := strings.Join([]string{
		"quickstart: offline, with a scripted model (no API key needed)",
		"pack for Lisbon: sunglasses, light jacket, umbrella",
		"usage: 2 requests, 1 tool calls, 472 input + 42 output tokens",
	}, "\n")
	if got := strings.TrimSpace(out.String()); got != want {
		t.Errorf("output:\n%s\nwant:\n%s", got, want)
	}
}

// The same program through an llm.yaml, against a fake OpenAI server: the real client, the
// factory and the wire.
func TestQuickstartWithConfig(t *testing.T) {
	m := llmtest.NewScripted(
		llmtest.Reply{ToolCalls: []llms.ToolCall{llmtest.Call("forecast", `{"city":"Porto"}`)}, Usage: usage.Usage{InputTokens: 100, OutputTokens: 10}},
		llmtest.Reply{Text: `{"city":"Porto","items":["raincoat"]}`, Usage: usage.Usage{InputTokens: 150, OutputTokens: 12}},
	)
	srv := llmtest.NewOpenAIServer(m)
	defer srv.Close()
	config := filepath.Join(t.TempDir(), "llm.yaml")
	doc := "providers:\n  openai:\n    api_key: test-key\n    base_url: " + srv.URL() + "/v1\nmodels:\n  fast: { provider: openai, model: gpt-test }\ndefault: fast\n"
	if err := os.WriteFile(config, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := run(context.Background(), &out, config); err != nil {
		t.Fatal(err)
	}
	want := strings.Join([]string{
		"quickstart: with the models of " + config,
		"pack for Porto: raincoat",
		"usage: 2 requests, 1 tool calls, 250 input + 22 output tokens",
	}, "\n")
	if got := strings.TrimSpace(out.String()); got != want {
		t.Errorf("output:\n%s\nwant:\n%s", got, want)
	}
}
