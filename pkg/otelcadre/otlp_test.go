package otelcadre_test

import (
	"cmp"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/cadrehq/cadre/pkg/assistant"
	"github.com/cadrehq/cadre/pkg/llmtest"
	"github.com/cadrehq/cadre/pkg/model"
	"github.com/cadrehq/cadre/pkg/otelcadre"
	"github.com/cadrehq/cadre/pkg/usage"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"
)

// receiver is an OTLP/HTTP traces endpoint on 127.0.0.1: it decodes each export request's
// protobuf body, as a collector does, and keeps its spans.
type receiver struct {
	url string // the endpoint, ending in /v1/traces

	mu        sync.Mutex
	spans     []exported
	encodings []string // each request's Content-Encoding
	errs      []error  // requests it refused
}

// exported is a span as the receiver got it, with the scope and resource it came under.
type exported struct {
	*tracepb.Span
	scope    *commonpb.InstrumentationScope
	resource map[string]*commonpb.AnyValue
}

func newReceiver(t *testing.T) *receiver {
	t.Helper()
	r := &receiver{}
	srv := httptest.NewServer(http.HandlerFunc(r.export))
	t.Cleanup(srv.Close)
	r.url = srv.URL + "/v1/traces"
	return r
}

func (r *receiver) export(w http.ResponseWriter, req *http.Request) {
	if err := r.keep(req); err != nil {
		r.mu.Lock()
		r.errs = append(r.errs, err)
		r.mu.Unlock()
		http.Error(w, err.Error(), http.StatusBadRequest)
	}
}

// keep is export's work: the request checked, its body decompressed and decoded, its spans
// kept.
func (r *receiver) keep(req *http.Request) error {
	if req.Method != http.MethodPost || req.URL.Path != "/v1/traces" {
		return fmt.Errorf("%s %s, want POST /v1/traces", req.Method, req.URL.Path)
	}
	if ct := req.Header.Get("Content-Type"); ct != "application/x-protobuf" {
		return fmt.Errorf("Content-Type %q, want application/x-protobuf", ct)
	}
	var body io.Reader = req.Body
	encoding := req.Header.Get("Content-Encoding")
	switch encoding {
	case "gzip":
		gz, err := gzip.NewReader(req.Body)
		if err != nil {
			return err
		}
		defer gz.Close()
		body = gz
	case "":
	default:
		return fmt.Errorf("Content-Encoding %q", encoding)
	}
	b, err := io.ReadAll(io.LimitReader(body, 16<<20))
	if err != nil {
		return err
	}
	var export coltracepb.ExportTraceServiceRequest
	if err := proto.Unmarshal(b, &export); err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.encodings = append(r.encodings, encoding)
	for _, rs := range export.ResourceSpans {
		res := anyValues(rs.GetResource().GetAttributes())
		for _, ss := range rs.ScopeSpans {
			for _, s := range ss.Spans {
				r.spans = append(r.spans, exported{Span: s, scope: ss.Scope, resource: res})
			}
		}
	}
	return nil
}

// got returns the spans received, by name, each name's in the order they started; and the
// requests' encodings, and the errors of those refused.
func (r *receiver) got() (map[string][]exported, []string, []error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	spans := map[string][]exported{}
	for _, s := range r.spans {
		spans[s.Name] = append(spans[s.Name], s)
	}
	for _, ss := range spans {
		slices.SortFunc(ss, func(a, b exported) int { return cmp.Compare(a.StartTimeUnixNano, b.StartTimeUnixNano) })
	}
	return spans, slices.Clone(r.encodings), slices.Clone(r.errs)
}

func anyValues(kvs []*commonpb.KeyValue) map[string]*commonpb.AnyValue {
	out := make(map[string]*commonpb.AnyValue, len(kvs))
	for _, kv := range kvs {
		out[kv.Key] = kv.Value
	}
	return out
}

func str(s string) *commonpb.AnyValue {
	return &commonpb.AnyValue{Value: &commonpb.AnyValue_StringValue{StringValue: s}}
}

