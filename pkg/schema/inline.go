package schema

import (
	"strings"

	"github.com/cadrehq/cadre/internal/ojson"
)

// inlineDefs rewrites invopop's document, in which every named struct, slice and map type is a
// definition in "$defs" referenced by "$ref", into the document that Of promises: every
// definition that is not on a cycle of references is inlined where it is used, the root is
// inlined, "$defs" keeps only the definitions on a cycle (and only when they are used), and
// "$schema" and "$id" are gone. "type" and "description" lead each schema. A boolean true schema becomes {}, which means the same and
// which every tool API accepts.
func inlineDefs(tree any) any {
	root, ok := tree.(*ojson.Object)
	if !ok {
		return emptyIfTrue(tree)
	}
	root.Delete("$schema")
	root.Delete("$id")
	in := &inliner{defs: &ojson.Object{}, done: map[string]any{}, used: map[string]bool{}}
	if defs, ok := root.Lookup("$defs"); ok {
		if defs, ok := defs.(*ojson.Object); ok {
			in.defs = defs
		}
		root.Delete("$defs")
	}
	in.recursive = recursiveDefs(in.defs)

	var out any
	if name, ok := in.localRef(root); ok {
		out = in.expand(name, root)
	} else {
		out = in.schema(root)
	}
	if kept := in.keptDefs(); len(kept.Members) > 0 {
		if o, ok := out.(*ojson.Object); ok {
			o.Set("$defs", kept)
		}
	}
	return tidy(out)
}

type inliner struct {
	defs      *ojson.Object   // invopop's $defs
	recursive map[string]bool // the names of the definitions on a cycle
	done      map[string]any  // definition bodies already rewritten, by name
	used      map[string]bool // the recursive definitions still referenced
}

// schema rewrites v in place and returns it, or what replaces it.
func (in *inliner) schema(v any) any {
	o, ok := v.(*ojson.Object)
	if !ok {
		return emptyIfTrue(v)
	}
	if name, ok := in.localRef(o); ok {
		if !in.recursive[name] {
			return in.expand(name, o)
		}
		in.used[name] = true
	}
	eachSubschema(o, in.schema)
	return o
}

// expand returns a copy of the rewritten definition name, with the keywords beside the $ref
// in ref (a field's description, say) laid over it.
func (in *inliner) expand(name string, ref *ojson.Object) any {
	body := ojson.Copy(in.body(name))
	o, ok := body.(*ojson.Object)
	if !ok {
		return body
	}
	eachSubschema(ref, in.schema)
	for _, m := range ref.Members {
		if m.Key != "$ref" {
			o.Set(m.Key, m.Value)
		}
	}
	return o
}

// body returns definition name, rewritten once. References to definitions that are not on a
// cycle only lead to other such definitions, so the recursion ends.
func (in *inliner) body(name string) any {
	if b, ok := in.done[name]; ok {
		return b
	}
	def, _ := in.defs.Lookup(name)
	b := in.schema(def)
	in.done[name] = b
	return b
}

// keptDefs returns the recursive definitions that the document references, in invopop's order.
func (in *inliner) keptDefs() *ojson.Object {
	kept := &ojson.Object{}
	for grew := true; grew; {
		grew = false
		for _, m := range in.defs.Members {
			if _, ok := kept.Lookup(m.Key); !ok && in.used[m.Key] {
				kept.Set(m.Key, in.body(m.Key)) // may mark more definitions used
				grew = true
			}
		}
	}
	return kept
}

// localRef returns the definition that o is a reference to, if o is one.
func (in *inliner) localRef(o *ojson.Object) (string, bool) {
	name, ok := refName(o)
	if !ok {
		return "", false
	}
	_, ok = in.defs.Lookup(name)
	return name, ok
}

func refName(o *ojson.Object) (string, bool) {
	ref, _ := o.Lookup("$ref")
	s, _ := ref.(string)
	return strings.CutPrefix(s, "#/$defs/")
}

// recursiveDefs returns the names of the definitions that reach themselves through references.
func recursiveDefs(defs *ojson.Object) map[string]bool {
	refs := map[string][]string{}
	for _, m := range defs.Members {
		collectRefs(m.Value, func(name string) { refs[m.Key] = append(refs[m.Key], name) })
	}
	recursive := map[string]bool{}
	for _, m := range defs.Members {
		seen := map[string]bool{}
		stack := append([]string(nil), refs[m.Key]...)
		for len(stack) > 0 {
			n := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if n == m.Key {
				recursive[n] = true
				break
			}
			if !seen[n] {
				seen[n] = true
				stack = append(stack, refs[n]...)
			}
		}
	}
	return recursive
}

// collectRefs calls f with the definition name of every local $ref in v.
func collectRefs(v any, f func(string)) {
	switch v := v.(type) {
	case *ojson.Object:
		if name, ok := refName(v); ok {
			f(name)
		}
		for _, m := range v.Members {
			collectRefs(m.Value, f)
		}
	case []any:
		for _, e := range v {
			collectRefs(e, f)
		}
	}
}

func emptyIfTrue(v any) any {
	if v == true {
		return &ojson.Object{}
	}
	return v
}
