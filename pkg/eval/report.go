package eval

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"
	"time"

	"github.com/cadrehq/cadre/pkg/usage"
)

// ReportVersion is the version of the Report's JSON shape. It changes only when a field
// changes meaning or goes; fields may be added within a version.
const ReportVersion = 1

// confidence is the level of every interval of a report.
const confidence = 0.95

// Report is what an eval found: each case's runs, graded, and the summary of all of them. Its
// JSON (encoding/json) is a stable shape, versioned by Version, for CI artifacts and Compare.
type Report struct {
	Version int    `json:"version"`
	Dataset string `json:"dataset"`
	Subject string `json:"subject"` // the assistant's name (Runner.Name)
	// Variant names what the eval varied, as Matrix runs it (a model's name), and tells apart
	// reports of one subject run differently, as a matrix labels its rows; "" for a plain
	// Evaluate.
	Variant  string        `json:"variant,omitempty"`
	Repeat   int           `json:"repeat"` // runs of each case
	Started  time.Time     `json:"started"`
	Duration time.Duration `json:"duration_ns"`
	// Stopped says why the eval ended before every run did (the budget, a cancellation); ""
	// when every run ran.
	Stopped string       `json:"stopped,omitempty"`
	Cases   []CaseReport `json:"cases"`
	Summary Summary      `json:"summary"`
}

// Summary is the eval as a whole.
type Summary struct {
	Runs     int        `json:"runs"`   // runs that ran
	Passes   int        `json:"passes"` // of those, the runs that passed
	PassRate float64    `json:"pass_rate"`
	Interval [2]float64 `json:"interval"` // the pass rate's 95 % Wilson interval
	// Score is the mean of the Score and Assertion grades of every run (an assertion counts 1
	// or 0).
	Score      float64       `json:"score"`
	LatencyP50 time.Duration `json:"latency_p50_ns"`
	LatencyP95 time.Duration `json:"latency_p95_ns"`
	Usage      usage.Usage   `json:"usage"`       // the runs'
	JudgeUsage usage.Usage   `json:"judge_usage"` // the evaluators' (LLM judges)
	Cost       float64       `json:"cost"`        // the runs', priced (WithPrices)
	CostKnown  bool          `json:"cost_known"`  // every model of every run had a price
	// Evaluators summarise each evaluator over every run it graded, by name.
	Evaluators map[string]EvaluatorSummary `json:"evaluators"`
}

// EvaluatorSummary is one evaluator over the runs it graded.
type EvaluatorSummary struct {
	Runs   int            `json:"runs"`
	Passes int            `json:"passes"`
	Score  float64        `json:"score"`            // the mean
	Labels map[string]int `json:"labels,omitempty"` // a labelling evaluator's labels, counted
}

// CaseReport is one case: its runs and what they add up to.
type CaseReport struct {
	Name     string         `json:"name"`
	Metadata map[string]any `json:"metadata,omitempty"`
	Runs     []RunReport    `json:"runs"`
	N        int            `json:"n"`      // runs that ran
	Passes   int            `json:"passes"` // of those, the runs that passed
	PassRate float64        `json:"pass_rate"`
	Interval [2]float64     `json:"interval"` // the pass rate's 95 % Wilson interval
	// PassAtK is pass@k for each k reported (WithPassAtK), by k: the chance that at least one
	// of k runs passes, estimated without bias from the N runs.
	PassAtK map[string]float64 `json:"pass_at_k,omitempty"`
	Score   float64            `json:"score"` // the mean grade of its runs

	runs []runResult
}

// RunReport is one run of a case.
type RunReport struct {
	Repeat   int             `json:"repeat"`
	Ran      bool            `json:"ran"` // false for a run the budget or a cancellation left out
	Pass     bool            `json:"pass"`
	Error    string          `json:"error,omitempty"` // the run's
	Output   json.RawMessage `json:"output,omitempty"`
	Text     string          `json:"text,omitempty"` // the answer as written
	Model    string          `json:"model,omitempty"`
	Duration time.Duration   `json:"duration_ns"`
	Usage    usage.Report    `json:"usage"`
	Cost     float64         `json:"cost"`
	Priced   bool            `json:"priced"`
	Grades   []Grade         `json:"grades"`
	Calls    []ToolCall      `json:"calls,omitempty"`
	// Messages are the run's messages as chat.MarshalMessages writes them.
	Messages json.RawMessage `json:"messages,omitempty"`
}

