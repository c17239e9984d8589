package callback

import "context"

// A Handler receives the events of runs.
//
// Handle is called synchronously, on the goroutine where the event happened, and the run waits
// for it: Handle must return quickly and hand any slow work (network, disk) to another goroutine.
//
// The events of one run arrive in order: RunStart first; a ModelRequest before its
// ModelResponse or ModelError; a ToolStart before its ToolEnd or ToolError (match them by
// CallID); RunEnd or RunError last. But the tool calls of one model turn run concurrently, and a
// delegated run (its ParentRunID is the caller's RunID) runs inside one of them, so events of
// one run and of its delegated runs come from several goroutines at once: Handle must be safe
// for concurrent use.
//
// ctx is the context of the run the event belongs to, passed so that Handle can read its
// values. It may already be done (a RunError for a cancelled run is still delivered), and that
// should not stop Handle from handling the event.
//
// The event is passed by value; Handle may keep it (see [Event]). A panic in Handle is not
// recovered: it ends the run's goroutine like any other panic.
//
// Only cadre's runs should call Handle; to send events to several handlers, use [Multi].
type Handler interface {
	Handle(ctx context.Context, e Event)
}

// HandlerFunc adapts an ordinary function to a [Handler]. The function must keep the Handler
// contract: be safe for concurrent use and return quickly.
type HandlerFunc func(ctx context.Context, e Event)

// Handle calls f(ctx, e).
func (f HandlerFunc) Handle(ctx context.Context, e Event) { f(ctx, e) }
