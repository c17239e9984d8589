package llmfactory_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/cadrehq/cadre/pkg/assistant"
	"github.com/cadrehq/cadre/pkg/llmfactory"
	"github.com/cadrehq/cadre/pkg/llmtest"
	"github.com/cadrehq/cadre/pkg/providertest"
)

// w1Answer is the typed answer of PERFORMANCE.md's W1 workload.
type w1Answer struct {
	City        string   `json:"city"`
	Temperature float64  `json:"temperature"`
	Conditions  []string `json:"conditions"`
}

// BenchmarkW1Output runs W1 — one typed answer, no tool — through the factory's OpenAI client
// against the fake OpenAI API, with the output asked for in tool form (a final_result call)
// and in native form (response_format), and reports what each costs on the wire: requests and
// request bytes sent per run, beside the time and allocations of the whole path.
func BenchmarkW1Output(b *testing.B) {
	for _, mode := range []struct {
		name string
		mode assistant.OutputMode
	}{{"tool", assistant.OutputTool}, {"native", assistant.OutputNative}} {
		b.Run(mode.name, func(b *testing.B) {
			srv := providertest.NewOpenAI(llmtest.NewSynthetic().NoRecord())
			defer srv.Close()
			f, err := llmfactory.Parse([]byte(fmt.Sprintf(
				"providers:\n  p: { type: openai, api_key: k, base_url: '%s/v1' }\nmodels:\n  m: { provider: p, model: gpt-5-mini, output: native }\ndefault: m\n", srv.URL())))
			if err != nil {
				b.Fatal(err)
			}
			defer f.Close()
			a := assistant.New[w1Answer]("weather", assistant.WithModels(f), assistant.WithOutputMode(mode.mode),
				assistant.WithInstructions("You are a weather assistant. Answer with the weather of the city asked for."))
			ctx := context.Background()
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				if _, err := a.Run(ctx, assistant.Input{Prompt: "What is the weather in Paris?"}); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			sent := 0
			bodies := srv.Bodies()
			for _, body := range bodies {
				sent += len(body)
			}
			b.ReportMetric(float64(len(bodies))/float64(b.N), "requests/op")
			b.ReportMetric(float64(sent)/float64(b.N), "bytes-sent/op")
		})
	}
}
