package providertest

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/cadrehq/cadre/internal/ojson"
	cmodel "github.com/cadrehq/cadre/pkg/model"
)

// anOutputConfig is the request's output_config: the format of the answer, and the effort,
// which the fake takes and does not read.
type anOutputConfig struct {
	Format *struct {
		Type   string          `json:"type"`
		Schema json.RawMessage `json:"schema"`
	} `json:"format"`
	Effort json.RawMessage `json:"effort"`
}

// The keywords of a schema outside what the API takes in output_config.format: it refuses
// numeric bounds and string lengths, and array sizes but a minItems of 0 or 1.
var (
	anthropicNumberKeys = []string{"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"}
	anthropicStringKeys = []string{"minLength", "maxLength"}
)

// outputSchema checks output_config.format as the API does and returns the output schema it
// gives; nil when the request has none.
func (r *anRequest) outputSchema() (*cmodel.OutputSchema, *apiError) {
	if r.OutputConfig == nil || r.OutputConfig.Format == nil {
		return nil, nil
	}
	f := r.OutputConfig.Format
	if f.Type != "json_schema" {
		return nil, invalid(fmt.Sprintf("output_config.format: Input tag '%s' found using 'type' does not match any of the expected tags: 'json_schema'", f.Type))
	}
	if !cmodel.NativeOutputFor("anthropic", r.Model) {
		// The API refuses the field on a model without structured outputs; these are not its
		// exact words, which this fake has not seen.
		return nil, invalid(fmt.Sprintf("output_config.format: the model '%s' does not support structured outputs", r.Model))
	}
	if absent(f.Schema) {
		return nil, invalid("output_config.format.schema: Field required")
	}
	root, ok := parseSchema(f.Schema).(*ojson.Object)
	if !ok {
		return nil, invalid("output_config.format.schema: Input should be a valid dictionary")
	}
	if e := checkAnthropicSchema(root); e != nil {
		return nil, e
	}
	return &cmodel.OutputSchema{Schema: f.Schema}, nil
}

// checkAnthropicSchema refuses a schema outside the limits of the API's structured outputs:
// an object whose additionalProperties is not false, a numeric bound, a string length, an
// array size but a minItems of 0 or 1, a recursive $ref. The messages of the first two are
// the API's; the others follow their form.
func checkAnthropicSchema(root *ojson.Object) *apiError {
	const where = "output_config.format.schema: "
	e := walkSchema(root, func(n schemaNode) *apiError {
		if isObjectSchema(n.o) && n.o.Get("additionalProperties") != false {
			return invalid(where + "For 'object' type, 'additionalProperties' must be explicitly set to false")
		}
		for _, m := range n.o.Members {
			switch {
			case slices.Contains(anthropicNumberKeys, m.Key):
				typ := schemaType(n.o)
				if typ != "integer" {
					typ = "number"
				}
				return invalid(fmt.Sprintf("%sFor '%s' type, property '%s' is not supported", where, typ, m.Key))
			case slices.Contains(anthropicStringKeys, m.Key):
				return invalid(fmt.Sprintf("%sFor 'string' type, property '%s' is not supported", where, m.Key))
			case m.Key == "maxItems":
				return invalid(where + "For 'array' type, property 'maxItems' is not supported")
			case m.Key == "minItems" && !isZeroOrOne(m.Value):
				return invalid(fmt.Sprintf("%sFor 'array' type, property 'minItems' only supports the values 0 and 1, got %v", where, m.Value))
			}
		}
		return nil
	})
	if e != nil {
		return e
	}
	if recursiveRef(root) {
		return invalid(where + "Recursive schemas are not supported")
	}
	return nil
}

func isZeroOrOne(v any) bool {
	n, ok := v.(json.Number)
	return ok && (n == "0" || n == "1")
}
