// Package schemacheck is the fast path of schema.Validate: a JSON Schema compiled into a
// [Checker] that reads data once, in place, and allocates nothing, to say that it is valid.
//
// It is not a validator of its own. A Checker exists only for documents whose every keyword it
// decides exactly as santhosh-tekuri/jsonschema/v6 does (see [Compile]), and it answers only
// "valid" ([Checker.Valid]): data that is invalid, or that it does not decide, goes to v6, which
// decides and words the errors a model reads. So it changes how fast Validate answers, never
// what it answers. Its tests hold it to that: on random schemas of its subset and random data,
// and in FuzzValidate, it may say valid (or, inside, invalid) only when v6 says so.
//
// What it buys, measured: a tool call's arguments of a few properties take about 0.25 µs and no
// allocation here, against several µs and some thirty allocations to decode them and run v6
// (BenchmarkValidate and BenchmarkValidateFull in pkg/schema).
package schemacheck
