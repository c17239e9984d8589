package otelcadre_test

import (
	"context"
	"encoding/json"
	"errors"
	"maps"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cadrehq/cadre/pkg/assistant"
	"github.com/cadrehq/cadre/pkg/chat"
	"github.com/cadrehq/cadre/pkg/llmtest"
	"github.com/cadrehq/cadre/pkg/model"
	"github.com/cadrehq/cadre/pkg/otelcadre"
	"github.com/cadrehq/cadre/pkg/tool"
	"github.com/cadrehq/cadre/pkg/usage"
	"github.com/google/go-cmp/cmp"
	"github.com/tmc/langchaingo/llms"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
)

// recorder is an SDK tracer provider and meter provider that keep what they get.
type recorder struct {
	spans  *tracetest.SpanRecorder
	tp     *sdktrace.TracerProvider
	reader *sdkmetric.ManualReader
	mp     *sdkmetric.MeterProvider
}

func newRecorder(t *testing.T) *recorder {
	t.Helper()
	r := &recorder{spans: tracetest.NewSpanRecorder(), reader: sdkmetric.NewManualReader()}
	r.tp = sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(r.spans))
	r.mp = sdkmetric.NewMeterProvider(sdkmetric.WithReader(r.reader))
	t.Cleanup(func() { _ = r.tp.Shutdown(context.Background()); _ = r.mp.Shutdown(context.Background()) })
	return r
}

// tracing is otelcadre.Tracing to r, with opts.
func (r *recorder) tracing(opts ...otelcadre.Option) assistant.Option {
	return otelcadre.Tracing(append([]otelcadre.Option{otelcadre.WithTracerProvider(r.tp), otelcadre.WithMeterProvider(r.mp)}, opts...)...)
}

// ended returns the ended spans, by name; a name may hold several.
func (r *recorder) ended() map[string][]sdktrace.ReadOnlySpan {
	out := map[string][]sdktrace.ReadOnlySpan{}
	for _, s := range r.spans.Ended() {
		out[s.Name()] = append(out[s.Name()], s)
	}
	return out
}

// one returns the one span named name, failing the test if there is not exactly one.
func one(t *testing.T, spans map[string][]sdktrace.ReadOnlySpan, name string) sdktrace.ReadOnlySpan {
	t.Helper()
	if len(spans[name]) != 1 {
		t.Fatalf("%d spans named %q, want 1 (spans: %v)", len(spans[name]), name, names(spans))
	}
	return spans[name][0]
}

func names(spans map[string][]sdktrace.ReadOnlySpan) []string {
	var out []string
	for n, ss := range spans {
		for range ss {
			out = append(out, n)
		}
	}
	return out
}

func attrs(s sdktrace.ReadOnlySpan) map[attribute.Key]attribute.Value {
	out := map[attribute.Key]attribute.Value{}
	for _, kv := range s.Attributes() {
		out[kv.Key] = kv.Value
	}
	return out
}

// childOf checks that child's parent is parent.
func childOf(t *testing.T, child, parent sdktrace.ReadOnlySpan) {
	t.Helper()
	if child.Parent().SpanID() != parent.SpanContext().SpanID() || child.SpanContext().TraceID() != parent.SpanContext().TraceID() {
		t.Errorf("%q is not a child of %q", child.Name(), parent.Name())
	}
}

func ctxFor(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return ctx
}

type query struct {
	Topic string `json:"topic"`
}

type findings struct {
	Facts []string `json:"facts"`
}

// searchTool is the researcher's tool; it notes the span its context holds.
func searchTool(seen *trace.SpanContext) tool.Tool {
	return tool.Func("search", "Search the web.", func(ctx context.Context, in query) (string, error) {
		*seen = trace.SpanContextFromContext(ctx)
		return "Oslo has 709,000 people", nil
	})
}

