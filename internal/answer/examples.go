package answer

import (
	"encoding/json"
	"fmt"
	"reflect"
	"sync"

	"github.com/cadrehq/cadre/internal/argshape"
	"github.com/tmc/langchaingo/llms"
)

// Examples are few-shot examples of an output type, checked, with the earlier turns they
// make, built once for each way of answering and shared: they are never modified.
type Examples struct {
	shape   *Shape
	inputs  []string
	answers []string // the outputs, as JSON (or the text, for a Text shape)
	once    [2]sync.Once
	msgs    [2][]llms.MessageContent // as text, as final_result calls
}

// NewExamples returns an empty set of examples of s's output type.
func NewExamples(s *Shape) *Examples { return &Examples{shape: s} }

// Add adds an example: the user's turn in, answered with out, a value of the output type. It
// fails on an out that does not encode, or does not match the output type's JSON Schema.
func (ex *Examples) Add(in string, out any) error {
	answer := ""
	if ex.shape.Text {
		answer = reflect.ValueOf(out).String()
	} else {
		data, err := json.Marshal(out)
		if err != nil {
			return fmt.Errorf("its output does not encode: %w", err)
		}
		if err := ex.shape.Schema.Validate(data); err != nil {
			return fmt.Errorf("its output does not match the output type's schema: %w", err)
		}
		answer = string(data)
	}
	ex.inputs = append(ex.inputs, in)
	ex.answers = append(ex.answers, answer)
	return nil
}

// Messages returns the examples as earlier turns, each a user's turn and its answer: the
// answer's text, or, with calls (in tool mode) and an output that is not text, a final_result
// call and its acceptance. They are shared: never modify them.
func (ex *Examples) Messages(calls bool) []llms.MessageContent {
	calls = calls && !ex.shape.Text
	k := 0
	if calls {
		k = 1
	}
	ex.once[k].Do(func() {
		for i, in := range ex.inputs {
			ex.msgs[k] = append(ex.msgs[k], llms.TextParts(llms.ChatMessageTypeHuman, in))
			if !calls {
				ex.msgs[k] = append(ex.msgs[k], llms.TextParts(llms.ChatMessageTypeAI, ex.answers[i]))
				continue
			}
			ex.msgs[k] = append(ex.msgs[k], ex.call(i)...)
		}
	})
	return ex.msgs[k]
}

// call returns example i's answer as a final_result call and its acceptance.
func (ex *Examples) call(i int) []llms.MessageContent {
	args := ex.answers[i]
	if ex.shape.Wrapped {
		data, _ := json.Marshal(argshape.Output[json.RawMessage]{Output: json.RawMessage(args)})
		args = string(data)
	}
	id := fmt.Sprintf("example_%d", i+1)
	return []llms.MessageContent{
		{Role: llms.ChatMessageTypeAI, Parts: []llms.ContentPart{llms.ToolCall{
			ID: id, Type: "function", FunctionCall: &llms.FunctionCall{Name: Tool, Arguments: args},
		}}},
		{Role: llms.ChatMessageTypeTool, Parts: []llms.ContentPart{llms.ToolCallResponse{
			ToolCallID: id, Name: Tool, Content: Accepted,
		}}},
	}
}
