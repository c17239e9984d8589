package answer

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"sync"

	"github.com/cadrehq/cadre/internal/argshape"
	"github.com/cadrehq/cadre/internal/partial"
	"github.com/cadrehq/cadre/pkg/model"
	"github.com/cadrehq/cadre/pkg/schema"
	"github.com/tmc/langchaingo/llms"
)

// Tool is the name of the tool whose arguments are the answer, in tool mode.
const Tool = "final_result"

// What a final_result call is answered with when its answer is taken, and when an earlier
// call of the same turn gave the answer.
const (
	Accepted = "accepted: this is the final answer"
	Skipped  = "skipped: the final answer was given in the same turn"
)

const description = "Give your final answer by calling this tool: its arguments are the answer. Call it once, when you have everything you need."

// Shape is what an assistant knows of its output type O, prepared once by For and never
// modified after.
type Shape struct {
	Text    bool           // O is a string kind: the answer is the text, nothing is parsed
	Schema  *schema.Schema // O's; nil for a Text O
	Final   *schema.Schema // final_result's arguments: O's, or {"output": O}; nil for a Text O
	Wrapped bool           // final_result's arguments are {"output": O}
	// Prompt is the output's instructions, which the system prompt holds in prompted mode;
	// "" for a Text O.
	Prompt string
	// Native is the output schema a request carries in native mode: final_result's arguments'
	// schema, with its strict form when strict providers take it; nil for a Text O.
	Native *model.OutputSchema
	// strictOK: the strict form is one strict providers take: every object closed (a map's
	// open additionalProperties is refused there), and no keyword their strict mode refuses.
	strictOK  bool
	finalHint string // final_result's schema, as a call's correction quotes it

	partialOnce sync.Once
	partial     [2]*schema.Schema // Final relaxed (see partial.Relax), and its strict form relaxed; nil when it does not compile
}

// For returns the shape of O's answers. It fails on an O that has no JSON Schema.
func For[O any]() (*Shape, error) {
	var zero O
	t := reflect.TypeFor[O]()
	if t.Kind() == reflect.String {
		return &Shape{Text: true}, nil
	}
	s, err := schema.For[O]()
	if err != nil {
		return nil, fmt.Errorf("output type %T: %w", zero, err)
	}
	out := &Shape{Schema: s, Final: s}
	if !argshape.IsObjectType(t) {
		if out.Final, err = schema.For[argshape.Output[O]](); err != nil {
			return nil, fmt.Errorf("output type %T: %w", zero, err)
		}
		out.Wrapped = true
	}
	out.strictOK = out.Final.StrictClosed() && !out.Final.Uses(strictRefused...)
	out.finalHint = compact(out.Final.JSON())
	out.Native = &model.OutputSchema{Name: schemaName(t), Schema: out.Final.JSON()}
	if out.strictOK {
		out.Native.Strict = out.Final.Strict()
	}
	out.Prompt = "Answer with only a JSON value that matches this JSON Schema, without any other text:\n" + string(s.JSON())
	return out, nil
}

// strictRefused are the keywords OpenAI's strict mode (of tools and of response_format) refuses
// wherever they are: those its guide lists as unsupported, and those it has been seen to refuse
// ("'minLength' is not permitted."). It takes pattern, format, the numeric bounds, minItems and
// maxItems. A schema with one of these goes without strict.
var strictRefused = []string{"allOf", "not", "if", "then", "else", "dependentRequired", "dependentSchemas",
	"patternProperties", "unevaluatedProperties", "unevaluatedItems", "propertyNames", "minProperties", "maxProperties",
	"contains", "minContains", "maxContains", "uniqueItems", "minLength", "maxLength", "default"}

// schemaName names O's schema for an API that wants a name (OpenAI's json_schema.name, of
// letters, digits, '_' and '-', at most 64): its Go type's name when it is one such, else
// "output".
func schemaName(t reflect.Type) string {
	name := t.Name()
	if name == "" || len(name) > 64 || strings.IndexFunc(name, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-')
	}) >= 0 {
		return "output"
	}
	return name
}

// Valid checks a whole answer in native mode, final_result's arguments as text: against the
// schema, or its strict form (a model answering the strict form writes null for what it leaves
// out). The error is the schema's.
func (s *Shape) Valid(data []byte) error {
	err := s.Final.Validate(data)
	if err != nil && s.Native.Strict != nil && s.Final.StrictSchema().Validate(data) == nil {
		return nil
	}
	return err
}