// TestSupervisorTree: a supervisor delegating to a researcher, under an HTTP request's span:
// the tree of spans, their kinds and their attributes.
func TestSupervisorTree(t *testing.T) {
	t.Parallel()
	rec := newRecorder(t)
	var inTool trace.SpanContext
	researcherModel := llmtest.NewScripted(
		llmtest.Calls(llmtest.Call("search", `{"topic":"Oslo"}`)),
		llmtest.Reply{Text: `{"facts":["Oslo has 709,000 people"]}`, Usage: usage.Usage{InputTokens: 30, OutputTokens: 8}},
	)
	researcher := assistant.New[findings]("researcher", assistant.WithModels(model.Fixed(model.Model{
		Name: "fast", ID: "gpt-5-mini", Provider: "openai", LLM: researcherModel, Shape: model.ShapeOpenAI,
	})), assistant.WithTools(searchTool(&inTool)), assistant.WithOutputMode(assistant.OutputPrompted))
	supervisorModel := llmtest.NewScripted(
		llmtest.Reply{ToolCalls: llmtest.Calls(llmtest.Call("researcher", `{"topic":"Oslo"}`)).ToolCalls, Usage: usage.Usage{InputTokens: 100, OutputTokens: 20, CacheReadTokens: 64}},
		llmtest.Reply{Text: "Oslo has 709,000 people.", Usage: usage.Usage{InputTokens: 150, OutputTokens: 12, ReasoningTokens: 5}},
	)
	supervisor := assistant.New[string]("supervisor", assistant.WithModels(model.Fixed(model.Model{
		Name: "deep", ID: "claude-sonnet-4-6", Provider: "anthropic", LLM: supervisorModel,
	})), assistant.WithTools(assistant.AsTool[query](researcher)), rec.tracing())

	ctx, httpSpan := rec.tp.Tracer("http").Start(ctxFor(t), "POST /ask", trace.WithSpanKind(trace.SpanKindServer))
	ctx = chat.WithID(ctx, chat.ID{Chat: "chat-7"})
	res, err := supervisor.Run(ctx, assistant.Input{Prompt: "How many people live in Oslo?"})
	httpSpan.End()
	if err != nil {
		t.Fatal(err)
	}

	spans := rec.ended()
	http := one(t, spans, "POST /ask")
	sup := one(t, spans, "invoke_agent supervisor")
	res1 := one(t, spans, "invoke_agent researcher")
	delegate := one(t, spans, "execute_tool researcher")
	search := one(t, spans, "execute_tool search")
	if got := len(spans["chat claude-sonnet-4-6"]); got != 2 {
		t.Fatalf("%d supervisor requests, want 2", got)
	}
	if got := len(spans["chat gpt-5-mini"]); got != 2 {
		t.Fatalf("%d researcher requests, want 2", got)
	}
	childOf(t, sup, http)
	for _, c := range spans["chat claude-sonnet-4-6"] {
		childOf(t, c, sup)
	}
	childOf(t, delegate, sup)
	childOf(t, res1, delegate)
	for _, c := range spans["chat gpt-5-mini"] {
		childOf(t, c, res1)
	}
	childOf(t, search, res1)
	if inTool.SpanID() != search.SpanContext().SpanID() {
		t.Errorf("the tool's context holds span %v, want its call's, %v", inTool.SpanID(), search.SpanContext().SpanID())
	}

	for span, kind := range map[sdktrace.ReadOnlySpan]trace.SpanKind{sup: trace.SpanKindInternal, delegate: trace.SpanKindInternal,
		spans["chat claude-sonnet-4-6"][0]: trace.SpanKindClient} {
		if span.SpanKind() != kind {
			t.Errorf("%q is %v, want %v", span.Name(), span.SpanKind(), kind)
		}
	}
	want := map[sdktrace.ReadOnlySpan]map[attribute.Key]attribute.Value{
		sup: {
			"gen_ai.operation.name":  attribute.StringValue("invoke_agent"),
			"gen_ai.provider.name":   attribute.StringValue("anthropic"),
			"gen_ai.agent.name":      attribute.StringValue("supervisor"),
			"gen_ai.conversation.id": attribute.StringValue("chat-7"),
			"cadre.run.depth":        attribute.IntValue(0),
			"cadre.run.stop":         attribute.StringValue("answer"),
			// the run's usage, its delegated run's included
			"gen_ai.usage.input_tokens":  attribute.IntValue(res.Usage.Total.InputTokens),
			"gen_ai.usage.output_tokens": attribute.IntValue(res.Usage.Total.OutputTokens),
			"cadre.usage.requests":       attribute.IntValue(4),
		},
		res1: {
			"gen_ai.provider.name": attribute.StringValue("openai"),
			"gen_ai.agent.name":    attribute.StringValue("researcher"),
			"cadre.run.depth":      attribute.IntValue(1),
			"cadre.run.parent_id":  attr(sup, "cadre.run.id"),
		},
		spans["chat claude-sonnet-4-6"][0]: {
			"gen_ai.operation.name":                attribute.StringValue("chat"),
			"gen_ai.provider.name":                 attribute.StringValue("anthropic"),
			"gen_ai.request.model":                 attribute.StringValue("claude-sonnet-4-6"),
			"cadre.model.name":                     attribute.StringValue("deep"),
			"gen_ai.agent.name":                    attribute.StringValue("supervisor"),
			"gen_ai.usage.input_tokens":            attribute.IntValue(100),
			"gen_ai.usage.output_tokens":           attribute.IntValue(20),
			"gen_ai.usage.cache_read.input_tokens": attribute.IntValue(64),
			"cadre.request.attempt":                attribute.IntValue(1),
			"gen_ai.response.finish_reasons":       attribute.StringSliceValue([]string{"tool_calls"}),
		},
		spans["chat claude-sonnet-4-6"][1]: {
			"gen_ai.usage.reasoning.output_tokens": attribute.IntValue(5),
			"cadre.request.attempt":                attribute.IntValue(2),
		},
		delegate: {
			"gen_ai.operation.name": attribute.StringValue("execute_tool"),
			"gen_ai.tool.name":      attribute.StringValue("researcher"),
			"gen_ai.tool.type":      attribute.StringValue("function"),
			"gen_ai.tool.call.id":   attribute.StringValue(callID(supervisorModel.Requests()[1].Messages, "researcher")),
		},
	}
	for span, w := range want {
		got := attrs(span)
		for k, v := range w {
			if got[k] != v {
				t.Errorf("%q: %s = %v, want %v", span.Name(), k, got[k].String(), v.String())
			}
		}
	}
	if _, ok := attrs(spans["chat claude-sonnet-4-6"][0])["gen_ai.input.messages"]; ok {
		t.Error("the request's messages are recorded without WithContent")
	}
}

