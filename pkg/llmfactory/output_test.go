package llmfactory

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/cadrehq/cadre/pkg/model"
)

// cityOutput is an output schema with a strict form, as the assistant makes them.
var cityOutput = &model.OutputSchema{
	Name:        "city_answer",
	Description: "The city & its population.",
	Schema:      []byte(`{"type":"object","properties":{"city":{"type":"string"},"total":{"type":"integer"}},"required":["city"]}`),
	Strict: []byte(`{"type":"object","properties":{"city":{"type":"string"},"total":{"type":["integer","null"]}},` +
		`"required":["city","total"],"additionalProperties":false}`),
}

// looseOutput is one without a strict form, name or description.
var looseOutput = &model.OutputSchema{Schema: []byte(`{ "type": "object", "properties": { "tags": { "type": "object", "additionalProperties": {"type":"string"} } } }`)}

// The output schema in each API's field, byte for byte: the members the edit does not name
// keep their place and bytes, and the field goes last.
func TestOutputSchemaApply(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		edit   bodyEdit
		schema *model.OutputSchema
		in     string
		want   string
	}{{
		name:   "openai: the strict form, beside tools",
		edit:   bodyEdit{api: OpenAIAPI},
		schema: cityOutput,
		in:     `{"model":"gpt-4o","messages":[],"tools":[{"type":"function","function":{"name":"lookup","parameters":{}}}]}`,
		want: `{"model":"gpt-4o","messages":[],"tools":[{"type":"function","function":{"name":"lookup","parameters":{}}}],` +
			`"response_format":{"type":"json_schema","json_schema":{"name":"city_answer","description":"The city \u0026 its population.",` +
			`"schema":{"type":"object","properties":{"city":{"type":"string"},"total":{"type":["integer","null"]}},"required":["city","total"],"additionalProperties":false},` +
			`"strict":true}}}`,
	}, {
		name:   "openai: no strict form, a default name, JSON mode replaced",
		edit:   bodyEdit{api: OpenAIAPI, reasoningEffort: "low"},
		schema: looseOutput,
		in:     `{"model":"gpt-5","response_format":{"type":"json_object"},"messages":[]}`,
		want: `{"model":"gpt-5","response_format":{"type":"json_schema","json_schema":{"name":"output",` +
			`"schema":{"type":"object","properties":{"tags":{"type":"object","additionalProperties":{"type":"string"}}}},"strict":false}},` +
			`"messages":[],"reasoning_effort":"low"}`,
	}, {
		name:   "mistral keeps response_format",
		edit:   bodyEdit{api: OpenAIAPI, service: mistralBody},
		schema: cityOutput,
		in:     `{"model":"mistral-small-latest","messages":[],"seed":1}`,
		want: `{"model":"mistral-small-latest","messages":[],"random_seed":1,` +
			`"response_format":{"type":"json_schema","json_schema":{"name":"city_answer","description":"The city \u0026 its population.",` +
			`"schema":{"type":"object","properties":{"city":{"type":"string"},"total":{"type":["integer","null"]}},"required":["city","total"],"additionalProperties":false},` +
			`"strict":true}}}`,
	}, {
		name:   "anthropic: the schema as it is, its objects closed",
		edit:   bodyEdit{api: AnthropicAPI},
		schema: cityOutput,
		in:     `{"model":"claude-sonnet-4-5","messages":[],"max_tokens":100}`,
		want: `{"model":"claude-sonnet-4-5","messages":[],"max_tokens":100,` +
			`"output_config":{"format":{"type":"json_schema","schema":{"type":"object","properties":{"city":{"type":"string"},"total":{"type":"integer"}},` +
			`"required":["city"],"additionalProperties":false}}}}`,
	}, {
		name:   "anthropic: output_config keeps what it holds",
		edit:   bodyEdit{api: AnthropicAPI, promptCache: true},
		schema: &model.OutputSchema{Schema: []byte(`{"type":"array","items":{"properties":{"a":{"type":"string","format":"date"}}},"minItems":1}`)},
		in:     `{"output_config":{"effort":"low"},"system":"S"}`,
		want: `{"output_config":{"effort":"low","format":{"type":"json_schema","schema":{"type":"array",` +
			`"items":{"properties":{"a":{"type":"string","format":"date"}},"additionalProperties":false},"minItems":1}}},` +
			`"system":[{"type":"text","text":"S","cache_control":{"type":"ephemeral"}}]}`,
	}, {
		name:   "gemini: generationConfig keeps what it holds, and loses responseSchema",
		edit:   bodyEdit{api: GeminiAPI},
		schema: cityOutput,
		in:     `{"contents":[],"generationConfig":{"maxOutputTokens":8192,"responseMimeType":"text/plain","responseSchema":{"type":6}}}`,
		want: `{"contents":[],"generationConfig":{"maxOutputTokens":8192,"responseMimeType":"application/json",` +
			`"responseJsonSchema":{"type":"object","properties":{"city":{"type":"string"},"total":{"type":"integer"}},"required":["city"]}}}`,
	}, {
		name:   "gemini: a generationConfig of its own",
		edit:   bodyEdit{api: GeminiAPI},
		schema: &model.OutputSchema{Schema: []byte(`{"type":"object"}`)},
		in:     `{"contents":[]}`,
		want:   `{"contents":[],"generationConfig":{"responseMimeType":"application/json","responseJsonSchema":{"type":"object"}}}`,
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := tc.edit.apply([]byte(tc.in), nil, tc.schema)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Errorf("apply(%s)\n= %s\nwant %s", tc.in, got, tc.want)
			}
		})
	}
}

