package exampleotel

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cadrehq/cadre/pkg/assistant"
	"github.com/cadrehq/cadre/pkg/llmtest"
	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/protobuf/proto"
)

func testContext(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// runOnce runs an assistant traced by tr, then shuts tr down.
func runOnce(t *testing.T, tr *Tracing) {
	t.Helper()
	ctx := testContext(t)
	a := assistant.New[string]("helper", assistant.WithModel(llmtest.NewScripted(llmtest.Text("done"))), tr.Option())
	if _, err := a.Run(ctx, assistant.Input{Prompt: "x?"}); err != nil {
		t.Fatal(err)
	}
	if err := tr.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
}

// noEndpoint clears the variables that would send the spans to a collector.
func noEndpoint(t *testing.T) {
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "")
	t.Setenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "")
}

// TestOff: without a writer, tracing is off, whatever the environment says.
func TestOff(t *testing.T) {
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:1")
	tr, err := Start(testContext(t), "example", nil)
	if err != nil {
		t.Fatal(err)
	}
	runOnce(t, tr)
	var none *Tracing
	if none.Option() == nil || none.Shutdown(testContext(t)) != nil {
		t.Error("a nil Tracing is not off")
	}
}

// TestWriter: with no endpoint in the environment, the spans go to the writer as JSON, under
// the example's service name.
func TestWriter(t *testing.T) {
	noEndpoint(t)
	var out bytes.Buffer
	tr, err := Start(testContext(t), "example", &out)
	if err != nil {
		t.Fatal(err)
	}
	runOnce(t, tr)
	var names []string
	dec := json.NewDecoder(&out)
	for dec.More() {
		var span writtenSpan
		if err := dec.Decode(&span); err != nil {
			t.Fatalf("the spans written are not JSON: %v", err)
		}
		names = append(names, span.Name)
		if !span.hasResource("service.name", "example") {
			t.Errorf("%q: resource %v, want service.name example", span.Name, span.Resource)
		}
	}
	if strings.Join(names, ", ") != "chat scripted, invoke_agent helper" {
		t.Errorf("spans %v, want the request's and the run's", names)
	}
}

// writtenSpan is a span as the stdout exporter writes it, in part.
type writtenSpan struct {
	Name     string
	Resource []struct {
		Key   string
		Value struct{ Value any }
	}
}

func (s writtenSpan) hasResource(key, value string) bool {
	for _, kv := range s.Resource {
		if kv.Key == key && kv.Value.Value == value {
			return true
		}
	}
	return false
}

// TestEndpoint: with OTEL_EXPORTER_OTLP_ENDPOINT set, the spans go there over OTLP/HTTP, and
// not to the writer; the exporter reads the other variables itself (here the headers and the
// compression), and OTEL_SERVICE_NAME names the service.
func TestEndpoint(t *testing.T) {
	var mu sync.Mutex
	var got []*coltracepb.ExportTraceServiceRequest
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		req, err := decodeExport(r)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		mu.Lock()
		got = append(got, req)
		mu.Unlock()
	}))
	defer srv.Close()
	noEndpoint(t)
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", srv.URL)
	t.Setenv("OTEL_EXPORTER_OTLP_HEADERS", "x-api-key=k1")
	t.Setenv("OTEL_EXPORTER_OTLP_COMPRESSION", "gzip")
	for _, v := range []string{"OTEL_EXPORTER_OTLP_TRACES_HEADERS", "OTEL_EXPORTER_OTLP_TRACES_COMPRESSION", "OTEL_EXPORTER_OTLP_PROTOCOL", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"} {
		t.Setenv(v, "")
	}
	t.Setenv("OTEL_SERVICE_NAME", "renamed")

	var out bytes.Buffer
	tr, err := Start(testContext(t), "example", &out)
	if err != nil {
		t.Fatal(err)
	}
	runOnce(t, tr)
	if out.Len() > 0 {
		t.Errorf("the writer got %d bytes; the spans should have gone to the endpoint only", out.Len())
	}
	mu.Lock()
	defer mu.Unlock()
	var names []string
	for _, req := range got {
		for _, rs := range req.ResourceSpans {
			service := ""
			for _, kv := range rs.GetResource().GetAttributes() {
				if kv.Key == "service.name" {
					service = kv.Value.GetStringValue()
				}
			}
			for _, ss := range rs.ScopeSpans {
				for _, s := range ss.Spans {
					names = append(names, s.Name)
					if service != "renamed" {
						t.Errorf("%q: service.name %q, want OTEL_SERVICE_NAME's", s.Name, service)
					}
				}
			}
		}
	}
	if strings.Join(names, ", ") != "chat scripted, invoke_agent helper" {
		t.Errorf("the endpoint got spans %v, want the request's and the run's", names)
	}
}

// TestEndpointRefuses: spans the collector refuses make Shutdown fail, saying so.
func TestEndpointRefuses(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "no", http.StatusBadRequest) // not to be retried
	}))
	defer srv.Close()
	noEndpoint(t)
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", srv.URL)
	ctx := testContext(t)
	tr, err := Start(ctx, "example", io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	a := assistant.New[string]("helper", assistant.WithModel(llmtest.NewScripted(llmtest.Text("done"))), tr.Option())
	if _, err := a.Run(ctx, assistant.Input{Prompt: "x?"}); err != nil {
		t.Fatal(err)
	}
	if err := tr.Shutdown(ctx); err == nil || !strings.Contains(err.Error(), "exporting the spans") {
		t.Errorf("Shutdown = %v, want the export's error", err)
	}
}

// decodeExport reads an export of traces as a collector does, refusing one without the headers
// and the compression that TestEndpoint's environment asks for.
func decodeExport(r *http.Request) (*coltracepb.ExportTraceServiceRequest, error) {
	switch {
	case r.Method != http.MethodPost || r.URL.Path != "/v1/traces":
		return nil, fmt.Errorf("%s %s, not an export of traces", r.Method, r.URL.Path)
	case r.Header.Get("x-api-key") != "k1":
		return nil, errors.New("no x-api-key header: OTEL_EXPORTER_OTLP_HEADERS was not read")
	case r.Header.Get("Content-Encoding") != "gzip":
		return nil, errors.New("not gzipped: OTEL_EXPORTER_OTLP_COMPRESSION was not read")
	}
	gz, err := gzip.NewReader(r.Body)
	if err != nil {
		return nil, err
	}
	defer gz.Close()
	body, err := io.ReadAll(io.LimitReader(gz, 1<<20))
	if err != nil {
		return nil, err
	}
	var req coltracepb.ExportTraceServiceRequest
	if err := proto.Unmarshal(body, &req); err != nil {
		return nil, err
	}
	return &req, nil
}
