package eval_test

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cadrehq/cadre/internal/browsertest"
	"github.com/cadrehq/cadre/pkg/eval"
	"github.com/cadrehq/cadre/pkg/usage"
)

var update = flag.Bool("update", false, "write docs/evals-report.png from the HTML report's test")

// TestTheHTMLReportInABrowser opens the HTML report of two evals in Chromium: the chart
// renders a bar per case and report, a case's run opens on a click and shows its answer,
// tool calls and grades, a <script> in a model's answer is shown as text and never runs, and
// the page logs no error (the harness fails the test on one). With -update it writes the
// screenshot that docs/evals.md shows.
func TestTheHTMLReportInABrowser(t *testing.T) {
	t.Parallel()
	const hostile = `<script>window.pwned = true</script>`
	d := &eval.Dataset[string, city]{
		Name: "cities",
		Cases: []eval.Case[string, city]{
			{Name: "oslo", Input: "Oslo", Expected: &city{Name: "Oslo", Population: 709000}},
			{Name: "lima", Input: "Lima", Expected: &city{Name: "Lima", Population: 10_000_000}},
			{Name: "nice", Input: "Nice", Expected: &city{Name: "Nice", Population: 342_000}},
		},
		Evaluators: []eval.Evaluator[city]{
			eval.Equals[city](eval.Tolerance("population", 1000)),
			eval.Trajectory[city](eval.Exactly, eval.Call{Tool: "lookup"}),
		},
	}
	good := geo(func(p string) string {
		switch p {
		case "Oslo":
			return `{"name":"Oslo","population":709000}`
		case "Nice":
			return `{"name":"Nice","population":342500}`
		}
		return `{"name":"Lima","population":9900000,"tags":["` + strings.ReplaceAll(hostile, `"`, `\"`) + `"]}`
	}, usage.Usage{InputTokens: 120, OutputTokens: 30})
	rough := geo(func(p string) string { return `{"name":"` + p + `","population":1}` }, usage.Usage{InputTokens: 80, OutputTokens: 20})
	var reports []*eval.Report
	for _, a := range []struct {
		name string
		run  func() (*eval.Report, error)
	}{
		{"good", func() (*eval.Report, error) { return eval.Evaluate(testContext(t), d, good, eval.WithRepeat(2)) }},
		{"rough", func() (*eval.Report, error) { return eval.Evaluate(testContext(t), d, rough, eval.WithRepeat(2)) }},
	} {
		rep, err := a.run()
		if err != nil {
			t.Fatal(err)
		}
		rep.Variant = a.name
		reports = append(reports, rep)
	}
	page := filepath.Join(t.TempDir(), "report.html")
	f, err := os.Create(page)
	if err != nil {
		t.Fatal(err)
	}
	if err := eval.WriteHTML(f, reports...); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}

	b := browsertest.New(t)
	p := b.Page(t)
	p.Navigate("file://" + page)
	p.WaitVisible("svg#chart")
	bars := browsertest.Eval[[]float64](p, `[...document.querySelectorAll("svg#chart rect.bar")].map(r => r.getBoundingClientRect().width * r.getBoundingClientRect().height)`)
	if len(bars) != len(d.Cases)*len(reports) {
		t.Fatalf("%d bars in the chart; want one per case and report (%d)", len(bars), len(d.Cases)*len(reports))
	}
	drawn := 0
	for _, area := range bars {
		if area > 0 {
			drawn++
		}
	}
	if drawn == 0 {
		t.Error("no bar of the chart is drawn")
	}

	// The run of lima by the first report is closed; a click opens it.
	run := `details.run[data-case="lima"][data-report="0"][data-run="1"]`
	if open := browsertest.Eval[bool](p, `!!document.querySelector('`+run+`').open`); open {
		t.Fatal("the run is open before any click")
	}
	p.Click(`details.case[data-case="lima"] > summary`)
	p.Click(run + ` > summary`)
	p.WaitVisible(run + ` .run-details`)
	if got := p.Text(run + ` .run-text`); !strings.Contains(got, hostile) {
		t.Errorf("the answer shows %q; want the script as text", got)
	}
	if pwned := browsertest.Eval[bool](p, `window.pwned === true`); pwned {
		t.Error("a script in a model's answer ran")
	}
	if tool := p.Text(run + ` table.calls tr.call[data-tool="lookup"] .call-arguments`); !strings.Contains(tool, "Lima") {
		t.Errorf("the run's tool call shows %q", tool)
	}
	if reason := p.Text(run + ` table.grades tr.grade[data-evaluator="equals"] .grade-reason`); reason == "" {
		t.Error("the equals grade has no reason shown")
	}

	if *update {
		if err := os.WriteFile(filepath.Join("..", "..", "docs", "evals-report.png"), p.Screenshot(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