// A type's edit without settings edits the chat requests that carry an output schema, and
// only those.
func TestBodyEditAppliesWithASchema(t *testing.T) {
	t.Parallel()
	withSchema := model.WithOutputSchema(context.Background(), cityOutput)
	req := func(ctx context.Context, url string) *http.Request {
		r, err := http.NewRequestWithContext(ctx, "POST", url, strings.NewReader("{}"))
		if err != nil {
			t.Fatal(err)
		}
		r.Header.Set("Content-Type", "application/json")
		return r
	}
	oa, an, gm := &bodyEdit{api: OpenAIAPI}, &bodyEdit{api: AnthropicAPI}, &bodyEdit{api: GeminiAPI}
	for _, tc := range []struct {
		edit *bodyEdit
		req  *http.Request
		want bool
	}{
		{oa, req(context.Background(), "http://h/v1/chat/completions"), false},
		{oa, req(withSchema, "http://h/v1/chat/completions"), true},
		{oa, req(withSchema, "http://h/v1/embeddings"), false},
		{an, req(context.Background(), "http://h/v1/messages"), false},
		{an, req(withSchema, "http://h/v1/messages"), true},
		{gm, req(context.Background(), "http://h/v1beta/models/gemini-2.5-flash:generateContent"), false},
		{gm, req(withSchema, "http://h/v1beta/models/gemini-2.5-flash:generateContent"), true},
		{gm, req(withSchema, "http://h/v1beta/models/gemini-2.5-flash:streamGenerateContent"), true},
		{gm, req(withSchema, "http://h/v1beta/models/gemini-2.5-flash:countTokens"), false},
		{&bodyEdit{api: OpenAIAPI, service: maxTokensField}, req(context.Background(), "http://h/v1/chat/completions"), true},
	} {
		if got := tc.edit.applies(tc.req); got != tc.want {
			t.Errorf("%+v applies to %s (schema %v) = %v; want %v", tc.edit, tc.req.URL, model.OutputSchemaOf(tc.req.Context()) != nil, got, tc.want)
		}
	}
}

