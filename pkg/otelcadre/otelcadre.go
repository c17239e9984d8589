package otelcadre

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"time"

	"github.com/cadrehq/cadre/pkg/assistant"
	"github.com/cadrehq/cadre/pkg/chat"
	"github.com/cadrehq/cadre/pkg/model"
	"github.com/cadrehq/cadre/pkg/usage"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
	"go.opentelemetry.io/otel/semconv/v1.41.0/genaiconv"
	"go.opentelemetry.io/otel/trace"
)

// ScopeName is the instrumentation scope of the tracer and the meter: the package's import
// path.
const ScopeName = "github.com/cadrehq/cadre/pkg/otelcadre"

// The attributes of cadre's own, beside the GenAI conventions'.
const (
	// ModelName is the model's name in llm.yaml (gen_ai.request.model is the provider's id).
	ModelName = attribute.Key("cadre.model.name")
	// RunID and ParentRunID are the run's id and its caller's, as events and chunks carry them.
	RunID       = attribute.Key("cadre.run.id")
	ParentRunID = attribute.Key("cadre.run.parent_id")
	// Depth is 0 for a top run, 1 for a run it delegated to, ...
	Depth = attribute.Key("cadre.run.depth")
	// Resumed marks a run that continues a paused one.
	Resumed = attribute.Key("cadre.run.resumed")
	// Stop is how a run ended (assistant.Stop: answer, pending, ...).
	Stop = attribute.Key("cadre.run.stop")
	// Requests and ToolCalls are a run's counts, its delegated runs' included.
	Requests  = attribute.Key("cadre.usage.requests")
	ToolCalls = attribute.Key("cadre.usage.tool_calls")
	// Attempt is a request's place in its run: 1 for the first, then 2, 3, ...
	Attempt = attribute.Key("cadre.request.attempt")
)

// The span events of a run's span.
const (
	EventPaused     = "cadre.run.paused"        // the run stopped to wait for approvals
	EventResumed    = "cadre.run.resumed"       // the run continues a paused one
	EventFallback   = "cadre.model.fallback"    // a model failed, and the next of the chain takes the request
	EventCorrection = "cadre.output.correction" // an answer could not be used; a corrective request follows
	// EventOutputFallback: the model refused the output schema in its provider's own field;
	// the same request goes to it again with the output asked for as a tool call.
	EventOutputFallback = "cadre.output.fallback"
)

// Option configures Tracing and Middleware.
type Option func(*config)

type config struct {
	tp      trace.TracerProvider
	mp      metric.MeterProvider
	content bool
}

// WithTracerProvider sets where spans go; the default is otel.GetTracerProvider(), read when
// Tracing or Middleware is called.
func WithTracerProvider(tp trace.TracerProvider) Option {
	return func(c *config) { c.tp = tp }
}

// WithMeterProvider sets where metrics go; the default is otel.GetMeterProvider(), read when
// Tracing or Middleware is called.
func WithMeterProvider(mp metric.MeterProvider) Option {
	return func(c *config) { c.mp = mp }
}

// WithContent records what the model and the tools were sent and answered: the requests'
// messages (gen_ai.input.messages, gen_ai.system_instructions), the replies
// (gen_ai.output.messages), tool arguments and results. They may hold personal data: the
// default leaves them out. API keys are never recorded.
func WithContent() Option {
	return func(c *config) { c.content = true }
}

// Tracing returns the option that traces an assistant's runs, those it delegates to included:
// assistant.WithMiddleware(Middleware(opts...)). Give it once, to the top assistant (or to a
// run, in Input.Options); given to a specialist as well, the spans of its runs are not made
// twice.
func Tracing(opts ...Option) assistant.Option {
	return assistant.WithMiddleware(Middleware(opts...))
}

// tracer makes the spans and records the metrics of runs.
type tracer struct {
	tracer   trace.Tracer
	tokens   genaiconv.ClientTokenUsage
	duration genaiconv.ClientOperationDuration
	content  bool

	mu     sync.RWMutex
	starts map[startKey]*start
}

// The bucket boundaries the GenAI conventions advise for the two histograms.
var (
	tokenBuckets    = []float64{1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864}
	durationBuckets = []float64{0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92}
)

