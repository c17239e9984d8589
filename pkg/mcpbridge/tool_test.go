package mcpbridge_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/cadrehq/cadre/pkg/assistant"
	"github.com/cadrehq/cadre/pkg/llmtest"
	"github.com/cadrehq/cadre/pkg/mcpbridge"
	"github.com/cadrehq/cadre/pkg/tool"
	"github.com/mark3labs/mcp-go/mcp"
)

type forecastIn struct {
	City string `json:"city" jsonschema:"description=A city name"`
	Days int    `json:"days,omitempty" jsonschema:"minimum=1,maximum=7"`
}

type forecast struct {
	City  string  `json:"city"`
	HighC float64 `json:"high_c"`
}

// forecastTool is a tool.Typed: its result is a struct.
func forecastTool() tool.Tool {
	return tool.Func("forecast", "The weather forecast of a city.", forecastFor)
}

// forecastFor is the forecast tool's function: it fails for Atlantis and panics for Boom.
func forecastFor(_ context.Context, in forecastIn) (forecast, error) {
	switch in.City {
	case "Atlantis":
		return forecast{}, errors.New("no forecast for Atlantis: it is under the sea; ask for a city on land")
	case "Boom":
		panic("the weather machine broke: key=sk-secret")
	}
	return forecast{City: in.City, HighC: 24.5}, nil
}

// echoTool is a tool whose result is text.
func echoTool() tool.Tool {
	return tool.Func("echo", "Says the input back.", func(_ context.Context, in string) (string, error) {
		return "echo: " + in, nil
	})
}

func TestToolsListedWithTheirSchemas(t *testing.T) {
	t.Parallel()
	s := newServer()
	fc, echo := forecastTool(), echoTool()
	for _, tl := range []tool.Tool{fc, echo} {
		if err := mcpbridge.AddTool(s, tl); err != nil {
			t.Fatal(err)
		}
	}
	if err := mcpbridge.AddTool(s, echoTool(), mcpbridge.WithName("say"), mcpbridge.WithTitle("Say"), mcpbridge.WithDescription("Says it.")); err != nil {
		t.Fatal(err)
	}
	c := connect(t, s)
	res, err := c.ListTools(testContext(t), mcp.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]mcp.Tool{}
	for _, tl := range res.Tools {
		byName[tl.Name] = tl
	}
	if len(byName) != 3 {
		t.Fatalf("listed %d tools, want 3: %v", len(byName), byName)
	}
	got := byName["forecast"]
	if got.Description != fc.Description() {
		t.Errorf("description %q, want %q", got.Description, fc.Description())
	}
	in, _ := json.Marshal(got.InputSchema)
	if !jsonEqual(t, in, fc.Schema()) {
		t.Errorf("input schema\n%s\nwant\n%s", in, fc.Schema())
	}
	out, _ := json.Marshal(got.OutputSchema)
	if !jsonEqual(t, out, fc.(tool.Typed).OutputSchema()) {
		t.Errorf("output schema\n%s\nwant\n%s", out, fc.(tool.Typed).OutputSchema())
	}
	if e := byName["echo"]; e.OutputSchema.Type != "" {
		t.Errorf("the text tool has an output schema: %+v", e.OutputSchema)
	}
	if say := byName["say"]; say.Title != "Say" || say.Description != "Says it." {
		t.Errorf("renamed tool: title %q, description %q", say.Title, say.Description)
	}
}

func TestToolCallReturnsTextAndStructuredContent(t *testing.T) {
	t.Parallel()
	s := newServer()
	for _, tl := range []tool.Tool{forecastTool(), echoTool()} {
		if err := mcpbridge.AddTool(s, tl); err != nil {
			t.Fatal(err)
		}
	}
	c := connect(t, s)

	res := callTool(t, c, "forecast", `{"city":"Lisbon"}`)
	if res.IsError {
		t.Fatalf("isError: %s", textOf(res))
	}
	want := `{"city":"Lisbon","high_c":24.5}`
	if got := textOf(res); !jsonEqual(t, []byte(got), []byte(want)) {
		t.Errorf("text %s, want %s", got, want)
	}
	if !jsonEqual(t, res.RawStructuredContent, []byte(want)) {
		t.Errorf("structured content %s, want %s", res.RawStructuredContent, want)
	}

	res = callTool(t, c, "echo", `{"input":"hi"}`)
	if res.IsError || textOf(res) != "echo: hi" {
		t.Errorf("echo: isError %v, text %q", res.IsError, textOf(res))
	}
	if res.StructuredContent != nil {
		t.Errorf("a text tool returned structured content: %v", res.StructuredContent)
	}
}

