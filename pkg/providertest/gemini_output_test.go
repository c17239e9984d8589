package providertest_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/cadrehq/cadre/pkg/model"
	"github.com/cadrehq/cadre/pkg/providertest"
)

const geminiFlash = "/v1beta/models/gemini-2.5-flash:generateContent"

// geminiSchemaRequest asks for an answer of answerSchema in responseJsonSchema.
const geminiSchemaRequest = `{"contents":[{"role":"user","parts":[{"text":"Plan a trip."}]}],` +
	`"generationConfig":{"responseMimeType":"application/json","responseJsonSchema":` + answerSchema + `}}`

// geminiAnswer is the text of the first candidate of a Gemini answer.
func geminiAnswer(t *testing.T, body []byte) string {
	t.Helper()
	var r struct {
		Candidates []struct {
			Content struct{ Parts []struct{ Text string } }
		}
	}
	if err := json.Unmarshal(body, &r); err != nil || len(r.Candidates) == 0 || len(r.Candidates[0].Content.Parts) == 0 {
		t.Fatalf("not an answer with text (%v): %s", err, body)
	}
	return r.Candidates[0].Content.Parts[0].Text
}

// TestGeminiServerResponseJSONSchema: responseJsonSchema, beside tools, reaches the model as
// the output schema in its context, streamed or not, and its answer comes back.
func TestGeminiServerResponseJSONSchema(t *testing.T) {
	t.Parallel()
	const answer = `{"city":"Oslo","days":2,"tags":[]}`
	body := strings.Replace(geminiSchemaRequest, `"generationConfig"`,
		`"tools":[{"functionDeclarations":[{"name":"weather","parameters":{"type":"OBJECT","properties":{"city":{"type":"STRING"}}}}]}],"generationConfig"`, 1)
	for _, method := range []string{"generateContent", "streamGenerateContent?alt=sse"} {
		t.Run(method, func(t *testing.T) {
			t.Parallel()
			w := newSchemaWitness(answer)
			s := providertest.NewGemini(w)
			defer s.Close()
			status, _, resp := rawPost(t, s, "/v1beta/models/gemini-2.5-flash:"+method, gemini.validHeaders("k"), body)
			if status != http.StatusOK {
				t.Fatalf("status %d: %s", status, resp)
			}
			var text strings.Builder
			if strings.HasPrefix(method, "stream") {
				for _, e := range decodeEvents(t, resp) {
					b, _ := json.Marshal(e)
					text.WriteString(geminiAnswer(t, b))
				}
			} else {
				text.WriteString(geminiAnswer(t, resp))
			}
			if text.String() != answer {
				t.Errorf("answer %q", text.String())
			}
			checkSchemaSeen(t, w, model.OutputSchema{Schema: json.RawMessage(answerSchema)})
			if tools := w.req.Load().Options.Tools; len(tools) != 1 || tools[0].Function.Name != "weather" {
				t.Errorf("the model was offered %v, want the weather tool", tools)
			}
		})
	}
}

// TestGeminiServerResponseSchema: the older responseSchema, of the API's Schema, reaches the
// model as a JSON Schema, its types in lower case.
func TestGeminiServerResponseSchema(t *testing.T) {
	t.Parallel()
	w := newSchemaWitness(`{"city":"Oslo"}`)
	s := providertest.NewGemini(w)
	defer s.Close()
	body := `{"contents":[{"role":"user","parts":[{"text":"hi"}]}],"generationConfig":{"responseMimeType":"application/json",` +
		`"responseSchema":{"type":"OBJECT","properties":{"city":{"type":"STRING"},"days":{"type":"INTEGER","nullable":true}},"required":["city"]}}}`
	// An older model takes it.
	status, _, resp := rawPost(t, s, "/v1beta/models/gemini-1.5-pro:generateContent", gemini.validHeaders("k"), body)
	if status != http.StatusOK {
		t.Fatalf("status %d: %s", status, resp)
	}
	checkSchemaSeen(t, w, model.OutputSchema{Schema: json.RawMessage(
		`{"type":"object","properties":{"city":{"type":"string"},"days":{"type":"integer","nullable":true}},"required":["city"]}`)})
}

