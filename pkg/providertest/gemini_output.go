package providertest

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/cadrehq/cadre/internal/ojson"
	cmodel "github.com/cadrehq/cadre/pkg/model"
)

// geminiMimeTypes are the values of generationConfig.responseMimeType that the API takes.
var geminiMimeTypes = []string{"text/plain", "application/json", "application/xml", "application/yaml", "text/x.enum"}

// outputSchema checks the generation config's answer format as the API does and returns the
// output schema it gives: responseJsonSchema as it is, or responseSchema (the API's OpenAPI
// subset) converted to JSON Schema, its types in lower case; nil when it gives none. model is
// the one of the path.
//
// The API's refusals of a schema without the right responseMimeType, of both schemas at once,
// and of responseJsonSchema on a model that does not take it, are in its form, not in words
// seen from it.
func (r *gmRequest) outputSchema(model string) (*cmodel.OutputSchema, *apiError) {
	g := r.GenerationConfig
	if g.ResponseMimeType != "" && !slices.Contains(geminiMimeTypes, g.ResponseMimeType) {
		return nil, geminiViolation("generation_config.response_mime_type",
			"allowed mimetypes are text/plain, application/json, application/xml, application/yaml and text/x.enum")
	}
	jsonSchema, schema := !absent(g.ResponseJSONSchema), !absent(g.ResponseSchema)
	switch {
	case jsonSchema && schema:
		return nil, geminiViolation("generation_config", "response_schema and response_json_schema are mutually exclusive")
	case jsonSchema:
		return geminiJSONSchema(g.ResponseJSONSchema, g.ResponseMimeType, model)
	case schema:
		return geminiResponseSchema(g.ResponseSchema, g.ResponseMimeType)
	}
	return nil, nil
}

// geminiJSONSchema checks responseJsonSchema, a JSON Schema object.
func geminiJSONSchema(raw json.RawMessage, mimeType, model string) (*cmodel.OutputSchema, *apiError) {
	const field = "generation_config.response_json_schema"
	if mimeType != "application/json" {
		return nil, geminiViolation("generation_config.response_mime_type", "must be application/json when response_json_schema is set")
	}
	if !cmodel.NativeOutputFor("googleai", model) {
		return nil, geminiViolation(field, fmt.Sprintf("is not supported by the model %s", model))
	}
	if _, ok := parseSchema(raw).(*ojson.Object); !ok {
		return nil, geminiInvalid(fmt.Sprintf("Invalid value at '%s': a JSON Schema is an object, got %s", field, raw))
	}
	return &cmodel.OutputSchema{Schema: raw}, nil
}

// geminiResponseSchema checks responseSchema, a Schema as function parameters are, and
// converts it to JSON Schema.
func geminiResponseSchema(raw json.RawMessage, mimeType string) (*cmodel.OutputSchema, *apiError) {
	const field = "generation_config.response_schema"
	if mimeType != "application/json" && mimeType != "text/x.enum" {
		return nil, geminiViolation("generation_config.response_mime_type", "must be application/json or text/x.enum when response_schema is set")
	}
	var node any
	if err := json.Unmarshal(raw, &node); err != nil {
		return nil, geminiInvalid("Invalid JSON payload received. " + err.Error())
	}
	schema, e := geminiSchema(node, field, false)
	if e != nil {
		return nil, e
	}
	return &cmodel.OutputSchema{Schema: mustJSON(schema)}, nil
}