// A program that calls a served tool's handler itself, with the arguments as a map rather than
// as the JSON a client sent, gets them to the tool all the same.
func TestToolCalledWithArgumentsAsAMap(t *testing.T) {
	t.Parallel()
	s := newServer()
	if err := mcpbridge.AddTool(s, echoTool()); err != nil {
		t.Fatal(err)
	}
	var req mcp.CallToolRequest
	req.Params.Name = "echo"
	req.Params.Arguments = map[string]any{"input": "hi"}
	res, err := s.GetTool("echo").Handler(testContext(t), req)
	if err != nil || res.IsError || textOf(res) != "echo: hi" {
		t.Errorf("the call: %v, %+v; want echo: hi", err, res)
	}
}

// A tool served as an assistant's AsTool wrapper runs the assistant; a typed one returns
// structured content.
func TestAsToolServed(t *testing.T) {
	t.Parallel()
	model := llmtest.NewFunc(func(_ context.Context, req llmtest.Request) llmtest.Reply {
		var in forecastIn
		if err := json.Unmarshal([]byte(lastUser(req)), &in); err != nil {
			return llmtest.Text(`{"city":"?","high_c":0}`)
		}
		return llmtest.Text(fmt.Sprintf(`{"city":%q,"high_c":%d}`, in.City, 20+in.Days))
	}).NoRecord()
	forecaster := assistant.New[forecast]("forecaster", assistant.WithModel(model), assistant.WithDescription("Forecasts."))
	s := newServer()
	if err := mcpbridge.AddTool(s, assistant.AsTool[forecastIn](forecaster)); err != nil {
		t.Fatal(err)
	}
	c := connect(t, s)
	res := callTool(t, c, "forecaster", `{"city":"Porto","days":3}`)
	if res.IsError {
		t.Fatalf("isError: %s", textOf(res))
	}
	if want := `{"city":"Porto","high_c":23}`; !jsonEqual(t, res.RawStructuredContent, []byte(want)) {
		t.Errorf("structured content %s, want %s", res.RawStructuredContent, want)
	}
}

// badOutput is a tool.Typed whose result does not match its output schema.
type badOutput struct{ tool.Tool }

