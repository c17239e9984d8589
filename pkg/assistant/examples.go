package assistant

import (
	"fmt"

	"github.com/cadrehq/cadre/internal/answer"
)

// Example is a few-shot example: a user's turn, and the answer the assistant should give it.
type Example[O any] struct {
	Input  string
	Output O
}

// WithExamples adds few-shot examples. Each is sent, before any history, as an earlier turn
// answered in the shape of the run's output mode: the user's turn, then a final_result call
// and its acceptance in tool mode, or the answer's JSON (a string output's text) otherwise, so
// that the model sees answers given the way it is asked to give its own. Examples are never
// stored in a chat and are not part of Response.Messages; they cost their tokens in every
// request.
//
// New panics if O is not the assistant's output type, or an example's input is empty or its
// output does not match O's JSON Schema.
func WithExamples[O any](examples ...Example[O]) Option {
	return func(c *config) {
		for _, e := range examples {
			c.examples = append(c.examples[:len(c.examples):len(c.examples)], e)
		}
	}
}

// newExamples checks the examples given to an assistant whose answers have the shape out.
func newExamples[O any](given []any, out *answer.Shape) (*answer.Examples, error) {
	if len(given) == 0 {
		return nil, nil
	}
	ex := answer.NewExamples(out)
	for i, g := range given {
		e, ok := g.(Example[O])
		if !ok {
			var o O
			return nil, fmt.Errorf("WithExamples: example %d (%T) is not an example of the assistant's output type, %T", i+1, g, o)
		}
		if e.Input == "" {
			return nil, fmt.Errorf("WithExamples: example %d has no input", i+1)
		}
		if err := ex.Add(e.Input, e.Output); err != nil {
			return nil, fmt.Errorf("WithExamples: example %d: %w", i+1, err)
		}
	}
	return ex, nil
}
