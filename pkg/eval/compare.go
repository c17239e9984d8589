package eval

import (
	"bufio"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"text/tabwriter"
)

// Trend is what a Change says of a pass rate from one report to the next.
type Trend string

const (
	// Unchanged: the interval of the difference holds 0, so the change may be noise.
	Unchanged Trend = "unchanged"
	// Improvement: the interval of the difference lies wholly above 0.
	Improvement Trend = "improvement"
	// Regression: the interval of the difference lies wholly below 0.
	Regression Trend = "regression"
	// NotRun: one side has no run to compare (a budget or a cancellation left them all out).
	NotRun Trend = "not run"
)

// Change is a pass rate before and after: a case's, an evaluator's over every run it graded,
// or the whole eval's.
type Change struct {
	Name string
	// Evaluator is true for an evaluator's change, false for a case's or the eval's.
	Evaluator             bool
	BeforePasses, BeforeN int
	AfterPasses, AfterN   int
	Diff                  float64    // the pass rate after minus before; 0 when NotRun
	Interval              [2]float64 // Diff's 95 % Newcombe interval; [-1, 1] when NotRun
	Trend                 Trend
	// Once is true when a side ran once: one run cannot tell a change from noise, whatever the
	// trend.
	Once bool
}

// Comparison is what changed from one report to another of the same dataset.
type Comparison struct {
	Before, After string // the reports' subjects and variants
	Overall       Change // every run
	// Cases are the cases of both reports, in the order of the report after; Evaluators are
	// the evaluators that graded a pass or fail in both, by name.
	Cases, Evaluators []Change
	// Added are the cases only after, Removed those only before, each in its report's order.
	Added, Removed []string
}

