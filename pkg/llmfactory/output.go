package llmfactory

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/cadrehq/cadre/internal/ojson"
	"github.com/cadrehq/cadre/pkg/model"
)

// Native structured output: a request whose context carries an output schema
// (model.WithOutputSchema) gets it in its API's own field, written by the model's transport
// into the JSON body the client wrote (see bodyEdit), since no client of langchaingo v0.1.14
// takes a schema per call:
//
//   - OpenAI's API: "response_format": {"type": "json_schema", "json_schema": {"name": ...,
//     "description": ..., "schema": ..., "strict": ...}}, with the strict form of the schema
//     and "strict": true when it has one, else the schema as it is and "strict": false;
//   - Anthropic's: "output_config": {"format": {"type": "json_schema", "schema": ...}}, the
//     schema's objects closed ("additionalProperties": false), as Anthropic wants them; a
//     schema outside the subset Anthropic takes is not sent (see AnthropicOutputFormat);
//   - Gemini's: "generationConfig": {"responseMimeType": "application/json",
//     "responseJsonSchema": ...}.
//
// A provider that refuses the request for its schema (a 400 or 422 whose message names it)
// fails it with a *model.ProviderError that wraps model.ErrOutputSchema: the request can go
// again in another form, as a tool call.

// defaultOutputName names the schema in OpenAI's json_schema when the request gives no name:
// the API wants one.
const defaultOutputName = "output"

// checkOutputSchema returns an error wrapping model.ErrOutputSchema when s cannot go to a
// provider of api: a schema that is not a JSON object, or one outside the subset of JSON
// Schema Anthropic takes.
func checkOutputSchema(api API, s *model.OutputSchema) error {
	if api == AnthropicAPI {
		_, err := AnthropicOutputFormat(s)
		return err
	}
	if _, err := schemaObject(s.Schema); err != nil {
		return err
	}
	if s.Strict != nil {
		if _, err := schemaObject(s.Strict); err != nil {
			return fmt.Errorf("its strict form: %w", err)
		}
	}
	return nil
}

// schemaObject returns schema, a JSON object, compact; an error wrapping
// model.ErrOutputSchema for anything else.
func schemaObject(schema json.RawMessage) (json.RawMessage, error) {
	var b bytes.Buffer
	if err := json.Compact(&b, schema); err != nil || !bytes.HasPrefix(b.Bytes(), []byte("{")) {
		return nil, fmt.Errorf("%w: the schema is not a JSON object", model.ErrOutputSchema)
	}
	return b.Bytes(), nil
}

// openAIOutput writes s into a request of OpenAI's API as its response_format. It replaces
// the JSON mode ({"type": "json_object"}) that llm.yaml's json key has the client write: a
// schema says more.
func openAIOutput(o *object, s *model.OutputSchema) error {
	schema, strict := s.Schema, false
	if s.Strict != nil {
		schema, strict = s.Strict, true
	}
	schema, err := schemaObject(schema)
	if err != nil {
		return err
	}
	name := s.Name
	if name == "" {
		name = defaultOutputName
	}
	js := object{{"name", jsonString(name)}}
	if s.Description != "" {
		js = append(js, member{"description", jsonString(s.Description)})
	}
	js = append(js, member{"schema", schema}, member{"strict", json.RawMessage(fmt.Sprint(strict))})
	format := object{{"type", jsonString("json_schema")}, {"json_schema", js.marshal()}}
	o.set("response_format", format.marshal())
	return nil
}

// anthropicOutput writes s into a request of Anthropic's API as output_config's format,
// keeping what else output_config holds.
func anthropicOutput(o *object, s *model.OutputSchema) error {
	format, err := AnthropicOutputFormat(s)
	if err != nil {
		return err
	}
	config := object{}
	if raw, ok := o.get("output_config"); ok && string(raw) != "null" {
		if config, err = parseObject(raw); err != nil {
			return fmt.Errorf("output_config: %w", err)
		}
	}
	config.set("format", format)
	o.set("output_config", config.marshal())
	return nil
}

// geminiOutput writes s into a request of Gemini's API: an answer in JSON, of the schema,
// in generationConfig, with what else it holds. A responseSchema (the API's older field, in
// its own dialect) goes: the API takes one of the two.
func geminiOutput(o *object, s *model.OutputSchema) error {
	if s == nil {
		return nil
	}
	schema, err := schemaObject(s.Schema)
	if err != nil {
		return err
	}
	config := object{}
	if raw, ok := o.get("generationConfig"); ok && string(raw) != "null" {
		if config, err = parseObject(raw); err != nil {
			return fmt.Errorf("generationConfig: %w", err)
		}
	}
	config.set("responseMimeType", jsonString("application/json"))
	config.delete("responseSchema")
	config.set("responseJsonSchema", schema)
	o.set("generationConfig", config.marshal())
	return nil
}

