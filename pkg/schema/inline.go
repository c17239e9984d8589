package schema

import "strings"

// inlineDefs rewrites invopop's document, in which every named struct, slice and map type is a
// definition in "$defs" referenced by "$ref", into the document that Of promises: every
// definition that is not on a cycle of references is inlined where it is used, the root is
// inlined, "$defs" keeps only the definitions on a cycle (and only when they are used), and
// "$schema" and "$id" are gone. "type" and "description" lead each schema. A boolean true schema becomes {}, which means the same and
// which every tool API accepts.
func inlineDefs(tree any) any {
	root, ok := tree.(*object)
	if !ok {
		return emptyIfTrue(tree)
	}
	root.remove("$schema")
	root.remove("$id")
	in := &inliner{defs: &object{}, done: map[string]any{}, used: map[string]bool{}}
	if defs, ok := root.lookup("$defs"); ok {
		if defs, ok := defs.(*object); ok {
			in.defs = defs
		}
		root.remove("$defs")
	}
	in.recursive = recursiveDefs(in.defs)

	var out any
	if name, ok := in.localRef(root); ok {
		out = in.expand(name, root)
	} else {
		out = in.schema(root)
	}
	if kept := in.keptDefs(); len(kept.members) > 0 {
		if o, ok := out.(*object); ok {
			o.set("$defs", kept)
		}
	}
	return tidy(out)
}

type inliner struct {
	defs      *object         // invopop's $defs
	recursive map[string]bool // the names of the definitions on a cycle
	done      map[string]any  // definition bodies already rewritten, by name
	used      map[string]bool // the recursive definitions still referenced
}

// schema rewrites v in place and returns it, or what replaces it.
func (in *inliner) schema(v any) any {
	o, ok := v.(*object)
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
func (in *inliner) expand(name string, ref *object) any {
	body := copyTree(in.body(name))
	o, ok := body.(*object)
	if !ok {
		return body
	}
	eachSubschema(ref, in.schema)
	for _, m := range ref.members {
		if m.key != "$ref" {
			o.set(m.key, m.val)
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
	def, _ := in.defs.lookup(name)
	b := in.schema(def)
	in.done[name] = b
	return b
}

// keptDefs returns the recursive definitions that the document references, in invopop's order.
func (in *inliner) keptDefs() *object {
	kept := &object{}
	for grew := true; grew; {
		grew = false
		for _, m := range in.defs.members {
			if _, ok := kept.lookup(m.key); !ok && in.used[m.key] {
				kept.set(m.key, in.body(m.key)) // may mark more definitions used
				grew = true
			}
		}
	}
	return kept
}

// localRef returns the definition that o is a reference to, if o is one.
func (in *inliner) localRef(o *object) (string, bool) {
	name, ok := refName(o)
	if !ok {
		return "", false
	}
	_, ok = in.defs.lookup(name)
	return name, ok
}

func refName(o *object) (string, bool) {
	ref, _ := o.lookup("$ref")
	s, _ := ref.(string)
	return strings.CutPrefix(s, "#/$defs/")
}

// recursiveDefs returns the names of the definitions that reach themselves through references.
func recursiveDefs(defs *object) map[string]bool {
	refs := map[string][]string{}
	for _, m := range defs.members {
		collectRefs(m.val, func(name string) { refs[m.key] = append(refs[m.key], name) })
	}
	recursive := map[string]bool{}
	for _, m := range defs.members {
		seen := map[string]bool{}
		stack := append([]string(nil), refs[m.key]...)
		for len(stack) > 0 {
			n := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if n == m.key {
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
	case *object:
		if name, ok := refName(v); ok {
			f(name)
		}
		for _, m := range v.members {
			collectRefs(m.val, f)
		}
	case []any:
		for _, e := range v {
			collectRefs(e, f)
		}
	}
}

func emptyIfTrue(v any) any {
	if v == true {
		return &object{}
	}
	return v
}