// A request without an output schema, to a model whose edit has no settings, goes to the base
// transport as the client made it: its body neither read nor copied.
func TestTransportSendsARequestWithoutSchemaAsItIs(t *testing.T) {
	t.Parallel()
	for _, api := range []API{OpenAIAPI, AnthropicAPI, GeminiAPI} {
		base := &recorder{}
		tr := &transport{base: base, retry: RetryPolicy{MaxAttempts: 1}, edit: &bodyEdit{api: api}}
		url := map[API]string{OpenAIAPI: "http://h/v1/chat/completions", AnthropicAPI: "http://h/v1/messages",
			GeminiAPI: "http://h/v1beta/models/m:generateContent"}[api]
		const in = `{"model" : "m", "x": "\u003c"}`
		req, err := http.NewRequest("POST", url, bytes.NewReader([]byte(in)))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		resp, err := tr.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if len(base.reqs) != 1 || base.reqs[0] != req || base.bodies[0] != in {
			t.Errorf("%s: the base transport got %q, the caller's request: %v; want the caller's request itself", api, base.bodies, len(base.reqs) > 0 && base.reqs[0] == req)
		}
	}
}

// The transport writes the schema once, and sends it again on a retry.
func TestTransportWritesTheSchemaOnEveryAttempt(t *testing.T) {
	t.Parallel()
	base := &recorder{statuses: []int{503}}
	tr := &transport{base: base, retry: RetryPolicy{MaxAttempts: 2, InitialBackoff: time.Millisecond, MaxBackoff: time.Millisecond},
		edit: &bodyEdit{api: GeminiAPI}}
	ctx := model.WithOutputSchema(context.Background(), &model.OutputSchema{Schema: []byte(`{"type":"object"}`)})
	req, err := http.NewRequestWithContext(ctx, "POST", "http://h/v1beta/models/m:generateContent", strings.NewReader(`{"contents":[]}`))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := tr.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	const want = `{"contents":[],"generationConfig":{"responseMimeType":"application/json","responseJsonSchema":{"type":"object"}}}`
	if len(base.bodies) != 2 || base.bodies[0] != want || base.bodies[1] != want {
		t.Errorf("sent %q; want %s twice", base.bodies, want)
	}
}

