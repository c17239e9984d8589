package otelcadre_test

import (
	"testing"

	"github.com/cadrehq/cadre/pkg/assistant/middlewaretest"
	"github.com/cadrehq/cadre/pkg/otelcadre"
	metricnoop "go.opentelemetry.io/otel/metric/noop"
	tracenoop "go.opentelemetry.io/otel/trace/noop"
)

// TestTheMiddlewareKeepsTheContract: the tracing middleware keeps assistant.Middleware's
// contract, with an SDK that records spans (and their content) and with none.
func TestTheMiddlewareKeepsTheContract(t *testing.T) {
	t.Parallel()
	t.Run("recording", func(t *testing.T) {
		t.Parallel()
		r := newRecorder(t)
		middlewaretest.Run(t, otelcadre.Middleware(otelcadre.WithTracerProvider(r.tp), otelcadre.WithMeterProvider(r.mp), otelcadre.WithContent()))
		if spans := r.ended(); len(spans["invoke_agent kit"]) == 0 || len(spans["execute_tool echo"]) == 0 || len(spans["chat kit-model"]) == 0 {
			t.Errorf("the kit's runs made no spans of runs, requests or tool calls: %v", names(spans))
		}
	})
	t.Run("no SDK", func(t *testing.T) {
		t.Parallel()
		middlewaretest.Run(t, otelcadre.Middleware(otelcadre.WithTracerProvider(tracenoop.NewTracerProvider()), otelcadre.WithMeterProvider(metricnoop.NewMeterProvider())))
	})
}
