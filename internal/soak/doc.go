// Package soak puts cadre under load and prints what it measured: `make soak`, whose figures
// docs/reliability.md keeps.
//
// The package is its tests and nothing else. TestSoak runs only with CADRE_SOAK=1 in the
// environment, so that `go test ./...` (and make test) skips it in a moment; make soak sets
// it, and starts the redis-server that one part needs (scripts/with-redis). Its parts run one
// after the other, each printing its table to stdout and to the test's log, and failing when
// an invariant breaks: an error, a lost or duplicated message, a goroutine left behind.
//
//   - runs_in_process and runs_over_HTTP: 10,000 concurrent runs of an assistant whose model
//     calls a tool four times in parallel and then answers with a typed value (the round of
//     pkg/assistant's BenchmarkRunToolRound), against an llmtest model in the process, then
//     against the fake OpenAI API of providertest, in a process of its own, through an
//     llm.yaml;
//   - MCP_clients: 1,000 MCP clients over streamable HTTP, each calling that assistant served
//     as a tool by mcpbridge;
//   - appends_to_one_chat: two processes appending to one chat at once, 1,000 appenders in
//     all, through Redis and through one SQLite file, then a check that every append is in
//     the chat once, whole and in its appender's order.
//
// Every server is on 127.0.0.1, every part is bounded by a context deadline, and every process
// a part starts ends with it.
package soak
