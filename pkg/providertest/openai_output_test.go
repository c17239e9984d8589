package providertest_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/cadrehq/cadre/pkg/llmtest"
	"github.com/cadrehq/cadre/pkg/model"
	"github.com/cadrehq/cadre/pkg/providertest"
)

const openAIPath = "/v1/chat/completions"

// openAISchemaRequest is a request with response_format json_schema of answerSchema, strict,
// and more (",..." then "}") to add.
const openAISchemaRequest = `{"model":"gpt-4o","messages":[{"role":"user","content":"Plan a trip."}],` +
	`"response_format":{"type":"json_schema","json_schema":{"name":"trip_plan","description":"A trip.","strict":true,"schema":` + answerSchema + `}}`

// openAIAnswer is the text of the first choice of an OpenAI answer.
func openAIAnswer(t *testing.T, body []byte) string {
	t.Helper()
	var r struct {
		Choices []struct {
			Message struct{ Content, Refusal *string }
		}
	}
	if err := json.Unmarshal(body, &r); err != nil || len(r.Choices) == 0 || r.Choices[0].Message.Content == nil {
		t.Fatalf("not an answer with content (%v): %s", err, body)
	}
	return *r.Choices[0].Message.Content
}

// TestOpenAIServerResponseFormatSchema: a json_schema response_format beside tools reaches
// the model as the output schema in its context, the tools as call options, and its answer
// comes back.
func TestOpenAIServerResponseFormatSchema(t *testing.T) {
	t.Parallel()
	w := newSchemaWitness(`{"city":"Oslo","days":2,"tags":[]}`)
	s := providertest.NewOpenAI(w)
	defer s.Close()
	body := openAISchemaRequest + `,"tools":[{"type":"function","function":{"name":"weather","parameters":{"type":"object"}}}]}`
	status, _, resp := rawPost(t, s, openAIPath, providers[0].validHeaders("k"), body)
	if status != http.StatusOK {
		t.Fatalf("status %d: %s", status, resp)
	}
	if got := openAIAnswer(t, resp); got != `{"city":"Oslo","days":2,"tags":[]}` {
		t.Errorf("answer %q", got)
	}
	checkSchemaSeen(t, w, model.OutputSchema{Name: "trip_plan", Description: "A trip.", Schema: json.RawMessage(answerSchema)})
	if tools := w.req.Load().Options.Tools; len(tools) != 1 || tools[0].Function.Name != "weather" {
		t.Errorf("the model was offered %v, want the weather tool", tools)
	}
}

// TestOpenAIServerSyntheticAnswersTheSchema: a Synthetic model behind the fake answers in the
// schema of response_format.
func TestOpenAIServerSyntheticAnswersTheSchema(t *testing.T) {
	t.Parallel()
	syntheticBehind(t, providers[0], openAIPath, openAISchemaRequest+`}`, openAIAnswer)
}

// TestOpenAIServerResponseFormatsTaken: the forms of response_format the API takes.
func TestOpenAIServerResponseFormatsTaken(t *testing.T) {
	t.Parallel()
	s := providertest.NewOpenAI(llmtest.NewScripted(llmtest.Text("{}")).Cycle())
	defer s.Close()
	for name, body := range map[string]string{
		"text": `{"model":"m","messages":[{"role":"user","content":"hi"}],"response_format":{"type":"text"}}`,
		"json_object saying JSON": `{"model":"m","messages":[{"role":"system","content":"Answer in JSON."},{"role":"user","content":"hi"}],` +
			`"response_format":{"type":"json_object"}}`,
		"json_schema not strict, outside the strict subset": `{"model":"m","messages":[{"role":"user","content":"hi"}],` +
			`"response_format":{"type":"json_schema","json_schema":{"name":"a","strict":false,"schema":{"type":"object","properties":{"a":{"type":"string","minLength":2}}}}}}`,
		"json_schema strict, with $defs and nullable": `{"model":"m","messages":[{"role":"user","content":"hi"}],` +
			`"response_format":{"type":"json_schema","json_schema":{"name":"a","strict":true,"schema":{"type":"object","properties":{"a":{"$ref":"#/$defs/A"},` +
			`"n":{"type":["string","null"],"pattern":"^x"}},"required":["a","n"],"additionalProperties":false,` +
			`"$defs":{"A":{"type":"object","properties":{"x":{"type":"number","minimum":0}},"required":["x"],"additionalProperties":false}}}}}}`,
	} {
		if status, _, resp := rawPost(t, s, openAIPath, providers[0].validHeaders("k"), body); status != http.StatusOK {
			t.Errorf("%s: status %d: %s", name, status, resp)
		}
	}
}

