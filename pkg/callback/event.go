package callback

import (
	"time"

	"github.com/cadrehq/cadre/pkg/usage"
)

// Kind is what happened.
type Kind string

// The kinds of [Event]. Each run starts with RunStart and ends with exactly one of RunEnd and
// RunError.
const (
	RunStart Kind = "run_start" // a run began
	RunEnd   Kind = "run_end"   // a run answered
	RunError Kind = "run_error" // a run failed; Err says why

	ModelRequest  Kind = "model_request"  // a request is about to be sent to the model
	ModelResponse Kind = "model_response" // the model answered that request
	ModelError    Kind = "model_error"    // that request failed; Err says why
	// ModelFallback: Model failed with an error another model could fix (Err); the next model
	// of the assistant's chain takes the request.
	ModelFallback Kind = "model_fallback"

	ToolStart Kind = "tool_start" // a tool call the model asked for is starting
	ToolEnd   Kind = "tool_end"   // the tool returned a result
	ToolError Kind = "tool_error" // the tool failed or panicked (Panic); the error goes back to the model

	// OutputCorrection: the answer could not be used (Err says why, Model is the model that
	// gave it, Result the answer as written); one corrective request follows. The event comes
	// just before that request's ModelRequest, and not at all when a limit stops the request.
	OutputCorrection Kind = "output_correction"
	// OutputFallback: the model (Model) did not take the output schema in its provider's own
	// field (Err says why: model.ErrOutputSchema); the same request goes to it again with the
	// output asked for as a tool call, and so do its later requests in the run.
	OutputFallback Kind = "output_fallback"
)

// Event is one thing that happened in a run. Fields not relevant to its Kind are zero.
//
// An Event holds only values (strings, numbers, times and an error), so a [Handler] may keep a
// copy after Handle returns; it must treat Err as read-only. No field ever holds an API key.
type Event struct {
	Kind        Kind
	Time        time.Time // when it happened
	RunID       string    // unique per run
	ParentRunID string    // the delegating run's RunID; "" for a top run
	Assistant   string    // the name of the assistant whose run this is
	Model       string    // ModelRequest, ModelResponse, ModelError, RunEnd: the model's name
	Tool        string    // Tool*: the tool's name
	CallID      string    // Tool*: the model's id for the tool call
	Args        string    // ToolStart: the arguments as the model wrote them
	Result      string    // ToolEnd, ToolError: what goes back to the model; RunEnd: the answer text

	// Duration: ModelResponse, ModelError: the request; ToolEnd, ToolError: the call;
	// RunEnd, RunError: the run.
	Duration time.Duration

	// Usage: ModelResponse: this response's usage; RunEnd, RunError: the usage of the run and
	// of every run it delegated to.
	Usage usage.Usage

	Err     error // RunError, ModelError, ModelFallback, ToolError, OutputCorrection, OutputFallback: what went wrong
	Panic   bool  // ToolError: the tool panicked and the panic was recovered
	Attempt int   // ModelRequest: 1 for the run's first request, then 2, 3, ...
}
