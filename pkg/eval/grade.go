package eval

import (
	"context"
	"time"

	"github.com/cadrehq/cadre/pkg/assistant"
	"github.com/cadrehq/cadre/pkg/usage"
)

// Kind is what a Grade is.
type Kind string

const (
	// Score: a number in [0, 1]; the grade passes when it reaches its threshold.
	Score Kind = "score"
	// Assertion: passes or fails.
	Assertion Kind = "assertion"
	// Label: a category ("polite", "off-topic"), which neither passes nor fails a run.
	Label Kind = "label"
)

// DefaultThreshold is the score from which a Score grade passes when its evaluator sets none.
const DefaultThreshold = 0.5

// Grade is what an evaluator says of one run of a case.
type Grade struct {
	Evaluator string  `json:"evaluator"` // its name, set by Evaluate
	Kind      Kind    `json:"kind"`
	Score     float64 `json:"score"`               // in [0, 1]; 1 or 0 for an assertion that passes or fails
	Threshold float64 `json:"threshold,omitempty"` // a Score's: it passes from this one
	Pass      bool    `json:"pass"`                // false for a Label
	Label     string  `json:"label,omitempty"`
	Reason    string  `json:"reason,omitempty"`
	// Usage is what the evaluator itself spent (an LLM judge's requests and tokens), reported
	// apart from the cases' usage; zero for most.
	Usage usage.Usage `json:"usage"`
}

// Counts reports whether g decides whether its run passes: a Score or an Assertion.
func (g Grade) Counts() bool { return g.Kind == Score || g.Kind == Assertion }

// Passed returns an Assertion grade that passes, with reason.
func Passed(reason string) Grade { return Grade{Kind: Assertion, Score: 1, Pass: true, Reason: reason} }

// Failed returns an Assertion grade that fails, with reason.
func Failed(reason string) Grade { return Grade{Kind: Assertion, Reason: reason} }

// Scored returns a Score grade of score (clamped to [0, 1]) that passes from threshold
// (DefaultThreshold when threshold is 0), with reason.
func Scored(score, threshold float64, reason string) Grade {
	score = min(max(score, 0), 1)
	if threshold == 0 {
		threshold = DefaultThreshold
	}
	return Grade{Kind: Score, Score: score, Threshold: threshold, Pass: score >= threshold, Reason: reason}
}

// Labelled returns a Label grade.
func Labelled(label, reason string) Grade { return Grade{Kind: Label, Label: label, Reason: reason} }

// Observation is one run of a case, as evaluators see it.
type Observation[O any] struct {
	Case     string         // the case's name
	Repeat   int            // which run of the case: 0, 1, ... (WithRepeat)
	Input    any            // the case's input, of the dataset's type I
	Prompt   string         // the input as the assistant got it
	Expected *O             // the case's expected output; nil for none
	Metadata map[string]any // the case's

	// The run. Evaluators see only runs that answered: a run that failed fails every
	// evaluator of its case, with its error as the reason.
	Output   O
	Result   *assistant.Result[O]
	Duration time.Duration
	Usage    usage.Report // the run's and the runs it delegated to
	// Cost is what the run cost, priced by WithPrices; CostKnown is false when a model it used
	// has no price.
	Cost      float64
	CostKnown bool
	// Calls are the tool calls of the run's tree, in the order they started: its own and those
	// of the assistants it delegated to (ToolCall.Assistant tells them apart). final_result is
	// not a tool call.
	Calls []ToolCall
}

// ToolCall is a tool call of a run, as the eval recorded it through the run's middleware.
type ToolCall struct {
	Assistant string `json:"assistant"` // the assistant whose model made the call
	Tool      string `json:"tool"`
	Arguments string `json:"arguments"` // as the model wrote them
	Result    string `json:"result"`    // as the model was sent it
}

// Evaluator grades one run of a case.
type Evaluator[O any] interface {
	// Name names the evaluator in reports; two evaluators of a case have different names.
	Name() string
	// Evaluate grades the run. An error is a failure of the evaluator (a judge that could not
	// answer), which fails the grade with it as the reason; a run that does not meet the
	// evaluator's bar is a Grade that does not pass, not an error.
	Evaluate(ctx context.Context, o *Observation[O]) (Grade, error)
}

// Func returns an evaluator named name that grades with f.
func Func[O any](name string, f func(ctx context.Context, o *Observation[O]) (Grade, error)) Evaluator[O] {
	return funcEvaluator[O]{name, f}
}

type funcEvaluator[O any] struct {
	name string
	f    func(context.Context, *Observation[O]) (Grade, error)
}

func (e funcEvaluator[O]) Name() string { return e.name }
func (e funcEvaluator[O]) Evaluate(ctx context.Context, o *Observation[O]) (Grade, error) {
	return e.f(ctx, o)
}
