package llmtest_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cadrehq/cadre/pkg/assistant"
	"github.com/cadrehq/cadre/pkg/llmtest"
	"github.com/cadrehq/cadre/pkg/model"
	"github.com/cadrehq/cadre/pkg/providertest"
	"github.com/cadrehq/cadre/pkg/schema"
	"github.com/cadrehq/cadre/pkg/tool"
	"github.com/google/go-cmp/cmp"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/llms/anthropic"
	"github.com/tmc/langchaingo/llms/openai"
)

// Report is the typed output of the assistants under test.
type Report struct {
	Title    string    `json:"title" jsonschema:"minLength=5"`
	Severity string    `json:"severity" jsonschema:"enum=low,enum=medium,enum=high"`
	Score    float64   `json:"score" jsonschema:"minimum=0,maximum=10"`
	Findings []Finding `json:"findings" jsonschema:"minItems=1"`
	Due      time.Time `json:"due"`
	Notes    *string   `json:"notes,omitempty"`
}

type Finding struct {
	File string `json:"file"`
	Line int    `json:"line" jsonschema:"minimum=1"`
}

type searchArgs struct {
	Query string `json:"query" jsonschema:"minLength=3"`
	Limit int    `json:"limit,omitempty" jsonschema:"minimum=1,maximum=20"`
}

type lookupArgs struct {
	ID    int      `json:"id" jsonschema:"minimum=100,multipleOf=7"`
	Kinds []string `json:"kinds" jsonschema:"enum=bug,enum=smell"`
}

// countingTool returns a tool.Func tool of arguments I that counts its calls.
func countingTool[I any](name string, calls *atomic.Int64) tool.Tool {
	return tool.Func(name, "A tool under test.", func(context.Context, I) (string, error) {
		calls.Add(1)
		return "ok", nil
	})
}

func mustSchema[T any](t *testing.T) *schema.Schema {
	t.Helper()
	s, err := schema.For[T]()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// callsIn returns the arguments of the calls of each tool in msgs, by tool name.
func callsIn(msgs []llms.MessageContent) map[string][]string {
	calls := map[string][]string{}
	for _, m := range msgs {
		for _, p := range m.Parts {
			if c, ok := p.(llms.ToolCall); ok {
				calls[c.FunctionCall.Name] = append(calls[c.FunctionCall.Name], c.FunctionCall.Arguments)
			}
		}
	}
	return calls
}

func TestSyntheticDrivesTypedAssistant(t *testing.T) {
	t.Parallel()
	var searches, lookups atomic.Int64
	m := llmtest.NewSynthetic()
	a := assistant.New[Report]("reporter",
		assistant.WithModel(m),
		assistant.WithTools(countingTool[searchArgs]("search", &searches), countingTool[lookupArgs]("lookup", &lookups)),
	)
	res, err := a.Run(context.Background(), assistant.Input{Prompt: "Review the code."})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if res.Stop != assistant.StopAnswer {
		t.Errorf("Stop = %q, want %q", res.Stop, assistant.StopAnswer)
	}
	out, err := json.Marshal(res.Output)
	if err != nil {
		t.Fatal(err)
	}
	if err := mustSchema[Report](t).Validate(out); err != nil {
		t.Errorf("the output %s does not match Report's schema: %v", out, err)
	}
	if n := searches.Load(); n != 1 {
		t.Errorf("search ran %d times, want 1", n)
	}
	if n := lookups.Load(); n != 1 {
		t.Errorf("lookup ran %d times, want 1", n)
	}
	calls := callsIn(res.Messages)
	for name, s := range map[string]*schema.Schema{"search": mustSchema[searchArgs](t), "lookup": mustSchema[lookupArgs](t)} {
		if len(calls[name]) != 1 {
			t.Fatalf("%s was called %d times in the messages, want 1", name, len(calls[name]))
		}
		if err := s.Validate([]byte(calls[name][0])); err != nil {
			t.Errorf("%s's arguments %s do not match its schema: %v", name, calls[name][0], err)
		}
	}
	if got := len(calls["final_result"]); got != 1 {
		t.Errorf("final_result was called %d times, want 1", got)
	}
	if got := len(m.Requests()); got != 2 {
		t.Errorf("the model got %d requests, want 2 (the tools, then the answer)", got)
	}
}

func TestSyntheticPromptedOutput(t *testing.T) {
	t.Parallel()
	m := llmtest.NewSynthetic(llmtest.WithSeed(7)).WithoutTools()
	a := assistant.New[[]Finding]("finder", assistant.WithModel(m))
	res, err := a.Run(context.Background(), assistant.Input{Prompt: "Find problems."})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if err := mustSchema[[]Finding](t).Validate([]byte(res.Text)); err != nil {
		t.Errorf("the answer %s does not match the schema: %v", res.Text, err)
	}
	if len(res.Output) == 0 {
		t.Errorf("Output is empty; the answer was %s", res.Text)
	}
}

func TestSyntheticProse(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		opts  []llmtest.SyntheticOption
		tools int
		want  string
	}{
		{name: "default", want: "synthetic answer"},
		{name: "WithText", opts: []llmtest.SyntheticOption{llmtest.WithText("All done.")}, want: "All done."},
		{name: "after a tool", opts: []llmtest.SyntheticOption{llmtest.WithText("Looked it up.")}, tools: 1, want: "Looked it up."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var calls atomic.Int64
			opts := []assistant.Option{assistant.WithModel(llmtest.NewSynthetic(tc.opts...)),
				assistant.WithInstructions(`Answer in prose; never write {"type": "object"} or any JSON.`)}
			if tc.tools > 0 {
				opts = append(opts, assistant.WithTools(countingTool[searchArgs]("search", &calls)))
			}
			res, err := assistant.New[string]("writer", opts...).Run(context.Background(), assistant.Input{Prompt: "Hi"})
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			if res.Output != tc.want {
				t.Errorf("Output = %q, want %q", res.Output, tc.want)
			}
			if got := calls.Load(); got != int64(tc.tools) {
				t.Errorf("the tool ran %d times, want %d", got, tc.tools)
			}
		})
	}
}

