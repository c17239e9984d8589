package eval

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/cadrehq/cadre/pkg/usage"
	"github.com/google/go-cmp/cmp"
)

// xss is a model's answer that a page must show as text.
const xss = "<script>alert(1)</script>"

// sampleReport is a report of two cases run twice: "add" passes both runs, "divide | by zero"
// fails one, its answer holding markup.
func sampleReport() *Report {
	grade := func(name string, pass bool, reason string) Grade {
		if pass {
			g := Passed(reason)
			g.Evaluator = name
			return g
		}
		g := Failed(reason)
		g.Evaluator = name
		return g
	}
	msgs := json.RawMessage(`[{"role":"human","parts":[{"type":"text","text":"divide 1 by 0"}]},` +
		`{"role":"ai","parts":[{"type":"tool_call","id":"c1","name":"calc","arguments":"{\"op\":\"div\"}"}]},` +
		`{"role":"tool","parts":[{"type":"tool_result","id":"c1","name":"calc","content":"division by zero"}]},` +
		`{"role":"ai","parts":[{"type":"text","text":"` + xss + `"}]}]`)
	u := usage.Usage{Requests: 2, InputTokens: 100, OutputTokens: 20}
	return &Report{
		Version: ReportVersion, Dataset: "arith", Subject: "calculator", Variant: "fast", Repeat: 2,
		Started:  time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC),
		Duration: 3 * time.Second,
		Cases: []CaseReport{
			{
				Name: "add", N: 2, Passes: 2, PassRate: 1, Interval: [2]float64{0.342, 1}, Score: 1,
				Runs: []RunReport{
					{Repeat: 0, Ran: true, Pass: true, Text: "2", Model: "m1", Duration: time.Second, Usage: usage.Report{Total: u}, Grades: []Grade{grade("equals", true, "")}},
					{Repeat: 1, Ran: true, Pass: true, Text: "2", Model: "m1", Duration: time.Second, Usage: usage.Report{Total: u}, Grades: []Grade{grade("equals", true, "")}},
				},
			},
			{
				Name: "divide | by zero", N: 2, Passes: 1, PassRate: 0.5, Interval: [2]float64{0.095, 0.905}, Score: 0.5,
				Runs: []RunReport{
					{Repeat: 0, Ran: true, Pass: true, Text: "undefined", Model: "m1", Duration: time.Second, Usage: usage.Report{Total: u}, Grades: []Grade{grade("equals", true, "")}},
					{
						Repeat: 1, Ran: true, Pass: false, Text: xss, Model: "m1", Duration: 2 * time.Second, Usage: usage.Report{Total: u},
						Cost: 0.001, Priced: true,
						Grades:   []Grade{grade("equals", false, "got "+xss+", want undefined")},
						Calls:    []ToolCall{{Assistant: "calculator", Tool: "calc", Arguments: `{"op":"div"}`, Result: "division by zero"}},
						Messages: msgs,
					},
				},
			},
		},
		Summary: Summary{
			Runs: 4, Passes: 3, PassRate: 0.75, Interval: [2]float64{0.301, 0.954}, Score: 0.75,
			LatencyP50: time.Second, LatencyP95: 2 * time.Second,
			Usage: usage.Usage{Requests: 8, InputTokens: 400, OutputTokens: 80}, Cost: 0.004, CostKnown: true,
			Evaluators: map[string]EvaluatorSummary{"equals": {Runs: 4, Passes: 3, Score: 0.75}},
		},
	}
}

func TestReadReportRoundTripsWriteJSON(t *testing.T) {
	t.Parallel()
	want := sampleReport()
	var buf bytes.Buffer
	if err := want.WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "\n  \"dataset\": \"arith\"") {
		t.Errorf("WriteJSON is not indented:\n%s", buf.String())
	}
	got, err := ReadReport(&buf)
	if err != nil {
		t.Fatal(err)
	}
	// Messages come back re-indented and with <, > escaped: the same JSON value.
	decoded := cmp.Transformer("decoded", func(m json.RawMessage) any {
		var v any
		if err := json.Unmarshal(m, &v); err != nil {
			return "invalid: " + string(m)
		}
		return v
	})
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(CaseReport{}), decoded); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
}

func TestReadReportRejectsAnotherVersion(t *testing.T) {
	t.Parallel()
	for _, in := range []string{`{"version": 2, "dataset": "x"}`, `{"dataset": "x"}`} {
		_, err := ReadReport(strings.NewReader(in))
		if !errors.Is(err, ErrReportVersion) {
			t.Errorf("ReadReport(%s) = %v, want ErrReportVersion", in, err)
		}
	}
	if _, err := ReadReport(strings.NewReader(`{"version": 2}`)); err == nil || !strings.Contains(err.Error(), "version 2") {
		t.Errorf("the error does not name the report's version: %v", err)
	}
	if _, err := ReadReport(strings.NewReader(`not json`)); err == nil || errors.Is(err, ErrReportVersion) {
		t.Errorf("ReadReport(not json) = %v, want a decoding error", err)
	}
}

