package otelcadre

import (
	"context"
	"errors"
	"strconv"
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
// the Middleware, and the Events handler. Give it once, to the top assistant (or to a run, in
// Input.Options); given to a specialist as well, the spans of its runs are not made twice.
func Tracing(opts ...Option) assistant.Option {
	return assistant.Options(assistant.WithMiddleware(Middleware(opts...)), assistant.WithCallback(Events()))
}

// tracer makes the spans and records the metrics of runs.
type tracer struct {
	tracer   trace.Tracer
	tokens   genaiconv.ClientTokenUsage
	duration genaiconv.ClientOperationDuration
	content  bool
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
	t := &tracer{tracer: c.tp.Tracer(ScopeName, trace.WithSchemaURL(semconv.SchemaURL)), content: c.content}
	// An error here is an SDK's refusal of the instrument; the conventions' own noop stands in.
	t.tokens, _ = genaiconv.NewClientTokenUsage(meter, metric.WithExplicitBucketBoundaries(tokenBuckets...))
	t.duration, _ = genaiconv.NewClientOperationDuration(meter, metric.WithExplicitBucketBoundaries(durationBuckets...))
	return assistant.Middleware{Run: t.run, Request: t.request, ToolCall: t.toolCall}
}

// step is the span a context is in, as this package made it: a middleware given at two levels
// of a delegation tree (a supervisor's and a specialist's) sees each step twice, and makes
// its span once.
type step struct {
	kind string // "run", "request" or "tool"
	id   string // the run's id; a request's run id; the call's id
	n    int    // a request's attempt
	span trace.Span
	// last is the last event the run's span was given, against events sent twice (Events).
	last eventKey
}

type eventKey struct {
	kind string
	at   time.Time
}

type stepKey struct{}

func stepOf(ctx context.Context) *step {
	s, _ := ctx.Value(stepKey{}).(*step)
	return s
}

func (t *tracer) run(ctx context.Context, info assistant.RunInfo, next assistant.RunNext) (*assistant.Response, error) {
	if s := stepOf(ctx); s != nil && s.kind == "run" && s.id == info.RunID {
		return next(ctx)
	}
	attrs := []attribute.KeyValue{
		semconv.GenAIOperationNameInvokeAgent,
		semconv.GenAIAgentName(info.Assistant),
		RunID.String(info.RunID),
		Depth.Int(info.Depth),
	}
	if info.ParentRunID != "" {
		attrs = append(attrs, ParentRunID.String(info.ParentRunID))
	}
	if id, ok := chat.IDFrom(ctx); ok {
		attrs = append(attrs, semconv.GenAIConversationID(id.Chat))
	}
	if info.Resumed {
		attrs = append(attrs, Resumed.Bool(true))
	}
	ctx, span := t.tracer.Start(ctx, "invoke_agent "+info.Assistant, trace.WithSpanKind(trace.SpanKindInternal), trace.WithAttributes(attrs...))
	defer span.End()
	if info.Resumed {
		span.AddEvent(EventResumed)
	}
	res, err := next(context.WithValue(ctx, stepKey{}, &step{kind: "run", id: info.RunID, span: span}))
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
	if s := stepOf(ctx); s != nil && s.kind == "request" && s.id == req.RunID && s.n == req.Attempt {
		return next(ctx, req)
	}
	id := req.Model.ID
	if id == "" {
		id = req.Model.Name
	}
	provider := providerName(req.Model.Provider)
	ctx, span := t.tracer.Start(ctx, "chat "+id, trace.WithSpanKind(trace.SpanKindClient))
	defer span.End()
	if span.IsRecording() {
		span.SetAttributes(
			semconv.GenAIOperationNameChat,
			semconv.GenAIProviderNameKey.String(provider),
			semconv.GenAIRequestModel(id),
			ModelName.String(req.Model.Name),
			semconv.GenAIAgentName(req.Assistant),
			RunID.String(req.RunID),
			Attempt.Int(req.Attempt),
		)
		if t.content {
			t.recordInput(span, req)
		}
	}
	start := time.Now()
	reply, err := next(context.WithValue(ctx, stepKey{}, &step{kind: "request", id: req.RunID, n: req.Attempt, span: span}), req)
	elapsed := time.Since(start).Seconds()
	attrs := []attribute.KeyValue{semconv.GenAIRequestModel(id)}
	if err != nil {
		fail(span, err)
		attrs = append(attrs, semconv.ErrorTypeKey.String(errorType(err)))
		t.duration.Record(ctx, elapsed, genaiconv.OperationNameChat, genaiconv.ProviderNameAttr(provider), attrs...)
		return reply, err
	}
	t.duration.Record(ctx, elapsed, genaiconv.OperationNameChat, genaiconv.ProviderNameAttr(provider), attrs...)
	t.tokens.Record(ctx, int64(reply.Usage.InputTokens), genaiconv.OperationNameChat, genaiconv.ProviderNameAttr(provider), genaiconv.TokenTypeInput, attrs...)
	t.tokens.Record(ctx, int64(reply.Usage.OutputTokens), genaiconv.OperationNameChat, genaiconv.ProviderNameAttr(provider), genaiconv.TokenTypeOutput, attrs...)
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

func (t *tracer) toolCall(ctx context.Context, call assistant.ToolCall, next assistant.ToolCallNext) (string, error) {
	if s := stepOf(ctx); s != nil && s.kind == "tool" && s.id == call.ID {
		return next(ctx, call)
	}
	ctx, span := t.tracer.Start(ctx, "execute_tool "+call.Tool, trace.WithSpanKind(trace.SpanKindInternal))
	defer span.End()
	if span.IsRecording() {
		span.SetAttributes(
			semconv.GenAIOperationNameExecuteTool,
			semconv.GenAIToolName(call.Tool),
			semconv.GenAIToolCallID(call.ID),
			semconv.GenAIToolType("function"),
			semconv.GenAIAgentName(call.Assistant),
			RunID.String(call.RunID),
		)
		if t.content {
			span.SetAttributes(semconv.GenAIToolCallArgumentsKey.String(call.Arguments))
		}
	}
	result, err := next(context.WithValue(ctx, stepKey{}, &step{kind: "tool", id: call.ID, span: span}), call)
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
