package schema

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"sync"

	"github.com/invopop/jsonschema"

	"github.com/cadrehq/cadre/internal/ojson"
)

// cache holds the *Schema of every type For and Of have described, keyed by reflect.Type. It is
// the package's only state, a cache in the way encoding/json caches its per-type encoders: it
// grows with the number of distinct types a program describes, and a type's entry never
// changes once stored.
var cache sync.Map

// For returns the schema of T. It is Of(reflect.TypeFor[T]()).
func For[T any]() (*Schema, error) {
	return Of(reflect.TypeFor[T]())
}

// Of returns the schema of the Go type t, as invopop/jsonschema reflects it:
//   - a struct is an object whose properties are its JSON fields, in field order; a field is
//     required unless its json tag has omitempty or omitzero (or its jsonschema tag has
//     required); no other property is allowed ("additionalProperties": false);
//   - jsonschema tags (description=..., enum=..., minimum=..., nullable, ...) and
//     jsonschema_description tags are honoured, as are JSONSchema and JSONSchemaExtend methods;
//   - strings, numbers, booleans, slices, arrays and maps have their JSON types;
//     an interface type accepts any value ({});
//   - a pointer has the schema of what it points to.
//
// The document is inlined: it has no $ref and no $defs, and no "$schema" or "$id". A recursive
// type is the exception: the types on a cycle stay in "$defs" and are referenced as
// "#/$defs/Name", everything else is inlined, and the root is inlined too, so a struct's root
// is always {"type": "object", ...}.
//
// A type that has no JSON Schema (a chan, a func, a complex number, anywhere in a JSON field)
// is an error naming it. Of computes a type's schema once and then returns the same *Schema for
// that type; it is safe for concurrent use.
func Of(t reflect.Type) (*Schema, error) {
	if t == nil {
		return nil, errors.New("schema: Of(nil): pass a Go type, such as reflect.TypeFor[T]()")
	}
	if s, ok := cache.Load(t); ok {
		return s.(*Schema), nil
	}
	s, err := build(t)
	if err != nil {
		return nil, err
	}
	stored, _ := cache.LoadOrStore(t, s)
	return stored.(*Schema), nil
}

func build(t reflect.Type) (*Schema, error) {
	if err := checkEmbedding(t); err != nil {
		return nil, err
	}
	doc, err := reflectType(t)
	if err != nil {
		return nil, err
	}
	tree, err := ojson.Parse(doc)
	if err != nil {
		return nil, fmt.Errorf("schema: %s: reading the reflected schema: %w", t, err)
	}
	s, err := newSchema(inlineDefs(tree))
	if err != nil {
		return nil, fmt.Errorf("schema: %s: %w", t, err)
	}
	return s, nil
}

// reflectType returns invopop's schema of t, with $defs and $refs, as JSON.
func reflectType(t reflect.Type) (doc []byte, err error) {
	defer func() {
		// invopop panics on a kind it cannot describe; that is a property of the type.
		p := recover()
		if p == nil {
			return
		}
		msg, _ := p.(string)
		bad, ok := strings.CutPrefix(msg, "unsupported type ")
		if !ok {
			panic(p)
		}
		if bad == t.String() {
			err = fmt.Errorf("schema: type %s has no JSON Schema; use a type that encoding/json can encode", t)
		} else {
			err = fmt.Errorf("schema: type %s has no JSON Schema: it holds a %s; leave that field out with `json:\"-\"` or change its type", t, bad)
		}
	}()
	n := &namer{names: map[reflect.Type]string{}, taken: map[string]bool{}}
	r := &jsonschema.Reflector{Anonymous: true, Namer: n.name}
	doc, err = json.Marshal(r.ReflectFromType(t))
	if err != nil {
		return nil, fmt.Errorf("schema: %s: encoding the reflected schema: %w", t, err)
	}
	return doc, nil
}

// namer gives each named Go type of one reflection a distinct $defs name made of letters,
// digits and '_': invopop would give two types of the same name from different packages, or
// two instances of a generic type, names that collide or that a JSON pointer cannot hold.
type namer struct {
	names map[reflect.Type]string
	taken map[string]bool
}

func (n *namer) name(t reflect.Type) string {
	if t.Name() == "" {
		return ""
	}
	if s, ok := n.names[t]; ok {
		return s
	}
	base := defName(t.Name())
	s := base
	for i := 2; n.taken[s]; i++ {
		s = base + strconv.Itoa(i)
	}
	n.names[t], n.taken[s] = s, true
	return s
}

// defName turns a Go type name into a $defs name: "Page[example.com/x.Item]" is "Page_Item".
func defName(goName string) string {
	parts := strings.FieldsFunc(goName, func(r rune) bool {
		return r == '[' || r == ']' || r == ',' || r == ' '
	})
	kept := parts[:0]
	for _, p := range parts {
		if i := strings.LastIndexByte(p, '.'); i >= 0 {
			p = p[i+1:]
		}
		p = strings.Map(func(r rune) rune {
			if r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
				return r
			}
			return -1
		}, p)
		if p != "" {
			kept = append(kept, p)
		}
	}
	if len(kept) == 0 {
		return "T"
	}
	return strings.Join(kept, "_")
}

// checkEmbedding reports a struct that embeds itself, directly or through other embedded
// structs: invopop flattens embedded fields into their parent and would recurse until the stack
// overflows, which no recover can catch.
func checkEmbedding(root reflect.Type) error {
	seen := map[reflect.Type]bool{}
	var visit func(t reflect.Type) error
	visit = func(t reflect.Type) error {
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		if seen[t] {
			return nil
		}
		seen[t] = true
		switch t.Kind() {
		case reflect.Slice, reflect.Array, reflect.Map:
			return visit(t.Elem())
		case reflect.Struct:
			if err := embedsItself(t, []reflect.Type{t}); err != nil {
				return fmt.Errorf("schema: %s: %w", root, err)
			}
			for i := range t.NumField() {
				if f := t.Field(i); f.IsExported() || f.Anonymous {
					if err := visit(f.Type); err != nil {
						return err
					}
				}
			}
		}
		return nil
	}
	return visit(root)
}

// embedsItself follows the fields that invopop flattens into the last struct of chain.
func embedsItself(t reflect.Type, chain []reflect.Type) error {
	for i := range t.NumField() {
		f := t.Field(i)
		jsonTag := strings.Split(f.Tag.Get("json"), ",")
		if jsonTag[0] == "-" || strings.Split(f.Tag.Get("jsonschema"), ",")[0] == "-" {
			continue
		}
		ft := f.Type
		if ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		embedded := f.Anonymous && jsonTag[0] == "" && ft.Kind() == reflect.Struct
		if !embedded && !(ft.Kind() == reflect.Struct && hasOption(jsonTag, "inline")) {
			continue
		}
		for _, c := range chain {
			if c == ft {
				return fmt.Errorf("struct %s embeds itself (in %s): give the embedded field a json name or tag it `json:\"-\"`", ft, t)
			}
		}
		if err := embedsItself(ft, append(chain, ft)); err != nil {
			return err
		}
	}
	return nil
}

func hasOption(tag []string, option string) bool {
	for _, o := range tag[1:] {
		if o == option {
			return true
		}
	}
	return false
}