func TestWriteText(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	if err := sampleReport().WriteText(&buf); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	lines := strings.Split(out, "\n")
	row := func(prefix string) string {
		for _, l := range lines {
			if strings.HasPrefix(l, prefix) {
				return strings.Join(strings.Fields(l), " ")
			}
		}
		t.Fatalf("no line starts with %q in:\n%s", prefix, out)
		return ""
	}
	if got, want := row("add "), "add 2/2 100% [34%, 100%] 1.00"; got != want {
		t.Errorf("add's row = %q, want %q", got, want)
	}
	if got, want := row("divide | by zero"), "divide | by zero 1/2 50% [10%, 90%] 0.50 equals"; got != want {
		t.Errorf("divide's row = %q, want %q", got, want)
	}
	for _, want := range []string{`eval "arith" of calculator (fast)`, "3/4 runs passed: 75% [30%, 95%], score 0.75",
		"latency p50 1s, p95 2s", "480 tokens (400 in, 80 out)", "cost $0.0040", "equals  3/4 runs passed, score 0.75"} {
		if !strings.Contains(out, want) {
			t.Errorf("the text lacks %q:\n%s", want, out)
		}
	}
	if strings.Index(out, "add ") > strings.Index(out, "divide") {
		t.Errorf("the text does not keep the dataset's order:\n%s", out)
	}
}

func TestWriteMarkdownPutsFailuresFirstAndEscapes(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	if err := sampleReport().WriteMarkdown(&buf); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	failRow := "| ❌ | divide \\| by zero | 1/2 | 50% | [10%, 90%] | 0.50 | equals |"
	passRow := "| ✅ | add | 2/2 | 100% | [34%, 100%] | 1.00 |  |"
	for _, want := range []string{failRow, passRow, "<details><summary>divide \\| by zero: 1 of 2 runs failed</summary>",
		"- run 2 (m1)", "  - equals failed (0.00): got &lt;script&gt;alert(1)&lt;/script&gt;, want undefined", "</details>"} {
		if !strings.Contains(out, want) {
			t.Errorf("the markdown lacks %q:\n%s", want, out)
		}
	}
	if strings.Index(out, failRow) > strings.Index(out, passRow) {
		t.Errorf("the failing case is not first:\n%s", out)
	}
	if strings.Contains(out, "<script>") {
		t.Errorf("the markdown has a model's markup unescaped:\n%s", out)
	}
	if strings.Count(out, "<details>") != 1 {
		t.Errorf("want details of the one failing case only:\n%s", out)
	}
}

func TestFailingFirstOrder(t *testing.T) {
	t.Parallel()
	cases := []CaseReport{
		{Name: "pass", N: 2, Passes: 2, PassRate: 1},
		{Name: "half", N: 2, Passes: 1, PassRate: 0.5},
		{Name: "none ran"},
		{Name: "fail", N: 2, PassRate: 0},
		{Name: "pass too", N: 1, Passes: 1, PassRate: 1},
	}
	var got []string
	for _, c := range failingFirst(cases) {
		got = append(got, c.Name)
	}
	want := []string{"fail", "half", "none ran", "pass", "pass too"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("order (-want +got):\n%s", diff)
	}
}

func TestWriteMatrix(t *testing.T) {
	t.Parallel()
	a := sampleReport()
	b := sampleReport()
	b.Variant = "slow"
	b.Summary.CostKnown = false
	var text, md bytes.Buffer
	if err := WriteMatrixText(&text, []*Report{a, b}); err != nil {
		t.Fatal(err)
	}
	if err := WriteMatrixMarkdown(&md, []*Report{a, b}); err != nil {
		t.Fatal(err)
	}
	textLines := strings.Split(strings.TrimSpace(text.String()), "\n")
	if len(textLines) != 3 {
		t.Fatalf("want a header and two rows:\n%s", text.String())
	}
	if got, want := strings.Join(strings.Fields(textLines[1]), " "), "calculator (fast) arith 0.75 3/4 75% [30%, 95%] 1s 2s 480 $0.0040"; got != want {
		t.Errorf("row 1 = %q, want %q", got, want)
	}
	if !strings.HasPrefix(textLines[2], "calculator (slow)") || !strings.Contains(textLines[2], "≥ $0.0040") {
		t.Errorf("row 2 = %q, want the slow variant with a lower bound of its cost", textLines[2])
	}
	for _, want := range []string{
		"| calculator (fast) | arith | 0.75 | 3/4 | 75% | [30%, 95%] | 1s | 2s | 480 | $0.0040 |",
		"| calculator (slow) | arith |",
	} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("the markdown matrix lacks %q:\n%s", want, md.String())
		}
	}
}
