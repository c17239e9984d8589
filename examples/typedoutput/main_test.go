package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cadrehq/cadre/pkg/llmtest"
	"github.com/cadrehq/cadre/pkg/providertest"
	"github.com/google/go-cmp/cmp"
)

func TestTypedOutputOffline(t *testing.T) {
	var out, progress bytes.Buffer
	if err := run(context.Background(), &out, &progress, "", nil); err != nil {
		t.Fatal(err)
	}
	checkLines(t, "output", out.String(),
		"typedoutput: offline, against a fake OpenAI API on 127.0.0.1 (no API key needed)",
		"Lisbon, day 1: Alfama and the castle — tram 28 up the hill, Castelo de São Jorge, fado in the evening",
		"Lisbon, day 2: Belém — the tower, pastéis de Belém, MAAT by the river",
		"asked planner-model natively: the schema Itinerary in the provider's structured-output field",
		"usage: 1 requests, 182 input + 71 output tokens",
	)
	checkLines(t, "progress", progress.String(),
		"planner: started",
		"planner: asking planner-model",
		"so far: Lisbon, 0 day(s), 0 activities",
		"so far: Lisbon, 1 day(s), 0 activities",
		"so far: Lisbon, 1 day(s), 1 activities",
		"so far: Lisbon, 1 day(s), 2 activities",
		"so far: Lisbon, 1 day(s), 3 activities",
		"so far: Lisbon, 2 day(s), 3 activities",
		"so far: Lisbon, 2 day(s), 4 activities",
		"so far: Lisbon, 2 day(s), 5 activities",
		"so far: Lisbon, 2 day(s), 6 activities",
		"planner: planner-model answered: 253 tokens (253 so far)",
		"planner: done",
	)
}

// With -otel, the spans of the run and its request go to the traces writer.
func TestTypedOutputOtel(t *testing.T) {
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "") // the spans to the writer, not to a collector
	t.Setenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "")
	var out, progress, traces bytes.Buffer
	if err := run(context.Background(), &out, &progress, "", &traces); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"invoke_agent planner", "chat gpt-5-mini"} {
		if !strings.Contains(traces.String(), `"Name": "`+name+`"`) {
			t.Errorf("no span %q in the traces:\n%s", name, traces.String())
		}
	}
}

// With an llm.yaml naming an Anthropic model the provider facts know to take a schema, the
// schema goes in output_config, through Anthropic's real client, to a fake Anthropic API.
func TestTypedOutputWithConfig(t *testing.T) {
	srv := providertest.NewAnthropic(llmtest.NewScripted(llmtest.Text(offlineAnswer)))
	defer srv.Close()
	config := filepath.Join(t.TempDir(), "llm.yaml")
	doc := "providers:\n  anthropic: { type: anthropic, api_key: test-key, base_url: '" + srv.URL() + "/v1' }\n" +
		"models:\n  claude: { provider: anthropic, model: claude-sonnet-4-5 }\ndefault: claude\n"
	if err := os.WriteFile(config, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	var out, progress bytes.Buffer
	if err := run(context.Background(), &out, &progress, config, nil); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "asked claude natively") || !strings.Contains(out.String(), "Lisbon, day 2: Belém") {
		t.Errorf("output:\n%s", out.String())
	}
	var body struct {
		OutputConfig struct {
			Format struct {
				Type   string          `json:"type"`
				Schema json.RawMessage `json:"schema"`
			} `json:"format"`
		} `json:"output_config"`
		Tools []any `json:"tools"`
	}
	bodies := srv.Bodies()
	if len(bodies) != 1 {
		t.Fatalf("%d requests; want 1", len(bodies))
	}
	if err := json.Unmarshal(bodies[0], &body); err != nil {
		t.Fatal(err)
	}
	if body.OutputConfig.Format.Type != "json_schema" || !strings.Contains(string(body.OutputConfig.Format.Schema), `"activities"`) || len(body.Tools) != 0 {
		t.Errorf("request body %s: want the schema in output_config, and no tool", bodies[0])
	}
}

// checkLines fails the test unless got is the lines want.
func checkLines(t *testing.T, what, got string, want ...string) {
	t.Helper()
	if diff := cmp.Diff(want, strings.Split(strings.TrimSuffix(got, "\n"), "\n")); diff != "" {
		t.Errorf("%s (-want +got):\n%s", what, diff)
	}
}