func integer(n int64) *commonpb.AnyValue {
	return &commonpb.AnyValue{Value: &commonpb.AnyValue_IntValue{IntValue: n}}
}

func array(ss ...string) *commonpb.AnyValue {
	vs := make([]*commonpb.AnyValue, len(ss))
	for i, s := range ss {
		vs[i] = str(s)
	}
	return &commonpb.AnyValue{Value: &commonpb.AnyValue_ArrayValue{ArrayValue: &commonpb.ArrayValue{Values: vs}}}
}

// TestOTLPExport: the spans of a supervisor that delegates to a researcher, sent by the
// OTLP/HTTP exporter through an SDK tracer provider, as a program sending them to Jaeger or
// Tempo would, and read back from the protobuf a collector decodes: their names, kinds, tree,
// times, attributes with their types, and scope.
func TestOTLPExport(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name        string
		compression otlptracehttp.Compression
		encoding    string
	}{
		{"uncompressed", otlptracehttp.NoCompression, ""},
		{"gzip", otlptracehttp.GzipCompression, "gzip"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			recv := newReceiver(t)
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			exporter, err := otlptracehttp.New(ctx,
				otlptracehttp.WithEndpointURL(recv.url), otlptracehttp.WithInsecure(),
				// Given in code, these win over OTEL_EXPORTER_OTLP_* variables of the test's environment.
				otlptracehttp.WithCompression(tc.compression), otlptracehttp.WithEncoding(otlptracehttp.EncodingProtobuf),
				// A refused export fails the flush at once rather than retrying for a minute.
				otlptracehttp.WithRetry(otlptracehttp.RetryConfig{Enabled: false}),
				otlptracehttp.WithTimeout(10*time.Second))
			if err != nil {
				t.Fatal(err)
			}
			tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exporter),
				sdktrace.WithResource(resource.NewSchemaless(attribute.String("service.name", "otelcadre-test"))))
			defer tp.Shutdown(context.Background()) // a no-op after the Shutdown below, when the test gets there

			res := runSupervisor(ctx, t, otelcadre.Tracing(otelcadre.WithTracerProvider(tp)))
			if err := tp.ForceFlush(ctx); err != nil {
				t.Fatalf("ForceFlush: %v", err)
			}
			if err := tp.Shutdown(ctx); err != nil {
				t.Fatalf("Shutdown: %v", err)
			}

			spans, encodings, errs := recv.got()
			if len(errs) > 0 {
				t.Fatalf("the receiver refused exports: %v", errs)
			}
			if len(encodings) == 0 {
				t.Fatal("no export reached the receiver")
			}
			for _, e := range encodings {
				if e != tc.encoding {
					t.Errorf("an export's Content-Encoding is %q, want %q", e, tc.encoding)
				}
			}
			checkTree(t, spans)
			checkAttributes(t, spans, res)
		})
	}
}