// Middleware returns the middleware that makes a span of each run (invoke_agent), model request
// (chat) and tool call (execute_tool), and records the token usage and duration of each model
// request, by the OpenTelemetry GenAI conventions. A tool's own code gets its call's span in
// its context, so that its spans (an instrumented HTTP client's, a delegated run's) are its
// children; a top run's span is a child of the span in the run's context.
func Middleware(opts ...Option) assistant.Middleware {
	c := config{}
	for _, o := range opts {
		if o != nil {
			o(&c)
		}
	}
	if c.tp == nil {
		c.tp = otel.GetTracerProvider()
	}
	if c.mp == nil {
		c.mp = otel.GetMeterProvider()
	}
	meter := c.mp.Meter(ScopeName, metric.WithSchemaURL(semconv.SchemaURL))
	t := &tracer{tracer: c.tp.Tracer(ScopeName, trace.WithSchemaURL(semconv.SchemaURL)), content: c.content, starts: map[startKey]*start{}}
	// An error here is an SDK's refusal of the instrument; the conventions' own noop stands in.
	t.tokens, _ = genaiconv.NewClientTokenUsage(meter, metric.WithExplicitBucketBoundaries(tokenBuckets...))
	t.duration, _ = genaiconv.NewClientOperationDuration(meter, metric.WithExplicitBucketBoundaries(durationBuckets...))
	return assistant.Middleware{Run: t.run, Request: t.request, ToolCall: t.toolCall}
}

// runStep is a run's span, in the contexts of the run's steps. Through it a middleware given at
// two levels of a delegation tree (a supervisor's and a specialist's) sees that a run is
// another's to trace, and leaves it and its steps alone.
type runStep struct {
	owner *tracer
	id    string // the run's id
	span  trace.Span
	// noop: the run's span is a no-op tracer's (no SDK is installed): its steps' spans would
	// be too, and are not started.
	noop bool
}

type stepKey struct{}

func runStepOf(ctx context.Context) *runStep {
	s, _ := ctx.Value(stepKey{}).(*runStep)
	return s
}

// whose tells how t treats a step of run id in ctx: mine, the run's step is t's to trace;
// spans, and its span is to be made (a tracer that records is installed).
func (t *tracer) whose(ctx context.Context, id string) (s *runStep, mine, spans bool) {
	s = runStepOf(ctx)
	if s == nil || s.id != id {
		return nil, true, true
	}
	return s, s.owner == t, !s.noop
}

// start is what starting a span of one kind of step takes, the same for every step of that
// kind, assistant, model or tool: made once, so that a span costs no more than the tracer's
// own work (a no-op tracer's: nothing but the context that holds its span).
type start struct {
	name  string
	opts  []trace.SpanStartOption // the kind, and the attributes a sampler may look at
	model attribute.KeyValue      // of a request: gen_ai.request.model
	// provider names a request's provider as the metrics take it.
	provider genaiconv.ProviderNameAttr
}

type startKey struct {
	op                      string
	name, id, provider, who string
}

// startOf returns the start of key, making it with make the first time.
func (t *tracer) startOf(key startKey, make func() *start) *start {
	t.mu.RLock()
	s := t.starts[key]
	t.mu.RUnlock()
	if s != nil {
		return s
	}
	s = make()
	t.mu.Lock()
	if len(t.starts) < maxStarts {
		t.starts[key] = s
	}
	t.mu.Unlock()
	return s
}

// maxStarts bounds the starts kept: assistants, models and tools are few, but a program could
// make them as it goes.
const maxStarts = 4096

func (t *tracer) run(ctx context.Context, info assistant.RunInfo, next assistant.RunNext) (*assistant.Response, error) {
	if s := runStepOf(ctx); s != nil && s.id == info.RunID {
		return next(ctx) // an outer level traces this run
	}
	st := t.startOf(startKey{op: "run", name: info.Assistant, provider: info.Provider}, func() *start {
		return &start{name: "invoke_agent " + info.Assistant, opts: []trace.SpanStartOption{
			trace.WithSpanKind(trace.SpanKindInternal),
			// The provider is the first model's: a run whose model falls back to another
			// provider's keeps it; its chat spans name each request's own.
			trace.WithAttributes(semconv.GenAIOperationNameInvokeAgent, semconv.GenAIProviderNameKey.String(providerName(info.Provider)),
				semconv.GenAIAgentName(info.Assistant)),
		}}
	})
	ctx, span := t.tracer.Start(ctx, st.name, st.opts...)
	defer span.End()
	if span.IsRecording() {
		span.SetAttributes(RunID.String(info.RunID), Depth.Int(info.Depth))
		if info.ParentRunID != "" {
			span.SetAttributes(ParentRunID.String(info.ParentRunID))
		}
		if id, ok := chat.IDFrom(ctx); ok {
			span.SetAttributes(semconv.GenAIConversationID(id.Chat))
		}
		if info.Resumed {
			span.SetAttributes(Resumed.Bool(true))
			span.AddEvent(EventResumed)
		}
	}
	res, err := next(context.WithValue(ctx, stepKey{}, &runStep{owner: t, id: info.RunID, span: span, noop: !span.SpanContext().IsValid()}))
	if res != nil && span.IsRecording() {
		span.SetAttributes(Stop.String(string(res.Stop)))
		span.SetAttributes(usageAttrs(res.Usage.Total)...)
		span.SetAttributes(Requests.Int(res.Usage.Total.Requests), ToolCalls.Int(res.Usage.Total.ToolCalls))
		if res.Stop == assistant.StopPending && res.Paused != nil {
			span.AddEvent(EventPaused, trace.WithAttributes(attribute.Int("cadre.run.waiting", len(res.Paused.Waiting()))))
		}
	}
	if err != nil {
		fail(span, err)
	}
	return res, err
}

