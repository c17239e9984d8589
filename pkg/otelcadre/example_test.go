package otelcadre_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/cadrehq/cadre/pkg/assistant"
	"github.com/cadrehq/cadre/pkg/llmtest"
	"github.com/cadrehq/cadre/pkg/model"
	"github.com/cadrehq/cadre/pkg/otelcadre"
	"github.com/cadrehq/cadre/pkg/tool"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

func Example() {
	// A program installs its SDK's tracer provider (here one that keeps the spans in memory),
	// globally with otel.SetTracerProvider or for cadre only with WithTracerProvider.
	spans := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))
	defer tp.Shutdown(context.Background())

	weather := tool.Func("weather", "Current weather of a city.", func(_ context.Context, in struct {
		City string `json:"city"`
	}) (string, error) {
		return "21°C, sunny", nil
	})
	script := llmtest.NewScripted(llmtest.Calls(llmtest.Call("weather", `{"city":"Paris"}`)), llmtest.Text("It is sunny in Paris."))
	fast := model.Model{Name: "fast", ID: "gpt-5-mini", Provider: "openai", LLM: script} // as llm.yaml would give it
	a := assistant.New[string]("forecaster", assistant.WithModels(model.Fixed(fast)), assistant.WithTools(weather),
		otelcadre.Tracing(otelcadre.WithTracerProvider(tp)))
	if _, err := a.Run(context.Background(), assistant.Input{Prompt: "Weather in Paris?"}); err != nil {
		fmt.Println(err)
		return
	}
	printTree(spans.Ended())
	// Output:
	// invoke_agent forecaster (internal)
	//   chat gpt-5-mini (client)
	//   execute_tool weather (internal)
	//   chat gpt-5-mini (client)
}

// printTree prints spans as a tree, each under its parent, in the order they started.
func printTree(spans []sdktrace.ReadOnlySpan) {
	var walk func(parent string, depth int)
	walk = func(parent string, depth int) {
		var children []sdktrace.ReadOnlySpan
		for _, s := range spans {
			if s.Parent().SpanID().String() == parent || !s.Parent().IsValid() && parent == "" {
				children = append(children, s)
			}
		}
		for i := 1; i < len(children); i++ { // by start time
			for j := i; j > 0 && children[j].StartTime().Before(children[j-1].StartTime()); j-- {
				children[j], children[j-1] = children[j-1], children[j]
			}
		}
		for _, s := range children {
			fmt.Printf("%s%s (%s)\n", strings.Repeat("  ", depth), s.Name(), s.SpanKind())
			walk(s.SpanContext().SpanID().String(), depth+1)
		}
	}
	walk("", 0)
}