// AnthropicOutputFormat returns s (not nil) as the format of an Anthropic Messages request's
// output_config: {"type": "json_schema", "schema": ...}, with s.Schema's object schemas
// closed ("additionalProperties": false where they say nothing of it: Anthropic wants every
// object closed, and an answer to the closed schema fits the open one). A provider type
// whose client writes Anthropic's requests itself, as bedrock's does, writes it there.
//
// Anthropic constrains answers to a subset of JSON Schema. A schema outside it is refused
// here, not sent with the constraints stripped (the answer would then fit Anthropic's
// schema, not the one asked for): the error wraps model.ErrOutputSchema, and says what in the
// schema Anthropic does not take, and where. Outside the subset are: a recursive schema (a
// $ref to the root or to a definition that reaches itself) and an external $ref; the
// numeric constraints (minimum, maximum, exclusiveMinimum, exclusiveMaximum, multipleOf); the
// string constraints (minLength, maxLength); array constraints but a minItems of 0 or 1
// (maxItems, uniqueItems, contains); additionalProperties other than false (a map's value
// schema); oneOf; allOf with a $ref; an enum of objects or arrays; a format other than
// date-time, time, date, duration, email, hostname, uri, ipv4, ipv6 and uuid.
func AnthropicOutputFormat(s *model.OutputSchema) (json.RawMessage, error) {
	v, err := ojson.Parse(s.Schema)
	root, ok := v.(*ojson.Object)
	if err != nil || !ok {
		return nil, fmt.Errorf("%w: the schema is not a JSON object", model.ErrOutputSchema)
	}
	root, _ = ojson.Copy(root).(*ojson.Object) // closed here, not in the caller's schema
	if err := anthropicSubset(root, ""); err != nil {
		return nil, fmt.Errorf("%w: %v", model.ErrOutputSchema, err)
	}
	if at := recursion(root); at != "" {
		return nil, fmt.Errorf("%w: Anthropic's structured outputs take no recursive schema (%s refers back to a schema that holds it)", model.ErrOutputSchema, at)
	}
	format := ojson.Object{}
	format.Set("type", "json_schema")
	format.Set("schema", root)
	return ojson.Encode(&format), nil
}

// anthropicFormats are the string formats Anthropic's structured outputs take.
var anthropicFormats = []string{"date-time", "time", "date", "duration", "email", "hostname", "uri", "ipv4", "ipv6", "uuid"}

// anthropicSubset checks the schema v, at path (dotted; "" for the root), and its subschemas
// against what Anthropic takes, closing its object schemas on the way.
func anthropicSubset(v any, path string) error {
	o, ok := v.(*ojson.Object)
	if !ok {
		return nil // true or false
	}
	no := func(what string) error {
		at := "at the root"
		if path != "" {
			at = "at " + path
		}
		return fmt.Errorf("the structured outputs of Anthropic's API take no %s (%s)", what, at)
	}
	for _, m := range o.Members {
		switch m.Key {
		case "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf",
			"minLength", "maxLength", "maxItems", "contains", "minContains", "maxContains", "oneOf":
			return no(fmt.Sprintf("%q", m.Key))
		case "uniqueItems":
			if m.Value == true {
				return no(`"uniqueItems"`)
			}
		case "minItems":
			if n, ok := m.Value.(json.Number); ok && n.String() != "0" && n.String() != "1" {
				return no(fmt.Sprintf(`"minItems" but 0 or 1 (it is %s)`, n))
			}
		case "additionalProperties":
			if m.Value != false {
				return no(`"additionalProperties" but false (a map, or an open object)`)
			}
		case "$ref":
			if ref, _ := m.Value.(string); !strings.HasPrefix(ref, "#") {
				return no(fmt.Sprintf("external $ref (%q)", ref))
			}
		case "format":
			if f, _ := m.Value.(string); !slices.Contains(anthropicFormats, f) {
				return no(fmt.Sprintf("format %q", f))
			}
		case "enum":
			values, _ := m.Value.([]any)
			for _, e := range values {
				switch e.(type) {
				case *ojson.Object, []any:
					return no("enum of objects or arrays")
				}
			}
		case "allOf":
			subs, _ := m.Value.([]any)
			for _, sub := range subs {
				if s, ok := sub.(*ojson.Object); ok && s.Has("$ref") {
					return no("allOf with a $ref")
				}
			}
		}
	}
	if closable(o) && !o.Has("additionalProperties") {
		o.Set("additionalProperties", false)
	}
	var err error
	eachSchema(o, path, func(sub any, at string) {
		if err == nil {
			err = anthropicSubset(sub, at)
		}
	})
	return err
}

