// Package ojson reads, edits and writes JSON values whose objects keep the order of their
// members, for code that rewrites a JSON document and must write it back in the order it came:
// the order of a schema's properties is the order in which a model writes them.
//
// A value is one of *[Object], []any, string, [encoding/json.Number], bool, or nil for null:
// what encoding/json decodes into an any with UseNumber, with *Object in place of
// map[string]any. [Parse] makes such a value of a JSON document; code may build and change
// one with these types; [Encode] and [Append] write it back as compact JSON, objects in member
// order and strings as written (no HTML escaping). A value is plain data: it is safe for
// concurrent reads, and its user guards any change.
package ojson
