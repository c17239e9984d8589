package eval

import (
	"bufio"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"
	"time"
)

// ErrReportVersion is the error ReadReport wraps for a report of another version than
// ReportVersion.
var ErrReportVersion = errors.New("eval: unsupported report version")

// WriteJSON writes r as indented JSON: encoding/json's encoding of Report, which ReadReport
// reads back.
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// ReadReport reads a report that WriteJSON (or encoding/json) wrote. A report of another
// version than ReportVersion is an error that wraps ErrReportVersion and names both versions;
// a report without a version is one too.
func ReadReport(rd io.Reader) (*Report, error) {
	var r Report
	if err := json.NewDecoder(rd).Decode(&r); err != nil {
		return nil, fmt.Errorf("eval: reading a report: %w", err)
	}
	if r.Version != ReportVersion {
		return nil, fmt.Errorf("%w: the report is of version %d, this program reads version %d", ErrReportVersion, r.Version, ReportVersion)
	}
	return &r, nil
}

// label names the subject of r and its variant, as a matrix row does.
func (r *Report) label() string {
	if r.Variant == "" {
		return r.Subject
	}
	return r.Subject + " (" + r.Variant + ")"
}

// WriteText writes r as text for a terminal: a line on the eval, a table of the cases in the
// dataset's order (name, passes of runs, pass rate and its 95 % interval, score, and the
// evaluators that failed at least one run), and the summary with each evaluator.
func (r *Report) WriteText(w io.Writer) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "eval %q of %s: %d run(s) per case, started %s, took %s\n",
		r.Dataset, r.label(), r.Repeat, r.Started.Format(time.RFC3339), fmtDuration(r.Duration))
	if r.Stopped != "" {
		fmt.Fprintf(bw, "stopped early: %s\n", r.Stopped)
	}
	fmt.Fprintln(bw)
	tw := tabwriter.NewWriter(bw, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "CASE\tPASSES\tRATE\t95% INTERVAL\tSCORE\tFAILING")
	for _, c := range r.Cases {
		fmt.Fprintf(tw, "%s\t%d/%d\t%s\t%s\t%.2f\t%s\n", oneLine(c.Name), c.Passes, c.N,
			percent(c.PassRate), interval(c.Interval), c.Score, strings.Join(c.failing(), ", "))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	s := r.Summary
	fmt.Fprintf(bw, "\n%d/%d runs passed: %s %s, score %.2f\n", s.Passes, s.Runs, percent(s.PassRate), interval(s.Interval), s.Score)
	fmt.Fprintf(bw, "latency p50 %s, p95 %s; %s; cost %s\n", fmtDuration(s.LatencyP50), fmtDuration(s.LatencyP95), tokens(s), cost(s.Cost, s.CostKnown))
	if len(s.Evaluators) > 0 {
		fmt.Fprintln(bw, "\nevaluators:")
		tw = tabwriter.NewWriter(bw, 0, 0, 2, ' ', 0)
		for _, name := range slices.Sorted(maps.Keys(s.Evaluators)) {
			fmt.Fprintf(tw, "  %s\t%s\n", oneLine(name), s.Evaluators[name].describe())
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// WriteMarkdown writes r as GitHub-flavoured Markdown for a pull-request comment: a heading,
// the summary, a table of the cases with the failing ones first (the lowest pass rate first),
// and a collapsed section of each failing case's failed runs with their errors and the
// reasons of their failed grades. Every string of the report is escaped, so that a model's
// answer cannot add markup to the comment.
func (r *Report) WriteMarkdown(w io.Writer) error {
	bw := bufio.NewWriter(w)
	s := r.Summary
	fmt.Fprintf(bw, "### Eval %s: %s\n\n", mdText(r.Dataset), mdText(r.label()))
	fmt.Fprintf(bw, "**%d/%d runs passed** (%s, 95 %% interval %s) · score %.2f · latency p50 %s, p95 %s · %s · cost %s\n\n",
		s.Passes, s.Runs, percent(s.PassRate), interval(s.Interval), s.Score,
		fmtDuration(s.LatencyP50), fmtDuration(s.LatencyP95), tokens(s), cost(s.Cost, s.CostKnown))
	if r.Stopped != "" {
		fmt.Fprintf(bw, "> [!WARNING]\n> The eval stopped early: %s\n\n", mdText(r.Stopped))
	}
	cases := failingFirst(r.Cases)
	fmt.Fprintln(bw, "| | Case | Passes | Rate | 95 % interval | Score | Failing evaluators |")
	fmt.Fprintln(bw, "|---|---|---:|---:|---|---:|---|")
	for _, c := range cases {
		fmt.Fprintf(bw, "| %s | %s | %d/%d | %s | %s | %.2f | %s |\n", c.mark(), mdText(c.Name), c.Passes, c.N,
			percent(c.PassRate), interval(c.Interval), c.Score, mdText(strings.Join(c.failing(), ", ")))
	}
	for _, c := range cases {
		if c.Passes == c.N {
			continue
		}
		fmt.Fprintf(bw, "\n<details><summary>%s: %d of %d runs failed</summary>\n\n", mdText(c.Name), c.N-c.Passes, c.N)
		for _, run := range c.Runs {
			if !run.Ran || run.Pass {
				continue
			}
			fmt.Fprintf(bw, "- run %d", run.Repeat+1)
			if run.Model != "" {
				fmt.Fprintf(bw, " (%s)", mdText(run.Model))
			}
			if run.Error != "" {
				fmt.Fprintf(bw, ": error: %s", mdText(run.Error))
			}
			fmt.Fprintln(bw)
			for _, g := range run.Grades {
				if g.Counts() && !g.Pass {
					fmt.Fprintf(bw, "  - %s failed (%.2f): %s\n", mdText(g.Evaluator), g.Score, mdText(g.Reason))
				}
			}
		}
		fmt.Fprintln(bw, "\n</details>")
	}
	return bw.Flush()
}

// WriteMatrixText writes reports as a table for a terminal, one row per report in the order
// given: the subject and variant, the dataset, the score, passes of runs, the pass rate and its
// 95 % interval, latency p50 and p95, tokens (the runs', not the judges') and cost.
func WriteMatrixText(w io.Writer, reports []*Report) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "SUBJECT\tDATASET\tSCORE\tPASSES\tRATE\t95% INTERVAL\tP50\tP95\tTOKENS\tCOST")
	for _, r := range reports {
		s := r.Summary
		fmt.Fprintf(tw, "%s\t%s\t%.2f\t%d/%d\t%s\t%s\t%s\t%s\t%d\t%s\n", oneLine(r.label()), oneLine(r.Dataset), s.Score,
			s.Passes, s.Runs, percent(s.PassRate), interval(s.Interval),
			fmtDuration(s.LatencyP50), fmtDuration(s.LatencyP95), s.Usage.TotalTokens(), cost(s.Cost, s.CostKnown))
	}
	return tw.Flush()
}

// WriteMatrixMarkdown writes reports as a Markdown table with the columns of WriteMatrixText,
// one row per report in the order given, every string escaped.
func WriteMatrixMarkdown(w io.Writer, reports []*Report) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintln(bw, "| Subject | Dataset | Score | Passes | Rate | 95 % interval | p50 | p95 | Tokens | Cost |")
	fmt.Fprintln(bw, "|---|---|---:|---:|---:|---|---:|---:|---:|---:|")
	for _, r := range reports {
		s := r.Summary
		fmt.Fprintf(bw, "| %s | %s | %.2f | %d/%d | %s | %s | %s | %s | %d | %s |\n", mdText(r.label()), mdText(r.Dataset), s.Score,
			s.Passes, s.Runs, percent(s.PassRate), interval(s.Interval),
			fmtDuration(s.LatencyP50), fmtDuration(s.LatencyP95), s.Usage.TotalTokens(), cost(s.Cost, s.CostKnown))
	}
	return bw.Flush()
}