// closable reports whether o describes objects: its type is or includes "object", or it
// lists properties.
func closable(o *ojson.Object) bool {
	if o.Has("properties") {
		return true
	}
	switch t := o.Get("type").(type) {
	case string:
		return t == "object"
	case []any:
		return slices.Contains(t, any("object"))
	}
	return false
}

// eachSchema calls f with each subschema of o and its path (below path).
func eachSchema(o *ojson.Object, path string, f func(sub any, at string)) {
	join := func(k string) string {
		if path == "" {
			return k
		}
		return path + "." + k
	}
	for _, m := range o.Members {
		switch m.Key {
		case "items", "additionalProperties", "not", "if", "then", "else", "propertyNames",
			"unevaluatedItems", "unevaluatedProperties", "additionalItems":
			if arr, ok := m.Value.([]any); ok { // draft-07 tuple
				for i, sub := range arr {
					f(sub, fmt.Sprintf("%s[%d]", join(m.Key), i))
				}
				continue
			}
			f(m.Value, join(m.Key))
		case "allOf", "anyOf", "oneOf", "prefixItems":
			arr, _ := m.Value.([]any)
			for i, sub := range arr {
				f(sub, fmt.Sprintf("%s[%d]", join(m.Key), i))
			}
		case "properties", "patternProperties", "dependentSchemas", "$defs", "definitions":
			if named, ok := m.Value.(*ojson.Object); ok {
				for _, n := range named.Members {
					f(n.Value, join(m.Key)+"."+n.Key)
				}
			}
		}
	}
}

// recursion returns the path of a $ref in root that leads back to a schema holding it, the
// root or a definition of its $defs or definitions; "" when there is none.
func recursion(root *ojson.Object) string {
	// The schemas a $ref can name, and the $refs below each (a definition's own, the root's
	// outside its definitions).
	type node struct {
		refs []string // targets
		at   []string // each $ref's path
	}
	nodes := map[string]*node{}
	var collect func(v any, path string, n *node, top bool)
	collect = func(v any, path string, n *node, top bool) {
		o, ok := v.(*ojson.Object)
		if !ok {
			return
		}
		if ref, ok := o.Get("$ref").(string); ok {
			n.refs, n.at = append(n.refs, ref), append(n.at, path)
		}
		eachSchema(o, path, func(sub any, at string) {
			if top && (strings.HasPrefix(at, "$defs.") || strings.HasPrefix(at, "definitions.")) {
				return // a definition is a node of its own
			}
			collect(sub, at, n, false)
		})
	}
	nodes["#"] = &node{}
	collect(root, "", nodes["#"], true)
	for _, key := range []string{"$defs", "definitions"} {
		defs, _ := root.Get(key).(*ojson.Object)
		if defs == nil {
			continue
		}
		for _, d := range defs.Members {
			n := &node{}
			nodes["#/"+key+"/"+d.Key] = n
			collect(d.Value, key+"."+d.Key, n, false)
		}
	}
	// A depth-first walk from the root: a $ref to a schema on the walk's path is a cycle.
	onPath, done := map[string]bool{}, map[string]bool{}
	var visit func(name string) string
	visit = func(name string) string {
		onPath[name] = true
		defer func() { onPath[name], done[name] = false, true }()
		n := nodes[name]
		for i, ref := range n.refs {
			ref = strings.TrimSuffix(ref, "/")
			if ref == "" {
				ref = "#"
			}
			if onPath[ref] {
				if n.at[i] == "" {
					return "$ref"
				}
				return n.at[i] + ".$ref"
			}
			if nodes[ref] != nil && !done[ref] {
				if at := visit(ref); at != "" {
					return at
				}
			}
		}
		return ""
	}
	return visit("#")
}

// refusedForSchema reports whether a request that carried an output schema was refused for
// it: a 400 (422 from the services that check bodies with a schema of their own, as Mistral
// and vLLM do) whose message names the schema or the field it went in. A message about a
// tool's input_schema does not count.
func refusedForSchema(status int, message string) bool {
	if status != 400 && status != 422 {
		return false
	}
	m := strings.ToLower(message)
	m = strings.ReplaceAll(m, "input_schema", "")
	for _, word := range []string{"schema", "response_format", "output_config", "output_format", "responsemimetype",
		"response_mime_type", "structured output", "output format"} {
		if strings.Contains(m, word) {
			return true
		}
	}
	return false
}

// outputSchemaError is the error of a request whose output schema was refused before it
// went (checkOutputSchema).
func outputSchemaError(provider, modelName string, err error) error {
	msg := err.Error()
	if !errors.Is(err, model.ErrOutputSchema) {
		err = fmt.Errorf("%w: %v", model.ErrOutputSchema, err)
		msg = err.Error()
	}
	return &clientError{msg: fmt.Sprintf("provider %q, model %q: %s; the request was not sent", provider, modelName, msg), err: err}
}
