package assistant

import (
	"encoding/json"
	"fmt"
	"reflect"
	"sync"

	"github.com/cadrehq/cadre/internal/argshape"
	"github.com/tmc/langchaingo/llms"
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

// examples is an assistant's few-shot examples, checked, with the messages they make in each
// output mode, built once.
type examples struct {
	inputs  []string
	answers []string // the outputs, as JSON (or the text, for a string output)
	once    [3]sync.Once
	msgs    [3][]llms.MessageContent
}

func newExamples[O any](given []any, out *output) (*examples, error) {
	if len(given) == 0 {
		return nil, nil
	}
	ex := &examples{}
	for i, g := range given {
		e, ok := g.(Example[O])
		if !ok {
			var o O
			return nil, fmt.Errorf("WithExamples: example %d (%T) is not an example of the assistant's output type, %T", i+1, g, o)
		}
		if e.Input == "" {
			return nil, fmt.Errorf("WithExamples: example %d has no input", i+1)
		}
		answer := ""
		if out.text {
			answer = reflect.ValueOf(e.Output).String()
		} else {
			data, err := json.Marshal(e.Output)
			if err != nil {
				return nil, fmt.Errorf("WithExamples: example %d: its output does not encode: %w", i+1, err)
			}
			if err := out.schema.Validate(data); err != nil {
				return nil, fmt.Errorf("WithExamples: example %d: its output does not match the output type's schema: %w", i+1, err)
			}
			answer = string(data)
		}
		ex.inputs = append(ex.inputs, e.Input)
		ex.answers = append(ex.answers, answer)
	}
	return ex, nil
}

// messages returns the examples as earlier turns in mode; they are shared, never modified.
func (ex *examples) messages(mode OutputMode, out *output) []llms.MessageContent {
	ex.once[mode].Do(func() {
		for i, in := range ex.inputs {
			ex.msgs[mode] = append(ex.msgs[mode], llms.TextParts(llms.ChatMessageTypeHuman, in))
			if mode != OutputTool || out.text {
				ex.msgs[mode] = append(ex.msgs[mode], llms.TextParts(llms.ChatMessageTypeAI, ex.answers[i]))
				continue
			}
			args := ex.answers[i]
			if out.wrapped {
				data, _ := json.Marshal(argshape.Output[json.RawMessage]{Output: json.RawMessage(args)})
				args = string(data)
			}
			id := fmt.Sprintf("example_%d", i+1)
			ex.msgs[mode] = append(ex.msgs[mode],
				llms.MessageContent{Role: llms.ChatMessageTypeAI, Parts: []llms.ContentPart{llms.ToolCall{
					ID: id, Type: "function", FunctionCall: &llms.FunctionCall{Name: finalResult, Arguments: args},
				}}},
				llms.MessageContent{Role: llms.ChatMessageTypeTool, Parts: []llms.ContentPart{llms.ToolCallResponse{
					ToolCallID: id, Name: finalResult, Content: resultAccepted,
				}}})
		}
	})
	return ex.msgs[mode]
}
