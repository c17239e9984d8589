package eval

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// tallied is a report of cases given as passes of n, and the evaluator "check" graded on
// every run; it has only the counts Compare reads.
func tallied(subject string, cases ...struct {
	name      string
	passes, n int
}) *Report {
	r := &Report{Version: ReportVersion, Subject: subject, Summary: Summary{Evaluators: map[string]EvaluatorSummary{}}}
	for _, c := range cases {
		r.Cases = append(r.Cases, CaseReport{Name: c.name, Passes: c.passes, N: c.n})
		r.Summary.Passes += c.passes
		r.Summary.Runs += c.n
	}
	r.Summary.Evaluators["check"] = EvaluatorSummary{Runs: r.Summary.Runs, Passes: r.Summary.Passes}
	r.Summary.Evaluators["tone"] = EvaluatorSummary{Runs: r.Summary.Runs, Labels: map[string]int{"polite": r.Summary.Runs}}
	return r
}

type tally = struct {
	name      string
	passes, n int
}

func TestCompareClassifiesByNewcombe(t *testing.T) {
	t.Parallel()
	before := tallied("v1",
		tally{"worse", 10, 10}, tally{"better", 2, 10}, tally{"noise", 5, 10},
		tally{"once", 1, 1}, tally{"skipped", 3, 3}, tally{"gone", 1, 1})
	after := tallied("v2",
		tally{"new", 1, 1}, tally{"worse", 2, 10}, tally{"better", 10, 10}, tally{"noise", 6, 10},
		tally{"once", 0, 1}, tally{"skipped", 0, 0})
	c := Compare(before, after)

	// The intervals, computed apart from this package from Newcombe's method 10 with z =
	// 1.959963984540054.
	want := []Change{
		{Name: "worse", BeforePasses: 10, BeforeN: 10, AfterPasses: 2, AfterN: 10, Diff: -0.8, Interval: [2]float64{-0.9433178485456248, -0.3840387649744067}, Trend: Regression},
		{Name: "better", BeforePasses: 2, BeforeN: 10, AfterPasses: 10, AfterN: 10, Diff: 0.8, Interval: [2]float64{0.3840387649744067, 0.9433178485456248}, Trend: Improvement},
		{Name: "noise", BeforePasses: 5, BeforeN: 10, AfterPasses: 6, AfterN: 10, Diff: 0.1, Interval: [2]float64{-0.28979425671088227, 0.4508896685581262}, Trend: Unchanged},
		{Name: "once", BeforePasses: 1, BeforeN: 1, AfterPasses: 0, AfterN: 1, Diff: -1, Interval: [2]float64{-1, 0.12210872068194178}, Trend: Unchanged, Once: true},
		{Name: "skipped", BeforePasses: 3, BeforeN: 3, Interval: [2]float64{-1, 1}, Trend: NotRun},
	}
	approx := cmp.Comparer(func(a, b float64) bool { return math.Abs(a-b) < 1e-9 })
	if diff := cmp.Diff(want, c.Cases, approx); diff != "" {
		t.Errorf("cases (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"new"}, c.Added); diff != "" {
		t.Errorf("added (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"gone"}, c.Removed); diff != "" {
		t.Errorf("removed (-want +got):\n%s", diff)
	}
	// check ran 35 times before (22 passed) and 32 after (19 passed): Newcombe decides.
	d, lo, hi := Newcombe(22, 35, 19, 32, 0.95)
	wantCheck := Change{Name: "check", Evaluator: true, BeforePasses: 22, BeforeN: 35, AfterPasses: 19, AfterN: 32, Diff: d, Interval: [2]float64{lo, hi}, Trend: Unchanged}
	if diff := cmp.Diff([]Change{wantCheck}, c.Evaluators, approx); diff != "" {
		t.Errorf("evaluators, the labeller left out (-want +got):\n%s", diff)
	}
	if c.Overall.BeforeN != 35 || c.Overall.AfterN != 32 || c.Overall.Evaluator {
		t.Errorf("overall = %+v, want every run of each side", c.Overall)
	}

	var names []string
	for _, r := range c.Regressions() {
		names = append(names, r.Name)
	}
	if diff := cmp.Diff([]string{"worse"}, names); diff != "" {
		t.Errorf("regressions (-want +got):\n%s", diff)
	}
}

func TestCompareOfTheSameReportHasNoRegression(t *testing.T) {
	t.Parallel()
	r := sampleReport()
	c := Compare(r, r)
	if len(c.Regressions()) != 0 || len(c.Added)+len(c.Removed) != 0 {
		t.Errorf("Compare(r, r) = %+v, want nothing changed", c)
	}
	for _, ch := range c.Cases {
		if ch.Trend != Unchanged || ch.Diff != 0 {
			t.Errorf("case %q: %+v, want unchanged", ch.Name, ch)
		}
	}
}

func TestComparisonWriters(t *testing.T) {
	t.Parallel()
	before := tallied("v1", tally{"worse", 10, 10}, tally{"noise", 5, 10}, tally{"once", 1, 1}, tally{"gone | old", 1, 1})
	after := tallied("v2", tally{"noise", 6, 10}, tally{"worse", 2, 10}, tally{"once", 0, 1}, tally{"new", 1, 1})
	c := Compare(before, after)

	var text bytes.Buffer
	if err := c.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	squeezed := strings.Join(strings.Fields(text.String()), " ")
	for _, want := range []string{"v1 → v2: 17/22 → 9/22, -36% [-58%, -7%], regression",
		"worse 10/10 2/10 -80% [-94%, -38%] regression", "once 1/1 0/1 -100% [-100%, +12%] unchanged (once)",
		"check 17/22 9/22 -36% [-58%, -7%] regression", "added: new", "removed: gone | old"} {
		if !strings.Contains(squeezed, want) {
			t.Errorf("the text lacks %q:\n%s", want, text.String())
		}
	}

	var md bytes.Buffer
	if err := c.WriteMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	out := md.String()
	regression := "| 🔻 | worse | 10/10 | 2/10 | -80% | [-94%, -38%] | regression |"
	noise := "|  | noise | 5/10 | 6/10 | +10% | [-29%, +45%] | unchanged |"
	for _, want := range []string{"**3 regression(s)**", regression, noise, "| 🔻 | evaluator check |", "Removed: gone \\| old"} {
		if !strings.Contains(out, want) {
			t.Errorf("the markdown lacks %q:\n%s", want, out)
		}
	}
	if strings.Index(out, regression) > strings.Index(out, noise) {
		t.Errorf("the regression is not first:\n%s", out)
	}
}