// TestSyntheticDecision checks how the model chooses, from the messages alone, between calling
// tools and answering.
func TestSyntheticDecision(t *testing.T) {
	t.Parallel()
	human := func(s string) llms.MessageContent { return llms.TextParts(llms.ChatMessageTypeHuman, s) }
	turn := func(names ...string) []llms.MessageContent {
		ai := llms.MessageContent{Role: llms.ChatMessageTypeAI}
		var results []llms.MessageContent
		for i, n := range names {
			id := fmt.Sprintf("%s_%d", n, i)
			ai.Parts = append(ai.Parts, llms.ToolCall{ID: id, Type: "function", FunctionCall: &llms.FunctionCall{Name: n, Arguments: "{}"}})
			results = append(results, llms.MessageContent{Role: llms.ChatMessageTypeTool,
				Parts: []llms.ContentPart{llms.ToolCallResponse{ToolCallID: id, Name: n, Content: "ok"}}})
		}
		return append([]llms.MessageContent{ai}, results...)
	}
	conv := func(parts ...[]llms.MessageContent) []llms.MessageContent {
		var out []llms.MessageContent
		for _, p := range parts {
			out = append(out, p...)
		}
		return out
	}
	one := func(m llms.MessageContent) []llms.MessageContent { return []llms.MessageContent{m} }
	def := func(name string) llms.Tool {
		return llms.Tool{Type: "function", Function: &llms.FunctionDefinition{Name: name,
			Parameters: json.RawMessage(`{"type":"object","properties":{"q":{"type":"string"}},"required":["q"]}`)}}
	}
	tools := []llms.Tool{def("a"), def("b"), def("final_result")}

	for _, tc := range []struct {
		name  string
		msgs  []llms.MessageContent
		tools []llms.Tool
		want  []string // names called; nil for a text answer
		text  string
	}{
		{name: "first reply calls every tool", msgs: conv(one(human("go"))), tools: tools, want: []string{"a", "b"}},
		{name: "then final_result", msgs: conv(one(human("go")), turn("a", "b")), tools: tools, want: []string{"final_result"}},
		{name: "calls of earlier turns count", msgs: conv(one(human("go")), turn("a"), turn("b")), tools: tools, want: []string{"final_result"}},
		{name: "only what is missing", msgs: conv(one(human("go")), turn("a")), tools: tools, want: []string{"b"}},
		{name: "a new human turn starts again", msgs: conv(one(human("go")), turn("a", "b"), one(human("again"))), tools: tools, want: []string{"a", "b"}},
		{name: "after a rejected final_result, again", msgs: conv(one(human("go")), turn("a", "b"), turn("final_result")), tools: tools, want: []string{"final_result"}},
		{name: "no tools: text", msgs: conv(one(human("go"))), text: "synthetic answer"},
		{name: "only final_result", msgs: conv(one(human("go"))), tools: tools[2:], want: []string{"final_result"}},
		{name: "tools called: text", msgs: conv(one(human("go")), turn("a")), tools: tools[:1], text: "synthetic answer"},
		{name: "schema in the system prompt: JSON", msgs: conv(
			one(llms.TextParts(llms.ChatMessageTypeSystem, "Be brief. Answer with JSON matching:\n{\"type\":\"integer\",\"minimum\":5,\"maximum\":5}")),
			one(human("go"))), text: "5"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			resp, err := llmtest.NewSynthetic().GenerateContent(context.Background(), tc.msgs, llms.WithTools(tc.tools))
			if err != nil {
				t.Fatal(err)
			}
			c := resp.Choices[0]
			var got []string
			for _, call := range c.ToolCalls {
				got = append(got, call.FunctionCall.Name)
				if call.ID == "" {
					t.Errorf("call of %s has no ID", call.FunctionCall.Name)
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("tools called (-want +got):\n%s", diff)
			}
			if c.Content != tc.text {
				t.Errorf("Content = %q, want %q", c.Content, tc.text)
			}
		})
	}
}