// Partial reports whether doc, a document partial.Close made of the start of final_result's
// arguments (or of a native answer), may grow into a valid answer: it meets the schema, or its
// strict form, with the constraints that a value still being written cannot meet yet removed.
// So a member already complete is never one the schema refuses.
func (s *Shape) Partial(doc []byte) bool {
	s.partialOnce.Do(func() {
		for i, doc := range [2]json.RawMessage{s.Final.JSON(), s.Final.Strict()} {
			if doc == nil {
				continue
			}
			if relaxed, err := partial.Relax(doc); err == nil {
				s.partial[i], _ = schema.Compile(relaxed)
			}
		}
	})
	for _, sc := range s.partial {
		if sc != nil && sc.Validate(doc) == nil {
			return true
		}
	}
	return false
}

// SendsStrict reports whether final_result goes to m in its strict form: m takes strict tools,
// and the form is one it takes. An answer is checked against the form its request was sent
// with (see Schema.StrictSchema).
func (s *Shape) SendsStrict(m model.Model) bool {
	return m.StrictTools && s.strictOK
}

// Definition returns final_result's definition for a request to m.
func (s *Shape) Definition(m model.Model) (llms.Tool, error) {
	doc, strict := s.Final.JSON(), s.SendsStrict(m)
	if strict {
		doc = s.Final.Strict()
	}
	params, err := m.ToolParameters(doc)
	if err != nil {
		return llms.Tool{}, err
	}
	return llms.Tool{Type: "function", Function: &llms.FunctionDefinition{
		Name: Tool, Description: description, Parameters: params, Strict: strict,
	}}, nil
}

// Unwrap returns the answer that valid final_result arguments hold: the arguments
// themselves, or what they wrap for an O that is not an object.
func (s *Shape) Unwrap(args []byte) ([]byte, error) {
	if !s.Wrapped {
		return args, nil
	}
	var w argshape.Output[json.RawMessage]
	if err := json.Unmarshal(args, &w); err != nil {
		return nil, fmt.Errorf("the arguments do not decode: %v", err)
	}
	return w.Output, nil
}

// InCall returns the answer a final_result call holds, to keep in a history of text: its
// arguments themselves, or what they wrap for an O that is not an object — the arguments as
// they are when they wrap nothing. A call of another tool holds no answer.
func (s *Shape) InCall(c llms.FunctionCall) (string, bool) {
	if c.Name != Tool {
		return "", false
	}
	data, err := s.Unwrap([]byte(c.Arguments))
	if err != nil || data == nil {
		return c.Arguments, true
	}
	return string(data), true
}

// Correction is the user message that asks once again for an answer, after one that could
// not be used for err; calls tells that the answer is asked for as a final_result call.
func (s *Shape) Correction(err error, calls bool) string {
	head := "Your answer could not be used: " + err.Error() + "\n"
	switch {
	case s.Text:
		return head + "Answer again, correcting that."
	case calls:
		return head + "Give your answer by calling the " + Tool + " tool, with arguments that match its JSON Schema."
	}
	return head + s.Prompt
}

// CallCorrection is the result of a final_result call whose arguments could not be used for
// err: what the model reads, in the same turn, before it calls again.
func (s *Shape) CallCorrection(err error) string {
	return "error: your " + Tool + " arguments could not be used: " + err.Error() +
		"\nCall " + Tool + " again with arguments that match its JSON Schema: " + s.finalHint
}

// LastRequest is the user message of the last request at a limit: the budget is spent, no
// tool runs any more, and the model answers now; calls as for Correction.
func (s *Shape) LastRequest(calls bool) string {
	text := "Your budget for this task is spent: this is your last reply, and no tool will run any more. Give your best final answer now, from what you have."
	switch {
	case calls:
		text += " Give it by calling " + Tool + "."
	case !s.Text:
		text += " " + s.Prompt
	}
	return text
}

// compact returns doc compacted, or as it is when it is not JSON.
func compact(doc json.RawMessage) string {
	var b bytes.Buffer
	if err := json.Compact(&b, doc); err != nil {
		return string(doc)
	}
	return b.String()
}