// TestOpenAIServerRejectsResponseFormats sends the response formats the real API refuses.
func TestOpenAIServerRejectsResponseFormats(t *testing.T) {
	t.Parallel()
	const user = `{"model":"m","messages":[{"role":"user","content":"hi"}],"response_format":`
	format := func(f string) string { return user + f + `}` }
	jsonSchema := func(js string) string { return format(`{"type":"json_schema","json_schema":` + js + `}`) }
	strict := func(schema string) string { return jsonSchema(`{"name":"plan","strict":true,"schema":` + schema + `}`) }
	checkRejections(t, providers[0], openAIPath, []rejection{
		{"no type", format(`{}`), "Missing required parameter: 'response_format.type'.", "response_format.type", "missing_required_parameter"},
		{"unknown type", format(`{"type":"xml"}`),
			"Invalid value: 'xml'. Supported values are: 'text', 'json_object', and 'json_schema'.", "response_format.type", "invalid_value"},
		{"json_object without the word", format(`{"type":"json_object"}`),
			"'messages' must contain the word 'json' in some form, to use 'response_format' of type 'json_object'.", "messages", ""},
		{"json_schema without json_schema", format(`{"type":"json_schema"}`),
			"Missing required parameter: 'response_format.json_schema'.", "response_format.json_schema", "missing_required_parameter"},
		{"no name", jsonSchema(`{"schema":{"type":"object"}}`),
			"Missing required parameter: 'response_format.json_schema.name'.", "response_format.json_schema.name", "missing_required_parameter"},
		{"name with a space", jsonSchema(`{"name":"trip plan","schema":{"type":"object"}}`),
			"Invalid 'response_format.json_schema.name': string does not match pattern.", "response_format.json_schema.name", "invalid_value"},
		{"name too long", jsonSchema(`{"name":"` + strings.Repeat("a", 65) + `","schema":{"type":"object"}}`),
			"string too long. Expected a string with maximum length 64, but got a string with length 65 instead.", "response_format.json_schema.name", "string_above_max_length"},
		{"no schema", jsonSchema(`{"name":"plan"}`),
			"Missing required parameter: 'response_format.json_schema.schema'.", "response_format.json_schema.schema", "missing_required_parameter"},
		{"schema a string", jsonSchema(`{"name":"plan","schema":"object"}`),
			"Invalid type for 'response_format.json_schema.schema': expected an object, but got a string instead.", "response_format.json_schema.schema", "invalid_type"},
		{"root an array", jsonSchema(`{"name":"plan","schema":{"type":"array","items":{"type":"string"}}}`),
			`Invalid schema for response_format 'plan': schema must be a JSON Schema of 'type: "object"', got 'type: "array"'.`, "response_format", "invalid_json_schema"},
		{"root anyOf", strict(`{"anyOf":[{"type":"object","properties":{},"additionalProperties":false}]}`),
			`got 'type: "None"'`, "response_format", "invalid_json_schema"},
		{"strict, additionalProperties missing", strict(`{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]}`),
			"Invalid schema for response_format 'plan': In context=(), 'additionalProperties' is required to be supplied and to be false.", "response_format", "invalid_json_schema"},
		{"strict, a map", strict(`{"type":"object","properties":{"a":{"type":"object","additionalProperties":{"type":"string"}}},"required":["a"],"additionalProperties":false}`),
			"In context=('properties', 'a'), 'additionalProperties' is required to be supplied and to be false.", "response_format", "invalid_json_schema"},
		{"strict, an optional property", strict(`{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"string"}},"required":["a"],"additionalProperties":false}`),
			"In context=(), 'required' is required to be supplied and to be an array including every key in properties. Missing 'b'.", "response_format", "invalid_json_schema"},
		{"strict, nested in items", strict(`{"type":"object","properties":{"t":{"type":"array","items":{"type":"object","properties":{"n":{"type":"string"}},"additionalProperties":false}}},"required":["t"],"additionalProperties":false}`),
			"In context=('properties', 't', 'items'), 'required' is required", "response_format", "invalid_json_schema"},
		{"strict, in $defs", strict(`{"type":"object","properties":{"a":{"$ref":"#/$defs/A"}},"required":["a"],"additionalProperties":false,"$defs":{"A":{"type":"object","properties":{}}}}`),
			"In context=('$defs', 'A'), 'additionalProperties' is required", "response_format", "invalid_json_schema"},
		{"strict, minLength", strict(`{"type":"object","properties":{"a":{"type":"string","minLength":1}},"required":["a"],"additionalProperties":false}`),
			"In context=('properties', 'a'), 'minLength' is not permitted.", "response_format", "invalid_json_schema"},
		{"strict, allOf", strict(`{"type":"object","properties":{"a":{"allOf":[{"type":"string"}]}},"required":["a"],"additionalProperties":false}`),
			"In context=('properties', 'a'), 'allOf' is not permitted.", "response_format", "invalid_json_schema"},
	})
}

