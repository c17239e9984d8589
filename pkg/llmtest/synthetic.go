package llmtest

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	cmodel "github.com/cadrehq/cadre/pkg/model"
	"github.com/cadrehq/cadre/pkg/usage"
	"github.com/tmc/langchaingo/llms"
)

// finalResultTool is the name of the output tool of cadre's assistants: Synthetic calls it last.
const finalResultTool = "final_result"

// Synthetic is a model for testing the wiring of an agent (its tools, its output type, its
// delegations) without writing a script: it invents its answers from the request.
//
// Its first reply to a conversation calls, in one turn, each tool offered in the request once
// (except final_result), with arguments generated from the tool's parameter schema. Once every
// offered tool has been called since the last human message, it answers: by calling
// final_result with arguments generated from that tool's schema when it is offered; else, when
// the request's context carries an output schema
// ([github.com/cadrehq/cadre/pkg/model.WithOutputSchema]), as a client's transport receives
// it for the provider's own structured-output field, with a JSON value generated from it (from
// its Strict form when it has one, as OpenAI's strict mode answers); else, when a system
// message (or else the last human message) ends with a JSON Schema, as an assistant's prompted
// output mode writes it, with a JSON value generated from that schema; else with the text of
// [WithText]. It calls each tool at most once per human message, so a run ends.
//
// Generated values match their schema by construction for the schemas Go types have
// (schema.For) and for most hand-written ones: types, properties (all of them, optional ones
// too), additionalProperties, items and prefixItems, lengths, bounds, multipleOf, enum, const,
// anyOf, oneOf, allOf, $ref within the document (below three nested $refs, optional properties
// are left out, arrays are as short as allowed and null is taken where allowed, which ends
// recursive types), and the formats date-time, date, time, duration, email, hostname, uri, uri-reference, ipv4, ipv6 and
// uuid. A pattern is honoured, as a rule, when Go's regexp package can read it. "not", "if", dependent
// schemas and maxContains are not, nor are schemas that no value matches. Values depend only on
// the seed ([WithSeed]), the schema and the tool's name (the output schema's Name), never on
// the order of requests.
//
// It decides statelessly from each request's messages and output schema, so that any number
// of concurrent runs can share one Synthetic. It records requests ([Synthetic.Requests]) as
// [Scripted] does, and reports no token usage. A tool or an output schema whose schema cannot
// be read fails the request with an error naming it.
//
// Configure a Synthetic (WithoutTools, NoRecord) right after NewSynthetic, before its first
// use; after that it is safe for concurrent use.
type Synthetic struct {
	model
	seed uint64
	text string
	info usageInfo // no usage
}

var _ llms.Model = (*Synthetic)(nil)

// SyntheticOption configures a [Synthetic] model built by [NewSynthetic].
type SyntheticOption func(*Synthetic)

// WithSeed sets the seed of the values a [Synthetic] model generates (1 by default): the same
// seed gives the same values for the same schema and tool.
func WithSeed(seed uint64) SyntheticOption {
	return func(m *Synthetic) { m.seed = seed }
}

// WithText sets the answer of a [Synthetic] model when it is asked for neither final_result
// nor JSON: "synthetic answer" by default.
func WithText(text string) SyntheticOption {
	return func(m *Synthetic) { m.text = text }
}

// NewSynthetic returns a model that invents valid tool calls and answers (see [Synthetic]).
func NewSynthetic(opts ...SyntheticOption) *Synthetic {
	m := &Synthetic{seed: 1, text: "synthetic answer", info: newUsageInfo(usage.Usage{})}
	for _, o := range opts {
		o(m)
	}
	return m
}

// ModelName names the model by its kind, "synthetic": an assistant given it with WithModel
// reports its usage under that name (see model.Namer).
func (m *Synthetic) ModelName() string { return "synthetic" }

// WithoutTools makes m a model that cannot take tools: its SupportsTools reports false, so an
// assistant asks it for its output in the prompt. It returns m.
func (m *Synthetic) WithoutTools() *Synthetic {
	m.noTools = true
	return m
}

// NoRecord makes m keep no record of requests; Requests returns nil. It returns m.
func (m *Synthetic) NoRecord() *Synthetic {
	m.noRecord = true
	return m
}

// GenerateContent answers the request as [Synthetic] says: a turn of tool calls, or the answer.
func (m *Synthetic) GenerateContent(ctx context.Context, msgs []llms.MessageContent, opts ...llms.CallOption) (*llms.ContentResponse, error) {
	req := newRequest(msgs, opts)
	m.arrive(&req)
	r := m.reply(&req, cmodel.OutputSchemaOf(ctx))
	return m.respond(ctx, &r, &m.info)
}

// Call sends prompt as one user message and returns the text of the answer.
func (m *Synthetic) Call(ctx context.Context, prompt string, opts ...llms.CallOption) (string, error) {
	return llms.GenerateFromSinglePrompt(ctx, m, prompt, opts...)
}

