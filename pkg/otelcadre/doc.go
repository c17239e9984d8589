// Package otelcadre traces cadre's runs with OpenTelemetry, by the GenAI semantic conventions:
// a span for each run (invoke_agent {assistant}), each model request (chat {model}, one per
// model tried along a fallback chain) and each tool call (execute_tool {tool}), and the
// gen_ai.client.token.usage and gen_ai.client.operation.duration histograms of the requests.
//
// One option traces an assistant and every run it delegates to:
//
//	supervisor := assistant.New[Plan]("supervisor", assistant.WithModels(factory),
//		assistant.WithTools(researcher.AsTool()),
//		otelcadre.Tracing())
//
// The spans nest as the work does: a top run's span is a child of the span in its context (an
// HTTP or MCP request's), a request's and a call's spans are children of their run's, and a
// delegated run's span is a child of the call that started it. A tool gets its call's span in
// its context, so the spans of an instrumented HTTP client inside it nest there too.
//
// The spans carry gen_ai.operation.name, gen_ai.agent.name, gen_ai.conversation.id (the chat,
// when the run has one), gen_ai.provider.name (a request's: its model's provider; a run's: the
// provider of its chain's first model), gen_ai.request.model (the provider's model id;
// the llm.yaml name is cadre.model.name), gen_ai.response.finish_reasons, the token counts
// (gen_ai.usage.input_tokens, output_tokens, cache_read.input_tokens,
// cache_creation.input_tokens, reasoning.output_tokens), gen_ai.tool.name and
// gen_ai.tool.call.id, and error.type on a failure. A run's span has events for a pause, a
// resume, a fallback and a correction. What the model and the tools were sent and answered is
// recorded only WithContent; an API key never is.
//
// The tracer and meter providers are the global ones (otel.GetTracerProvider,
// otel.GetMeterProvider) unless WithTracerProvider and WithMeterProvider say otherwise: a
// program that sets none pays for no-op spans only (see BenchmarkW2Tracing). The package is
// built on the run loop's seam, assistant.Middleware; programs that do not import it do not
// link OpenTelemetry, and it does not link OpenTelemetry's SDK.
package otelcadre
