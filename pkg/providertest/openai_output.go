package providertest

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/cadrehq/cadre/internal/ojson"
	cmodel "github.com/cadrehq/cadre/pkg/model"
	"github.com/tmc/langchaingo/llms"
)

// oaResponseFormat is the request's response_format: {"type": "text"}, {"type":
// "json_object"}, or {"type": "json_schema", "json_schema": {...}}.
type oaResponseFormat struct {
	Type       string `json:"type"`
	JSONSchema *struct {
		Name        *string         `json:"name"`
		Description string          `json:"description"`
		Schema      json.RawMessage `json:"schema"`
		Strict      *bool           `json:"strict"` // null as false
	} `json:"json_schema"`
}

// responseFormatName is what the API accepts as json_schema.name, apart from its length.
var responseFormatName = regexp.MustCompile(`^[a-zA-Z0-9_-]+$`)

// strictRefused are the keywords OpenAI's strict mode refuses wherever they are ("'minLength'
// is not permitted."): those its guide lists as unsupported and those it has been seen to
// refuse. Its guide lists pattern, format, minimum, maximum, exclusiveMinimum,
// exclusiveMaximum, multipleOf, minItems and maxItems as supported; so does this fake.
var strictRefused = []string{"allOf", "not", "if", "then", "else", "dependentRequired", "dependentSchemas",
	"patternProperties", "unevaluatedProperties", "unevaluatedItems", "propertyNames", "minProperties", "maxProperties",
	"contains", "minContains", "maxContains", "uniqueItems", "minLength", "maxLength", "default"}

// responseFormat checks response_format and returns the output schema it gives (nil but for
// json_schema) and whether it asks for JSON.
func (r *oaRequest) responseFormat() (*cmodel.OutputSchema, bool, *apiError) {
	f := r.ResponseFormat
	if f == nil {
		return nil, false, nil
	}
	switch f.Type {
	case "text":
		return nil, false, nil
	case "json_object":
		return nil, true, nil
	case "json_schema":
		out, e := f.outputSchema()
		return out, e == nil, e
	case "":
		return nil, false, invalidParam("Missing required parameter: 'response_format.type'.", "response_format.type", "missing_required_parameter")
	}
	return nil, false, invalidParam(fmt.Sprintf("Invalid value: '%s'. Supported values are: 'text', 'json_object', and 'json_schema'.", f.Type),
		"response_format.type", "invalid_value")
}

// outputSchema checks json_schema as the API does: a name, an object schema, and with strict
// on, a schema in the strict subset.
func (f *oaResponseFormat) outputSchema() (*cmodel.OutputSchema, *apiError) {
	const param = "response_format.json_schema"
	js := f.JSONSchema
	switch {
	case js == nil:
		return nil, invalidParam("Missing required parameter: '"+param+"'.", param, "missing_required_parameter")
	case js.Name == nil:
		return nil, invalidParam("Missing required parameter: '"+param+".name'.", param+".name", "missing_required_parameter")
	case len(*js.Name) > 64:
		return nil, invalidParam(fmt.Sprintf("Invalid '%s.name': string too long. Expected a string with maximum length 64, but got a string with length %d instead.", param, len(*js.Name)),
			param+".name", "string_above_max_length")
	case !responseFormatName.MatchString(*js.Name):
		return nil, invalidParam(fmt.Sprintf("Invalid '%s.name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.", param),
			param+".name", "invalid_value")
	case absent(js.Schema):
		// The API reference marks schema optional; this fake wants one, as an answer in a
		// schema needs one (not checked against the real API).
		return nil, invalidParam("Missing required parameter: '"+param+".schema'.", param+".schema", "missing_required_parameter")
	}
	name := *js.Name
	root, ok := parseSchema(js.Schema).(*ojson.Object)
	if !ok {
		return nil, invalidParam(fmt.Sprintf("Invalid type for '%s.schema': expected an object, but got %s instead.", param, jsonKind(js.Schema)),
			param+".schema", "invalid_type")
	}
	if t, _ := root.Get("type").(string); t != "object" {
		got := "None"
		if v, ok := root.Lookup("type"); ok {
			got = fmt.Sprint(v)
		}
		return nil, badJSONSchema(name, fmt.Sprintf(`schema must be a JSON Schema of 'type: "object"', got 'type: "%s"'.`, got))
	}
	if js.Strict != nil && *js.Strict {
		if e := checkStrict(name, root); e != nil {
			return nil, e
		}
	}
	return &cmodel.OutputSchema{Name: name, Description: js.Description, Schema: js.Schema}, nil
}

// checkStrict refuses, as the API does, a schema outside the subset strict mode takes: a
// keyword it does not permit, an object whose additionalProperties is not false or whose
// required does not list each of its properties. The API's limits on size (5000 properties,
// 10 levels of objects) are not checked.
func checkStrict(name string, root *ojson.Object) *apiError {
	return walkSchema(root, func(n schemaNode) *apiError {
		where := "In context=" + pythonTuple(n.path) + ", "
		for _, m := range n.o.Members {
			if slices.Contains(strictRefused, m.Key) {
				return badJSONSchema(name, fmt.Sprintf("%s'%s' is not permitted.", where, m.Key))
			}
		}
		if !isObjectSchema(n.o) {
			return nil
		}
		if n.o.Get("additionalProperties") != false {
			return badJSONSchema(name, where+"'additionalProperties' is required to be supplied and to be false.")
		}
		props, _ := n.o.Get("properties").(*ojson.Object)
		required, _ := n.o.Get("required").([]any)
		if props == nil {
			return nil
		}
		for _, p := range props.Members {
			if !slices.Contains(required, any(p.Key)) {
				return badJSONSchema(name, fmt.Sprintf("%s'required' is required to be supplied and to be an array including every key in properties. Missing '%s'.",
					where, p.Key))
			}
		}
		return nil
	})
}

// badJSONSchema is the API's refusal of the schema of response_format name.
func badJSONSchema(name, detail string) *apiError {
	return invalidParam(fmt.Sprintf("Invalid schema for response_format '%s': %s", name, detail), "response_format", "invalid_json_schema")
}

// pythonTuple writes path as the API's messages do, as a Python tuple: (), ('items',),
// ('properties', 'a', 'anyOf', 0).
func pythonTuple(path []any) string {
	parts := make([]string, len(path))
	for i, p := range path {
		if s, ok := p.(string); ok {
			parts[i] = "'" + s + "'"
		} else {
			parts[i] = fmt.Sprint(p)
		}
	}
	if len(parts) == 1 {
		return "(" + parts[0] + ",)"
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

// mentionsJSON reports whether the word "json", in any case, is in the text of msgs, as the
// API requires of a request for response_format json_object.
func mentionsJSON(msgs []llms.MessageContent) bool {
	for _, m := range msgs {
		for _, p := range m.Parts {
			var text string
			switch p := p.(type) {
			case llms.TextContent:
				text = p.Text
			case llms.ToolCallResponse:
				text = p.Content
			}
			if strings.Contains(strings.ToLower(text), "json") {
				return true
			}
		}
	}
	return false
}

// noJSONWord is the API's refusal of a json_object request whose messages never say "json".
func noJSONWord() *apiError {
	return invalidParam("'messages' must contain the word 'json' in some form, to use 'response_format' of type 'json_object'.", "messages", "")
}
