package otelcadre_test

import (
	"context"
	"testing"

	"github.com/cadrehq/cadre/pkg/assistant"
	"github.com/cadrehq/cadre/pkg/callback"
	"github.com/cadrehq/cadre/pkg/model"
	"github.com/cadrehq/cadre/pkg/otelcadre"
	metricnoop "go.opentelemetry.io/otel/metric/noop"
	tracenoop "go.opentelemetry.io/otel/trace/noop"
)

func BenchmarkScratch(b *testing.B) {
	pass := assistant.Middleware{
		Run: func(ctx context.Context, _ assistant.RunInfo, next assistant.RunNext) (*assistant.Response, error) { return next(ctx) },
		Request: func(ctx context.Context, req *assistant.ModelRequest, next assistant.RequestNext) (model.Reply, error) {
			return next(ctx, req)
		},
		ToolCall: func(ctx context.Context, call assistant.ToolCall, next assistant.ToolCallNext) (string, error) { return next(ctx, call) },
	}
	mw := otelcadre.Middleware(otelcadre.WithTracerProvider(tracenoop.NewTracerProvider()), otelcadre.WithMeterProvider(metricnoop.NewMeterProvider()))
	for range 3 {
		b.Run("off", func(b *testing.B) { benchW2(b) })
		b.Run("pass", func(b *testing.B) { benchW2(b, assistant.WithMiddleware(pass)) })
		b.Run("handler", func(b *testing.B) { benchW2(b, assistant.WithCallback(callback.HandlerFunc(func(context.Context, callback.Event) {}))) })
		b.Run("mw", func(b *testing.B) { benchW2(b, assistant.WithMiddleware(mw)) })
	}
}