func TestSyntheticParametersForms(t *testing.T) {
	t.Parallel()
	doc := `{"type":"object","properties":{"n":{"type":"integer","minimum":3,"maximum":3}},"required":["n"]}`
	var asMap map[string]any
	if err := json.Unmarshal([]byte(doc), &asMap); err != nil {
		t.Fatal(err)
	}
	for name, params := range map[string]any{
		"json.RawMessage": json.RawMessage(doc), "[]byte": []byte(doc), "string": doc, "map": asMap,
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			args := firstArgs(t, llmtest.NewSynthetic(), params)
			if args != `{"n":3}` {
				t.Errorf("arguments = %s, want {\"n\":3}", args)
			}
		})
	}
}

func TestSyntheticUnreadableSchema(t *testing.T) {
	t.Parallel()
	tools := llms.WithTools([]llms.Tool{{Type: "function", Function: &llms.FunctionDefinition{Name: "broken", Parameters: `{"type":`}}})
	_, err := llmtest.NewSynthetic().GenerateContent(context.Background(), []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, "go")}, tools)
	if err == nil || !strings.Contains(err.Error(), `tool "broken"`) {
		t.Errorf("err = %v, want an error naming tool \"broken\"", err)
	}
}

func TestSyntheticDeterministic(t *testing.T) {
	t.Parallel()
	params := mustSchema[Report](t).JSON()
	a := firstArgs(t, llmtest.NewSynthetic(llmtest.WithSeed(42)), params)
	b := firstArgs(t, llmtest.NewSynthetic(llmtest.WithSeed(42)), params)
	if a != b {
		t.Errorf("the same seed gave different values:\n%s\n%s", a, b)
	}
	if def, one := firstArgs(t, llmtest.NewSynthetic(), params), firstArgs(t, llmtest.NewSynthetic(llmtest.WithSeed(1)), params); def != one {
		t.Errorf("the default seed is not 1:\n%s\n%s", def, one)
	}
	differ := false
	for seed := uint64(2); seed < 10 && !differ; seed++ {
		differ = firstArgs(t, llmtest.NewSynthetic(llmtest.WithSeed(seed)), params) != a
	}
	if !differ {
		t.Errorf("eight other seeds all gave %s", a)
	}
}

