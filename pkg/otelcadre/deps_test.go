package otelcadre_test

import (
	"strings"
	"testing"

	"github.com/cadrehq/cadre/internal/depstest"
)

// OpenTelemetry's SDK and its exporters are linked only by programs that install them: the
// assistants, the factory and the models do not depend on them, and this package needs only
// the API, so that a program chooses its SDK and exporter, or none. Its tests use both, to
// check the spans as a backend gets them.
func TestOnlyProgramsLinkTheSDK(t *testing.T) {
	t.Parallel()
	// under returns the packages of found under any of the prefixes.
	under := func(found map[string]bool, prefixes ...string) []string {
		var out []string
		for p := range found {
			for _, prefix := range prefixes {
				if p == prefix || strings.HasPrefix(p, prefix+"/") {
					out = append(out, p)
					break
				}
			}
		}
		return out
	}
	const (
		cadre     = "github.com/cadrehq/cadre/pkg/"
		sdk       = "go.opentelemetry.io/otel/sdk"
		exporters = "go.opentelemetry.io/otel/exporters"
		otlp      = "go.opentelemetry.io/proto/otlp"
	)
	for _, pkg := range []string{cadre + "assistant", cadre + "llmfactory", cadre + "model"} {
		if found := under(depstest.Deps(t, pkg), sdk, exporters, otlp); len(found) > 0 {
			t.Errorf("%s depends on OpenTelemetry's SDK or an exporter: %s", pkg, strings.Join(found, ", "))
		}
	}
	if found := under(depstest.Deps(t, cadre+"otelcadre"), sdk, exporters, otlp); len(found) > 0 {
		t.Errorf("otelcadre depends on an SDK or an exporter: %s", strings.Join(found, ", "))
	}
	// The check itself works: with its tests, this package does depend on them.
	withTests := depstest.Deps(t, "-test", cadre+"otelcadre")
	for _, p := range []string{sdk + "/trace", exporters + "/otlp/otlptrace/otlptracehttp", otlp + "/collector/trace/v1"} {
		if !withTests[p] {
			t.Errorf("go list does not find %s among the test's dependencies: the check above proves nothing", p)
		}
	}
}
