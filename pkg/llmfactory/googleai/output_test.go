package googleai_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/cadrehq/cadre/pkg/llmfactory"
	"github.com/cadrehq/cadre/pkg/llmfactory/googleai"
	"github.com/cadrehq/cadre/pkg/model"
	"github.com/google/go-cmp/cmp"
	"github.com/tmc/langchaingo/llms"
)

// capture is Gemini's API on 127.0.0.1 as far as these tests need it: it records each
// request's path and body, and answers with status and body (a GenerateContentResponse, sent
// in a JSON array to a :streamGenerateContent request, as the API does with $alt=json).
type capture struct {
	status int
	answer string

	mu     sync.Mutex
	paths  []string
	bodies []map[string]any
}

func (c *capture) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	data, _ := io.ReadAll(r.Body)
	var body map[string]any
	_ = json.Unmarshal(data, &body)
	c.mu.Lock()
	c.paths, c.bodies = append(c.paths, r.URL.Path), append(c.bodies, body)
	c.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(c.status)
	if c.status == http.StatusOK && strings.HasSuffix(r.URL.Path, ":streamGenerateContent") {
		fmt.Fprintf(w, "[%s]", c.answer)
		return
	}
	fmt.Fprint(w, c.answer)
}

// requests returns the paths and bodies of the requests received so far.
func (c *capture) requests() ([]string, []map[string]any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.paths...), append([]map[string]any(nil), c.bodies...)
}

// model starts c and returns the model of id it serves, from an llm.yaml.
func (c *capture) model(t *testing.T, id string) model.Model {
	t.Helper()
	srv := httptest.NewServer(c)
	t.Cleanup(srv.Close)
	doc := "providers:\n  gemini: { type: googleai, api_key: k, base_url: '" + srv.URL + "' }\n" +
		"models:\n  m: { provider: gemini, model: " + id + " }\nretry: { max_attempts: 1 }\n"
	f, err := llmfactory.Parse([]byte(doc), llmfactory.WithProviderType("googleai", googleai.Type()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	m, err := f.Model(ctx(t), "m")
	if err != nil {
		t.Fatal(err)
	}
	return m
}

var citySchema = &model.OutputSchema{
	Name:   "city_answer",
	Schema: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"},"total":{"type":"integer"}},"required":["city"]}`),
	Strict: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"},"total":{"type":["integer","null"]}},"required":["city","total"],"additionalProperties":false}`),
}

// geminiAnswer is a GenerateContentResponse with text, as the API writes it with
// enum-encoding=int.
func geminiAnswer(text string) string {
	return fmt.Sprintf(`{"candidates":[{"content":{"parts":[{"text":%q}],"role":"model"},"finishReason":1,"index":0}],`+
		`"usageMetadata":{"promptTokenCount":12,"candidatesTokenCount":9,"totalTokenCount":21},"modelVersion":"gemini-2.5-flash"}`, text)
}

// The output schema goes in generationConfig, as responseJsonSchema with a JSON answer, in a
// request of one message (:generateContent) and in one of more (:streamGenerateContent),
// beside the tools and the client's own settings; the answer in the schema comes back.
func TestOutputSchemaOnTheWire(t *testing.T) {
	t.Parallel()
	const text = `{"city":"Oslo","total":4000}`
	tools := []llms.Tool{{Type: "function", Function: &llms.FunctionDefinition{Name: "lookup", Description: "Population of a city.",
		Parameters: map[string]any{"type": "object", "properties": map[string]any{"city": map[string]any{"type": "string"}}}}}}
	for name, msgs := range map[string][]llms.MessageContent{
		"generateContent": {llms.TextParts(llms.ChatMessageTypeHuman, "Population of Oslo?")},
		"streamGenerateContent": {llms.TextParts(llms.ChatMessageTypeSystem, "Answer in JSON."),
			llms.TextParts(llms.ChatMessageTypeHuman, "Population of Oslo?")},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			c := &capture{status: http.StatusOK, answer: geminiAnswer(text)}
			m := c.model(t, "gemini-2.5-flash")
			if m.Output != model.NativeOutput {
				t.Errorf("Output = %q; want native, from the table", m.Output)
			}
			reply, err := m.Generate(model.WithOutputSchema(ctx(t), citySchema), msgs, llms.WithTools(tools))
			if err != nil {
				t.Fatal(err)
			}
			if reply.Text != text {
				t.Errorf("reply %q; want %s", reply.Text, text)
			}
			paths, bodies := c.requests()
			if len(bodies) != 1 || !strings.HasSuffix(paths[0], "/models/gemini-2.5-flash:"+name) {
				t.Fatalf("requests to %v; want one to :%s", paths, name)
			}
			config, _ := bodies[0]["generationConfig"].(map[string]any)
			var schema any
			_ = json.Unmarshal(citySchema.Schema, &schema)
			if config["responseMimeType"] != "application/json" || !cmp.Equal(config["responseJsonSchema"], schema) {
				t.Errorf("generationConfig %v; want responseMimeType application/json and responseJsonSchema %s", config, citySchema.Schema)
			}
			if config["maxOutputTokens"] == nil {
				t.Errorf("generationConfig %v lost the client's maxOutputTokens", config)
			}
			if bodies[0]["tools"] == nil {
				t.Error("the tools went missing")
			}
		})
	}
}

// A request without a schema has no responseJsonSchema; a model the table does not know to
// take one is not NativeOutput.
func TestNoOutputSchema(t *testing.T) {
	t.Parallel()
	c := &capture{status: http.StatusOK, answer: geminiAnswer("Oslo")}
	m := c.model(t, "gemini-2.0-flash")
	if m.Output != model.OutputUnknown {
		t.Errorf("Output = %q; want unknown: the table lists Gemini 2.5 and later", m.Output)
	}
	if _, err := m.Generate(ctx(t), []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, "Capital of Norway?")}); err != nil {
		t.Fatal(err)
	}
	_, bodies := c.requests()
	config, _ := bodies[0]["generationConfig"].(map[string]any)
	if _, ok := config["responseJsonSchema"]; ok || config["responseMimeType"] != nil {
		t.Errorf("generationConfig %v; want no schema and no MIME type in a request without a schema", config)
	}
}

// A 400 that names the schema fails the request with model.ErrOutputSchema.
func TestSchemaRefusedWithA400(t *testing.T) {
	t.Parallel()
	c := &capture{status: http.StatusBadRequest, answer: `{"error":{"code":400,"message":"Invalid JSON payload received. Unknown name \"responseJsonSchema\" at 'generation_config': Cannot find field.","status":"INVALID_ARGUMENT"}}`}
	m := c.model(t, "gemini-2.5-flash")
	_, err := m.Generate(model.WithOutputSchema(ctx(t), citySchema), []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, "Population of Oslo?")})
	var pe *model.ProviderError
	if !errors.As(err, &pe) || pe.Status != http.StatusBadRequest || !errors.Is(err, model.ErrOutputSchema) {
		t.Errorf("err = %v; want a ProviderError with the 400 that wraps model.ErrOutputSchema", err)
	}
}