// callID is the id of the call of tool in msgs.
func callID(msgs []llms.MessageContent, tool string) string {
	for _, m := range msgs {
		for _, p := range m.Parts {
			if c, ok := p.(llms.ToolCall); ok && c.FunctionCall.Name == tool {
				return c.ID
			}
		}
	}
	return ""
}

func attr(s sdktrace.ReadOnlySpan, k attribute.Key) attribute.Value { return attrs(s)[k] }

// TestFailedToolCall: a tool's error marks its span failed; the run goes on.
func TestFailedToolCall(t *testing.T) {
	t.Parallel()
	rec := newRecorder(t)
	broken := tool.Func("lookup", "Look it up.", func(context.Context, query) (string, error) {
		return "", errors.New("the index is offline")
	})
	m := llmtest.NewScripted(llmtest.Calls(llmtest.Call("lookup", `{"topic":"x"}`)), llmtest.Text("I could not look it up."))
	a := assistant.New[string]("helper", assistant.WithModel(m), assistant.WithTools(broken), rec.tracing())
	if _, err := a.Run(ctxFor(t), assistant.Input{Prompt: "x?"}); err != nil {
		t.Fatal(err)
	}
	span := one(t, rec.ended(), "execute_tool lookup")
	if span.Status().Code != codes.Error || !strings.Contains(span.Status().Description, "the index is offline") {
		t.Errorf("status = %+v, want an error saying why", span.Status())
	}
	if got := attr(span, "error.type"); got.AsString() != "_OTHER" {
		t.Errorf("error.type = %q, want _OTHER", got.String())
	}
	if run := one(t, rec.ended(), "invoke_agent helper"); run.Status().Code == codes.Error {
		t.Errorf("the run's span failed: %+v", run.Status())
	}
}

// TestFallback: a model that fails hands the request to the next of the chain: a failed chat
// span, then the next model's, and a fallback event on the run's span.
func TestFallback(t *testing.T) {
	t.Parallel()
	rec := newRecorder(t)
	down := llmtest.NewScripted(llmtest.Fail(&model.ProviderError{Provider: "oa", Model: "fast", Status: 503, Message: "overloaded"}))
	up := llmtest.NewScripted(llmtest.Text("fine"))
	chain := model.Fixed(
		model.Model{Name: "fast", ID: "gpt-5-mini", Provider: "openai", LLM: down},
		model.Model{Name: "deep", ID: "claude-sonnet-4-6", Provider: "anthropic", LLM: up},
	)
	a := assistant.New[string]("helper", assistant.WithModels(chain), rec.tracing())
	if _, err := a.Run(ctxFor(t), assistant.Input{Prompt: "x?"}); err != nil {
		t.Fatal(err)
	}
	spans := rec.ended()
	failed, answered := one(t, spans, "chat gpt-5-mini"), one(t, spans, "chat claude-sonnet-4-6")
	if failed.Status().Code != codes.Error || attr(failed, "error.type").AsString() != "503" {
		t.Errorf("the failed request: status %+v, error.type %q; want an error, 503", failed.Status(), attr(failed, "error.type").String())
	}
	if answered.Status().Code == codes.Error || attr(answered, "cadre.request.attempt").AsInt64() != 1 {
		t.Errorf("the fallback's request: status %+v, attempt %v", answered.Status(), attr(answered, "cadre.request.attempt").String())
	}
	run := one(t, spans, "invoke_agent helper")
	events := eventNames(run)
	if len(events) != 1 || events[0] != otelcadre.EventFallback {
		t.Errorf("the run's events = %v, want one fallback", events)
	}
	// The run's span names the provider of the chain's first model, known when it starts; each
	// request's span names its own.
	for span, want := range map[sdktrace.ReadOnlySpan]string{run: "openai", failed: "openai", answered: "anthropic"} {
		if got := attr(span, "gen_ai.provider.name"); got.AsString() != want {
			t.Errorf("%q: gen_ai.provider.name = %q, want %q", span.Name(), got.String(), want)
		}
	}
}

