// Package chattest checks a chat.Store against the promises of its contract, the same way for
// every store: call [Run] from a test of the store's package with a function that opens a
// fresh, empty store.
//
// The suite covers what assistants and the programs around them rely on: every part type of
// langchaingo's messages survives a round trip, concurrent appends to one chat never
// interleave, the messages given to Append and returned by Load are the caller's to change, a
// state is taken by exactly one of many TakeStates at once, and by TakeStateIf only when it is
// the state asked for, chats of other tenants and users are never seen, IDs with any bytes are
// kept apart, invalid IDs and cancelled contexts are errors, and the history window cut from a
// loaded chat never separates a tool call from its result.
//
// [CheckLinearizable] and [CheckLinearizableAcrossProcesses] check the promises together: that
// random calls of many goroutines, and of two processes sharing a store, behave as the calls
// of one chat taken one at a time would. They check the histories with porcupine
// (github.com/anishathalye/porcupine), and read the clock both processes share through
// golang.org/x/sys/unix: two dependencies of this package, which a program that does not
// import it does not link.
package chattest