// finish makes the report of the runs that ran.
func (r *Report) finish(ks []int) {
	s := &r.Summary
	s.Evaluators = map[string]EvaluatorSummary{}
	var latencies []time.Duration
	grades, scores := 0, 0.0
	for i := range r.Cases {
		c := &r.Cases[i]
		caseGrades, caseScores := 0, 0.0
		for k, run := range c.runs {
			rr := RunReport{Repeat: k, Ran: run.ran}
			if !run.ran {
				c.Runs = append(c.Runs, rr)
				continue
			}
			rr.Pass = run.err == nil
			if run.err != nil {
				rr.Error = run.err.Error()
			}
			if run.output != nil && run.err == nil {
				rr.Output = marshalText(run.output)
			}
			rr.Text, rr.Model, rr.Duration, rr.Usage = run.text, run.model, run.duration, run.usage
			rr.Cost, rr.Priced, rr.Grades, rr.Calls, rr.Messages = run.cost, run.priced, run.grades, run.calls, run.messages
			for _, g := range run.grades {
				e := s.Evaluators[g.Evaluator]
				e.Runs++
				s.JudgeUsage = s.JudgeUsage.Add(g.Usage)
				if g.Kind == Label {
					if e.Labels == nil {
						e.Labels = map[string]int{}
					}
					e.Labels[g.Label]++
				} else {
					if g.Pass {
						e.Passes++
					} else {
						rr.Pass = false
					}
					e.Score += g.Score
					caseGrades, caseScores = caseGrades+1, caseScores+g.Score
				}
				s.Evaluators[g.Evaluator] = e
			}
			c.N++
			if rr.Pass {
				c.Passes++
			}
			s.Usage = s.Usage.Add(run.usage.Total)
			s.Cost += run.cost
			s.CostKnown = (s.Runs == 0 || s.CostKnown) && run.priced
			s.Runs++
			latencies = append(latencies, run.duration)
			c.Runs = append(c.Runs, rr)
		}
		c.PassRate, c.Interval = rate(c.Passes, c.N)
		if caseGrades > 0 {
			c.Score = caseScores / float64(caseGrades)
		}
		grades, scores = grades+caseGrades, scores+caseScores
		for _, k := range ks {
			if k >= 1 && k <= c.N {
				if c.PassAtK == nil {
					c.PassAtK = map[string]float64{}
				}
				c.PassAtK[strconv.Itoa(k)] = PassAtK(c.N, c.Passes, k)
			}
		}
		s.Passes += c.Passes
	}
	for name, e := range s.Evaluators {
		if n := e.Runs - sumLabels(e.Labels); n > 0 {
			e.Score /= float64(n)
		}
		s.Evaluators[name] = e
	}
	s.PassRate, s.Interval = rate(s.Passes, s.Runs)
	if grades > 0 {
		s.Score = scores / float64(grades)
	}
	s.LatencyP50, s.LatencyP95 = percentile(latencies, 50), percentile(latencies, 95)
}

// marshalText is v's JSON with <, > and & as they are: a report shows it as text.
func marshalText(v any) json.RawMessage {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if enc.Encode(v) != nil {
		return nil
	}
	return bytes.TrimRight(b.Bytes(), "\n")
}

func sumLabels(labels map[string]int) int {
	n := 0
	for _, v := range labels {
		n += v
	}
	return n
}

// rate is passes of n as a rate with its Wilson interval; 0 and [0, 1] for no run.
func rate(passes, n int) (float64, [2]float64) {
	lo, hi := Wilson(passes, n, confidence)
	if n == 0 {
		return 0, [2]float64{lo, hi}
	}
	return float64(passes) / float64(n), [2]float64{lo, hi}
}

// percentile is the p-th percentile of ds by the nearest rank; 0 for none.
func percentile(ds []time.Duration, p int) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	rank := (p*len(s) + 99) / 100 // ceil(p/100 · n), from 1
	return s[max(rank, 1)-1]
}
