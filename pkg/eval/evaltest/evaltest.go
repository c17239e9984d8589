// Package evaltest runs an eval as a Go test: `go test` runs the dataset through the
// assistant, reports each case as a subtest, and fails the cases under their pass rate.
//
//	func TestGeo(t *testing.T) {
//		evaltest.Run(t, dataset, geo, evaltest.CaseMinPassRate(0.8),
//			evaltest.With(eval.WithRepeat(5)))
//	}
//
// By default every run of every case must pass. Evals against a real provider cost money and
// vary from run to run: keep them out of the ordinary `go test` with Live —
//
//	if !evaltest.Live() {
//		t.Skip("a live eval: set CADRE_LIVE=1 to run it")
//	}
//
// — and run them on purpose, CADRE_LIVE=1 go test -run TestGeo, with llmtest models for the
// evals every `go test` runs.
package evaltest

import (
	"fmt"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/cadrehq/cadre/pkg/assistant"
	"github.com/cadrehq/cadre/pkg/eval"
)

// LiveEnv is the environment variable that Live reads.
const LiveEnv = "CADRE_LIVE"

// Live reports whether the environment asks for live evals, those that call real providers:
// CADRE_LIVE=1. A live eval's test skips itself when Live is false.
func Live() bool { return os.Getenv(LiveEnv) == "1" }

// Option configures Run.
type Option func(*config)

type config struct {
	min, caseMin float64
	opts         []eval.Option
}

// MinPassRate fails the test when the eval's pass rate, over every run of every case, is under
// rate (in [0, 1]). The default is 0: the cases' own thresholds decide.
func MinPassRate(rate float64) Option { return func(c *config) { c.min = rate } }

// CaseMinPassRate fails a case's subtest when the case's pass rate, over its runs, is under
// rate (in [0, 1]). The default is 1: every run of the case must pass.
func CaseMinPassRate(rate float64) Option { return func(c *config) { c.caseMin = rate } }

// With gives the eval these options: WithRepeat, WithConcurrency, WithBudget, WithRunOptions...
func With(opts ...eval.Option) Option {
	return func(c *config) { c.opts = append(c.opts, opts...) }
}

// Run evaluates d through r with eval.Evaluate, in t's context, and reports in t: one
// subtest per case (t.Run with the case's name) that logs each run and fails, with the reasons
// of the failed grades, when the case's pass rate is under CaseMinPassRate; then t fails when
// the eval's pass rate is under MinPassRate. The eval runs once, all its cases together under
// its concurrency, before the subtests report. An eval that stops early (its budget spent, t's
// context done) fails t; one that cannot run (a dataset without cases) stops t. Run returns
// the report, nil when there is none, to write it as an artifact.
func Run[I, O any](t *testing.T, d *eval.Dataset[I, O], r assistant.Runner[O], opts ...Option) *eval.Report {
	t.Helper()
	cfg := config{caseMin: 1}
	for _, o := range opts {
		if o != nil {
			o(&cfg)
		}
	}
	if !inUnit(cfg.min) || !inUnit(cfg.caseMin) {
		t.Fatalf("evaltest: MinPassRate and CaseMinPassRate take a rate in [0, 1] (got %v and %v)", cfg.min, cfg.caseMin)
	}
	rep, err := eval.Evaluate(t.Context(), d, r, cfg.opts...)
	if rep == nil {
		t.Fatal(err)
	}
	if err != nil {
		t.Errorf("evaltest: the eval of %q stopped before every run: %v", d.Name, err)
	}
	for _, c := range rep.Cases {
		t.Run(c.Name, func(t *testing.T) {
			t.Helper()
			for _, run := range c.Runs {
				t.Log(describe(run))
			}
			passed := fmt.Sprintf("%d of %d runs passed (%s)", c.Passes, c.N, percent(c.PassRate))
			if c.Passes < needed(cfg.caseMin, c.N) {
				t.Errorf("%s, under the case's minimum of %s%s", passed, percent(cfg.caseMin), reasons(c.Runs))
			} else {
				t.Logf("%s, at least the case's minimum of %s", passed, percent(cfg.caseMin))
			}
		})
	}
	s := rep.Summary
	t.Logf("dataset %q through %q: %d of %d runs passed (%s, 95%% interval %s to %s)",
		rep.Dataset, rep.Subject, s.Passes, s.Runs, percent(s.PassRate), percent(s.Interval[0]), percent(s.Interval[1]))
	if s.Passes < needed(cfg.min, s.Runs) {
		t.Errorf("the eval's pass rate %s is under its minimum of %s", percent(s.PassRate), percent(cfg.min))
	}
	return rep
}

func inUnit(r float64) bool { return r >= 0 && r <= 1 }

// needed is the fewest passes of n runs that reach rate: a count, so that a rate of 0.8 is
// met by 4 of 5 whatever the rounding of 4/5.
func needed(rate float64, n int) int { return int(math.Ceil(rate*float64(n) - 1e-9)) }

func percent(r float64) string { return fmt.Sprintf("%.0f%%", 100*r) }

// describe is one line for a run: whether it passed, and of what model in how long.
func describe(run eval.RunReport) string {
	if !run.Ran {
		return fmt.Sprintf("run %d: did not run", run.Repeat+1)
	}
	verdict := "passed"
	if !run.Pass {
		verdict = "failed"
	}
	return fmt.Sprintf("run %d: %s (model %q, %v, %d requests)", run.Repeat+1, verdict, run.Model, run.Duration, run.Usage.Total.Requests)
}

// reasons lists why the failed runs failed: the run's error, else each failed grade's reason.
func reasons(runs []eval.RunReport) string {
	var b strings.Builder
	for _, run := range runs {
		if !run.Ran || run.Pass {
			continue
		}
		if run.Error != "" {
			fmt.Fprintf(&b, "\n\trun %d: %s", run.Repeat+1, run.Error)
			continue
		}
		for _, g := range run.Grades {
			if g.Kind != eval.Label && !g.Pass {
				fmt.Fprintf(&b, "\n\trun %d: %s: %s", run.Repeat+1, g.Evaluator, g.Reason)
			}
		}
	}
	return b.String()
}
