package schema

import (
	"reflect"
	"testing"

	"github.com/cadrehq/cadre/internal/ojson"
)

// benchShipment is a type whose reflected document has definitions to inline, one on a cycle
// to keep, enums, maps and descriptions: the work the tree does when a schema is built.
type benchShipment struct {
	ID       string            `json:"id" jsonschema:"description=the shipment's id"`
	Status   string            `json:"status" jsonschema:"enum=packed,enum=sent,enum=delivered"`
	From     benchAddress      `json:"from"`
	To       benchAddress      `json:"to"`
	Parcels  []benchParcel     `json:"parcels"`
	Labels   map[string]string `json:"labels,omitempty"`
	Note     *string           `json:"note,omitempty"`
	Priority int               `json:"priority,omitempty" jsonschema:"minimum=0,maximum=9"`
}

type benchAddress struct {
	Street string `json:"street"`
	City   string `json:"city" jsonschema:"description=city <and> region"`
	Zip    string `json:"zip,omitempty"`
}

type benchParcel struct {
	Weight   float64       `json:"weight" jsonschema:"exclusiveMinimum=0"`
	Contents []benchParcel `json:"contents,omitempty"` // a cycle: stays in $defs
}

// BenchmarkTree rewrites a reflected document as building a type's schema does, without the
// validator's compilation: parse it keeping key order, inline it, encode it, make the strict
// form and encode that.
func BenchmarkTree(b *testing.B) {
	doc, err := reflectType(reflect.TypeFor[benchShipment]())
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		tree, err := ojson.Parse(doc)
		if err != nil {
			b.Fatal(err)
		}
		tree = inlineDefs(tree)
		_ = ojson.Encode(tree)
		_ = ojson.Encode(strictSchema(tree))
	}
}
