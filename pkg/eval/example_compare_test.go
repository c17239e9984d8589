package eval_test

import (
	"fmt"

	"github.com/cadrehq/cadre/pkg/eval"
)

// A CI job compares the report of a change with the main branch's and fails on a regression:
// a case whose pass rate fell by more than noise explains.
func ExampleCompare() {
	before := &eval.Report{Version: eval.ReportVersion, Subject: "main", Cases: []eval.CaseReport{
		{Name: "refund", N: 10, Passes: 10}, {Name: "greeting", N: 10, Passes: 5},
	}}
	after := &eval.Report{Version: eval.ReportVersion, Subject: "change", Cases: []eval.CaseReport{
		{Name: "refund", N: 10, Passes: 2}, {Name: "greeting", N: 10, Passes: 6},
	}}
	for _, ch := range eval.Compare(before, after).Regressions() {
		fmt.Printf("%s: %d/%d → %d/%d, 95 %% interval [%.2f, %.2f]\n",
			ch.Name, ch.BeforePasses, ch.BeforeN, ch.AfterPasses, ch.AfterN, ch.Interval[0], ch.Interval[1])
	}
	// Output:
	// refund: 10/10 → 2/10, 95 % interval [-0.94, -0.38]
}