func TestSyntheticConcurrentRuns(t *testing.T) {
	t.Parallel()
	var searches, lookups atomic.Int64
	m := llmtest.NewSynthetic()
	a := assistant.New[Report]("reporter",
		assistant.WithModel(m),
		assistant.WithTools(countingTool[searchArgs]("search", &searches), countingTool[lookupArgs]("lookup", &lookups)),
	)
	const runs = 50
	var wg sync.WaitGroup
	errs := make([]error, runs)
	for i := range runs {
		wg.Go(func() {
			_, errs[i] = a.Run(context.Background(), assistant.Input{Prompt: fmt.Sprintf("Review part %d.", i)})
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	if s, l := searches.Load(), lookups.Load(); s != runs || l != runs {
		t.Errorf("search ran %d times and lookup %d times, want %d each", s, l, runs)
	}
	if got := len(m.Requests()); got != 2*runs {
		t.Errorf("the model got %d requests, want %d", got, 2*runs)
	}
}

// TestSyntheticBehindFakeServers runs a typed assistant on langchaingo's real clients, talking
// to the fake provider APIs that a Synthetic model answers: the OpenAI client sends
// final_result's strict schema, and the Anthropic client one call per assistant message.
func TestSyntheticBehindFakeServers(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		server func(llms.Model, ...providertest.Option) *providertest.Server
		client func(s *providertest.Server) (llms.Model, error)
	}{
		{"openai", providertest.NewOpenAI, func(s *providertest.Server) (llms.Model, error) {
			return openai.New(openai.WithBaseURL(s.URL()+"/v1"), openai.WithToken("test-key"),
				openai.WithModel("gpt-test"), openai.WithHTTPClient(s.Client()))
		}},
		{"anthropic", providertest.NewAnthropic, func(s *providertest.Server) (llms.Model, error) {
			return anthropic.New(anthropic.WithBaseURL(s.URL()+"/v1"), anthropic.WithToken("test-key"),
				anthropic.WithModel("claude-test"), anthropic.WithHTTPClient(s.Client()))
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var searches, lookups atomic.Int64
			s := tc.server(llmtest.NewSynthetic())
			defer s.Close()
			client, err := tc.client(s)
			if err != nil {
				t.Fatal(err)
			}
			a := assistant.New[Report]("reporter",
				assistant.WithModel(client),
				assistant.WithTools(countingTool[searchArgs]("search", &searches), countingTool[lookupArgs]("lookup", &lookups)),
			)
			res, err := a.Run(context.Background(), assistant.Input{Prompt: "Review the code."})
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			out, _ := json.Marshal(res.Output)
			if err := mustSchema[Report](t).Validate(out); err != nil {
				t.Errorf("the output %s does not match Report's schema: %v", out, err)
			}
			if searches.Load() != 1 || lookups.Load() != 1 {
				t.Errorf("search ran %d times and lookup %d times, want 1 each", searches.Load(), lookups.Load())
			}
		})
	}
}

// firstArgs returns the arguments of the model's first call of a tool "probe" with params.
func firstArgs(t *testing.T, m *llmtest.Synthetic, params any) string {
	t.Helper()
	resp, err := m.GenerateContent(context.Background(),
		[]llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, "go")},
		llms.WithTools([]llms.Tool{{Type: "function", Function: &llms.FunctionDefinition{Name: "probe", Parameters: params}}}))
	if err != nil {
		t.Fatal(err)
	}
	calls := resp.Choices[0].ToolCalls
	if len(calls) != 1 {
		t.Fatalf("got %d calls, want 1", len(calls))
	}
	return calls[0].FunctionCall.Arguments
}

// promptedAnswer returns the model's text answer to a system prompt that quotes doc.
func promptedAnswer(t *testing.T, m *llmtest.Synthetic, doc []byte) string {
	t.Helper()
	resp, err := m.GenerateContent(context.Background(), []llms.MessageContent{
		llms.TextParts(llms.ChatMessageTypeSystem, "Answer with only a JSON value that matches this JSON Schema:\n"+string(doc)),
		llms.TextParts(llms.ChatMessageTypeHuman, "go"),
	})
	if err != nil {
		t.Fatal(err)
	}
	return resp.Choices[0].Content
}

// checkGenerated checks, for many seeds, that what the model writes for s (as tool arguments
// and as a prompted answer) matches s.
func checkGenerated(t *testing.T, s *schema.Schema) {
	t.Helper()
	for seed := uint64(1); seed <= 25; seed++ {
		m := llmtest.NewSynthetic(llmtest.WithSeed(seed)).NoRecord()
		for how, v := range map[string]string{
			"as arguments": firstArgs(t, m, s.JSON()),
			"as an answer": promptedAnswer(t, m, s.JSON()),
		} {
			if err := s.Validate([]byte(v)); err != nil {
				t.Errorf("seed %d, %s: %s\ndoes not match %s:\n%v", seed, how, v, s.JSON(), err)
			}
		}
	}
}

