package eval

import (
	"context"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

// ScopeName is the instrumentation scope of the eval's tracer: the package's import path.
const ScopeName = "github.com/cadrehq/cadre/pkg/eval"

// The attributes of a case's span.
const (
	AttrDataset = attribute.Key("cadre.eval.dataset") // the dataset's name
	AttrCase    = attribute.Key("cadre.eval.case")    // the case's name
	AttrRepeat  = attribute.Key("cadre.eval.repeat")  // the run's place among the case's runs, from 0
	AttrVariant = attribute.Key("cadre.eval.variant") // Matrix's variant; absent for Evaluate
	AttrPass    = attribute.Key("cadre.eval.pass")    // whether the run passed every grade
)

// EventGrade is the event of a case's span for each grade of its run, with the attributes
// cadre.eval.evaluator, cadre.eval.kind, cadre.eval.score, cadre.eval.pass and, when the grade
// has them, cadre.eval.label and cadre.eval.reason.
const EventGrade = "cadre.eval.grade"

// WithTracerProvider makes a span of each run of a case, "eval case <name>", from tp: its
// attributes name the dataset, the case, the repeat and the variant, and say whether the run
// passed; an event records each grade. The span is in the context of the run and of its
// evaluators, so the spans they make are its children: give the runs otelcadre.Tracing through
// WithRunOptions, and each run's invoke_agent span is the child of its case's.
func WithTracerProvider(tp trace.TracerProvider) Option {
	return func(c *config) {
		c.tracer = nil
		if tp != nil {
			c.tracer = tp.Tracer(ScopeName)
		}
	}
}

// startCase starts the span of run k of case name, when the eval is traced; nil when not.
func (c *config) startCase(ctx context.Context, dataset, name string, k int) (context.Context, trace.Span) {
	if c.tracer == nil {
		return ctx, nil
	}
	attrs := []attribute.KeyValue{AttrDataset.String(dataset), AttrCase.String(name), AttrRepeat.Int(k)}
	if c.variant != "" {
		attrs = append(attrs, AttrVariant.String(c.variant))
	}
	return c.tracer.Start(ctx, "eval case "+name, trace.WithSpanKind(trace.SpanKindInternal), trace.WithAttributes(attrs...))
}

// endCase records what run found on span, and ends it.
func endCase(span trace.Span, run *runResult) {
	defer span.End()
	if !span.IsRecording() {
		return
	}
	span.SetAttributes(AttrPass.Bool(run.pass()))
	for _, g := range run.grades {
		attrs := []attribute.KeyValue{
			attribute.String("cadre.eval.evaluator", g.Evaluator), attribute.String("cadre.eval.kind", string(g.Kind)),
			attribute.Float64("cadre.eval.score", g.Score), attribute.Bool("cadre.eval.pass", g.Pass),
		}
		if g.Label != "" {
			attrs = append(attrs, attribute.String("cadre.eval.label", g.Label))
		}
		if g.Reason != "" {
			attrs = append(attrs, attribute.String("cadre.eval.reason", g.Reason))
		}
		span.AddEvent(EventGrade, trace.WithAttributes(attrs...))
	}
	if run.err != nil {
		span.RecordError(run.err)
		span.SetStatus(codes.Error, run.err.Error())
	}
}

// pass reports whether run ran without an error and passed its every score and assertion, as
// its RunReport says.
func (r *runResult) pass() bool {
	if !r.ran || r.err != nil {
		return false
	}
	for _, g := range r.grades {
		if g.Kind != Label && !g.Pass {
			return false
		}
	}
	return true
}
