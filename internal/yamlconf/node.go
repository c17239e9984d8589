package yamlconf

import (
	"strings"

	"gopkg.in/yaml.v3"
)

// Entry is one key: value pair of a mapping.
type Entry struct {
	Key     string     // "" for a null key
	KeyNode *yaml.Node // where the key is written: errors about the entry point here
	Val     *yaml.Node // as written: an alias is resolved by whoever reads it
}

// Entries returns the pairs of the mapping n in file order, with merge keys (<<: *anchor, or
// <<: [*a, *b]) applied: a key written in n wins over a merged one, and an earlier merged
// mapping over a later one. A null n is an empty mapping. path is n's key path, for errors.
//
// It records an error for a key that is not a single value, a duplicate key (the first one
// is kept), a merge of anything but mappings and a merge cycle. ok is false, after recording
// why, when n is not a mapping.
func (r *Reader) Entries(n *yaml.Node, path string) (es []Entry, ok bool) {
	m := r.Resolve(n)
	if m == nil {
		return nil, false
	}
	if IsNull(m) {
		return nil, true
	}
	if m.Kind != yaml.MappingNode {
		r.Errorf(n, path, "expected a mapping (key: value lines), found %s", Describe(m))
		return nil, false
	}
	if r.walking == nil {
		r.walking = map[*yaml.Node]bool{}
	}
	r.walking[m] = true
	defer delete(r.walking, m)
	var merged []Entry
	line := map[string]int{} // key -> the line it was first written on
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := r.Resolve(m.Content[i]), m.Content[i+1]
		if k == nil {
			return nil, false
		}
		if k.Kind == yaml.ScalarNode && k.ShortTag() == "!!merge" {
			merged = append(merged, r.merge(v, path)...)
			continue
		}
		if k.Kind != yaml.ScalarNode {
			r.Errorf(k, path, "expected a name as a key, found %s", Describe(k))
			continue
		}
		key := k.Value
		if IsNull(k) {
			key = ""
		}
		if first, dup := line[key]; dup {
			r.Errorf(k, Join(path, key), "duplicate key (first at line %d)", first)
			continue
		}
		line[key] = k.Line
		es = append(es, Entry{Key: key, KeyNode: k, Val: v})
	}
	for _, e := range merged {
		if _, written := line[e.Key]; !written {
			line[e.Key] = e.KeyNode.Line
			es = append(es, e)
		}
	}
	return es, true
}

// merge returns the pairs a merge key's value brings: a mapping, or a list of mappings.
func (r *Reader) merge(v *yaml.Node, path string) []Entry {
	n := r.Resolve(v)
	if n == nil {
		return nil
	}
	var es []Entry
	for _, item := range items(v, n) {
		m := r.Resolve(item)
		switch {
		case m == nil:
			return nil
		case m.Kind != yaml.MappingNode:
			r.Errorf(item, Join(path, "<<"), "merges a mapping or a list of mappings, not %s", Describe(m))
			continue
		case r.walking[m]:
			r.Errorf(item, Join(path, "<<"), "merges a mapping that holds this merge: a cycle")
			continue
		}
		more, _ := r.Entries(item, path)
		es = append(es, more...)
	}
	return es
}

// UnknownKey records that e's key is not one of known (listed in the error in their order),
// with note added after the list. path is e's key path.
func (r *Reader) UnknownKey(e Entry, path string, known []string, note string) {
	r.Errorf(e.KeyNode, path, "unknown key (known: %s%s)", strings.Join(known, ", "), note)
}

// Resolve follows an alias to its anchored node, counting the visit against the Reader's
// bound on the work a document may cause. It returns nil when the document has made the
// Reader visit too many nodes (Err then says so), and for an alias it cannot follow: the
// caller stops reading n.
func (r *Reader) Resolve(n *yaml.Node) *yaml.Node {
	r.visits++
	if r.visits >= maxVisits {
		return nil
	}
	for i := 0; n != nil && n.Kind == yaml.AliasNode && i < 100; i++ {
		n = n.Alias
	}
	if n != nil && n.Kind == yaml.AliasNode {
		return nil
	}
	return n
}

// items returns the items of the list n, or n itself as a list of one; resolved is n with
// its alias resolved.
func items(n, resolved *yaml.Node) []*yaml.Node {
	if resolved.Kind == yaml.SequenceNode {
		return resolved.Content
	}
	return []*yaml.Node{n}
}

// IsNull reports whether n is a plain null: nothing, ~ or null, unquoted.
func IsNull(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.Style&(yaml.SingleQuotedStyle|yaml.DoubleQuotedStyle) == 0 && n.ShortTag() == "!!null"
}

// Describe names a node's kind for an error: "nothing", "a mapping", "a list" or "a single
// value".
func Describe(n *yaml.Node) string {
	switch {
	case n == nil:
		return "nothing"
	case n.Kind == yaml.MappingNode:
		return "a mapping"
	case n.Kind == yaml.SequenceNode:
		return "a list"
	case IsNull(n):
		return "nothing"
	}
	return "a single value"
}

// Join returns the key path of key under path: "path.key", or key at the top.
func Join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}
