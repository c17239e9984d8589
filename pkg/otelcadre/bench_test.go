package otelcadre_test

import (
	"context"
	"testing"

	"github.com/cadrehq/cadre/pkg/assistant"
	"github.com/cadrehq/cadre/pkg/llmtest"
	"github.com/cadrehq/cadre/pkg/otelcadre"
	"github.com/cadrehq/cadre/pkg/tool"
	metricnoop "go.opentelemetry.io/otel/metric/noop"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	tracenoop "go.opentelemetry.io/otel/trace/noop"
)

// BenchmarkW2Tracing is PERFORMANCE.md's W2 — a turn of four parallel tool calls, then a typed
// answer: two requests, four calls, seven spans — without tracing ("off"), with
// otelcadre.Tracing over no-op tracer and meter providers ("on": what the instrumentation
// costs a program that installs no SDK), and into an SDK whose spans an exporter drops
// ("sdk"). They take turns, five rounds of each, so that all see the same machine (go test
// would run all of one, then all of the next); compare the medians:
//
//	go test -run '^$' -bench W2Tracing -benchmem ./pkg/otelcadre
func BenchmarkW2Tracing(b *testing.B) {
	noop := otelcadre.Tracing(otelcadre.WithTracerProvider(tracenoop.NewTracerProvider()), otelcadre.WithMeterProvider(metricnoop.NewMeterProvider()))
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(tracetest.NewNoopExporter()))
	defer tp.Shutdown(context.Background())
	sdk := otelcadre.Tracing(otelcadre.WithTracerProvider(tp), otelcadre.WithMeterProvider(metricnoop.NewMeterProvider()))
	for range 5 {
		b.Run("off", func(b *testing.B) { benchW2(b) })
		b.Run("on", func(b *testing.B) { benchW2(b, noop) })
		b.Run("sdk", func(b *testing.B) { benchW2(b, sdk) })
	}
}

type weatherIn struct {
	City string `json:"city"`
}

type weatherOut struct {
	City        string  `json:"city"`
	Temperature float64 `json:"temperature"`
}

type weatherAnswer struct {
	City        string   `json:"city"`
	Temperature float64  `json:"temperature"`
	Conditions  []string `json:"conditions"`
}

func benchW2(b *testing.B, opts ...assistant.Option) {
	weather := tool.Func("weather", "Current weather of a city.", func(_ context.Context, in weatherIn) (weatherOut, error) {
		return weatherOut{City: in.City, Temperature: 21.5}, nil
	})
	m := llmtest.NewScripted(
		llmtest.Calls(
			llmtest.Call("weather", `{"city":"Paris"}`), llmtest.Call("weather", `{"city":"Lyon"}`),
			llmtest.Call("weather", `{"city":"Nice"}`), llmtest.Call("weather", `{"city":"Lille"}`),
		),
		llmtest.Text(`{"city":"Paris","temperature":21.5,"conditions":["sunny","light wind"]}`),
	).Cycle().NoRecord()
	a := assistant.New[weatherAnswer]("weather", append([]assistant.Option{assistant.WithModel(m),
		assistant.WithInstructions("You are a weather assistant. Answer with the weather of the city asked for."),
		assistant.WithTools(weather)}, opts...)...)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		res, err := a.Run(ctx, assistant.Input{Prompt: "What is the weather in Paris?"})
		if err != nil || res.Output.City != "Paris" {
			b.Fatal(err)
		}
	}
}
