package providertest_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/cadrehq/cadre/pkg/model"
	"github.com/cadrehq/cadre/pkg/providertest"
)

const anthropicPath = "/v1/messages"

// anthropicSchemaRequest asks a model that takes structured outputs for an answer of
// answerSchema, and more (",..." then "}") to add.
const anthropicSchemaRequest = `{"model":"claude-sonnet-4-5","max_tokens":1000,"messages":[{"role":"user","content":"Plan a trip."}],` +
	`"output_config":{"format":{"type":"json_schema","schema":` + answerSchema + `}}`

// anthropicAnswer is the text of an Anthropic answer, which must have its one text block.
func anthropicAnswer(t *testing.T, body []byte) string {
	t.Helper()
	var r struct {
		Content []struct{ Type, Text string }
	}
	if err := json.Unmarshal(body, &r); err != nil || len(r.Content) != 1 || r.Content[0].Type != "text" {
		t.Fatalf("not an answer of one text block (%v): %s", err, body)
	}
	return r.Content[0].Text
}

// TestAnthropicServerOutputFormat: output_config.format, beside tools and with effort in
// output_config, reaches the model as the output schema in its context, and its answer comes
// back.
func TestAnthropicServerOutputFormat(t *testing.T) {
	t.Parallel()
	w := newSchemaWitness(`{"city":"Oslo","days":2,"tags":[]}`)
	s := providertest.NewAnthropic(w)
	defer s.Close()
	body := strings.Replace(anthropicSchemaRequest, `"output_config":{`, `"output_config":{"effort":"high",`, 1) +
		`,"tools":[{"name":"weather","input_schema":{"type":"object"}}]}`
	status, _, resp := rawPost(t, s, anthropicPath, providers[1].validHeaders("k"), body)
	if status != http.StatusOK {
		t.Fatalf("status %d: %s", status, resp)
	}
	if got := anthropicAnswer(t, resp); got != `{"city":"Oslo","days":2,"tags":[]}` {
		t.Errorf("answer %q", got)
	}
	checkSchemaSeen(t, w, model.OutputSchema{Schema: json.RawMessage(answerSchema)})
	if tools := w.req.Load().Options.Tools; len(tools) != 1 || tools[0].Function.Name != "weather" {
		t.Errorf("the model was offered %v, want the weather tool", tools)
	}
}

// TestAnthropicServerSyntheticAnswersTheSchema: a Synthetic model behind the fake answers in
// the schema of output_config.format.
func TestAnthropicServerSyntheticAnswersTheSchema(t *testing.T) {
	t.Parallel()
	syntheticBehind(t, providers[1], anthropicPath, anthropicSchemaRequest+`}`, anthropicAnswer)
}

// TestAnthropicServerRejectsOutputFormats sends the output formats the real API refuses.
func TestAnthropicServerRejectsOutputFormats(t *testing.T) {
	t.Parallel()
	const user = `"max_tokens":100,"messages":[{"role":"user","content":"hi"}]`
	format := func(model, f string) string {
		return `{"model":"` + model + `",` + user + `,"output_config":{"format":` + f + `}}`
	}
	schema := func(s string) string { return format("claude-haiku-4-5", `{"type":"json_schema","schema":`+s+`}`) }
	// object is an object schema of the property a, of schema s.
	object := func(s string) string {
		return schema(`{"type":"object","properties":{"a":` + s + `},"required":["a"],"additionalProperties":false}`)
	}
	checkRejections(t, providers[1], anthropicPath, []rejection{
		{name: "a model without structured outputs", body: format("claude-3-5-haiku-latest", `{"type":"json_schema","schema":{"type":"object","additionalProperties":false}}`),
			want: "output_config.format: the model 'claude-3-5-haiku-latest' does not support structured outputs"},
		{name: "unknown type", body: format("claude-sonnet-4-5", `{"type":"json_object"}`),
			want: "output_config.format: Input tag 'json_object' found using 'type' does not match any of the expected tags: 'json_schema'"},
		{name: "no schema", body: format("claude-sonnet-4-5", `{"type":"json_schema"}`), want: "output_config.format.schema: Field required"},
		{name: "schema a string", body: schema(`"object"`), want: "output_config.format.schema: Input should be a valid dictionary"},
		{name: "additionalProperties missing", body: schema(`{"type":"object","properties":{"a":{"type":"string"}}}`),
			want: "output_config.format.schema: For 'object' type, 'additionalProperties' must be explicitly set to false"},
		{name: "a map", body: object(`{"type":"object","additionalProperties":{"type":"string"}}`),
			want: "output_config.format.schema: For 'object' type, 'additionalProperties' must be explicitly set to false"},
		{name: "minimum", body: object(`{"type":"integer","minimum":1}`),
			want: "output_config.format.schema: For 'integer' type, property 'minimum' is not supported"},
		{name: "exclusiveMaximum", body: object(`{"type":"number","exclusiveMaximum":1}`),
			want: "output_config.format.schema: For 'number' type, property 'exclusiveMaximum' is not supported"},
		{name: "multipleOf on a nullable number", body: object(`{"type":["null","number"],"multipleOf":2}`),
			want: "For 'number' type, property 'multipleOf' is not supported"},
		{name: "maxLength", body: object(`{"type":"string","maxLength":9}`),
			want: "output_config.format.schema: For 'string' type, property 'maxLength' is not supported"},
		{name: "minLength in an array's items", body: object(`{"type":"array","items":{"type":"string","minLength":1}}`),
			want: "For 'string' type, property 'minLength' is not supported"},
		{name: "minItems 2", body: object(`{"type":"array","items":{"type":"string"},"minItems":2}`),
			want: "output_config.format.schema: For 'array' type, property 'minItems' only supports the values 0 and 1"},
		{name: "maxItems", body: object(`{"type":"array","items":{"type":"string"},"maxItems":3}`),
			want: "output_config.format.schema: For 'array' type, property 'maxItems' is not supported"},
		{name: "a recursive $ref", body: schema(`{"type":"object","properties":{"a":{"$ref":"#/$defs/Node"}},"required":["a"],"additionalProperties":false,` +
			`"$defs":{"Node":{"type":"object","properties":{"next":{"anyOf":[{"$ref":"#/$defs/Node"},{"type":"null"}]}},"required":["next"],"additionalProperties":false}}}`),
			want: "output_config.format.schema: Recursive schemas are not supported"},
		{name: "a $ref to the root", body: object(`{"anyOf":[{"$ref":"#"},{"type":"null"}]}`),
			want: "output_config.format.schema: Recursive schemas are not supported"},
	})
}