// Types whose schemas the generator must satisfy.
type (
	level   string
	address struct {
		Street  string `json:"street" jsonschema:"minLength=12,maxLength=14"`
		Zip     string `json:"zip" jsonschema:"pattern=^[0-9]{5}(-[0-9]{4})?$"`
		Code    string `json:"code" jsonschema:"pattern=^[A-Z]{2}[a-z]+$,maxLength=6"`
		Country string `json:"country,omitempty" jsonschema:"enum=NO,enum=SE,enum=DK"`
	}
	person struct {
		Name    string            `json:"name"`
		Age     int               `json:"age" jsonschema:"minimum=18,maximum=99"`
		Ratio   float64           `json:"ratio" jsonschema:"exclusiveMinimum=0,exclusiveMaximum=1"`
		Step    int               `json:"step" jsonschema:"minimum=7,multipleOf=5"`
		Cost    float64           `json:"cost" jsonschema:"multipleOf=0.01,minimum=0.5,maximum=0.6"`
		Email   string            `json:"email" jsonschema:"format=email"`
		Site    string            `json:"site,omitempty" jsonschema:"format=uri"`
		ID      string            `json:"id" jsonschema:"format=uuid"`
		Home    address           `json:"home"`
		Work    *address          `json:"work,omitempty"`
		Tags    []string          `json:"tags" jsonschema:"minItems=2,maxItems=4,uniqueItems=true"`
		Labels  map[string]int    `json:"labels"`
		Groups  map[string][]tree `json:"groups,omitempty"`
		Born    time.Time         `json:"born"`
		Level   level             `json:"level" jsonschema:"enum=low,enum=mid,enum=high"`
		Nick    *string           `json:"nick" jsonschema:"nullable"`
		Any     any               `json:"any"`
		Raw     json.RawMessage   `json:"raw,omitempty"`
		Matrix  [][]float64       `json:"matrix"`
		Fixed   [3]int            `json:"fixed"`
		Small   uint8             `json:"small"`
		Flag    bool              `json:"flag"`
		Choice  any               `json:"choice" jsonschema:"oneof_type=string;integer"`
		Bytes   []byte            `json:"bytes"`
		Ignored chan int          `json:"-"`
	}
	tree struct {
		Value    int    `json:"value"`
		Children []tree `json:"children"`
		Parent   *tree  `json:"parent,omitempty"`
	}
	list struct {
		Name string `json:"name"`
		Next *list  `json:"next,omitempty"`
	}
	// Two types that refer to each other.
	dir struct {
		Name  string `json:"name"`
		Files []file `json:"files"`
	}
	file struct {
		Name   string `json:"name"`
		Parent *dir   `json:"parent,omitempty"`
		Links  []file `json:"links,omitempty"`
	}
)

func TestSyntheticValuesMatchGoTypes(t *testing.T) {
	t.Parallel()
	for _, typ := range []reflect.Type{
		reflect.TypeFor[Report](),
		reflect.TypeFor[searchArgs](),
		reflect.TypeFor[lookupArgs](),
		reflect.TypeFor[address](),
		reflect.TypeFor[person](),
		reflect.TypeFor[*person](),
		reflect.TypeFor[[]person](),
		reflect.TypeFor[map[string]person](),
		reflect.TypeFor[tree](),
		reflect.TypeFor[[]tree](),
		reflect.TypeFor[list](),
		reflect.TypeFor[dir](),
		reflect.TypeFor[int](),
		reflect.TypeFor[[]string](),
		reflect.TypeFor[map[string]bool](),
		reflect.TypeFor[time.Time](),
		reflect.TypeFor[struct{}](),
	} {
		t.Run(typ.String(), func(t *testing.T) {
			t.Parallel()
			s, err := schema.Of(typ)
			if err != nil {
				t.Fatal(err)
			}
			checkGenerated(t, s)
			checkGenerated(t, s.StrictSchema()) // what a strict final_result offers
		})
	}
}