// Anthropic's subset of JSON Schema: what it takes goes, its objects closed; what it does not
// is refused before sending, saying what and where.
func TestAnthropicOutputFormat(t *testing.T) {
	t.Parallel()
	accepted := []struct{ name, schema, want string }{
		{"closed where open", `{"type":"object","properties":{"a":{"type":"object","properties":{"b":{"type":"string"}}}}}`,
			`{"type":"object","properties":{"a":{"type":"object","properties":{"b":{"type":"string"}},"additionalProperties":false}},"additionalProperties":false}`},
		{"closed already", `{"type":"object","additionalProperties":false,"properties":{}}`,
			`{"type":"object","additionalProperties":false,"properties":{}}`},
		{"definitions without a cycle, anyOf, enum, const, minItems 1", `{"$defs":{"A":{"type":"object","properties":{"b":{"$ref":"#/$defs/B"}}},"B":{"type":"string","enum":["x","y"]}},` +
			`"type":"object","properties":{"a":{"$ref":"#/$defs/A"},"c":{"anyOf":[{"type":"null"},{"const":3}]},"d":{"type":"array","minItems":1,"items":{"type":"integer"}}}}`,
			`{"$defs":{"A":{"type":"object","properties":{"b":{"$ref":"#/$defs/B"}},"additionalProperties":false},"B":{"type":"string","enum":["x","y"]}},` +
				`"type":"object","properties":{"a":{"$ref":"#/$defs/A"},"c":{"anyOf":[{"type":"null"},{"const":3}]},"d":{"type":"array","minItems":1,"items":{"type":"integer"}}},"additionalProperties":false}`},
		{"a nullable object", `{"type":["object","null"]}`, `{"type":["object","null"],"additionalProperties":false}`},
	}
	for _, tc := range accepted {
		s := &model.OutputSchema{Schema: []byte(tc.schema)}
		got, err := AnthropicOutputFormat(s)
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if want := `{"type":"json_schema","schema":` + tc.want + `}`; string(got) != want {
			t.Errorf("%s:\n got %s\nwant %s", tc.name, got, want)
		}
		if string(s.Schema) != tc.schema {
			t.Errorf("%s: the caller's schema changed to %s", tc.name, s.Schema)
		}
	}
	refused := []struct{ name, schema, want string }{
		{"minimum", `{"type":"object","properties":{"total":{"type":"integer","minimum":0}}}`, `no "minimum" (at properties.total)`},
		{"maximum in an array's items", `{"type":"array","items":{"type":"number","maximum":1}}`, `no "maximum" (at items)`},
		{"exclusiveMinimum", `{"type":"number","exclusiveMinimum":0}`, `no "exclusiveMinimum" (at the root)`},
		{"multipleOf", `{"type":"object","properties":{"n":{"anyOf":[{"type":"null"},{"type":"integer","multipleOf":2}]}}}`, `no "multipleOf" (at properties.n.anyOf[1])`},
		{"minLength", `{"type":"object","properties":{"s":{"type":"string","minLength":1}}}`, `no "minLength"`},
		{"maxLength", `{"type":"object","properties":{"s":{"type":"string","maxLength":9}}}`, `no "maxLength"`},
		{"minItems 2", `{"type":"object","properties":{"l":{"type":"array","minItems":2}}}`, `no "minItems" but 0 or 1 (it is 2) (at properties.l)`},
		{"maxItems", `{"type":"array","maxItems":3}`, `no "maxItems"`},
		{"uniqueItems", `{"type":"array","uniqueItems":true}`, `no "uniqueItems"`},
		{"a map", string(looseOutput.Schema), `no "additionalProperties" but false (a map, or an open object) (at properties.tags)`},
		{"an open object", `{"type":"object","additionalProperties":true}`, `no "additionalProperties" but false`},
		{"oneOf", `{"oneOf":[{"type":"string"},{"type":"integer"}]}`, `no "oneOf"`},
		{"allOf with a $ref", `{"$defs":{"A":{"type":"object"}},"allOf":[{"$ref":"#/$defs/A"}]}`, `no allOf with a $ref`},
		{"an enum of objects", `{"enum":[{"a":1}]}`, `no enum of objects or arrays`},
		{"a format", `{"type":"object","properties":{"u":{"type":"string","format":"uri-reference"}}}`, `no format "uri-reference" (at properties.u)`},
		{"an external $ref", `{"type":"object","properties":{"a":{"$ref":"https://example.test/a.json"}}}`, `no external $ref`},
		{"recursion through the root", `{"type":"object","properties":{"next":{"$ref":"#"}}}`, `no recursive schema (properties.next.$ref refers back`},
		{"recursion through definitions", `{"$defs":{"Node":{"type":"object","properties":{"kids":{"type":"array","items":{"$ref":"#/$defs/Node"}}}}},` +
			`"type":"object","properties":{"root":{"$ref":"#/$defs/Node"}}}`, `no recursive schema ($defs.Node.properties.kids.items.$ref refers back`},
		{"recursion through two definitions", `{"definitions":{"A":{"$ref":"#/definitions/B"},"B":{"type":"array","items":{"$ref":"#/definitions/A"}}},"$ref":"#/definitions/A"}`,
			`no recursive schema (definitions.B.items.$ref refers back`},
		{"not an object", `[1]`, `the schema is not a JSON object`},
		{"not JSON", `{`, `the schema is not a JSON object`},
	}
	for _, tc := range refused {
		_, err := AnthropicOutputFormat(&model.OutputSchema{Schema: []byte(tc.schema)})
		if !errors.Is(err, model.ErrOutputSchema) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v; want model.ErrOutputSchema, saying %q", tc.name, err, tc.want)
		}
	}
}