// TestAgentSpanStartsWithProvider: gen_ai.provider.name, which the GenAI conventions require
// of an agent span, is among the attributes it starts with (a sampler sees them), in the
// conventions' spelling; for a resumed run too.
func TestAgentSpanStartsWithProvider(t *testing.T) {
	t.Parallel()
	rec := newRecorder(t)
	sampled := map[string][]string{} // the provider a sampler saw, by span name
	var mu sync.Mutex
	rec.tp.RegisterSpanProcessor(startRecorder(func(s sdktrace.ReadWriteSpan) {
		mu.Lock()
		defer mu.Unlock()
		sampled[s.Name()] = append(sampled[s.Name()], attr(s, "gen_ai.provider.name").AsString())
	}))
	m := llmtest.NewScripted(llmtest.Calls(llmtest.Call("search", `{"topic":"x"}`)), llmtest.Text("done"))
	pending := assistant.ApproverFunc(func(context.Context, assistant.ToolCall) (assistant.Decision, error) {
		return assistant.Pending(), nil
	})
	var seen trace.SpanContext
	a := assistant.New[string]("helper", assistant.WithModels(model.Fixed(model.Model{Name: "gemini", ID: "gemini-3-pro", Provider: "googleai", LLM: m})),
		assistant.WithTools(searchTool(&seen)), assistant.WithApproval(pending), rec.tracing())
	res, err := a.Run(ctxFor(t), assistant.Input{Prompt: "x?"})
	if err != nil || res.Stop != assistant.StopPending {
		t.Fatalf("Run = %v, %v; want a pause", res, err)
	}
	if _, err := a.Resume(ctxFor(t), res.Paused, map[string]assistant.Decision{res.Paused.Waiting()[0].ID: assistant.Approved()}); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(sampled["invoke_agent helper"], " "); got != "gcp.gemini gcp.gemini" {
		t.Errorf("the run spans started with gen_ai.provider.name %q, want gcp.gemini for the run and its resumption", got)
	}
}

// startRecorder is a span processor that calls f with each span as it starts.
type startRecorder func(sdktrace.ReadWriteSpan)

func (f startRecorder) OnStart(_ context.Context, s sdktrace.ReadWriteSpan) { f(s) }
func (startRecorder) OnEnd(sdktrace.ReadOnlySpan)                           {}
func (startRecorder) Shutdown(context.Context) error                        { return nil }
func (startRecorder) ForceFlush(context.Context) error                      { return nil }

func eventNames(s sdktrace.ReadOnlySpan) []string {
	var out []string
	for _, e := range s.Events() {
		out = append(out, e.Name)
	}
	return out
}

// TestCorrection: an answer that cannot be used is an event of the run's span.
func TestCorrection(t *testing.T) {
	t.Parallel()
	rec := newRecorder(t)
	m := llmtest.NewScripted(llmtest.Text("not JSON"), llmtest.Text(`{"facts":["a"]}`))
	a := assistant.New[findings]("helper", assistant.WithModel(m), assistant.WithOutputMode(assistant.OutputPrompted), rec.tracing())
	if _, err := a.Run(ctxFor(t), assistant.Input{Prompt: "x?"}); err != nil {
		t.Fatal(err)
	}
	if events := eventNames(one(t, rec.ended(), "invoke_agent helper")); len(events) != 1 || events[0] != otelcadre.EventCorrection {
		t.Errorf("the run's events = %v, want one correction", events)
	}
}

// TestNativeOutput: a request that asks for the output in the provider's own field says it
// wants JSON (gen_ai.output.type); when the model refuses the schema, the run's span says the
// output falls back to a tool — not that another model takes the request.
func TestNativeOutput(t *testing.T) {
	t.Parallel()
	rec := newRecorder(t)
	m := llmtest.NewFunc(func(ctx context.Context, req llmtest.Request) llmtest.Reply {
		if model.OutputSchemaOf(ctx) != nil {
			return llmtest.Fail(&model.ProviderError{Provider: "oa", Model: "fast", Status: 400, Message: "Invalid schema", Err: model.ErrOutputSchema})
		}
		return llmtest.Calls(llmtest.Call("final_result", `{"facts":["a"]}`))
	})
	chain := model.Fixed(model.Model{Name: "fast", ID: "gpt-5-mini", Provider: "openai", LLM: m, Output: model.NativeOutput})
	a := assistant.New[findings]("helper", assistant.WithModels(chain), rec.tracing())
	if _, err := a.Run(ctxFor(t), assistant.Input{Prompt: "x?"}); err != nil {
		t.Fatal(err)
	}
	spans := rec.ended()
	var native, tool int
	for _, s := range spans["chat gpt-5-mini"] {
		if attr(s, "gen_ai.output.type").AsString() == "json" {
			native++
		} else {
			tool++
		}
	}
	if native != 1 || tool != 1 {
		t.Errorf("%d requests asking for JSON, %d not; want one of each", native, tool)
	}
	if events := eventNames(one(t, spans, "invoke_agent helper")); len(events) != 1 || events[0] != otelcadre.EventOutputFallback {
		t.Errorf("the run's events = %v, want one output fallback", events)
	}
}