// runSupervisor runs a supervisor that delegates to a researcher with a search tool, traced by
// tracing: two requests of each, a call of each's tool.
func runSupervisor(ctx context.Context, t *testing.T, tracing assistant.Option) *assistant.Result[string] {
	t.Helper()
	var inTool trace.SpanContext
	researcher := assistant.New[findings]("researcher", assistant.WithModels(model.Fixed(model.Model{
		Name: "fast", ID: "gpt-5-mini", Provider: "openai", Shape: model.ShapeOpenAI, LLM: llmtest.NewScripted(
			llmtest.Reply{ToolCalls: llmtest.Calls(llmtest.Call("search", `{"topic":"Oslo"}`)).ToolCalls, Usage: usage.Usage{InputTokens: 40, OutputTokens: 6}},
			llmtest.Reply{Text: `{"facts":["Oslo has 709,000 people"]}`, Usage: usage.Usage{InputTokens: 30, OutputTokens: 8}},
		),
	})), assistant.WithTools(searchTool(&inTool)), assistant.WithOutputMode(assistant.OutputPrompted))
	supervisor := assistant.New[string]("supervisor", assistant.WithModels(model.Fixed(model.Model{
		Name: "deep", ID: "claude-sonnet-4-6", Provider: "anthropic", LLM: llmtest.NewScripted(
			llmtest.Reply{ToolCalls: llmtest.Calls(llmtest.Call("researcher", `{"topic":"Oslo"}`)).ToolCalls, Usage: usage.Usage{InputTokens: 100, OutputTokens: 20}},
			llmtest.Reply{Text: "Oslo has 709,000 people.", Usage: usage.Usage{InputTokens: 150, OutputTokens: 12}},
		),
	})), assistant.WithTools(assistant.AsTool[query](researcher)), tracing)
	res, err := supervisor.Run(ctx, assistant.Input{Prompt: "How many people live in Oslo?"})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// checkTree checks that the spans are those of the supervisor's tree, each under its parent,
// in one trace, within its parent's time, of the kind the conventions give it, from
// otelcadre's scope, under the provider's resource.
func checkTree(t *testing.T, spans map[string][]exported) {
	t.Helper()
	want := []struct {
		name, parent string
		n            int
		kind         tracepb.Span_SpanKind
	}{
		{"invoke_agent supervisor", "", 1, tracepb.Span_SPAN_KIND_INTERNAL},
		{"chat claude-sonnet-4-6", "invoke_agent supervisor", 2, tracepb.Span_SPAN_KIND_CLIENT},
		{"execute_tool researcher", "invoke_agent supervisor", 1, tracepb.Span_SPAN_KIND_INTERNAL},
		{"invoke_agent researcher", "execute_tool researcher", 1, tracepb.Span_SPAN_KIND_INTERNAL},
		{"chat gpt-5-mini", "invoke_agent researcher", 2, tracepb.Span_SPAN_KIND_CLIENT},
		{"execute_tool search", "invoke_agent researcher", 1, tracepb.Span_SPAN_KIND_INTERNAL},
	}
	total := 0
	for _, w := range want {
		total += w.n
		if len(spans[w.name]) != w.n {
			t.Fatalf("%d spans %q, want %d", len(spans[w.name]), w.name, w.n)
		}
	}
	if n := countSpans(spans); n != total {
		t.Errorf("%d spans, want %d", n, total)
	}
	root := spans["invoke_agent supervisor"][0]
	for _, w := range want {
		for _, s := range spans[w.name] {
			if s.Kind != w.kind {
				t.Errorf("%q is %v, want %v", s.Name, s.Kind, w.kind)
			}
			if !slices.Equal(s.TraceId, root.TraceId) || len(s.TraceId) != 16 || len(s.SpanId) != 8 {
				t.Errorf("%q: trace %x, span %x; want trace %x and an 8-byte span id", s.Name, s.TraceId, s.SpanId, root.TraceId)
			}
			if s.scope.GetName() != otelcadre.ScopeName {
				t.Errorf("%q: scope %q, want %q", s.Name, s.scope.GetName(), otelcadre.ScopeName)
			}
			if !proto.Equal(s.resource["service.name"], str("otelcadre-test")) {
				t.Errorf("%q: service.name %v, want the provider's resource's", s.Name, s.resource["service.name"])
			}
			if s.Status.GetCode() == tracepb.Status_STATUS_CODE_ERROR {
				t.Errorf("%q failed: %v", s.Name, s.Status)
			}
			if w.parent == "" {
				if len(s.ParentSpanId) != 0 {
					t.Errorf("%q has a parent, %x; want it the root", s.Name, s.ParentSpanId)
				}
				continue
			}
			parent := spans[w.parent][0]
			if !slices.Equal(s.ParentSpanId, parent.SpanId) {
				t.Errorf("%q's parent is %x, want %q's, %x", s.Name, s.ParentSpanId, parent.Name, parent.SpanId)
			}
			if s.StartTimeUnixNano < parent.StartTimeUnixNano || s.EndTimeUnixNano > parent.EndTimeUnixNano || s.EndTimeUnixNano < s.StartTimeUnixNano {
				t.Errorf("%q is not within %q's time", s.Name, parent.Name)
			}
		}
	}
}

func countSpans(spans map[string][]exported) int {
	n := 0
	for _, ss := range spans {
		n += len(ss)
	}
	return n
}

// checkAttributes checks the GenAI attributes of the spans, with their types: token counts are
// integers, finish reasons an array.
func checkAttributes(t *testing.T, spans map[string][]exported, res *assistant.Result[string]) {
	t.Helper()
	supervisorChats, researcherChats := spans["chat claude-sonnet-4-6"], spans["chat gpt-5-mini"]
	want := []struct {
		span  exported
		attrs map[string]*commonpb.AnyValue
	}{
		{spans["invoke_agent supervisor"][0], map[string]*commonpb.AnyValue{
			"gen_ai.operation.name": str("invoke_agent"),
			"gen_ai.agent.name":     str("supervisor"),
			"cadre.run.depth":       integer(0),
			"cadre.run.stop":        str("answer"),
			// the tree's: its own two requests and the researcher's two
			"gen_ai.usage.input_tokens":  integer(320),
			"gen_ai.usage.output_tokens": integer(46),
			"cadre.usage.requests":       integer(4),
			"cadre.usage.tool_calls":     integer(2),
		}},
		{supervisorChats[0], map[string]*commonpb.AnyValue{
			"gen_ai.operation.name":          str("chat"),
			"gen_ai.provider.name":           str("anthropic"),
			"gen_ai.request.model":           str("claude-sonnet-4-6"),
			"cadre.model.name":               str("deep"),
			"gen_ai.agent.name":              str("supervisor"),
			"gen_ai.usage.input_tokens":      integer(100),
			"gen_ai.usage.output_tokens":     integer(20),
			"gen_ai.response.finish_reasons": array("tool_calls"),
			"cadre.request.attempt":          integer(1),
		}},
		{supervisorChats[1], map[string]*commonpb.AnyValue{
			"gen_ai.usage.input_tokens":      integer(150),
			"gen_ai.usage.output_tokens":     integer(12),
			"gen_ai.response.finish_reasons": array("stop"),
			"cadre.request.attempt":          integer(2),
		}},
		{spans["execute_tool researcher"][0], map[string]*commonpb.AnyValue{
			"gen_ai.operation.name": str("execute_tool"),
			"gen_ai.tool.name":      str("researcher"),
			"gen_ai.tool.type":      str("function"),
			"gen_ai.agent.name":     str("supervisor"),
		}},
		{spans["invoke_agent researcher"][0], map[string]*commonpb.AnyValue{
			"gen_ai.operation.name": str("invoke_agent"),
			"gen_ai.agent.name":     str("researcher"),
			"cadre.run.depth":       integer(1),
			"cadre.run.parent_id":   spans["invoke_agent supervisor"][0].attr("cadre.run.id"),
		}},
		{researcherChats[0], map[string]*commonpb.AnyValue{
			"gen_ai.operation.name":      str("chat"),
			"gen_ai.provider.name":       str("openai"),
			"gen_ai.request.model":       str("gpt-5-mini"),
			"gen_ai.agent.name":          str("researcher"),
			"gen_ai.usage.input_tokens":  integer(40),
			"gen_ai.usage.output_tokens": integer(6),
		}},
		{spans["execute_tool search"][0], map[string]*commonpb.AnyValue{
			"gen_ai.tool.name":  str("search"),
			"gen_ai.agent.name": str("researcher"),
		}},
	}
	for _, w := range want {
		got := anyValues(w.span.Attributes)
		for k, v := range w.attrs {
			if !proto.Equal(got[k], v) {
				t.Errorf("%q: %s = %v, want %v", w.span.Name, k, got[k], v)
			}
		}
		if _, ok := got["gen_ai.input.messages"]; ok {
			t.Errorf("%q records the messages without WithContent", w.span.Name)
		}
	}
	if in := res.Usage.Total.InputTokens; in != 320 {
		t.Errorf("the run's usage says %d input tokens, the test 320", in)
	}
	if id := spans["execute_tool researcher"][0].attr("gen_ai.tool.call.id").GetStringValue(); id == "" {
		t.Error("the delegation's span has no gen_ai.tool.call.id")
	}
}

func (s exported) attr(k string) *commonpb.AnyValue { return anyValues(s.Attributes)[k] }
