package main

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cadrehq/cadre/pkg/eval"
)

var update = flag.Bool("update", false, "write baseline.json from the offline eval's deep model")

// TestEvalOffline: the offline eval prints the matrix of the two models — the careful one
// passes every run, the cheap one half — writes a self-contained HTML report, and finds no
// regression against the stored baseline.
func TestEvalOffline(t *testing.T) {
	if *update {
		reports, err := evaluate(context.Background(), new(bytes.Buffer), "", "")
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := reports[len(reports)-1].WriteJSON(&b); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile("baseline.json", b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Skip("wrote baseline.json: run the test again to check against it")
	}
	html := filepath.Join(t.TempDir(), "report.html")
	var out bytes.Buffer
	if err := run(context.Background(), &out, "", "", html); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	got := out.String()
	for _, want := range []string{
		"eval: offline, with scripted models (no API key needed)",
		"researcher (fast)  trip research  0.64   6/12    50%   [25%, 75%]",
		"researcher (deep)  trip research  0.98   12/12   100%  [76%, 100%]",
		"$0.0012", "$0.0720",
		"the HTML report: " + html,
		"deep against the baseline (deep):",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the output lacks %q:\n%s", want, got)
		}
	}
	page, err := os.ReadFile(html)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(page, []byte(`data-case="reykjavik"`)) || bytes.Contains(page, []byte("https://")) {
		t.Errorf("the HTML report does not show the cases, or loads something from the network")
	}
	if _, err := eval.ReadReport(bytes.NewReader(baseline)); err != nil {
		t.Errorf("the stored baseline: %v", err)
	}
}
