// Package schemacheck is the fast path of schema.Validate: a JSON Schema compiled into a
// [Checker] that reads data once, in place, and allocates nothing, to say that it is valid.
//
// It is not a validator of its own. A Checker exists only for documents whose every keyword it
// decides exactly as santhosh-tekuri/jsonschema/v6 does (see [Compile]), and it answers only
// "valid" ([Checker.Valid]): data that is invalid, or that it does not decide, goes to v6, which
// decides and words the errors a model reads. So it changes how fast Validate answers, never
// what it answers. Its tests hold it to that: on random schemas of its subset and random data,
// and in FuzzValidate, whatever it decides (inside, it tells invalid from undecided too) must be
// what v6 decides.
//
// What it buys, measured on the contract's workloads with cadre with and without it (without:
// no Checker is compiled, so Validate always decodes the data and runs v6), one run of
// shared/bench/run.sh each on 2026-12-01, on a 2-core machine that others were loading (load
// average 8 to 10: the times are rough, the allocations exact):
//
//   - W1, one typed answer: 10,320 ns and 21 allocs with, 20,035 ns and 54 allocs without;
//     3.22x the hand-written floor with, 6.89x without.
//   - W2, four tool calls then the typed answer: 28,974 ns and 112 allocs with, 76,437 ns and
//     225 allocs without; 1.35x the floor with, 3.21x without.
//
// Alone, on a tool call's arguments of a few properties (pkg/schema's BenchmarkValidate and
// BenchmarkValidateFull, the same day): about 1.1 µs and no allocation with, 22 to 33 µs and 142
// allocations without.
package schemacheck