// TestOpenAIServerRefusal: a model's refusal comes as message.refusal, its content null.
func TestOpenAIServerRefusal(t *testing.T) {
	t.Parallel()
	s := providertest.NewOpenAI(refusing())
	defer s.Close()
	status, _, body := rawPost(t, s, openAIPath, providers[0].validHeaders("k"), openAISchemaRequest+`}`)
	if status != http.StatusOK {
		t.Fatalf("status %d: %s", status, body)
	}
	var r struct {
		Choices []struct {
			Message      map[string]any `json:"message"`
			FinishReason string         `json:"finish_reason"`
		}
	}
	if err := json.Unmarshal(body, &r); err != nil || len(r.Choices) != 1 {
		t.Fatalf("answer %s: %v", body, err)
	}
	c := r.Choices[0]
	content, hasContent := c.Message["content"]
	if c.Message["refusal"] != refusalText || !hasContent || content != nil || c.FinishReason != "stop" {
		t.Errorf("message %v, finish_reason %q; want the refusal, content null, stop", c.Message, c.FinishReason)
	}
}

// TestOpenAIServerStreamedRefusal: a streamed refusal comes in delta.refusal pieces.
func TestOpenAIServerStreamedRefusal(t *testing.T) {
	t.Parallel()
	s := providertest.NewOpenAI(refusing())
	defer s.Close()
	status, _, body := rawPost(t, s, openAIPath, providers[0].validHeaders("k"), openAISchemaRequest+`,"stream":true}`)
	if status != http.StatusOK {
		t.Fatalf("status %d: %s", status, body)
	}
	var refusal strings.Builder
	pieces, finish := 0, ""
	for _, e := range sseData(t, body) {
		choices, _ := e["choices"].([]any)
		for _, c := range choices {
			c := c.(map[string]any)
			d, _ := c["delta"].(map[string]any)
			if text, ok := d["content"].(string); ok && text != "" {
				t.Errorf("a delta with content %q", text)
			}
			if r, ok := d["refusal"].(string); ok && r != "" {
				refusal.WriteString(r)
				pieces++
			}
			if f, ok := c["finish_reason"].(string); ok {
				finish = f
			}
		}
	}
	if refusal.String() != refusalText || pieces < 2 || finish != "stop" {
		t.Errorf("streamed refusal %q in %d pieces, finish %q; want %q in several, stop", refusal.String(), pieces, finish, refusalText)
	}
}