// TestPausedAndResumed: a run that pauses for an approval ends its span with a pause; the run
// that resumes it has a span of its own, marked resumed, where the approved call runs.
func TestPausedAndResumed(t *testing.T) {
	t.Parallel()
	rec := newRecorder(t)
	var seen trace.SpanContext
	m := llmtest.NewScripted(llmtest.Calls(llmtest.Call("search", `{"topic":"x"}`)), llmtest.Text("done"))
	pending := assistant.ApproverFunc(func(context.Context, assistant.ToolCall) (assistant.Decision, error) {
		return assistant.Pending(), nil
	})
	a := assistant.New[string]("helper", assistant.WithModel(m), assistant.WithTools(searchTool(&seen)),
		assistant.WithApproval(pending), rec.tracing())
	res, err := a.Run(ctxFor(t), assistant.Input{Prompt: "x?"})
	if err != nil || res.Stop != assistant.StopPending {
		t.Fatalf("Run = %v, %v; want a pause", res, err)
	}
	decisions := map[string]assistant.Decision{}
	for _, c := range res.Paused.Waiting() {
		decisions[c.ID] = assistant.Approved()
	}
	if _, err := a.Resume(ctxFor(t), res.Paused, decisions); err != nil {
		t.Fatal(err)
	}
	runs := rec.ended()["invoke_agent helper"]
	if len(runs) != 2 {
		t.Fatalf("%d run spans, want the paused one and the resumed one", len(runs))
	}
	paused, resumed := runs[0], runs[1]
	if attr(paused, "cadre.run.stop").AsString() != "pending" || strings.Join(eventNames(paused), " ") != otelcadre.EventPaused {
		t.Errorf("the paused run: stop %q, events %v", attr(paused, "cadre.run.stop").String(), eventNames(paused))
	}
	if !attr(resumed, "cadre.run.resumed").AsBool() || strings.Join(eventNames(resumed), " ") != otelcadre.EventResumed {
		t.Errorf("the resumed run: resumed %v, events %v", attr(resumed, "cadre.run.resumed").String(), eventNames(resumed))
	}
	childOf(t, one(t, rec.ended(), "execute_tool search"), resumed)
}

// TestParallelCalls: the calls of one turn are sibling spans under the run's.
func TestParallelCalls(t *testing.T) {
	t.Parallel()
	rec := newRecorder(t)
	var seen trace.SpanContext
	slow := tool.Func("wait", "Wait.", func(ctx context.Context, in query) (string, error) {
		time.Sleep(20 * time.Millisecond)
		return in.Topic, nil
	})
	m := llmtest.NewScripted(
		llmtest.Calls(llmtest.Call("wait", `{"topic":"a"}`), llmtest.Call("wait", `{"topic":"b"}`), llmtest.Call("search", `{"topic":"c"}`)),
		llmtest.Text("done"),
	)
	a := assistant.New[string]("helper", assistant.WithModel(m), assistant.WithTools(slow, searchTool(&seen)), rec.tracing())
	if _, err := a.Run(ctxFor(t), assistant.Input{Prompt: "x?"}); err != nil {
		t.Fatal(err)
	}
	spans := rec.ended()
	run := one(t, spans, "invoke_agent helper")
	waits := spans["execute_tool wait"]
	if len(waits) != 2 {
		t.Fatalf("%d wait spans, want 2", len(waits))
	}
	ids := map[string]bool{}
	for _, s := range append(waits, one(t, spans, "execute_tool search")) {
		childOf(t, s, run)
		ids[attr(s, "gen_ai.tool.call.id").AsString()] = true
	}
	if len(ids) != 3 {
		t.Errorf("call ids %v, want three different", ids)
	}
	if !waits[0].StartTime().Before(waits[1].EndTime()) || !waits[1].StartTime().Before(waits[0].EndTime()) {
		t.Error("the two calls did not run at the same time")
	}
}

