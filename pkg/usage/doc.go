// Package usage counts what a tree of assistant runs costs and stops it at its limits.
//
// A [Usage] counts model requests, tool calls and tokens. A [Ledger] is shared by a whole
// delegation tree: the top run and every run it delegates to, however deep. Each run opens an
// [Account] in the ledger under the account of the run that called it; what an account records
// is added to it, to each of its ancestors and to the ledger, by agent and by model, so that
// every run can report the usage of its own subtree ([Account.Report]) and the ledger can report
// the whole tree ([Ledger.Report]).
//
// [Limits] hold for the whole tree. Before each model request a run reserves it with
// [Account.ReserveRequest]; before running a batch of tool calls it reserves the batch with
// [Account.ReserveToolCalls]. Reservations are checked and counted atomically against the
// account, each ancestor and the ledger, so that runs going on in parallel cannot together
// exceed a limit. A limit that stops a run is reported as a [*LimitError].
//
// The ledger travels in a context: [WithLedger] puts it there and [LedgerFrom] takes it out.
package usage
