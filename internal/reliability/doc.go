// Package reliability holds the fault matrix of cadre: the real langchaingo clients of each
// provider (OpenAI, Anthropic, Google AI), made by the llm.yaml factory with its retrying
// transport, against the fake provider APIs of package providertest, under every fault a
// network and a provider produce (rate limits, 5xx, timeouts, resets, cut and malformed
// bodies, answers without choices, streams cut short, hosts that do not exist), at every stage
// of a run (its first request, after a tool turn, while streaming, inside a delegated run).
// Each cell must end in recovery or a typed error, with no tool run twice, the usage kept, no
// goroutine left, and the API key in no error, log line, event, stored chat or result.
//
// It has no code of its own: the matrix is its tests. `make reliability` prints the matrix as
// a table (go test -v -run TestFaultMatrix ./internal/reliability/).
package reliability