// TestContent: WithContent records the messages, the tool's arguments and result.
func TestContent(t *testing.T) {
	t.Parallel()
	rec := newRecorder(t)
	var seen trace.SpanContext
	m := llmtest.NewScripted(llmtest.Calls(llmtest.Call("search", `{"topic":"Oslo"}`)), llmtest.Text("709,000"))
	a := assistant.New[string]("helper", assistant.WithModel(m), assistant.WithInstructions("Be brief."),
		assistant.WithTools(searchTool(&seen)), rec.tracing(otelcadre.WithContent()))
	if _, err := a.Run(ctxFor(t), assistant.Input{Prompt: "Oslo?"}); err != nil {
		t.Fatal(err)
	}
	spans := rec.ended()
	call := one(t, spans, "execute_tool search")
	if attr(call, "gen_ai.tool.call.arguments").AsString() != `{"topic":"Oslo"}` || attr(call, "gen_ai.tool.call.result").AsString() != "Oslo has 709,000 people" {
		t.Errorf("the call's content: %v, %v", attr(call, "gen_ai.tool.call.arguments").String(), attr(call, "gen_ai.tool.call.result").String())
	}
	var chats []sdktrace.ReadOnlySpan
	for n, ss := range spans {
		if strings.HasPrefix(n, "chat ") {
			chats = append(chats, ss...)
		}
	}
	second := chats[0]
	if attr(second, "cadre.request.attempt").AsInt64() != 2 {
		second = chats[1]
	}
	var input []map[string]any
	if err := json.Unmarshal([]byte(attr(second, "gen_ai.input.messages").AsString()), &input); err != nil {
		t.Fatalf("gen_ai.input.messages: %v", err)
	}
	roles := []string{}
	for _, msg := range input {
		roles = append(roles, msg["role"].(string))
	}
	if strings.Join(roles, " ") != "user assistant tool" {
		t.Fatalf("input roles %v, want user assistant tool", roles)
	}
	// The model's call, as the conventions' tool_call part: its arguments the JSON they are.
	if got, want := input[1]["parts"], []any{map[string]any{"type": "tool_call", "id": callID(m.Requests()[1].Messages, "search"),
		"name": "search", "arguments": map[string]any{"topic": "Oslo"}}}; !cmp.Equal(got, want) {
		t.Errorf("the assistant's message's parts = %v, want %v", got, want)
	}
	if got := attr(second, "gen_ai.system_instructions").AsString(); !strings.Contains(got, "Be brief.") {
		t.Errorf("gen_ai.system_instructions = %q", got)
	}
	if got := attr(second, "gen_ai.output.messages").AsString(); !strings.Contains(got, `"content":"709,000"`) {
		t.Errorf("gen_ai.output.messages = %q", got)
	}
}

// TestContentWithoutInstructions: a request with no system message has no
// gen_ai.system_instructions, rather than an empty one.
func TestContentWithoutInstructions(t *testing.T) {
	t.Parallel()
	rec := newRecorder(t)
	a := assistant.New[string]("helper", assistant.WithModel(llmtest.NewScripted(llmtest.Text("709,000"))), rec.tracing(otelcadre.WithContent()))
	if _, err := a.Run(ctxFor(t), assistant.Input{Prompt: "Oslo?"}); err != nil {
		t.Fatal(err)
	}
	got := attrs(one(t, rec.ended(), "chat scripted"))
	if v, ok := got["gen_ai.system_instructions"]; ok {
		t.Errorf("gen_ai.system_instructions = %q, want none: the request had no instructions", v.AsString())
	}
	if v := got["gen_ai.input.messages"].AsString(); !strings.Contains(v, "Oslo?") {
		t.Errorf("gen_ai.input.messages = %q, want the user's message", v)
	}
}

// TestGivenTwice: the option given to a supervisor and to its specialist makes each span once.
func TestGivenTwice(t *testing.T) {
	t.Parallel()
	rec := newRecorder(t)
	var seen trace.SpanContext
	researcher := assistant.New[string]("researcher", assistant.WithModel(llmtest.NewScripted(
		llmtest.Calls(llmtest.Call("search", `{"topic":"x"}`)), llmtest.Text("found"))),
		assistant.WithTools(searchTool(&seen)), rec.tracing())
	supervisor := assistant.New[string]("supervisor", assistant.WithModel(llmtest.NewScripted(
		llmtest.Calls(llmtest.Call("researcher", `{"input":"x"}`)), llmtest.Text("done"))),
		assistant.WithTools(assistant.AsTool[string](researcher)), rec.tracing())
	if _, err := supervisor.Run(ctxFor(t), assistant.Input{Prompt: "x?"}); err != nil {
		t.Fatal(err)
	}
	counts := map[string]int{}
	for n, ss := range rec.ended() {
		counts[n] = len(ss)
	}
	for n, want := range map[string]int{"invoke_agent supervisor": 1, "invoke_agent researcher": 1, "execute_tool researcher": 1, "execute_tool search": 1} {
		if counts[n] != want {
			t.Errorf("%d spans %q, want %d (all: %v)", counts[n], n, want, counts)
		}
	}
}

