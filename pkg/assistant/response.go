package assistant

import (
	"github.com/cadrehq/cadre/pkg/usage"
	"github.com/tmc/langchaingo/llms"
)

// Input is one run's input.
type Input struct {
	Prompt  string                // the user's turn
	Vars    map[string]any        // template values for this run; override WithVars
	History []llms.MessageContent // earlier turns, sent before Prompt
	Options []Option              // for this run only (see Option for the rules)
}

// Response is what a run produced, whatever its output type.
type Response struct {
	Text string // the final answer: the JSON parsed into O, or the text for string
	// Messages are this run's messages: the user's turn first, never the system. The assistant
	// turns of a thinking model (llm.yaml's thinking_budget) start with its model.Reasoning
	// parts, which a later run sends back to that provider and no other.
	Messages []llms.MessageContent
	Usage    usage.Report // this run and every run it delegated to (its subtree)
	Model    string       // the name of the model that answered last
	Stop     Stop         // how the run ended
	Paused   *Paused      // with StopPending: the state to resume from (see WithApproval)
}

// Stop is how a run ended.
type Stop string

const (
	StopAnswer      Stop = "answer"       // the model answered
	StopLimitAnswer Stop = "limit_answer" // answered in a last request at a limit (WithFinalAnswerOnLimit)
	StopPending     Stop = "pending"      // waiting for a person's approval (WithApproval)
	StopError       Stop = "error"        // on the partial Result returned with an error
)

// Result is a Response with the answer parsed into the output type.
type Result[O any] struct {
	Response
	Output O
}