// failing returns the names of the evaluators that failed at least one run of c, sorted, and
// "error" first when a run ended in an error that no evaluator graded.
func (c *CaseReport) failing() []string {
	set := map[string]bool{}
	ungraded := false
	for _, run := range c.Runs {
		if !run.Ran {
			continue
		}
		graded := false
		for _, g := range run.Grades {
			if g.Counts() && !g.Pass {
				set[g.Evaluator], graded = true, true
			}
		}
		if run.Error != "" && !graded {
			ungraded = true
		}
	}
	names := slices.Sorted(maps.Keys(set))
	if ungraded {
		names = append([]string{"error"}, names...)
	}
	return names
}

// mark is a case's state as a symbol: every run passed, some failed, or none ran.
func (c *CaseReport) mark() string {
	switch {
	case c.N == 0:
		return "⏭️"
	case c.Passes == c.N:
		return "✅"
	}
	return "❌"
}

// failingFirst returns cases ordered for a reader looking for failures: the cases with a failed
// run first, the lowest pass rate first, then the cases that did not run, then those that
// passed, each group in the dataset's order.
func failingFirst(cases []CaseReport) []CaseReport {
	group := func(c CaseReport) int {
		switch {
		case c.N > 0 && c.Passes < c.N:
			return 0
		case c.N == 0:
			return 1
		}
		return 2
	}
	out := slices.Clone(cases)
	slices.SortStableFunc(out, func(a, b CaseReport) int {
		if g := cmp.Compare(group(a), group(b)); g != 0 {
			return g
		}
		if group(a) == 0 {
			return cmp.Compare(a.PassRate, b.PassRate)
		}
		return 0
	})
	return out
}