func (t *tracer) request(ctx context.Context, req *assistant.ModelRequest, next assistant.RequestNext) (model.Reply, error) {
	run, mine, spans := t.whose(ctx, req.RunID)
	if !mine {
		return next(ctx, req)
	}
	m := &req.Model
	st := t.startOf(startKey{op: "chat", name: m.Name, id: m.ID, provider: m.Provider, who: req.Assistant}, func() *start {
		id := m.ID
		if id == "" {
			id = m.Name
		}
		provider := providerName(m.Provider)
		return &start{name: "chat " + id, model: semconv.GenAIRequestModel(id), provider: genaiconv.ProviderNameAttr(provider),
			opts: []trace.SpanStartOption{
				trace.WithSpanKind(trace.SpanKindClient),
				trace.WithAttributes(semconv.GenAIOperationNameChat, semconv.GenAIProviderNameKey.String(provider), semconv.GenAIRequestModel(id),
					ModelName.String(m.Name), semconv.GenAIAgentName(req.Assistant)),
			}}
	})
	if !spans {
		began := time.Now()
		reply, err := next(ctx, req)
		t.measure(ctx, st, time.Since(began), reply, err)
		return reply, err
	}
	if run != nil {
		runEvents(run.span, req)
	}
	ctx, span := t.tracer.Start(ctx, st.name, st.opts...)
	defer span.End()
	if span.IsRecording() {
		span.SetAttributes(RunID.String(req.RunID), Attempt.Int(req.Attempt))
		if req.Output != nil {
			span.SetAttributes(semconv.GenAIOutputTypeJSON)
		}
		if t.content {
			t.recordInput(span, req)
		}
	}
	began := time.Now()
	reply, err := next(ctx, req)
	t.measure(ctx, st, time.Since(began), reply, err)
	if err != nil {
		fail(span, err)
		return reply, err
	}
	if span.IsRecording() {
		span.SetAttributes(usageAttrs(reply.Usage)...)
		if reply.StopReason != "" {
			span.SetAttributes(semconv.GenAIResponseFinishReasons(reply.StopReason))
		}
		if t.content {
			t.recordOutput(span, reply)
		}
	}
	return reply, nil
}

// runEvents puts on the run's span what a request says of the one before it: that its model
// failed and the next of the chain takes it (EventFallback), that it refused the output schema
// and is asked again with a tool (EventOutputFallback), or that its answer could not be used
// (EventCorrection).
func runEvents(span trace.Span, req *assistant.ModelRequest) {
	if !span.IsRecording() || req.Fallback == nil && req.Correction == nil {
		return
	}
	name, err := EventFallback, req.Fallback
	switch {
	case err == nil:
		name, err = EventCorrection, req.Correction
	case errors.Is(err, model.ErrOutputSchema):
		name = EventOutputFallback
	}
	span.AddEvent(name, trace.WithAttributes(ModelName.String(req.Model.Name), semconv.ErrorTypeKey.String(errorType(err)),
		attribute.String("exception.message", err.Error())))
}

// measure records a request's duration and, when it was answered, its tokens.
func (t *tracer) measure(ctx context.Context, st *start, d time.Duration, reply model.Reply, err error) {
	if t.duration.Enabled(ctx) {
		if err != nil {
			t.duration.Record(ctx, d.Seconds(), genaiconv.OperationNameChat, st.provider, st.model, semconv.ErrorTypeKey.String(errorType(err)))
		} else {
			t.duration.Record(ctx, d.Seconds(), genaiconv.OperationNameChat, st.provider, st.model)
		}
	}
	if err == nil && t.tokens.Enabled(ctx) {
		t.tokens.Record(ctx, int64(reply.Usage.InputTokens), genaiconv.OperationNameChat, st.provider, genaiconv.TokenTypeInput, st.model)
		t.tokens.Record(ctx, int64(reply.Usage.OutputTokens), genaiconv.OperationNameChat, st.provider, genaiconv.TokenTypeOutput, st.model)
	}
}