// TestMetrics: each request's tokens and duration, by token type, provider and model.
func TestMetrics(t *testing.T) {
	t.Parallel()
	rec := newRecorder(t)
	m := llmtest.NewScripted(
		llmtest.Reply{ToolCalls: llmtest.Calls(llmtest.Call("search", `{"topic":"x"}`)).ToolCalls, Usage: usage.Usage{InputTokens: 100, OutputTokens: 20}},
		llmtest.Reply{Text: "done", Usage: usage.Usage{InputTokens: 150, OutputTokens: 10}},
	)
	var seen trace.SpanContext
	a := assistant.New[string]("helper", assistant.WithModels(model.Fixed(model.Model{Name: "fast", ID: "gpt-5-mini", Provider: "openai", LLM: m})),
		assistant.WithTools(searchTool(&seen)), rec.tracing())
	if _, err := a.Run(ctxFor(t), assistant.Input{Prompt: "x?"}); err != nil {
		t.Fatal(err)
	}
	var rm metricdata.ResourceMetrics
	if err := rec.reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	tokens := map[string]int64{}
	var durations uint64
	for _, sm := range rm.ScopeMetrics {
		for _, md := range sm.Metrics {
			switch md.Name {
			case "gen_ai.client.token.usage":
				for _, dp := range md.Data.(metricdata.Histogram[int64]).DataPoints {
					typ, _ := dp.Attributes.Value("gen_ai.token.type")
					provider, _ := dp.Attributes.Value("gen_ai.provider.name")
					mod, _ := dp.Attributes.Value("gen_ai.request.model")
					if provider.AsString() != "openai" || mod.AsString() != "gpt-5-mini" {
						t.Errorf("token usage attributes %v", dp.Attributes.ToSlice())
					}
					tokens[typ.AsString()] += dp.Sum
				}
			case "gen_ai.client.operation.duration":
				if md.Unit != "s" {
					t.Errorf("duration unit %q, want s", md.Unit)
				}
				for _, dp := range md.Data.(metricdata.Histogram[float64]).DataPoints {
					durations += dp.Count
				}
			}
		}
	}
	if tokens["input"] != 250 || tokens["output"] != 30 {
		t.Errorf("tokens = %v, want input 250, output 30", tokens)
	}
	if durations != 2 {
		t.Errorf("%d durations, want one per request", durations)
	}
}

// TestFailedRequestMetrics: a request that fails is measured too, its duration marked with
// its error.type ("connection" for a provider that was not reached) and no tokens; the
// request that answers has no error.type.
func TestFailedRequestMetrics(t *testing.T) {
	t.Parallel()
	rec := newRecorder(t)
	down := llmtest.NewScripted(llmtest.Fail(&model.ProviderError{Provider: "oa", Model: "fast", Message: "connection refused"}))
	up := llmtest.NewScripted(llmtest.Reply{Text: "fine", Usage: usage.Usage{InputTokens: 40, OutputTokens: 3}})
	chain := model.Fixed(
		model.Model{Name: "fast", ID: "gpt-5-mini", Provider: "openai", LLM: down},
		model.Model{Name: "deep", ID: "claude-sonnet-4-6", Provider: "anthropic", LLM: up},
	)
	a := assistant.New[string]("helper", assistant.WithModels(chain), rec.tracing())
	if _, err := a.Run(ctxFor(t), assistant.Input{Prompt: "x?"}); err != nil {
		t.Fatal(err)
	}
	if got := attr(one(t, rec.ended(), "chat gpt-5-mini"), "error.type").AsString(); got != "connection" {
		t.Errorf("the failed request's error.type = %q, want connection", got)
	}
	var rm metricdata.ResourceMetrics
	if err := rec.reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	durations := map[string]string{} // error.type by model
	tokens := map[string]int64{}     // tokens by model
	for _, sm := range rm.ScopeMetrics {
		for _, md := range sm.Metrics {
			switch md.Name {
			case "gen_ai.client.operation.duration":
				for _, dp := range md.Data.(metricdata.Histogram[float64]).DataPoints {
					mod, _ := dp.Attributes.Value("gen_ai.request.model")
					typ, _ := dp.Attributes.Value("error.type")
					durations[mod.AsString()] = typ.AsString()
				}
			case "gen_ai.client.token.usage":
				for _, dp := range md.Data.(metricdata.Histogram[int64]).DataPoints {
					mod, _ := dp.Attributes.Value("gen_ai.request.model")
					tokens[mod.AsString()] += dp.Sum
				}
			}
		}
	}
	if want := map[string]string{"gpt-5-mini": "connection", "claude-sonnet-4-6": ""}; !maps.Equal(durations, want) {
		t.Errorf("durations' error.type by model = %v, want %v", durations, want)
	}
	if want := map[string]int64{"claude-sonnet-4-6": 43}; !maps.Equal(tokens, want) {
		t.Errorf("tokens by model = %v, want %v", tokens, want)
	}
}