// Compare compares before with after: every case and evaluator in both, and the whole eval, by
// the difference of their pass rates and its 95 % Newcombe interval (Newcombe with before as A).
// A difference whose interval lies wholly below 0 is a Regression, wholly above an
// Improvement, else Unchanged: the difference may be noise.
func Compare(before, after *Report) Comparison {
	c := Comparison{Before: before.label(), After: after.label()}
	c.Overall = change("overall", before.Summary.Passes, before.Summary.Runs, after.Summary.Passes, after.Summary.Runs)
	prior := map[string]*CaseReport{}
	for i := range before.Cases {
		prior[before.Cases[i].Name] = &before.Cases[i]
	}
	seen := map[string]bool{}
	for _, a := range after.Cases {
		seen[a.Name] = true
		b, ok := prior[a.Name]
		if !ok {
			c.Added = append(c.Added, a.Name)
			continue
		}
		c.Cases = append(c.Cases, change(a.Name, b.Passes, b.N, a.Passes, a.N))
	}
	for _, b := range before.Cases {
		if !seen[b.Name] {
			c.Removed = append(c.Removed, b.Name)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(after.Summary.Evaluators)) {
		b, ok := before.Summary.Evaluators[name]
		a := after.Summary.Evaluators[name]
		nb, na := b.Runs-sumLabels(b.Labels), a.Runs-sumLabels(a.Labels)
		if !ok || nb == 0 || na == 0 {
			continue // a labeller, or an evaluator of one side only
		}
		ch := change(name, b.Passes, nb, a.Passes, na)
		ch.Evaluator = true
		c.Evaluators = append(c.Evaluators, ch)
	}
	return c
}

// change compares passes of n before with passes of n after.
func change(name string, passesB, nB, passesA, nA int) Change {
	ch := Change{Name: name, BeforePasses: passesB, BeforeN: nB, AfterPasses: passesA, AfterN: nA}
	diff, lo, hi := Newcombe(passesB, nB, passesA, nA, confidence)
	if math.IsNaN(diff) {
		ch.Trend, ch.Interval = NotRun, [2]float64{-1, 1}
		return ch
	}
	ch.Diff, ch.Interval, ch.Once = diff, [2]float64{lo, hi}, nB == 1 || nA == 1
	switch {
	case hi < 0:
		ch.Trend = Regression
	case lo > 0:
		ch.Trend = Improvement
	default:
		ch.Trend = Unchanged
	}
	return ch
}

// Regressions returns the changes that are regressions: the whole eval's, then the cases', then
// the evaluators'. A CI job fails when it is not empty.
func (c Comparison) Regressions() []Change {
	var out []Change
	for _, ch := range append(append([]Change{c.Overall}, c.Cases...), c.Evaluators...) {
		if ch.Trend == Regression {
			out = append(out, ch)
		}
	}
	return out
}

// WriteText writes c as text for a terminal: the overall change, a table of the cases and one
// of the evaluators (before, after, the difference, its 95 % interval and the trend, with
// "once" when a side ran once), and the cases added and removed.
func (c Comparison) WriteText(w io.Writer) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "%s → %s: %s\n", oneLine(c.Before), oneLine(c.After), c.Overall.describe())
	for _, t := range []struct {
		title   string
		changes []Change
	}{{"CASE", c.Cases}, {"EVALUATOR", c.Evaluators}} {
		if len(t.changes) == 0 {
			continue
		}
		fmt.Fprintln(bw)
		tw := tabwriter.NewWriter(bw, 0, 0, 2, ' ', 0)
		fmt.Fprintf(tw, "%s\tBEFORE\tAFTER\tDIFF\t95%% INTERVAL\tTREND\n", t.title)
		for _, ch := range t.changes {
			fmt.Fprintf(tw, "%s\t%d/%d\t%d/%d\t%s\t%s\t%s\n", oneLine(ch.Name), ch.BeforePasses, ch.BeforeN,
				ch.AfterPasses, ch.AfterN, signedPercent(ch.Diff), signedInterval(ch.Interval), ch.trendText())
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	writeNames(bw, "\nadded", c.Added, oneLine)
	writeNames(bw, "removed", c.Removed, oneLine)
	return bw.Flush()
}

// WriteMarkdown writes c as Markdown for a pull-request comment: the overall change, the
// regressions and improvements first, then a table of every case and evaluator, every string
// escaped.
func (c Comparison) WriteMarkdown(w io.Writer) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "### Eval comparison: %s → %s\n\n", mdText(c.Before), mdText(c.After))
	fmt.Fprintf(bw, "Overall: %s\n\n", c.Overall.describe())
	if n := len(c.Regressions()); n > 0 {
		fmt.Fprintf(bw, "**%d regression(s)**\n\n", n)
	}
	all := append(slices.Clone(c.Cases), c.Evaluators...)
	rank := map[Trend]int{Regression: 0, Improvement: 1, NotRun: 2, Unchanged: 3}
	slices.SortStableFunc(all, func(a, b Change) int { return rank[a.Trend] - rank[b.Trend] })
	fmt.Fprintln(bw, "| | Case or evaluator | Before | After | Diff | 95 % interval | Trend |")
	fmt.Fprintln(bw, "|---|---|---:|---:|---:|---|---|")
	for _, ch := range all {
		name := mdText(ch.Name)
		if ch.Evaluator {
			name = "evaluator " + name
		}
		fmt.Fprintf(bw, "| %s | %s | %d/%d | %d/%d | %s | %s | %s |\n", ch.mark(), name, ch.BeforePasses, ch.BeforeN,
			ch.AfterPasses, ch.AfterN, signedPercent(ch.Diff), signedInterval(ch.Interval), ch.trendText())
	}
	writeNames(bw, "\nAdded", c.Added, mdText)
	writeNames(bw, "Removed", c.Removed, mdText)
	return bw.Flush()
}

func writeNames(w io.Writer, title string, names []string, escape func(string) string) {
	if len(names) == 0 {
		return
	}
	fmt.Fprintf(w, "%s:", title)
	for i, n := range names {
		sep := ","
		if i == 0 {
			sep = ""
		}
		fmt.Fprintf(w, "%s %s", sep, escape(n))
	}
	fmt.Fprintln(w)
}

func (ch Change) describe() string {
	return fmt.Sprintf("%d/%d → %d/%d, %s %s, %s", ch.BeforePasses, ch.BeforeN, ch.AfterPasses, ch.AfterN,
		signedPercent(ch.Diff), signedInterval(ch.Interval), ch.trendText())
}

func (ch Change) trendText() string {
	if ch.Once && ch.Trend != NotRun {
		return string(ch.Trend) + " (once)"
	}
	return string(ch.Trend)
}

func (ch Change) mark() string {
	switch ch.Trend {
	case Regression:
		return "🔻"
	case Improvement:
		return "🔺"
	case NotRun:
		return "⏭️"
	}
	return ""
}

func signedPercent(f float64) string { return fmt.Sprintf("%+.0f%%", 100*f) }

func signedInterval(iv [2]float64) string {
	return fmt.Sprintf("[%+.0f%%, %+.0f%%]", 100*iv[0], 100*iv[1])
}