// TestAnthropicServerTakesOutputSchemasInItsLimits: schemas within the API's limits pass,
// among them a minItems of 1, a $ref used twice and a format.
func TestAnthropicServerTakesOutputSchemasInItsLimits(t *testing.T) {
	t.Parallel()
	s := providertest.NewAnthropic(newSchemaWitness("{}"))
	defer s.Close()
	body := `{"model":"claude-opus-4-5-20251101","max_tokens":100,"messages":[{"role":"user","content":"hi"}],"output_config":{"format":{"type":"json_schema","schema":` +
		`{"type":"object","properties":{"a":{"$ref":"#/$defs/A"},"b":{"$ref":"#/$defs/A"},"when":{"type":"string","format":"date-time"},` +
		`"tags":{"type":"array","items":{"type":"string"},"minItems":1}},"required":["a","b","when","tags"],"additionalProperties":false,` +
		`"$defs":{"A":{"type":"object","properties":{"x":{"type":"string","enum":["p","q"]}},"required":["x"],"additionalProperties":false}}}}}}`
	if status, _, resp := rawPost(t, s, anthropicPath, providers[1].validHeaders("k"), body); status != http.StatusOK {
		t.Errorf("status %d: %s", status, resp)
	}
}

// TestAnthropicServerRefusal: a model's refusal comes as the text of an answer whose
// stop_reason is "refusal".
func TestAnthropicServerRefusal(t *testing.T) {
	t.Parallel()
	s := providertest.NewAnthropic(refusing())
	defer s.Close()
	status, _, body := rawPost(t, s, anthropicPath, providers[1].validHeaders("k"), anthropicSchemaRequest+`}`)
	if status != http.StatusOK {
		t.Fatalf("status %d: %s", status, body)
	}
	var r struct {
		StopReason string `json:"stop_reason"`
	}
	_ = json.Unmarshal(body, &r)
	if text := anthropicAnswer(t, body); text != refusalText || r.StopReason != "refusal" {
		t.Errorf("text %q, stop_reason %q; want the refusal, refusal", text, r.StopReason)
	}
}

// TestAnthropicServerStreamedRefusal: a streamed refusal comes as text deltas, then a
// message_delta whose stop_reason is "refusal".
func TestAnthropicServerStreamedRefusal(t *testing.T) {
	t.Parallel()
	s := providertest.NewAnthropic(refusing())
	defer s.Close()
	status, _, body := rawPost(t, s, anthropicPath, providers[1].validHeaders("k"), anthropicSchemaRequest+`,"stream":true}`)
	if status != http.StatusOK {
		t.Fatalf("status %d: %s", status, body)
	}
	var text strings.Builder
	pieces, stop := 0, ""
	for _, e := range sseData(t, body) {
		d, _ := e["delta"].(map[string]any)
		switch e["type"] {
		case "content_block_delta":
			if d["type"] == "text_delta" {
				text.WriteString(d["text"].(string))
				pieces++
			}
		case "message_delta":
			stop, _ = d["stop_reason"].(string)
		}
	}
	if text.String() != refusalText || pieces < 2 || stop != "refusal" {
		t.Errorf("streamed %q in %d pieces, stop_reason %q; want %q in several, refusal", text.String(), pieces, stop, refusalText)
	}
}