func (e EvaluatorSummary) describe() string {
	var parts []string
	if n := e.Runs - sumLabels(e.Labels); n > 0 {
		parts = append(parts, fmt.Sprintf("%d/%d runs passed, score %.2f", e.Passes, n, e.Score))
	}
	if len(e.Labels) > 0 {
		var ls []string
		for _, l := range slices.Sorted(maps.Keys(e.Labels)) {
			ls = append(ls, fmt.Sprintf("%s %d", oneLine(l), e.Labels[l]))
		}
		parts = append(parts, "labels: "+strings.Join(ls, ", "))
	}
	return strings.Join(parts, "; ")
}

func percent(f float64) string { return fmt.Sprintf("%.0f%%", 100*f) }

func interval(iv [2]float64) string {
	return fmt.Sprintf("[%.0f%%, %.0f%%]", 100*iv[0], 100*iv[1])
}

// fmtDuration rounds d for a reader: to the millisecond under a second, to the hundredth of a
// second above.
func fmtDuration(d time.Duration) string {
	if d >= time.Second {
		return d.Round(10 * time.Millisecond).String()
	}
	return d.Round(time.Millisecond).String()
}

func tokens(s Summary) string {
	t := fmt.Sprintf("%d tokens (%d in, %d out)", s.Usage.TotalTokens(), s.Usage.InputTokens, s.Usage.OutputTokens)
	if j := s.JudgeUsage.TotalTokens(); j > 0 {
		t += fmt.Sprintf(", judges %d tokens", j)
	}
	return t
}

// cost is a cost for a reader: a lower bound when a model had no price, unknown when no model
// had one.
func cost(c float64, known bool) string {
	switch {
	case known:
		return fmt.Sprintf("$%.4f", c)
	case c > 0:
		return fmt.Sprintf("≥ $%.4f (a model had no price)", c)
	}
	return "unknown"
}

// oneLine is s on one line, for a table cell.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// mdEscaper escapes what Markdown or the HTML that GitHub allows in it would read as markup.
var mdEscaper = strings.NewReplacer(
	`\`, `\\`, "`", "\\`", "*", `\*`, "_", `\_`, "[", `\[`, "]", `\]`, "|", `\|`, "#", `\#`, "~", `\~`,
	"&", "&amp;", "<", "&lt;", ">", "&gt;",
)

// mdText is s as Markdown text on one line: HTML-escaped, Markdown punctuation escaped, and cut
// to 500 characters.
func mdText(s string) string {
	s = oneLine(s)
	if r := []rune(s); len(r) > 500 {
		s = string(r[:500]) + "…"
	}
	return mdEscaper.Replace(s)
}