// reply decides, from req and the output schema out (nil for none) alone, between calling the
// tools not yet called and answering.
func (m *Synthetic) reply(req *Request, out *cmodel.OutputSchema) Reply {
	called := calledSinceHuman(req.Messages)
	var final *llms.FunctionDefinition
	var calls []llms.ToolCall
	for _, f := range offered(&req.Options) {
		if f.Name == finalResultTool {
			final = f
			continue
		}
		if called[f.Name] {
			continue
		}
		args, err := m.generate(f.Name, f.Parameters)
		if err != nil {
			return Fail(fmt.Errorf("llmtest: synthetic model: tool %q: %w", f.Name, err))
		}
		calls = append(calls, Call(f.Name, string(args)))
	}
	switch {
	case len(calls) > 0:
		return Calls(calls...)
	case final != nil:
		args, err := m.generate(final.Name, final.Parameters)
		if err != nil {
			return Fail(fmt.Errorf("llmtest: synthetic model: tool %q: %w", final.Name, err))
		}
		return Calls(Call(final.Name, string(args)))
	case out != nil:
		return m.answer(out)
	}
	if doc := promptedSchema(req.Messages); doc != nil {
		v, err := m.generate("", doc)
		if err == nil {
			return Text(string(v))
		}
	}
	return Text(m.text)
}

// answer is a JSON value for the output schema out: for its Strict form when it has one.
func (m *Synthetic) answer(out *cmodel.OutputSchema) Reply {
	doc := out.Schema
	if out.Strict != nil {
		doc = out.Strict
	}
	v, err := generateValue(doc, m.seed, out.Name)
	if err != nil {
		return Fail(fmt.Errorf("llmtest: synthetic model: output schema %q: %w", out.Name, err))
	}
	return Text(string(v))
}

// generate returns a value for the schema params, from the seed and name.
func (m *Synthetic) generate(name string, params any) ([]byte, error) {
	doc, err := schemaDocument(params)
	if err != nil {
		return nil, err
	}
	return generateValue(doc, m.seed, name)
}

// offered returns the function definitions of the tools offered in opts.
func offered(opts *llms.CallOptions) []*llms.FunctionDefinition {
	var defs []*llms.FunctionDefinition
	for i := range opts.Tools {
		if f := opts.Tools[i].Function; f != nil {
			defs = append(defs, f)
		}
	}
	for i := range opts.Functions {
		defs = append(defs, &opts.Functions[i])
	}
	return defs
}

// calledSinceHuman returns the names of the tools called in the AI messages after the last
// human message.
func calledSinceHuman(msgs []llms.MessageContent) map[string]bool {
	start := 0
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == llms.ChatMessageTypeHuman {
			start = i + 1
			break
		}
	}
	called := map[string]bool{}
	for _, msg := range msgs[start:] {
		if msg.Role != llms.ChatMessageTypeAI {
			continue
		}
		for _, p := range msg.Parts {
			if c, ok := p.(llms.ToolCall); ok && c.FunctionCall != nil {
				called[c.FunctionCall.Name] = true
			}
		}
	}
	return called
}

// schemaDocument returns the JSON of a tool's Parameters, however the caller gave it.
func schemaDocument(params any) ([]byte, error) {
	switch p := params.(type) {
	case nil:
		return []byte(`{"type":"object"}`), nil
	case json.RawMessage:
		return p, nil
	case []byte:
		return p, nil
	case string:
		return []byte(p), nil
	}
	doc, err := json.Marshal(params)
	if err != nil {
		return nil, fmt.Errorf("its parameters (%T) are not a JSON Schema document: %w", params, err)
	}
	return doc, nil
}

// promptedSchema returns the JSON Schema that a system message, or else the last human
// message, ends with, as an assistant's prompted output mode and its correction write it; nil
// when there is none. Only a schema at the very end counts, so that instructions that quote JSON
// in passing do not turn a prose answer into JSON.
func promptedSchema(msgs []llms.MessageContent) []byte {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == llms.ChatMessageTypeSystem {
			if doc := endingSchema(messageText(msgs[i])); doc != nil {
				return doc
			}
		}
	}
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == llms.ChatMessageTypeHuman {
			return endingSchema(messageText(msgs[i]))
		}
	}
	return nil
}

func messageText(m llms.MessageContent) string {
	var b strings.Builder
	for _, p := range m.Parts {
		if t, ok := p.(llms.TextContent); ok {
			b.WriteString(t.Text)
		}
	}
	return b.String()
}

// endingSchema returns the JSON object that text ends with (but for white space), when it looks
// like a JSON Schema.
func endingSchema(text string) []byte {
	text = strings.TrimRight(text, " \t\r\n")
	if !strings.HasSuffix(text, "}") {
		return nil
	}
	for i := strings.IndexByte(text, '{'); i >= 0; {
		if json.Valid([]byte(text[i:])) {
			if looksLikeSchema([]byte(text[i:])) {
				return []byte(text[i:])
			}
			return nil
		}
		next := strings.IndexByte(text[i+1:], '{')
		if next < 0 {
			break
		}
		i += 1 + next
	}
	return nil
}

// looksLikeSchema reports whether the JSON object raw has a keyword only a schema would have.
func looksLikeSchema(raw []byte) bool {
	var o map[string]json.RawMessage
	if json.Unmarshal(raw, &o) != nil {
		return false
	}
	for _, k := range []string{"properties", "$ref", "$defs", "anyOf", "oneOf", "allOf", "items", "enum", "const"} {
		if _, ok := o[k]; ok {
			return true
		}
	}
	var t any
	if json.Unmarshal(o["type"], &t) != nil {
		return false
	}
	names := []any{t}
	if list, ok := t.([]any); ok {
		names = list
	}
	for _, n := range names {
		switch n {
		case "object", "array", "string", "integer", "number", "boolean", "null":
		default:
			return false
		}
	}
	return len(names) > 0
}