// TestSharedModelAndTool: two assistants that share one model and one tool, under one Tracing
// option: each chat and execute_tool span names the assistant that sent it, whichever ran
// first.
func TestSharedModelAndTool(t *testing.T) {
	t.Parallel()
	rec := newRecorder(t)
	tracing := rec.tracing()
	var seen trace.SpanContext
	search := searchTool(&seen)
	shared := model.Fixed(model.Model{Name: "fast", ID: "gpt-5-mini", Provider: "openai", LLM: llmtest.NewScripted(
		llmtest.Calls(llmtest.Call("search", `{"topic":"x"}`)), llmtest.Text("done")).Cycle()})
	for _, name := range []string{"writer", "editor"} {
		a := assistant.New[string](name, assistant.WithModels(shared), assistant.WithTools(search), tracing)
		if _, err := a.Run(ctxFor(t), assistant.Input{Prompt: "x?"}); err != nil {
			t.Fatal(err)
		}
	}
	spans := rec.ended()
	runs := map[trace.SpanID]string{}
	for _, name := range []string{"writer", "editor"} {
		runs[one(t, spans, "invoke_agent "+name).SpanContext().SpanID()] = name
	}
	steps := append(spans["chat gpt-5-mini"], spans["execute_tool search"]...)
	if len(steps) != 6 {
		t.Fatalf("%d chat and execute_tool spans, want 2 requests and a call of each assistant", len(steps))
	}
	for _, s := range steps {
		want := runs[s.Parent().SpanID()]
		if got := attr(s, "gen_ai.agent.name").AsString(); got != want || want == "" {
			t.Errorf("a %q span of %q's run: gen_ai.agent.name = %q", s.Name(), want, got)
		}
	}
}

// TestCacheTokens: cache writes and cache reads are reported each as what it is, on the
// request's span and, as the run's totals, on the run's; a count of zero, of the cache or of
// reasoning tokens, is left out.
func TestCacheTokens(t *testing.T) {
	t.Parallel()
	rec := newRecorder(t)
	var seen trace.SpanContext
	// Anthropic's client reports cache writes; llmtest's replies take the shape of OpenAI's.
	call := llmtest.Call("search", `{"topic":"x"}`)
	call.ID = "toolu_1"
	m := llmtest.NewScripted(
		anthropicReply(llms.ContentChoice{ToolCalls: []llms.ToolCall{call}, StopReason: "tool_use"}, usage.Usage{InputTokens: 200, OutputTokens: 10, CacheReadTokens: 64, CacheWriteTokens: 40}),
		anthropicReply(llms.ContentChoice{Content: "done", StopReason: "end_turn"}, usage.Usage{InputTokens: 250, OutputTokens: 5}),
	)
	a := assistant.New[string]("helper", assistant.WithModels(model.Fixed(model.Model{Name: "deep", ID: "claude-sonnet-4-6", Provider: "anthropic", LLM: m})),
		assistant.WithTools(searchTool(&seen)), rec.tracing())
	if _, err := a.Run(ctxFor(t), assistant.Input{Prompt: "x?"}); err != nil {
		t.Fatal(err)
	}
	spans := rec.ended()
	chats := spans["chat claude-sonnet-4-6"]
	if len(chats) != 2 {
		t.Fatalf("%d chat spans, want 2", len(chats))
	}
	if attr(chats[0], "cadre.request.attempt").AsInt64() == 2 {
		chats[0], chats[1] = chats[1], chats[0]
	}
	const read, write, reasoning = "gen_ai.usage.cache_read.input_tokens", "gen_ai.usage.cache_creation.input_tokens", "gen_ai.usage.reasoning.output_tokens"
	for span, want := range map[sdktrace.ReadOnlySpan]map[attribute.Key]int64{
		chats[0]:                             {read: 64, write: 40},
		chats[1]:                             {},
		one(t, spans, "invoke_agent helper"): {read: 64, write: 40},
	} {
		got := attrs(span)
		for _, k := range []attribute.Key{read, write, reasoning} {
			v, ok := got[k]
			switch w, want := want[k]; {
			case !want && ok:
				t.Errorf("%q: %s = %d, want none: there were none", span.Name(), k, v.AsInt64())
			case want && v.AsInt64() != w:
				t.Errorf("%q: %s = %s, want %d", span.Name(), k, v.String(), w)
			}
		}
	}
}

// anthropicReply is a reply of choice whose usage u is reported as langchaingo's anthropic
// client reports it: the input tokens without the cache's reads and writes, which have keys of
// their own.
func anthropicReply(choice llms.ContentChoice, u usage.Usage) llmtest.Reply {
	choice.GenerationInfo = map[string]any{
		"InputTokens":              u.InputTokens - u.CacheReadTokens - u.CacheWriteTokens,
		"OutputTokens":             u.OutputTokens,
		"CacheReadInputTokens":     u.CacheReadTokens,
		"CacheCreationInputTokens": u.CacheWriteTokens,
	}
	return llmtest.Reply{Response: &llms.ContentResponse{Choices: []*llms.ContentChoice{&choice}}}
}