// A 400 or 422 on a request that carried a schema is the schema's when its message names
// the schema or its field; a tool's input_schema is not it.
func TestRefusedForSchema(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		status  int
		message string
		want    bool
	}{
		{400, "Invalid schema for response_format 'city_answer': In context=(), 'additionalProperties' is required to be supplied and to be false.", true},
		{400, "Invalid parameter: 'response_format' of type 'json_schema' is not supported with this model.", true},
		{400, "output_config.format: Extra inputs are not permitted", true},
		{400, "'claude-3-haiku-20240307' does not support structured outputs", true},
		{400, `Invalid JSON payload received. Unknown name "responseJsonSchema" at 'generation_config': Cannot find field.`, true},
		{422, "Schema generation failed: unsupported keyword", true},
		{400, "tools.0.custom.input_schema: JSON schema is invalid", true}, // "JSON schema" itself
		{400, "tools.0.custom.input_schema: Field required", false},
		{400, "max_tokens: 100000 > 64000, which is the maximum allowed", false},
		{429, "response_format rate limit", false},
		{500, "schema service failed", false},
	} {
		if got := refusedForSchema(tc.status, tc.message); got != tc.want {
			t.Errorf("refusedForSchema(%d, %q) = %v; want %v", tc.status, tc.message, got, tc.want)
		}
	}
}

// The refusals of OpenAI's API, read on the way: whole, in pieces, or none when the field is
// null; and Anthropic's refusal without content gets an empty text block, in a whole answer
// and in a stream.
func TestRefusalReaders(t *testing.T) {
	t.Parallel()
	var c refusalCall
	readMessageRefusal([]byte(`{"choices":[{"message":{"role":"assistant","content":null,"refusal": "I can't help with that."}}]}`), &c)
	if c.refusal() != "I can't help with that." {
		t.Errorf("message.refusal read as %q", c.refusal())
	}
	var none refusalCall
	readMessageRefusal([]byte(`{"choices":[{"message":{"content":"hi","refusal":null}}],"x":"\"refusal\": \"no\""}`), &none)
	readDeltaRefusal([]byte(`data: {"choices":[{"delta":{"content":"","refusal":null}}]}`+"\n"), &none)
	if none.refusal() != "" {
		t.Errorf("a null refusal read as %q", none.refusal())
	}
	var pieces refusalCall
	for _, p := range []string{`"I can"`, `"'t help."`} {
		readDeltaRefusal([]byte(`data: {"choices":[{"index":0,"delta":{"refusal":`+p+`}}]}`+"\n"), &pieces)
	}
	if pieces.refusal() != "I can't help." {
		t.Errorf("delta.refusal read as %q", pieces.refusal())
	}
	if (*refusalCall)(nil).refusal() != "" {
		t.Error("a nil call has a refusal")
	}

	for in, want := range map[string]string{
		`{"content":[],"stop_reason":"refusal","usage":{"output_tokens":3}}`: `{"content":[{"type":"text","text":""}],"stop_reason":"refusal","usage":{"output_tokens":3}}`,
		`{"stop_reason":"refusal"}`: `{"content":[{"type":"text","text":""}],"stop_reason":"refusal"}`,
		`{"content":[{"type":"text","text":"I won't"}],"stop_reason":"refusal"}`: `{"content":[{"type":"text","text":"I won't"}],"stop_reason":"refusal"}`,
		`{"content":[],"stop_reason":"end_turn","refusal":1}`:                    `{"content":[],"stop_reason":"end_turn","refusal":1}`,
	} {
		if got := string(emptyRefusal([]byte(in))); got != want {
			t.Errorf("emptyRefusal(%s) = %s; want %s", in, got, want)
		}
	}

	stream := "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"content\":[]}}\n\n" +
		"event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"refusal\"}}\n\n"
	body := newLineStream(io.NopCloser(strings.NewReader(stream)), func() func([]byte) []byte {
		var started bool
		return func(line []byte) []byte { return emptyRefusalEvent(line, &started) }
	}())
	got, err := io.ReadAll(body)
	if err != nil {
		t.Fatal(err)
	}
	want := "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"content\":[]}}\n\n" +
		"event: message_delta\n\n" +
		"event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n" +
		"event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n" +
		"event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"refusal\"}}\n\n"
	if string(got) != want {
		t.Errorf("the stream became\n%s\nwant\n%s", got, want)
	}
}
