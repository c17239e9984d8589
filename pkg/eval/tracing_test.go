package eval_test

import (
	"testing"

	"github.com/cadrehq/cadre/pkg/assistant"
	"github.com/cadrehq/cadre/pkg/eval"
	"github.com/cadrehq/cadre/pkg/otelcadre"
	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// TestEachCaseIsASpanAboveItsRun: with a tracer, each run of a case is a span "eval case
// <name>" naming the dataset, case, repeat and variant, saying whether the run passed and
// recording its grades; traced by otelcadre, the run's invoke_agent span is its child.
func TestEachCaseIsASpanAboveItsRun(t *testing.T) {
	t.Parallel()
	spans := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))
	a := assistant.New[city]("geo", assistant.WithModel(answering(709000)))
	d := twoCities()
	d.Cases[1].Expected.Population = 1 // bergen fails
	_, err := eval.Matrix(testContext(t), d, a, []eval.Variant{{Name: "only"}}, eval.WithRepeat(2),
		eval.WithTracerProvider(tp), eval.WithRunOptions(otelcadre.Tracing(otelcadre.WithTracerProvider(tp))))
	if err != nil {
		t.Fatal(err)
	}
	ended := spans.Ended()
	cases := map[string]sdktrace.ReadOnlySpan{}
	for _, s := range ended {
		if s.Name() == "eval case oslo" || s.Name() == "eval case bergen" {
			cases[s.SpanContext().SpanID().String()] = s
		}
	}
	if len(cases) != 4 {
		t.Fatalf("%d case spans, want one for each of 4 runs", len(cases))
	}
	runs := 0
	for _, s := range ended {
		if s.Name() != "invoke_agent geo" {
			continue
		}
		runs++
		parent, ok := cases[s.Parent().SpanID().String()]
		if !ok || parent.SpanContext().TraceID() != s.SpanContext().TraceID() {
			t.Errorf("a run's span has parent %v, not a case's span", s.Parent().SpanID())
		}
	}
	if runs != 4 {
		t.Errorf("%d run spans, want 4", runs)
	}
	for _, s := range cases {
		attrs := map[attribute.Key]attribute.Value{}
		for _, kv := range s.Attributes() {
			attrs[kv.Key] = kv.Value
		}
		name := attrs[eval.AttrCase].AsString()
		if attrs[eval.AttrDataset].AsString() != "cities" || attrs[eval.AttrVariant].AsString() != "only" || s.Name() != "eval case "+name {
			t.Errorf("span %q: attributes %v", s.Name(), attrs)
		}
		if pass := attrs[eval.AttrPass]; pass.Type() != attribute.BOOL || pass.AsBool() != (name == "oslo") {
			t.Errorf("span %q: pass %v", s.Name(), pass.String())
		}
		if r := attrs[eval.AttrRepeat]; r.Type() != attribute.INT64 || r.AsInt64() < 0 || r.AsInt64() > 1 {
			t.Errorf("span %q: repeat %v", s.Name(), r.String())
		}
		events := s.Events()
		if len(events) != 1 || events[0].Name != eval.EventGrade {
			t.Fatalf("span %q: events %+v, want one grade", s.Name(), events)
		}
		grade := map[attribute.Key]attribute.Value{}
		for _, kv := range events[0].Attributes {
			grade[kv.Key] = kv.Value
		}
		if grade["cadre.eval.evaluator"].AsString() != "equals" || grade["cadre.eval.pass"].AsBool() != (name == "oslo") {
			t.Errorf("span %q: grade %v", s.Name(), grade)
		}
	}
}
