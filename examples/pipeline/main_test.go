package main

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/cadrehq/cadre/pkg/llmtest"
	"github.com/cadrehq/cadre/pkg/providertest"
	"github.com/cadrehq/cadre/pkg/usage"
	"github.com/google/go-cmp/cmp"
	"github.com/tmc/langchaingo/llms"
)

// TestPipeline runs the pipeline offline, and through an llm.yaml against a fake OpenAI server:
// the real client, the factory and the wire. The steps run one after the other, so one script
// answers them all, in order.
func TestPipeline(t *testing.T) {
	m := llmtest.NewScripted(
		llmtest.Reply{
			// A model offered the final_result tool answers through it.
			ToolCalls: []llms.ToolCall{llmtest.Call("final_result",
				`{"customer":"Bo Lind","order_id":"","product":"grinder","problem":"not delivered","wants":"a refund","deadline":""}`)},
			Usage: usage.Usage{InputTokens: 300, OutputTokens: 40},
		},
		llmtest.Reply{
			Text:  `{"category":"late","urgency":"normal","team":"shipping","reason":"The parcel never came."}`,
			Usage: usage.Usage{InputTokens: 250, OutputTokens: 30},
		},
		llmtest.Reply{Text: "Bo Lind's grinder never arrived; trace it or refund it.", Usage: usage.Usage{InputTokens: 200, OutputTokens: 20}},
	)
	srv := providertest.NewOpenAI(m)
	defer srv.Close()
	// Each assistant is bound by its name; there is no default model.
	file, err := os.CreateTemp(t.TempDir(), "llm*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	if _, err := fmt.Fprintf(file, `providers:
  fake: { type: openai, api_key: test-key, base_url: %s/v1 }
models:
  small: { provider: fake, model: gpt-small }
assistants:
  extractor: small
  classifier: small
  summarizer: small
`, srv.URL()); err != nil {
		t.Fatal(err)
	}
	config := file.Name()

	for _, tc := range []struct {
		name, config, want string
		progress           []string // lines of the progress, in this order
	}{
		{"offline", "", `pipeline: offline, with scripted models (no API key needed)
1. extractor:  Ana Costa, order 48213: espresso machine, cracked water tank on arrival; wants a replacement by Friday
2. classifier: damaged, high urgency, to returns: It arrived broken and the customer needs it working by Friday.
3. summarizer: Ana Costa's espresso machine (order 48213) arrived with a cracked water tank. Ship a replacement by express today with a prepaid return label for the broken one. She needs it working by Friday, when her café reopens.

extractor   requests 1  tokens   445 (388 in, 57 out)
classifier  requests 1  tokens   379 (341 in, 38 out)
summarizer  requests 1  tokens   273 (212 in, 61 out)
pipeline    requests 3  tokens  1097 (941 in, 156 out)
`, []string{
			"extractor: started", "extractor: asking scripted", "extractor: scripted answered: 445 tokens (445 so far)", "extractor: done",
			"classifier: started", "classifier: asking scripted", "classifier: scripted answered: 379 tokens (824 so far)", "classifier: done",
			"summarizer: started", "summarizer: asking scripted", "summarizer: scripted answered: 273 tokens (1097 so far)", "summarizer: done",
		}},
		{"llm.yaml", config, "pipeline: with the models of " + config + `
1. extractor:  Bo Lind: grinder, not delivered; wants a refund
2. classifier: late, normal urgency, to shipping: The parcel never came.
3. summarizer: Bo Lind's grinder never arrived; trace it or refund it.

extractor   requests 1  tokens   340 (300 in, 40 out)
classifier  requests 1  tokens   280 (250 in, 30 out)
summarizer  requests 1  tokens   220 (200 in, 20 out)
pipeline    requests 3  tokens   840 (750 in, 90 out)
`, []string{
			"extractor: started", "extractor: asking small", "extractor: small answered: 340 tokens (340 so far)", "extractor: done",
			"classifier: started", "classifier: asking small", "classifier: small answered: 280 tokens (620 so far)", "classifier: done",
			"summarizer: started", "summarizer: asking small", "summarizer: small answered: 220 tokens (840 so far)", "summarizer: done",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out, progress strings.Builder
			if err := run(context.Background(), &out, &progress, tc.config, nil); err != nil {
				t.Fatal(err)
			}
			if out.String() != tc.want {
				t.Errorf("output:\n%s\nwant:\n%s", out.String(), tc.want)
			}
			if diff := cmp.Diff(tc.progress, strings.Split(strings.TrimSpace(progress.String()), "\n")); diff != "" {
				t.Errorf("progress (-want +got):\n%s", diff)
			}
		})
	}

	// The summarizer was told its team by a template var, from the classifier's output.
	reqs := m.Requests()
	if len(reqs) != 3 {
		t.Fatalf("the fake server's model got %d requests, want 3", len(reqs))
	}
	if system := fmt.Sprint(reqs[2].Messages[0].Parts); !strings.Contains(system, "for the shipping team") {
		t.Errorf("the summarizer's system prompt does not name the team: %s", system)
	}
}

// With -otel, the spans of the three runs go to the traces writer: three traces, one per step.
func TestPipelineOtel(t *testing.T) {
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "") // the spans to the writer, not to a collector
	t.Setenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "")
	var out, progress, traces strings.Builder
	if err := run(context.Background(), &out, &progress, "", &traces); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"invoke_agent extractor", "invoke_agent classifier", "invoke_agent summarizer"} {
		if !strings.Contains(traces.String(), `"Name": "`+name+`"`) {
			t.Errorf("no span %q in the traces:\n%s", name, traces.String())
		}
	}
	if n := strings.Count(traces.String(), `"Name": "chat scripted"`); n != 3 {
		t.Errorf("%d spans of requests, want 3", n)
	}
}
