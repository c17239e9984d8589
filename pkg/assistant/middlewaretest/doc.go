// Package middlewaretest checks an assistant.Middleware against the contract its
// documentation states, in the way testing/slogtest checks a slog.Handler and testing/fstest
// an fs.FS: the same checks for every middleware, the repository's and yours.
//
// [Run] checks a middleware from a test, a subtest for each rule; [Test] returns what it found
// as an error, for use anywhere else:
//
//	func TestMiddleware(t *testing.T) {
//		middlewaretest.Run(t, audit.Middleware(log))
//	}
//
// Both run a handful of assistants through the middleware — an answer, a turn of parallel tool
// calls, a tool that fails, a delegation to another assistant, an answer corrected, a model
// that fails and one that falls back, a tool turn whose next fails — on the models of package
// llmtest, and watch every step from both sides of the middleware: a probe around it puts a
// value in each step's context, keeps a copy of each request and sees what the middleware
// returns; a probe inside it, in next, counts the calls, looks for the value and sees what
// next returned; and the run's end says whether it went through. The rules, each the name of a subtest of Run and the start
// of each error of Test:
//
//   - NextAtMostOnce: next is called at most once per step, and each call of a tool turn runs
//     at most once, however the middleware runs them.
//   - OneResultPerCallInOrder: a ToolTurn middleware returns one result per call, each call's
//     in its place.
//   - RequestAsItWas: a Request middleware changes nothing of the ModelRequest it is given
//     (its fields, messages, parts, tool calls' arguments), before or after next.
//   - ContextPassedOn: the context given to next, and to ToolTurn.Call, holds the values of
//     the step's context, and its cancellation reaches it.
//   - ErrorsAsDocumented: when next fails, the middleware returns next's error, or an error
//     that wraps it; for a request, a copy of it as a durable engine makes.
//   - RunsGoThrough: each run ends as it does without the middleware — its answer, or its
//     failure. The kit checks a middleware that passes the steps on: one that refuses, limits
//     or answers from a cache must be set up so that it lets the kit's runs through.
//
// A middleware that works only in a setting of its own gets its runs there through
// [WithRunner]. A durable engine's makes steps only inside a DBOS workflow: the runner runs
// each assistant inside one, with the middleware already in place:
//
//	middlewaretest.Run(t, eng.Middleware(), middlewaretest.WithRunner(
//		func(ctx context.Context, a *assistant.Assistant[string], in assistant.Input) (*assistant.Response, error) {
//			return inWorkflow(ctx, a, in) // a workflow of the test's own that calls a.Call
//		}))
package middlewaretest
