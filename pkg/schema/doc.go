// Package schema gives Go types their JSON Schema, makes the strict form that OpenAI-style
// strict tools want, and validates JSON against a schema with errors a model can act on.
//
// A [Schema] holds a document, its strict form and a compiled validator. [For] and [Of] make one
// from a Go type with invopop/jsonschema, once per type; [Compile] makes one from a document
// given as JSON, such as an MCP server's tool input schema. Validation is done by
// santhosh-tekuri/jsonschema/v6, compiled once per Schema. For the documents tool APIs use,
// a checker compiled beside it first reads the data once, in place, without allocating: when it
// finds the data valid, Validate returns at once; otherwise v6 decides and words the errors, so
// the answers are always v6's. [Schema.StrictSchema] validates against the strict form.
//
// Documents made from Go types suit tool APIs: they carry no "$schema" and no "$id", and they
// are inlined (no "$ref", no "$defs"), except that the types on a cycle of a recursive type
// stay in "$defs"; the root is always inlined, so a struct's root is {"type": "object", ...}.
//
// [Schema.Validate] returns a [*ValidationError] that lists one [FieldError] per problem, each
// naming the field ("items[0].name") and saying what is wrong in plain words
// ("got string, want integer"), so that the message can go back to a model as it is.
//
// The package keeps one piece of state: the cache of schemas by Go type behind For and Of,
// which, like encoding/json's cache of encoders, only grows and never changes an entry.
package schema
