// Package exampleotel is the examples' -otel flag: their runs traced with otelcadre through
// OpenTelemetry's SDK, the spans sent over OTLP/HTTP when the environment names a collector
// (OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, as the exporter reads
// them), and printed to a writer, as indented JSON, otherwise.
//
// A program of your own does the same in a dozen lines: see docs/observability.md.
package exampleotel

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/cadrehq/cadre/pkg/assistant"
	"github.com/cadrehq/cadre/pkg/otelcadre"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/exporters/stdout/stdouttrace"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// Usage is the -otel flag's help.
const Usage = "trace the runs with OpenTelemetry: the spans go to stderr, or over OTLP/HTTP to the collector OTEL_EXPORTER_OTLP_ENDPOINT names"

// Tracing is an example's tracing: on, with a provider that exports its spans, or off. The
// zero Tracing (and a nil one) is off.
type Tracing struct {
	tp *sdktrace.TracerProvider
}

// Start turns tracing on for the example named service (the service.name of its spans, unless
// OTEL_SERVICE_NAME says otherwise). The spans go over OTLP/HTTP when the environment names an
// endpoint, and to w otherwise. With a nil w, tracing is off, whatever the environment says.
func Start(ctx context.Context, service string, w io.Writer) (*Tracing, error) {
	if w == nil {
		return &Tracing{}, nil
	}
	exporter, err := newExporter(ctx, w)
	if err != nil {
		return nil, err
	}
	// The service's name first, so that OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES, read
	// after it, win.
	res, err := resource.New(ctx, resource.WithAttributes(attribute.String("service.name", service)),
		resource.WithFromEnv(), resource.WithTelemetrySDK())
	if err != nil {
		return nil, err
	}
	return &Tracing{tp: sdktrace.NewTracerProvider(sdktrace.WithBatcher(exporter), sdktrace.WithResource(res))}, nil
}

// newExporter returns the OTLP/HTTP exporter when the environment names an endpoint, and the
// stdout exporter writing to w otherwise.
func newExporter(ctx context.Context, w io.Writer) (sdktrace.SpanExporter, error) {
	if endpointSet() {
		// The exporter reads the endpoint, headers, compression and timeout from the
		// environment itself.
		return otlptracehttp.New(ctx)
	}
	return stdouttrace.New(stdouttrace.WithWriter(w), stdouttrace.WithPrettyPrint())
}

// endpointSet reports whether the environment names an OTLP endpoint for traces, as the
// exporter reads it: a variable of blanks is not set.
func endpointSet() bool {
	for _, v := range []string{"OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"} {
		if strings.TrimSpace(os.Getenv(v)) != "" {
			return true
		}
	}
	return false
}

// Option is the option that traces an assistant's runs and the runs it delegates to: give it to
// the top assistants. Off, it does nothing.
func (t *Tracing) Option() assistant.Option {
	if t == nil || t.tp == nil {
		return assistant.Options()
	}
	return otelcadre.Tracing(otelcadre.WithTracerProvider(t.tp))
}

// Shutdown exports the spans not yet exported and stops the provider; its error says when the
// spans could not be exported. It gives the export a few seconds even when ctx is done: the
// spans of a run that Ctrl-C ended are worth having.
func (t *Tracing) Shutdown(ctx context.Context) error {
	if t == nil || t.tp == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	// ForceFlush returns the export's error; Shutdown would only hand it to otel.Handle.
	if err := errors.Join(t.tp.ForceFlush(ctx), t.tp.Shutdown(ctx)); err != nil {
		return fmt.Errorf("exporting the spans: %w", err)
	}
	return nil
}