func (badOutput) OutputSchema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}`)
}

func TestToolFailuresAreResultsAndTheServerGoesOn(t *testing.T) {
	t.Parallel()
	var log errorLog
	s := newServer()
	if err := mcpbridge.AddTool(s, forecastTool(), mcpbridge.WithErrorHandler(log.handle)); err != nil {
		t.Fatal(err)
	}
	bad := badOutput{tool.Func("bad", "Returns the wrong shape.", func(context.Context, struct{}) (string, error) {
		return `{"n":"three"}`, nil
	})}
	if err := mcpbridge.AddTool(s, bad, mcpbridge.WithErrorHandler(log.handle)); err != nil {
		t.Fatal(err)
	}
	c := connect(t, s)
	tests := []struct {
		name, tool, args string
		want             []string // in the result's text
		notWant          string
	}{
		{"wrong type", "forecast", `{"city":42}`, []string{`invalid arguments for tool "forecast"`, "city: got number, want string"}, ""},
		{"missing field", "forecast", `{}`, []string{`missing required property "city"`}, ""},
		{"no arguments", "forecast", ``, []string{`missing required property "city"`}, ""},
		{"out of range", "forecast", `{"city":"Lisbon","days":9}`, []string{"days:", "7"}, ""},
		{"tool error", "forecast", `{"city":"Atlantis"}`, []string{"no forecast for Atlantis: it is under the sea"}, ""},
		{"panic", "forecast", `{"city":"Boom"}`, []string{`tool "forecast" failed unexpectedly`}, "sk-secret"},
		{"output not matching its schema", "bad", `{}`, []string{`tool "bad" returned a result that does not match its output schema`, "n: got string, want integer"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := callTool(t, c, tt.tool, tt.args)
			text := textOf(res)
			if !res.IsError {
				t.Errorf("isError not set; text %q", text)
			}
			for _, w := range tt.want {
				if !strings.Contains(text, w) {
					t.Errorf("text %q does not say %q", text, w)
				}
			}
			if tt.notWant != "" && strings.Contains(text, tt.notWant) {
				t.Errorf("text %q gives away %q", text, tt.notWant)
			}
			if res.StructuredContent != nil {
				t.Errorf("an error result has structured content: %v", res.StructuredContent)
			}
			name, err := log.last()
			if name != tt.tool || err == nil {
				t.Errorf("error handler last told %q: %v", name, err)
			}
			// The server goes on.
			if ok := callTool(t, c, "forecast", `{"city":"Lisbon"}`); ok.IsError {
				t.Errorf("the next call failed: %s", textOf(ok))
			}
		})
	}
}

func TestToolPanicReachesTheErrorHandler(t *testing.T) {
	t.Parallel()
	var log errorLog
	s := newServer()
	if err := mcpbridge.AddTool(s, forecastTool(), mcpbridge.WithName("weather"), mcpbridge.WithErrorHandler(log.handle)); err != nil {
		t.Fatal(err)
	}
	c := connect(t, s)
	callTool(t, c, "weather", `{"city":"Boom"}`)
	name, err := log.last()
	var p *mcpbridge.PanicError
	if !errors.As(err, &p) {
		t.Fatalf("the handler got %v, want a *PanicError", err)
	}
	if name != "weather" || p.Name != "weather" || !strings.Contains(fmt.Sprint(p.Value), "weather machine broke") || len(p.Stack) == 0 {
		t.Errorf("handler got name %q, %+v", name, p)
	}
}

func TestAddToolRefuses(t *testing.T) {
	t.Parallel()
	notObject := tool.Func("count", "Counts.", func(context.Context, struct{}) (int, error) { return 1, nil })
	tests := []struct {
		name string
		tool tool.Tool
		opts []mcpbridge.Option
		want string
	}{
		{"nil tool", nil, nil, "the tool is nil"},
		{"invalid name", echoTool(), []mcpbridge.Option{mcpbridge.WithName("say it")}, `tool name "say it" has ' '`},
		{"long name", echoTool(), []mcpbridge.Option{mcpbridge.WithName(strings.Repeat("a", 65))}, "at most 64"},
		{"duplicate", echoTool(), nil, `already has a tool named "echo"`},
		{"schema not an object", schemaTool{notObject, `{"type":"string"}`}, nil, "must describe an object"},
		{"schema not valid", schemaTool{notObject, `{"type":"object","properties":{"a":{"type":"nope"}}}`}, nil, "is not valid"},
		{"output schema not an object", badOutputSchema{notObject}, nil, "its output schema must describe an object"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := newServer()
			if err := mcpbridge.AddTool(s, echoTool()); err != nil {
				t.Fatal(err)
			}
			err := mcpbridge.AddTool(s, tt.tool, tt.opts...)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want one saying %q", err, tt.want)
			}
			if n := len(s.ListTools()); n != 1 {
				t.Errorf("the server has %d tools after the refusal, want 1", n)
			}
		})
	}
	if err := mcpbridge.AddTool(nil, echoTool()); err == nil {
		t.Error("a nil server was accepted")
	}
}

// schemaTool is a tool with another argument schema.
type schemaTool struct {
	tool.Tool
	schema string
}

func (s schemaTool) Schema() json.RawMessage { return json.RawMessage(s.schema) }

// badOutputSchema is a tool.Typed whose output schema is not an object's.
type badOutputSchema struct{ tool.Tool }

func (badOutputSchema) OutputSchema() json.RawMessage { return json.RawMessage(`{"type":"integer"}`) }
