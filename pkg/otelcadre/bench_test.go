package otelcadre_test

import (
	"context"
	"testing"

	"github.com/cadrehq/cadre/pkg/assistant"
	"github.com/cadrehq/cadre/pkg/llmtest"
	"github.com/cadrehq/cadre/pkg/otelcadre"
	"github.com/cadrehq/cadre/pkg/tool"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace/noop"
)

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
		{"no-op", otelcadre.Tracing(otelcadre.WithTracerProvider(noop.NewTracerProvider()))},
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
