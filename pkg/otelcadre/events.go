package otelcadre

import (
	"context"

	"github.com/cadrehq/cadre/pkg/callback"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"
)

// Events returns the event handler that puts a run's fallbacks and corrections on its span, as
// span events (EventFallback, EventCorrection), with the model and the error. It works with
// the span Middleware made for the run: Tracing gives both.
func Events() callback.Handler { return callback.HandlerFunc(handle) }

func handle(ctx context.Context, e callback.Event) {
	var name string
	switch e.Kind {
	case callback.ModelFallback:
		name = EventFallback
	case callback.OutputCorrection:
		name = EventCorrection
	default:
		return
	}
	s := runStepOf(ctx)
	if s == nil || s.id != e.RunID || !s.span.IsRecording() {
		return
	}
	// Given at two levels of a tree, the handler is told each event twice, in a row.
	key := eventKey{kind: name, at: e.Time}
	s.mu.Lock()
	seen := s.last == key
	s.last = key
	s.mu.Unlock()
	if seen {
		return
	}
	attrs := []attribute.KeyValue{}
	if e.Model != "" {
		attrs = append(attrs, ModelName.String(e.Model))
	}
	if e.Err != nil {
		attrs = append(attrs, attribute.String("error.type", errorType(e.Err)), attribute.String("exception.message", e.Err.Error()))
	}
	s.span.AddEvent(name, trace.WithAttributes(attrs...), trace.WithTimestamp(e.Time))
}