func TestSyntheticValuesMatchSchemas(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, doc string }{
		{"definitions", `{"$schema":"http://json-schema.org/draft-07/schema#","definitions":{"pos":{"type":"integer","minimum":1}},
			"type":"object","properties":{"a":{"$ref":"#/definitions/pos"},"b":{"type":"array","items":{"$ref":"#/definitions/pos"},"minItems":3}},"required":["a","b"]}`},
		{"ref with siblings", `{"$defs":{"s":{"type":"string"}},"$ref":"#/$defs/s","minLength":8}`},
		{"ref to the root", `{"type":"object","properties":{"x":{"type":"integer"},"next":{"$ref":"#"}},"required":["x"]}`},
		{"draft-04 exclusive", `{"$schema":"http://json-schema.org/draft-04/schema#","type":"integer","minimum":3,"exclusiveMinimum":true,"maximum":4}`},
		{"exclusive integers", `{"type":"integer","exclusiveMinimum":-3,"exclusiveMaximum":-1}`},
		{"negative multiple", `{"type":"number","maximum":-10.5,"multipleOf":0.25}`},
		{"integer multiple of a fraction", `{"type":"integer","multipleOf":1.5,"minimum":1}`},
		{"huge bounds", `{"type":"integer","minimum":1e30}`},
		{"number between", `{"type":"number","minimum":0.1,"maximum":0.2}`},
		{"type list", `{"type":["null","string"],"maxLength":2}`},
		{"all types", `{"type":["integer","boolean"]}`},
		{"const", `{"type":"object","properties":{"kind":{"const":"circle"},"r":{"type":"number"}},"required":["kind"]}`},
		{"enum of mixed", `{"enum":[null,1,"a",{"b":[true]}]}`},
		{"enum with type", `{"type":"integer","enum":["x",2,3.5,4]}`},
		{"anyOf null first", `{"anyOf":[{"type":"null"},{"type":"integer","minimum":9}]}`},
		{"oneOf", `{"oneOf":[{"type":"string","pattern":"^a+$"},{"type":"integer"}]}`},
		{"allOf objects", `{"allOf":[{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]},
			{"properties":{"b":{"type":"integer","minimum":4}},"required":["b"]},{"properties":{"a":{"minLength":9}}}]}`},
		{"allOf bounds", `{"allOf":[{"type":"number","minimum":2},{"type":"integer","maximum":3},{"minimum":2.5}]}`},
		{"prefixItems", `{"type":"array","prefixItems":[{"type":"string"},{"type":"integer"},{"type":"boolean"}],"items":false}`},
		{"tuple draft-07", `{"$schema":"http://json-schema.org/draft-07/schema#","type":"array","items":[{"type":"string"},{"type":"null"}],"additionalItems":false,"minItems":2}`},
		{"unique enum items", `{"type":"array","items":{"enum":["a","b","c"]},"minItems":3,"uniqueItems":true}`},
		{"contains", `{"type":"array","items":{"type":"integer"},"contains":{"minimum":50},"maxItems":2}`},
		{"no type", `{"properties":{"a":{"minLength":2},"b":{"maximum":-1},"c":{"items":{}}},"required":["a","b","c"]}`},
		{"true and false", `{"type":"object","properties":{"any":true,"never":false},"required":["any"]}`},
		{"required beyond properties", `{"type":"object","properties":{"a":{"type":"string"}},"required":["a","b"],"additionalProperties":{"type":"integer"}}`},
		{"pattern properties", `{"type":"object","patternProperties":{"^x-[a-z]+$":{"type":"integer"}},"additionalProperties":false,"minProperties":2}`},
		{"property names", `{"type":"object","propertyNames":{"pattern":"^[A-Z][0-9]$"},"additionalProperties":{"type":"boolean"},"minProperties":1}`},
		{"max properties", `{"type":"object","properties":{"a":{},"b":{},"c":{}},"required":["c"],"maxProperties":1}`},
		{"formats", `{"type":"object","properties":{"t":{"type":"string","format":"date-time"},"d":{"type":"string","format":"date"},
			"h":{"type":"string","format":"time"},"e":{"type":"string","format":"email"},"u":{"type":"string","format":"uri"},
			"i":{"type":"string","format":"uuid"},"v4":{"type":"string","format":"ipv4"},"v6":{"type":"string","format":"ipv6"},
			"n":{"type":"string","format":"hostname"},"p":{"type":"string","format":"duration"}}}`},
		{"patterns", `{"type":"array","prefixItems":[{"type":"string","pattern":"^\\d{3}-\\d{4}$"},{"type":"string","pattern":"[^abc]{4,}"},
			{"type":"string","pattern":"^(foo|bar)+baz$","minLength":10},{"type":"string","pattern":"^\\w+@\\w+\\.com$"}],"items":false}`},
		{"nullable", `{"type":"object","properties":{"a":{"type":"string","nullable":true}},"required":["a"]}`},
		{"deep recursion", `{"$defs":{"n":{"type":"object","properties":{"l":{"$ref":"#/$defs/n"},"r":{"anyOf":[{"$ref":"#/$defs/n"},{"type":"null"}]},
			"kids":{"type":"array","items":{"$ref":"#/$defs/n"}}},"required":["r","kids"]}},"$ref":"#/$defs/n"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s, err := schema.Compile(json.RawMessage(tc.doc))
			if err != nil {
				t.Fatal(err)
			}
			checkGenerated(t, s)
		})
	}
}

// TestSyntheticOutputSchema checks that a request whose context carries an output schema, as a
// client's transport receives it for the provider's structured-output field, is answered with
// JSON of that schema once the tools are called, and that final_result still wins.
func TestSyntheticOutputSchema(t *testing.T) {
	t.Parallel()
	s := mustSchema[Report](t)
	search := llms.Tool{Type: "function", Function: &llms.FunctionDefinition{Name: "search", Parameters: mustSchema[searchArgs](t).JSON()}}
	final := llms.Tool{Type: "function", Function: &llms.FunctionDefinition{Name: "final_result", Parameters: s.JSON()}}
	go1 := []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, "Review the code.")}
	ask := func(t *testing.T, out *model.OutputSchema, msgs []llms.MessageContent, tools ...llms.Tool) *llms.ContentChoice {
		t.Helper()
		ctx := model.WithOutputSchema(context.Background(), out)
		resp, err := llmtest.NewSynthetic(llmtest.WithSeed(3)).GenerateContent(ctx, msgs, llms.WithTools(tools))
		if err != nil {
			t.Fatal(err)
		}
		return resp.Choices[0]
	}

	t.Run("the answer fits the schema", func(t *testing.T) {
		t.Parallel()
		c := ask(t, &model.OutputSchema{Name: "report", Schema: s.JSON()}, go1)
		if len(c.ToolCalls) > 0 {
			t.Fatalf("called %v, want an answer", c.ToolCalls)
		}
		if err := s.Validate([]byte(c.Content)); err != nil {
			t.Errorf("the answer %s does not match the schema: %v", c.Content, err)
		}
	})
	t.Run("tools first", func(t *testing.T) {
		t.Parallel()
		c := ask(t, &model.OutputSchema{Name: "report", Schema: s.JSON()}, go1, search)
		if len(c.ToolCalls) != 1 || c.ToolCalls[0].FunctionCall.Name != "search" || c.Content != "" {
			t.Errorf("content %q, calls %v; want a call of search alone", c.Content, c.ToolCalls)
		}
		called := append(slices.Clone(go1), llms.MessageContent{Role: llms.ChatMessageTypeAI, Parts: []llms.ContentPart{c.ToolCalls[0]}},
			llms.MessageContent{Role: llms.ChatMessageTypeTool, Parts: []llms.ContentPart{
				llms.ToolCallResponse{ToolCallID: c.ToolCalls[0].ID, Name: "search", Content: "ok"}}})
		c = ask(t, &model.OutputSchema{Name: "report", Schema: s.JSON()}, called, search)
		if err := s.Validate([]byte(c.Content)); err != nil || len(c.ToolCalls) > 0 {
			t.Errorf("after the tools, the answer %s (calls %v) does not match the schema: %v", c.Content, c.ToolCalls, err)
		}
	})
	t.Run("the strict form when there is one", func(t *testing.T) {
		t.Parallel()
		c := ask(t, &model.OutputSchema{Name: "n", Schema: json.RawMessage(`{"type":"object"}`),
			Strict: json.RawMessage(`{"type":"object","properties":{"n":{"const":7}},"required":["n"],"additionalProperties":false}`)}, go1)
		if c.Content != `{"n":7}` {
			t.Errorf("answer %s, want {\"n\":7}, of the strict form", c.Content)
		}
	})
	t.Run("final_result wins", func(t *testing.T) {
		t.Parallel()
		c := ask(t, &model.OutputSchema{Name: "report", Schema: s.JSON()}, go1, final)
		if len(c.ToolCalls) != 1 || c.ToolCalls[0].FunctionCall.Name != "final_result" {
			t.Errorf("content %q, calls %v; want a call of final_result", c.Content, c.ToolCalls)
		}
	})
	t.Run("an unreadable schema fails", func(t *testing.T) {
		t.Parallel()
		ctx := model.WithOutputSchema(context.Background(), &model.OutputSchema{Name: "broken", Schema: json.RawMessage(`{"type":`)})
		_, err := llmtest.NewSynthetic().GenerateContent(ctx, go1)
		if err == nil || !strings.Contains(err.Error(), `"broken"`) {
			t.Errorf("err = %v, want one naming the schema", err)
		}
	})
}