// TestGeminiServerSyntheticAnswersTheSchema: a Synthetic model behind the fake answers in the
// schema of responseJsonSchema.
func TestGeminiServerSyntheticAnswersTheSchema(t *testing.T) {
	t.Parallel()
	syntheticBehind(t, gemini, geminiFlash, geminiSchemaRequest, geminiAnswer)
}

// TestGeminiServerResponseMimeTypesTaken: the mime types the API takes, with an enum's
// schema for text/x.enum.
func TestGeminiServerResponseMimeTypesTaken(t *testing.T) {
	t.Parallel()
	s := providertest.NewGemini(newSchemaWitness("a"))
	defer s.Close()
	for _, config := range []string{
		`{"responseMimeType":"text/plain"}`, `{"responseMimeType":"application/json"}`,
		`{"responseMimeType":"application/xml"}`, `{"responseMimeType":"application/yaml"}`,
		`{"responseMimeType":"text/x.enum","responseSchema":{"type":"STRING","enum":["a","b"]}}`,
		`{"responseMimeType":"application/json","responseJsonSchema":null}`,
	} {
		body := `{"contents":[{"role":"user","parts":[{"text":"hi"}]}],"generationConfig":` + config + `}`
		if status, _, resp := rawPost(t, s, geminiFlash, gemini.validHeaders("k"), body); status != http.StatusOK {
			t.Errorf("%s: status %d: %s", config, status, resp)
		}
	}
}

// TestGeminiServerRejectsOutputSchemas sends the answer formats the real API refuses.
func TestGeminiServerRejectsOutputSchemas(t *testing.T) {
	t.Parallel()
	config := func(c string) string {
		return `{"contents":[{"role":"user","parts":[{"text":"hi"}]}],"generationConfig":` + c + `}`
	}
	const (
		jsonSchema = `"responseJsonSchema":{"type":"object","properties":{"a":{"type":"string"}}}`
		schema     = `"responseSchema":{"type":"OBJECT","properties":{"a":{"type":"STRING"}}}`
	)
	checkRejections(t, gemini, geminiFlash, []rejection{
		{name: "an unknown mime type", body: config(`{"responseMimeType":"application/pdf"}`),
			want: "* GenerateContentRequest.generation_config.response_mime_type: allowed mimetypes are text/plain, application/json, application/xml, application/yaml and text/x.enum"},
		{name: "responseJsonSchema without a mime type", body: config(`{` + jsonSchema + `}`),
			want: "* GenerateContentRequest.generation_config.response_mime_type: must be application/json when response_json_schema is set"},
		{name: "responseJsonSchema with text/plain", body: config(`{"responseMimeType":"text/plain",` + jsonSchema + `}`),
			want: "must be application/json when response_json_schema is set"},
		{name: "responseSchema without a mime type", body: config(`{` + schema + `}`),
			want: "* GenerateContentRequest.generation_config.response_mime_type: must be application/json or text/x.enum when response_schema is set"},
		{name: "both schemas", body: config(`{"responseMimeType":"application/json",` + jsonSchema + `,` + schema + `}`),
			want: "* GenerateContentRequest.generation_config: response_schema and response_json_schema are mutually exclusive"},
		{name: "responseJsonSchema not an object", body: config(`{"responseMimeType":"application/json","responseJsonSchema":"object"}`),
			want: "Invalid value at 'generation_config.response_json_schema'"},
		{name: "responseSchema with a JSON Schema keyword", body: config(`{"responseMimeType":"application/json",` +
			`"responseSchema":{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"OBJECT","properties":{"a":{"type":"STRING"}}}}`),
			want: `Invalid JSON payload received. Unknown name "$schema" at 'generation_config.response_schema': Cannot find field.`},
		{name: "responseSchema, an object without properties", body: config(`{"responseMimeType":"application/json","responseSchema":{"type":"OBJECT"}}`),
			want: "* GenerateContentRequest.generation_config.response_schema.properties: should be non-empty for OBJECT type"},
	})
	// A model that does not take responseJsonSchema.
	checkRejections(t, gemini, "/v1beta/models/gemini-1.5-pro:generateContent", []rejection{
		{name: "responseJsonSchema on gemini-1.5-pro", body: config(`{"responseMimeType":"application/json",` + jsonSchema + `}`),
			want: "* GenerateContentRequest.generation_config.response_json_schema: is not supported by the model gemini-1.5-pro"},
	})
}
