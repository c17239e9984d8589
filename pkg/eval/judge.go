package eval

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/cadrehq/cadre/pkg/assistant"
)

// Verdict is an LLM judge's answer: the output's score against the rubric, and why.
type Verdict struct {
	Score  float64 `json:"score" jsonschema:"minimum=0,maximum=1" jsonschema_description:"How well the output meets the rubric, from 0 (not at all) to 1 (fully)"`
	Reason string  `json:"reason" jsonschema_description:"Why, in one or two sentences, citing the output"`
}

// JudgeOption tunes Judge.
type JudgeOption func(*judge)

type judge struct {
	name      string
	threshold float64
	expected  bool
}

// JudgeName names the judge in reports (default "judge").
func JudgeName(name string) JudgeOption { return func(j *judge) { j.name = name } }

// JudgeThreshold is the score from which the judge's grade passes (default DefaultThreshold).
func JudgeThreshold(t float64) JudgeOption { return func(j *judge) { j.threshold = t } }

// WithExpected shows the judge the case's expected output beside the output.
func WithExpected() JudgeOption { return func(j *judge) { j.expected = true } }

// JudgeInstructions are instructions for an assistant that judges: give it them with
// assistant.WithInstructions, or instructions of your own.
const JudgeInstructions = "You judge the output of an AI assistant against a rubric. Read the task the assistant was given, " +
	"its output and, when given, the expected output; score how well the output meets the rubric, from 0 to 1, and say why, citing the output. " +
	"Judge only against the rubric: its length, its style and its confidence are not evidence of quality unless the rubric says so."

// Judge grades a run with an LLM: a, an assistant answering a Verdict (give it
// JudgeInstructions, or instructions of your own, and its model), is asked to score the output
// against rubric, seeing the case's input (its prompt) and the output (and, WithExpected, the
// expected output). The grade is a Score from the verdict's score, passing from its threshold,
// with the verdict's reason; its Usage is the judge's run's, which a report keeps apart from the
// cases'. A judge's run counts against the eval's budget.
func Judge[O any](a assistant.Runner[Verdict], rubric string, opts ...JudgeOption) Evaluator[O] {
	j := judge{name: "judge", threshold: DefaultThreshold}
	for _, o := range opts {
		o(&j)
	}
	return Func(j.name, func(ctx context.Context, o *Observation[O]) (Grade, error) {
		var b strings.Builder
		fmt.Fprintf(&b, "Rubric:\n%s\n\nThe task the assistant was given:\n%s\n\nIts output:\n%s\n", rubric, o.Prompt, answerText(o))
		if j.expected && o.Expected != nil {
			exp, err := json.Marshal(*o.Expected)
			if err != nil {
				return Grade{}, err
			}
			fmt.Fprintf(&b, "\nThe expected output:\n%s\n", exp)
		}
		res, err := a.Run(ctx, assistant.Input{Prompt: b.String()})
		var used Grade
		if res != nil {
			used.Usage = res.Usage.Total
		}
		if err != nil {
			return used, fmt.Errorf("the judge %q: %w", a.Name(), err)
		}
		if res == nil {
			return used, errors.New("the judge gave no result")
		}
		g := Scored(res.Output.Score, j.threshold, res.Output.Reason)
		g.Usage = used.Usage
		return g, nil
	})
}

// answerText is the output as the judge reads it: the answer's text, or its JSON.
func answerText[O any](o *Observation[O]) string {
	if o.Result != nil && o.Result.Text != "" {
		return o.Result.Text
	}
	b, _ := json.Marshal(o.Output)
	return string(b)
}
