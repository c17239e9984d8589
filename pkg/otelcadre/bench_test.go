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
// answer — without tracing ("off") and with otelcadre.Tracing over no-op tracer and meter
// providers ("on"): what the instrumentation costs a program that installs no SDK. They take
// turns, five rounds of each, so that both see the same machine (go test would run all of
// one, then all of the other); compare the medians:
//
//	go test -run '^$' -bench W2Tracing -benchmem ./pkg/otelcadre
func BenchmarkW2Tracing(b *testing.B) {
	noop := otelcadre.Tracing(otelcadre.WithTracerProvider(tracenoop.NewTracerProvider()), otelcadre.WithMeterProvider(metricnoop.NewMeterProvider()))
	for range 5 {
		b.Run("off", func(b *testing.B) { benchW2(b) })
		b.Run("on", func(b *testing.B) { benchW2(b, noop) })
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

// BenchmarkToolRound is a run of two requests and four tool calls, as the run loop's
// benchmark in pkg/assistant has it: untraced; traced with no SDK installed (the global
// provider, a no-op, as in a program that sets none); and traced into an SDK whose seven
// spans a run makes are recorded and handed to an exporter that drops them. The difference
// between the first two is what the option costs a program that does not collect traces.
func BenchmarkToolRound(b *testing.B) {
	for _, bc := range []struct {
		name    string
		tracing assistant.Option
	}{
		{"untraced", nil},
		{"no-op", otelcadre.Tracing(otelcadre.WithTracerProvider(tracenoop.NewTracerProvider()))},
		{"sdk", otelcadre.Tracing(otelcadre.WithTracerProvider(sdktrace.NewTracerProvider(sdktrace.WithSyncer(tracetest.NewNoopExporter()))))},
	} {
		b.Run(bc.name, func(b *testing.B) {
			m := llmtest.NewScripted(llmtest.Calls(
				llmtest.Call("search", `{"topic":"Paris"}`), llmtest.Call("search", `{"topic":"Lyon"}`),
				llmtest.Call("search", `{"topic":"Nice"}`), llmtest.Call("search", `{"topic":"Lille"}`),
			), llmtest.Text("done")).Cycle().NoRecord()
			search := tool.Func("search", "Search the web.", func(_ context.Context, in query) (string, error) { return in.Topic, nil })
			a := assistant.New[string]("helper", assistant.WithModel(m), assistant.WithTools(search), bc.tracing)
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				res, err := a.Run(ctx, assistant.Input{Prompt: "x?"})
				if err != nil || res.Usage.Total.ToolCalls != 4 {
					b.Fatalf("Run = %v, %v; want 4 tool calls", res, err)
				}
			}
		})
	}
}