func (t *tracer) toolCall(ctx context.Context, call assistant.ToolCall, next assistant.ToolCallNext) (string, error) {
	if _, mine, spans := t.whose(ctx, call.RunID); !mine || !spans {
		return next(ctx, call)
	}
	st := t.startOf(startKey{op: "tool", name: call.Tool, who: call.Assistant}, func() *start {
		return &start{name: "execute_tool " + call.Tool, opts: []trace.SpanStartOption{
			trace.WithSpanKind(trace.SpanKindInternal),
			trace.WithAttributes(semconv.GenAIOperationNameExecuteTool, semconv.GenAIToolName(call.Tool), semconv.GenAIToolType("function"),
				semconv.GenAIAgentName(call.Assistant)),
		}}
	})
	ctx, span := t.tracer.Start(ctx, st.name, st.opts...)
	defer span.End()
	if span.IsRecording() {
		span.SetAttributes(semconv.GenAIToolCallID(call.ID), RunID.String(call.RunID))
		if t.content {
			span.SetAttributes(semconv.GenAIToolCallArgumentsKey.String(call.Arguments))
		}
	}
	result, err := next(ctx, call)
	if err != nil {
		fail(span, err)
		return result, err
	}
	if t.content && span.IsRecording() {
		span.SetAttributes(semconv.GenAIToolCallResultKey.String(result))
	}
	return result, nil
}

// usageAttrs are the token counts of u; the cache and reasoning ones only when there are any.
func usageAttrs(u usage.Usage) []attribute.KeyValue {
	attrs := []attribute.KeyValue{semconv.GenAIUsageInputTokens(u.InputTokens), semconv.GenAIUsageOutputTokens(u.OutputTokens)}
	if u.CacheReadTokens > 0 {
		attrs = append(attrs, semconv.GenAIUsageCacheReadInputTokens(u.CacheReadTokens))
	}
	if u.CacheWriteTokens > 0 {
		attrs = append(attrs, semconv.GenAIUsageCacheCreationInputTokens(u.CacheWriteTokens))
	}
	if u.ReasoningTokens > 0 {
		attrs = append(attrs, semconv.GenAIUsageReasoningOutputTokens(u.ReasoningTokens))
	}
	return attrs
}

// fail marks span failed by err: its status, error.type, and the error as an event.
func fail(span trace.Span, err error) {
	if !span.IsRecording() {
		return
	}
	span.SetStatus(codes.Error, err.Error())
	span.SetAttributes(semconv.ErrorTypeKey.String(errorType(err)))
	span.RecordError(err)
}

// errorType is error.type for err, of low cardinality as the conventions want: a provider's
// HTTP status, or the kind of cadre's errors, or "_OTHER".
func errorType(err error) string {
	var pe *model.ProviderError
	var le *usage.LimitError
	var oe *assistant.OutputError
	var se *assistant.ModelStopError
	switch {
	case errors.As(err, &pe) && pe.Status != 0:
		return strconv.Itoa(pe.Status)
	case errors.As(err, &pe):
		return "connection"
	case errors.As(err, &le):
		return "limit"
	case errors.As(err, &oe):
		return "output"
	case errors.As(err, &se):
		return "model_stop"
	case errors.Is(err, context.DeadlineExceeded):
		return "timeout"
	case errors.Is(err, context.Canceled):
		return "canceled"
	}
	return semconv.ErrorTypeOther.Value.AsString()
}

// providerName is gen_ai.provider.name for a model.Model's Provider: the conventions' value
// where they have one, the provider's own name otherwise.
func providerName(p string) string {
	switch p {
	case "googleai":
		return semconv.GenAIProviderNameGCPGemini.Value.AsString()
	case "bedrock":
		return semconv.GenAIProviderNameAWSBedrock.Value.AsString()
	case "azure":
		return semconv.GenAIProviderNameAzureAIOpenAI.Value.AsString()
	case "mistral":
		return semconv.GenAIProviderNameMistralAI.Value.AsString()
	case "":
		return "unknown"
	}
	return p
}
