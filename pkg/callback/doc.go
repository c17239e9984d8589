// Package callback reports what happens during assistant runs.
//
// A run emits an [Event] at each step: the run starting and ending, each model request and its
// response or error, each tool call and its result, and each answer that could not be used and
// is corrected. Events go to a [Handler], which an assistant takes through
// assistant.WithCallback or, for one run and every run it delegates to, through Input.Options.
//
// The package is shaped like log/slog: [Handler] is a one-method interface with a stated
// concurrency contract, [HandlerFunc] adapts a function, [Multi] fans events out to several
// handlers, and [NewSlogHandler] logs events to a *slog.Logger. [NewProgress] writes a line per
// step for a person watching: which assistant is working, which tool is running, and the
// tokens spent so far.
//
// Events never hold an API key. By default the slog handler also leaves out tool arguments and
// results, which may hold personal data; [WithContent] includes them, cut to a length.
package callback
